import { readdirSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Protocol } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { CLOSE_RATE_LIMITED, MSG_MOVE, MSG_REJECTED, MSG_WELCOME, type RejectedMessage, RoomState, type WelcomeMessage } from "../../shared/net/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { patches } from "./helpers.ts";
import { api, cleanupDirs, eventually, json, rawJoin, sleep, spawnServer, stopAllServers, tempDir } from "./processes.ts";

/** Per-client rate limits, per-process room cap, idle rooms, and the replay directory's bounds, on real processes. */

type TestRoom = Room<unknown, RoomState>;

interface Watched {
  room: TestRoom;
  rejected: RejectedMessage[];
  left: { code: number; reason?: string } | null;
  welcome: Promise<WelcomeMessage>;
}

function watch(room: TestRoom): Watched {
  room.reconnection.enabled = false;
  const w: Watched = { room, rejected: [], left: null, welcome: new Promise((res) => room.onMessage(MSG_WELCOME, (m: WelcomeMessage) => res(m))) };
  room.onMessage(MSG_REJECTED, (m: RejectedMessage) => w.rejected.push(m));
  room.onLeave((code, reason) => {
    w.left = { code, reason };
  });
  return w;
}

async function joinRoom(url: string, roomId: string): Promise<Watched> {
  return watch((await new Client(url).joinById(roomId, {}, RoomState)) as TestRoom);
}

async function roomIds(url: string): Promise<string[]> {
  return (await json<{ roomId: string }[]>(api(url, "GET", "/rooms"))).map((r) => r.roomId);
}

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

describe("rate limits", () => {
  it("throttles a flooding client, then disconnects it with 4029 and the reason; the others are unaffected", async () => {
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), MAX_INPUTS_PER_SECOND: "40", FLOOD_DISCONNECT_SECONDS: "2", MAX_ROOMS: "5" });
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "arena" }))).roomId;
    const bystander = await joinRoom(server.url, roomId);
    const polite = await joinRoom(server.url, roomId);
    const burst = await joinRoom(server.url, roomId);
    const steady = await joinRoom(server.url, roomId);
    expect((await burst.welcome).maxInputsPerSecond).toBe(40);

    // Polite: 10 messages per second throughout.
    const politeTimer = setInterval(() => polite.room.send(MSG_MOVE, { vx: 1, vz: 0 }), 100);
    // Burst: 1000 messages at once, over 4x the rate within one second: dropped beyond 40, then cut off.
    for (let i = 0; i < 1000; i++) burst.room.send(MSG_MOVE, { vx: 2, vz: 0 });
    await eventually("the burst client disconnected", () => burst.left !== null);
    expect(burst.left?.code).toBe(CLOSE_RATE_LIMITED);
    expect(burst.left?.reason).toMatch(/^rate limit: over 40 messages per second for \d s \(\d+ in the last second\)$/);
    expect(burst.rejected.map((r) => r.reason)).toContain("rate limit: at most 40 messages per second; the rest of this second is dropped");
    // Kicked, it keeps no seat: its reconnection token is refused.
    await expect(new Client(server.url).reconnect(burst.room.reconnectionToken, RoomState)).rejects.toThrow(/reconnection token invalid or expired|seat reservation expired/);
    // The same for a flooder that never answers the close frame: its socket then closes with 1006, which
    // alone would look like a network drop; the room remembers the kick by session.
    const deaf = await rawJoin(server.url, roomId, true);
    for (let i = 0; i < 400; i++) deaf.peer.send(Uint8Array.of(Protocol.ROOM_DATA, 0));
    await eventually("the deaf flooder closed with 4029", () => deaf.peer.closeCodes.includes(CLOSE_RATE_LIMITED));
    await eventually("its socket gone", () => deaf.peer.ended);
    await expect(new Client(server.url).reconnect(deaf.reconnectionToken, RoomState)).rejects.toThrow(/reconnection token invalid or expired|seat reservation expired/);
    // Steady: ~2.5x the rate (under the 4x that cuts at once), sustained: throttled in the first second,
    // disconnected in the second. Even at half speed (a busy machine) it stays over the rate.
    const steadyTimer = setInterval(() => {
      for (let i = 0; i < 3; i++) steady.room.send(MSG_MOVE, { vx: 0, vz: 2 });
    }, 30);
    await eventually("the steady flooder disconnected", () => steady.left !== null, 10000);
    clearInterval(steadyTimer);
    expect(steady.left?.code).toBe(CLOSE_RATE_LIMITED);
    expect(steady.left?.reason).toMatch(/^rate limit: over 40 messages per second for 2 s/);
    expect(steady.rejected.some((r) => r.reason.startsWith("rate limit: at most 40"))).toBe(true);
    // Their accepted inputs moved their avatars (throttling drops the excess, not everything).
    await patches(bystander.room, 3);
    clearInterval(politeTimer);
    expect(polite.rejected).toEqual([]);
    expect(polite.left).toBeNull();
    expect(bystander.rejected).toEqual([]);
    expect(bystander.left).toBeNull();
    const metrics = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    expect(Number(/physics_rejected_inputs_total\{room="[^"]+"\} (\d+)/.exec(metrics)?.[1])).toBeGreaterThan(100);
    await eventually("the three disconnections logged", () => server.logs(/disconnected: rate limit/).length === 3);

    // Per-process room cap (MAX_ROOMS=5): the sixth room is refused with the reason, over the admin API
    // and through matchmaking alike.
    while ((await roomIds(server.url)).length < 5) {
      expect((await api(server.url, "POST", "/rooms", { scenario: "stack10" })).status).toBe(201);
    }
    const full = await api(server.url, "POST", "/rooms", { scenario: "stack10" });
    expect(full.status).toBe(503);
    expect((await json<{ message: string }>(full)).message).toMatch(/server full: this process already hosts 5 rooms/);
    await expect(new Client(server.url).create("physics", { scenario: "stack10" }, RoomState)).rejects.toThrow(/server full/);
    for (const w of [bystander, polite]) await w.room.leave();
  });
});

describe("idle rooms", () => {
  it("disposes empty player rooms after ROOM_IDLE_SECONDS and empty admin rooms after the longer ADMIN_ROOM_IDLE_SECONDS", async () => {
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), ROOM_IDLE_SECONDS: "1", ADMIN_ROOM_IDLE_SECONDS: "6" });
    const adminRoom = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "stack10" }))).roomId;
    const quitter = watch((await new Client(server.url).create("physics", { scenario: "stack10" }, RoomState)) as TestRoom);
    const stayer = watch((await new Client(server.url).create("physics", { scenario: "stack10" }, RoomState)) as TestRoom);
    await quitter.room.leave();
    await eventually("the empty player room disposed", async () => !(await roomIds(server.url)).includes(quitter.room.roomId));
    // The admin room has been empty just as long but has a longer timeout; the occupied room stays.
    expect(await roomIds(server.url)).toEqual(expect.arrayContaining([adminRoom, stayer.room.roomId]));
    await sleep(1500); // more than ROOM_IDLE_SECONDS with a player inside
    expect(await roomIds(server.url)).toContain(stayer.room.roomId);
    expect(stayer.left).toBeNull();
    await stayer.room.leave();
    await eventually("the player room disposed after its player left", async () => !(await roomIds(server.url)).includes(stayer.room.roomId));
    await eventually("the empty admin room disposed", async () => !(await roomIds(server.url)).includes(adminRoom), 15000);
    await eventually("the disposal logged", () => server.logs(/empty for 6 s, disposing/).length === 1);
    // Its replay was closed properly.
    const report = await verifyReplay(join(server.env.REPLAY_DIR, `${adminRoom}.ndjson`));
    expect(report.ended).toBe(true);
    expect(report.divergence).toBeNull();
  });
});

describe("replay directory bounds", () => {
  it("deletes the oldest closed replays over REPLAY_DIR_MAX_BYTES and ends recordings at REPLAY_FILE_MAX_BYTES", async () => {
    const dir = tempDir("replays");
    const hour = 3600;
    const now = Date.now() / 1000;
    const filler = `${"x".repeat(99_999)}\n`;
    for (const [name, age] of [
      ["old1", 3 * hour],
      ["old2", 2 * hour],
      ["old3", hour],
      ["recent", 0],
    ] as const) {
      const file = join(dir, `${name}.ndjson`);
      writeFileSync(file, filler);
      utimesSync(file, now - age, now - age);
    }
    writeFileSync(join(dir, "notes.txt"), filler); // not a replay: never touched
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: dir, REPLAY_DIR_MAX_BYTES: "350000", REPLAY_FILE_MAX_BYTES: "8000" });
    // A new recording triggers the size check: 400 kB of replays + the new one > 350 kB → the oldest goes.
    const scenario = { name: "fast", world: { tickRate: 240 }, bodies: [{ id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] }, { id: "b", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 3, 0] }] };
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario }))).roomId;
    await eventually("old1 deleted", () => !readdirSync(dir).includes("old1.ndjson"));
    const left = readdirSync(dir).sort();
    expect(left).toEqual(["notes.txt", "old2.ndjson", "old3.ndjson", "recent.ndjson", `${roomId}.ndjson`].sort());
    await eventually("the rotation logged", () => server.logs(/deleted 1 oldest closed replay/).length === 1);

    // The live recording stops at 8000 bytes with an end line; the room runs on.
    const file = join(dir, `${roomId}.ndjson`);
    await eventually("the recording closed at its size limit", async () => (await json<{ recording: boolean }>(api(server.url, "GET", `/rooms/${roomId}`))).recording === false);
    await eventually("the end line on disk", () => readFileSync(file, "utf8").includes('"reason":"size-limit"'));
    expect(statSync(file).size).toBeLessThan(8000 + 1000);
    const report = await verifyReplay(file);
    expect(report.ended).toBe(true);
    expect(report.divergence).toBeNull();
    const t0 = (await json<{ tick: number }>(api(server.url, "GET", `/rooms/${roomId}`))).tick;
    await eventually("the room still ticking", async () => (await json<{ tick: number }>(api(server.url, "GET", `/rooms/${roomId}`))).tick > t0 + 50);
  });
});
