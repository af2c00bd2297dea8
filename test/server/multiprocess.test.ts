import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSG_MOVE, MSG_SPAWN, MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { needTool } from "../docs/system-tools.ts";
import {
  api,
  cleanupDirs,
  dropRedisPrefix,
  eventually,
  freePort,
  json,
  type Nginx,
  redisPrefix,
  replicaEnv,
  type ServerProcess,
  spawnServer,
  startNginx,
  stopAllServers,
  tempDir,
  verifyCli,
} from "./processes.ts";

/**
 * The docker-compose topology as plain processes: Redis (the machine's, a key prefix of its own), two
 * servers A and B with the same variables as docker-compose.yml, and Debian's nginx on the same template
 * (deploy/nginx/physics.conf.template) routing each PUBLIC_ADDRESS path to its process.
 */

const scene: Scenario = {
  name: "mp-scene",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [30, 0.5, 30] }, position: [0, -0.5, 0] },
    { id: "box", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [4, 0.5, 0] },
  ],
};

interface RoomEntry {
  roomId: string;
  processId?: string;
  tick?: number;
  infoAgeMs?: number;
  checkpointTick?: number;
  settings?: { gravity: number[]; friction: number | null };
}

let prefix: string;
let nginx: Nginx | null = null;
beforeAll(() => {
  prefix = redisPrefix();
});
afterAll(async () => {
  await nginx?.stop();
  await stopAllServers();
  dropRedisPrefix(prefix);
  cleanupDirs();
});

// npm test's pretest (scripts/system-deps.sh) installs Debian's nginx; CI must run this test, a machine
// without nginx skips it and the run lists it as NOT RUN.
const hasNginx = needTool("nginx", "test/server/multiprocess.test.ts", spawnSync("nginx", ["-v"]).status === 0);

/** A and B on Redis behind nginx, A already hosting one room (so new rooms go to B). */
interface Topology {
  A: ServerProcess;
  B: ServerProcess;
  proxyPort: number;
  /** nginx's own address. */
  proxyUrl: string;
  viaA: string;
  viaB: string;
  dirB: string;
  roomOnA: string;
  processA: string;
  processB: string;
}

/** Starts A, creates a room on it, starts B and nginx, and waits until both processes see each other. */
async function startTopology(): Promise<Topology> {
  const proxyPort = await freePort();
  const dirA = tempDir("replays-a");
  const dirB = tempDir("replays-b");
  const A: ServerProcess = await spawnServer(replicaEnv("a", proxyPort, prefix, dirA));
  // A room on A before B exists: A now hosts one room, so A sends the next new room to B (fewest rooms).
  const created = await api(A.url, "POST", "/rooms", { scenario: "stack10" });
  expect(created.status).toBe(201);
  const roomOnA = (await json<{ roomId: string }>(created)).roomId;
  const B = await spawnServer(replicaEnv("b", proxyPort, prefix, dirB));
  nginx = await startNginx({ SERVER_A: `127.0.0.1:${A.port}`, SERVER_B: `127.0.0.1:${B.port}`, PROXY_LISTEN: `127.0.0.1:${proxyPort}` }, proxyPort);
  const viaA = `${nginx.url}/a`;
  const viaB = `${nginx.url}/b`;
  const processes = await eventually("A and B in the shared process stats", async () => {
    const list = await json<{ processId: string; rooms: number; self: boolean }[]>(api(viaA, "GET", "/processes"));
    return list.length === 2 && list.find((p) => p.self)?.rooms === 1 ? list : null;
  });
  const processA = processes.find((p) => p.self)!.processId;
  const processB = processes.find((p) => !p.self)!.processId;
  return { A, B, proxyPort, proxyUrl: nginx.url, viaA, viaB, dirB, roomOnA, processA, processB };
}

/** A player matchmakes through A into a room on B, moves and spawns a ball; `playerLeft` is the leave code once it left. */
async function joinPlayerOnB(t: Topology): Promise<{ room: Room<unknown, RoomState>; playerLeft: () => number | null }> {
  const { viaA, proxyPort, processB } = t;
  // A player matchmakes through A's address; the seat reservation sends its socket to B's path.
  const player = new Client(viaA);
  const room = (await player.create("physics", { scenario: scene }, RoomState)) as Room<unknown, RoomState>;
  room.reconnection.enabled = false;
  room.onMessage(MSG_WELCOME, () => {});
  const socketUrl = (room.connection as unknown as { transport: { ws: WebSocket } }).transport.ws.url;
  expect(socketUrl).toContain(`127.0.0.1:${proxyPort}/b/${processB}/${room.roomId}`);
  let playerLeft: number | null = null;
  room.onLeave((code) => {
    playerLeft = code;
  });
  await eventually("the player's state", () => room.state.bodies.has("box") && room.state.bodies.has(`avatar-${room.sessionId}`));
  // A reserved the seat (it served the request), B hosts the room: B's announcement over presence gives
  // A's admission the seat back at once (not at its expiry, which only a later reservation would apply).
  const pendingOnA = async () => Number(/^physics_admission_pending_seats (\d+)$/m.exec(await (await api(viaA, "GET", "/metrics", undefined, null)).text())?.[1]);
  await eventually("A's pending seat released", async () => (await pendingOnA()) === 0, 3000);
  room.send(MSG_MOVE, { vx: 3, vz: 0 });
  room.send(MSG_SPAWN, { shape: "sphere", size: 0.3 });
  await eventually("the spawned ball", () => room.state.bodies.has("s1"));
  return { room, playerLeft: () => playerLeft };
}

/** A's admin API changes settings of and loads a scenario into B's room, and lists both rooms. */
async function administerRoomOnBThroughA(t: Topology, room: Room<unknown, RoomState>): Promise<void> {
  const { viaA, viaB, roomOnA, processA, processB } = t;
  // A's admin changes the settings of B's room; B's own API shows the room applied them.
  const patched = await api(viaA, "PATCH", `/rooms/${room.roomId}/settings`, { gravity: [0, -2, 0], friction: 0.3 });
  expect(patched.status).toBe(200);
  const onB = await eventually("B applied the settings", async () => {
    const info = await json<RoomEntry>(api(viaB, "GET", `/rooms/${room.roomId}`));
    return info.settings?.gravity[1] === -2 ? info : null;
  });
  expect(onB.settings?.friction).toBe(0.3);
  expect(onB.processId).toBe(processB);
  // The same room read through A (one remote call to B).
  expect((await json<RoomEntry>(api(viaA, "GET", `/rooms/${room.roomId}`))).settings?.gravity).toEqual([0, -2, 0]);
  // A scenario load through A is validated by B's room caps and answered as a 400 naming the field.
  const tooFast = await api(viaA, "POST", `/rooms/${room.roomId}/scenario`, { scenario: { ...scene, world: { tickRate: 500 } } });
  expect(tooFast.status).toBe(400);
  expect((await json<{ message: string }>(tooFast)).message).toBe("scenario.world.tickRate: must be <= 120 in this room");
  const reload = await api(viaA, "POST", `/rooms/${room.roomId}/scenario`, { scenario: { ...scene, name: "mp-scene-2" } });
  expect(reload.status).toBe(200);
  await eventually("B loaded the new scenario", async () => (await json<{ scenario: string }>(api(viaB, "GET", `/rooms/${room.roomId}`))).scenario === "mp-scene-2");

  // GET /rooms on A lists both: its own room fresh, B's from the summary in the shared listing.
  const listed = await eventually("both rooms listed on A", async () => {
    const rooms = await json<RoomEntry[]>(api(viaA, "GET", "/rooms"));
    return rooms.length === 2 ? rooms : null;
  });
  expect(listed.find((r) => r.roomId === roomOnA)).toMatchObject({ processId: processA, infoAgeMs: 0 });
  expect(listed.find((r) => r.roomId === room.roomId)?.processId).toBe(processB);
}

/** B's replay, downloaded through A while the room runs and after A's admin closes it, verifies. */
async function verifyReplaysOfBThroughA(t: Topology, room: Room<unknown, RoomState>, playerLeft: () => number | null): Promise<void> {
  const { viaA, processB } = t;
  // B's replay downloaded through A (streamed from B over presence IPC) verifies tick for tick.
  const replay = await api(viaA, "GET", `/rooms/${room.roomId}/replay`, undefined, null);
  expect(replay.status).toBe(200);
  expect(replay.headers.get("x-replay-host")).toBe(processB);
  const text = await replay.text();
  expect(text).toContain('"type":"settings"');
  expect(text).toContain('"name":"mp-scene-2"');
  const copy = join(tempDir("copy"), "b-live.ndjson");
  writeFileSync(copy, text);
  const live = await verifyReplay(copy);
  expect(live.divergence).toBeNull();
  expect(live.inputs).toBeGreaterThanOrEqual(5); // join, move, spawn, settings, load

  // A's admin closes B's room; its replay stays downloadable through A (presence knows B recorded it).
  expect((await api(viaA, "DELETE", `/rooms/${room.roomId}`)).status).toBe(204);
  await eventually("the player told the room closed", () => playerLeft() === 4000);
  const closed = await api(viaA, "GET", `/rooms/${room.roomId}/replay`, undefined, null);
  expect(closed.status).toBe(200);
  expect(closed.headers.get("x-replay-host")).toBe(processB);
  const closedCopy = join(tempDir("copy"), "b-closed.ndjson");
  writeFileSync(closedCopy, await closed.text());
  const closedReport = await verifyReplay(closedCopy);
  expect(closedReport).toMatchObject({ ended: true, divergence: null });
}

/** A second room lands on B, B is killed, and A drops B and its room. Returns the killed room's player. */
async function killBWithARoom(t: Topology): Promise<Room<unknown, RoomState>> {
  const { A, B, viaA, roomOnA, processA, processB } = t;
  // A second player room lands on B again (B is back to 0 rooms), and B dies without a word.
  await eventually("B back to no rooms", async () => (await json<{ rooms: number; self: boolean }[]>(api(viaA, "GET", "/processes"))).find((p) => !p.self)?.rooms === 0);
  const victim = (await new Client(viaA).create("physics", { scenario: scene }, RoomState)) as Room<unknown, RoomState>;
  victim.reconnection.enabled = false;
  victim.onMessage(MSG_WELCOME, () => {});
  expect((victim.connection as unknown as { transport: { ws: WebSocket } }).transport.ws.url).toContain(`/b/${processB}/${victim.roomId}`);
  let victimLeft: number | null = null;
  victim.onLeave((code) => {
    victimLeft = code;
  });
  victim.send(MSG_MOVE, { vx: -2, vz: 1 });
  await eventually("ticks recorded on B", async () => ((await json<RoomEntry>(api(viaA, "GET", `/rooms/${victim.roomId}`))).tick ?? 0) > 90);
  // Resumable once its first checkpoint base is in Redis (the listing shows its tick).
  await eventually("B's room checkpointed", async () => (await json<RoomEntry>(api(viaA, "GET", `/rooms/${victim.roomId}`))).checkpointTick !== undefined, 15_000);
  B.child.kill("SIGKILL");
  await B.exited;
  await eventually("the player notices B is gone", () => victimLeft !== null);
  // Once its health check finds B dead, A resumes B's room from its checkpoint (server/failover/): the
  // listing holds A's own room and the resumed one, both on A (bounded wait).
  await eventually(
    "B's room resumed on A",
    async () => {
      const rooms = await json<RoomEntry[]>(api(viaA, "GET", "/rooms"));
      return rooms.length === 2 && rooms.some((r) => r.roomId === roomOnA) && rooms.find((r) => r.roomId === victim.roomId)?.processId === processA;
    },
    20000,
  );
  expect((await json<{ processId: string }[]>(api(viaA, "GET", "/processes"))).map((p) => p.processId)).toEqual([processA]);
  await eventually("A logged B's removal", () => A.logs(/stopped answering/).length === 1);
  return victim;
}

/** After B's death, A's room ticks, takes a player and new rooms land on A; the resumed room's replay is A's new segment. */
async function expectAKeepsServing(t: Topology, victim: Room<unknown, RoomState>): Promise<void> {
  const { viaA, proxyUrl, roomOnA, processA } = t;
  // A keeps serving: its room ticks, a player joins it, and new rooms land on A.
  const t0 = (await json<RoomEntry>(api(viaA, "GET", `/rooms/${roomOnA}`))).tick ?? 0;
  await eventually("A's room ticking", async () => ((await json<RoomEntry>(api(viaA, "GET", `/rooms/${roomOnA}`))).tick ?? 0) > t0 + 30);
  const second = new Client(proxyUrl);
  const onA = (await second.joinById(roomOnA, {}, RoomState)) as Room<unknown, RoomState>;
  await new Promise<void>((res) => onA.onMessage(MSG_WELCOME, () => res()));
  expect((onA.connection as unknown as { transport: { ws: WebSocket } }).transport.ws.url).toContain(`/a/${processA}/`);
  const fresh = (await new Client(proxyUrl).create("physics", { scenario: "stack10" }, RoomState)) as Room<unknown, RoomState>;
  fresh.onMessage(MSG_WELCOME, () => {});
  expect((fresh.connection as unknown as { transport: { ws: WebSocket } }).transport.ws.url).toContain(`/a/${processA}/`);
  await fresh.leave();
  await onA.leave();
  // The resumed room records its next segment on A: it starts from the checkpoint it resumed from.
  const resumed = await api(viaA, "GET", `/rooms/${victim.roomId}/replay`, undefined, null);
  expect(resumed.status).toBe(200);
  expect((await resumed.text()).split("\n")[1]).toMatch(/^\{"type":"resume","t":\d+,"segment":2,/);
}

/** B's replay files on B's disk verify: the killed room's up to its last complete tick, the closed one whole. */
async function verifyFilesOnB(t: Topology, victim: Room<unknown, RoomState>, room: Room<unknown, RoomState>): Promise<void> {
  const { dirB } = t;
  // B's files (on B's disk) verify: the killed room's up to its last complete tick, the closed one whole.
  const cli = verifyCli(join(dirB, `${victim.roomId}.ndjson`));
  expect(cli.stdout).toMatch(/^OK /m);
  expect(cli.status).toBe(0);
  const report = await verifyReplay(join(dirB, `${victim.roomId}.ndjson`));
  expect(report.divergence).toBeNull();
  expect(report.ended).toBe(false);
  // Lines are written every 500 ms: a SIGKILL loses what was still buffered (~30 ticks at 60 Hz).
  expect(report.ticks).toBeGreaterThan(30);
  expect(verifyCli(join(dirB, `${room.roomId}.ndjson`)).status).toBe(0);
}

describe.skipIf(!hasNginx && process.env.CI !== "true")("two processes on Redis behind nginx", () => {
  it("matchmakes through A into a room on B, administers it from A, and survives B's death", async () => {
    const t = await startTopology();
    const { A, viaA } = t;
    const { room, playerLeft } = await joinPlayerOnB(t);
    await administerRoomOnBThroughA(t, room);
    await verifyReplaysOfBThroughA(t, room, playerLeft);
    const victim = await killBWithARoom(t);
    await expectAKeepsServing(t, victim);
    await verifyFilesOnB(t, victim, room);

    // A still healthy; SIGTERM ends it cleanly and removes its own entries.
    expect((await api(viaA, "GET", "/ready", undefined, null)).status).toBe(200);
    A.child.kill("SIGTERM");
    expect((await A.exited).code).toBe(0);
  });
});
