import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { MSG_MOVE, MSG_SPAWN, MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { api, cleanupDirs, eventually, json, rawJoin, reserveSeat, spawnServer, stopAllServers, tempDir } from "../server/processes.ts";

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

/** Two players in the arena room `busy` and one in a player-created room; `players` holds all three. */
async function joinPlayers(url: string, busy: string): Promise<{ players: Room<unknown, RoomState>[]; own: Room<unknown, RoomState> }> {
  const players: Room<unknown, RoomState>[] = [];
  for (let i = 0; i < 2; i++) {
    const room = (await new Client(url).joinById(busy, {}, RoomState)) as Room<unknown, RoomState>;
    room.onMessage(MSG_WELCOME, () => {});
    players.push(room);
  }
  // A player-created room too, with someone in it.
  const own = (await new Client(url).create("physics", { scenario: "stack10" }, RoomState)) as Room<unknown, RoomState>;
  own.onMessage(MSG_WELCOME, () => {});
  players.push(own);
  return { players, own };
}

/** Each room's replay ends with an end line for the shutdown and verifies. */
async function expectReplaysEndedByShutdown(replayDir: string, roomIds: string[]): Promise<void> {
  for (const roomId of roomIds) {
    const file = join(replayDir, `${roomId}.ndjson`);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ type: "end", reason: "shutdown" });
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.ended).toBe(true);
    expect(report.truncated).toBeNull();
  }
}

/** Each replay file ends with a keyframe and an end line for the shutdown, and verifies. */
async function expectReplaysEndWithKeyframeAndShutdown(replayDir: string, files: string[]): Promise<void> {
  for (const name of files) {
    const file = join(replayDir, name);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[lines.length - 2])).toMatchObject({ type: "keyframe" });
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ type: "end", reason: "shutdown" });
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.ended).toBe(true);
    expect(report.truncated).toBeNull();
  }
}

describe("SIGTERM", () => {
  it("stops accepting joins, tells clients (4001), closes every replay and exits 0 within 5 s", async () => {
    const replayDir = tempDir("replays");
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: replayDir });
    const busy = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "arena" }))).roomId;
    const empty = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "stack10" }))).roomId;
    const { players, own } = await joinPlayers(server.url, busy);
    const codes = players.map((room) => new Promise<number>((res) => room.onLeave((code) => res(code))));
    players[0].send(MSG_MOVE, { vx: 2, vz: 1 });
    players[1].send(MSG_SPAWN, { shape: "box", size: 0.3 });
    await eventually("some ticks with inputs", async () => ((await json<{ tick: number }>(api(server.url, "GET", `/rooms/${busy}`))).tick ?? 0) > 60);

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    const exit = server.exited.then((e) => ({ ...e, ms: Date.now() - signalled }));
    let exitedYet = false;
    void exit.then(() => (exitedYet = true));
    // Signal delivery is asynchronous: a join sent in the same instant can still be served. Once the
    // process has handled the signal (its log line), joins never get a seat: 503, then connection refused.
    while (!exitedYet && server.logs(/shutting down/).length === 0 && Date.now() - signalled < 5000) {
      await new Promise((r) => setTimeout(r, 2));
    }
    const attempts: (number | "refused")[] = [];
    do {
      try {
        const res = await fetch(`${server.url}/matchmake/joinById/${busy}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
        attempts.push(res.status);
      } catch {
        attempts.push("refused");
      }
    } while (!exitedYet && attempts.length < 500);
    expect(attempts.length).toBeGreaterThan(0);
    expect(attempts.filter((a) => a !== 503 && a !== "refused")).toEqual([]);

    // Every client was told: 4001 (SERVER_SHUTDOWN), not a bare disconnect.
    expect(await Promise.all(codes)).toEqual([4001, 4001, 4001]);
    const { code, signal, ms } = await exit;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(ms).toBeLessThan(5000);
    expect(server.logs(/shutting down/).length).toBe(1);

    // Every replay was flushed and closed with an end line, and verifies.
    await expectReplaysEndedByShutdown(replayDir, [busy, empty, own.roomId]);
  });

  it("with a deaf client, a half-joined socket and a reserved seat in one room: every replay ends with a keyframe and `shutdown`, exit 0 within 5 s", async () => {
    const replayDir = tempDir("replays");
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: replayDir });
    const hostile = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "arena" }))).roomId;
    const other = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "stack10" }))).roomId;
    // A player who behaves, for comparison: still told 4001.
    const player = (await new Client(server.url).joinById(hostile, {}, RoomState)) as Room<unknown, RoomState>;
    player.onMessage(MSG_WELCOME, () => {});
    const playerCode = new Promise<number>((res) => player.onLeave((code) => res(code)));
    // Deaf: joined properly (acknowledged the join, got the welcome), never answers a close frame.
    const deaf = await rawJoin(server.url, hostile, true);
    await deaf.peer.waitFor("the deaf client's welcome", (p) => p.includes(MSG_WELCOME));
    // Half-joined: WebSocket open on its seat, the join never acknowledged (and nothing ever answered).
    const half = await rawJoin(server.url, hostile, false);
    // A seat reserved over the matchmaker that no connection ever claims.
    await reserveSeat(server.url, hostile);
    player.send(MSG_MOVE, { vx: 2, vz: 1 });
    await eventually("the room ticking with 3 clients", async () => {
      const info = await json<{ tick: number; clients: number }>(api(server.url, "GET", `/rooms/${hostile}`));
      return info.clients === 3 && info.tick > 60;
    });

    const signalled = Date.now();
    server.child.kill("SIGTERM");
    const { code, signal } = await server.exited;
    const ms = Date.now() - signalled;
    expect({ code, signal }).toEqual({ code: 0, signal: null });
    expect(ms).toBeLessThan(5000);
    expect(await playerCode).toBe(4001);
    // The deaf and the half-joined sockets were sent the shutdown close frame (and did not answer it).
    expect(deaf.peer.closeCodes).toEqual([4001]);
    expect(half.peer.closeCodes).toEqual([4001]);

    const files = readdirSync(replayDir).filter((f) => f.endsWith(".ndjson"));
    expect(files.sort()).toEqual([`${hostile}.ndjson`, `${other}.ndjson`].sort());
    await expectReplaysEndWithKeyframeAndShutdown(replayDir, files);
  });
});
