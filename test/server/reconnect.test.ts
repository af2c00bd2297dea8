import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Protocol } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLOSE_REPLACED, CLOSE_REPLACED_REASON, MSG_MOVE, MSG_WELCOME, RoomState, type WelcomeMessage } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { readConfig } from "../../server/config.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { patches, position } from "./helpers.ts";
import { api, cleanupDirs, eventually, json, type Relay, rawJoin, rawWebSocket, type ServerProcess, spawnServer, startRelay, stopAllServers, tempDir } from "./processes.ts";

/**
 * Network drops over a real socket: the player's connection runs through a TCP relay whose connections
 * are reset (both ends see a dead socket, close 1006). The SDK's own reconnection waits for 5 s of uptime
 * (@colyseus/sdk 0.18 reconnection.minUptime), so the test reconnects by hand with the room's reconnection token.
 */

const scene: Scenario = {
  name: "reconnect-scene",
  bodies: [{ id: "ground", type: "static", shape: { type: "box", halfExtents: [30, 0.5, 30] }, position: [0, -0.5, 0] }],
};

type TestRoom = Room<unknown, RoomState>;

let server: ServerProcess;
let relay: Relay;
beforeAll(async () => {
  server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), RECONNECT_SECONDS: "2" });
  relay = await startRelay(server.port);
});
afterAll(async () => {
  await relay.close();
  await stopAllServers();
  cleanupDirs();
});

async function enter(url: string, roomId: string): Promise<{ room: TestRoom; welcome: WelcomeMessage; client: Client }> {
  const client = new Client(url);
  const room = (await client.joinById(roomId, {}, RoomState)) as TestRoom;
  room.reconnection.enabled = false;
  const welcome = await new Promise<WelcomeMessage>((res) => room.onMessage(MSG_WELCOME, (m: WelcomeMessage) => res(m)));
  return { room, welcome, client };
}

function left(room: TestRoom): Promise<number> {
  return new Promise((res) => room.onLeave((code) => res(code)));
}

describe("reconnection after a network drop", () => {
  it("the window defaults to 10 s and comes from RECONNECT_SECONDS", () => {
    expect(readConfig({}).limits.reconnectSeconds).toBe(10);
    expect(readConfig({ RECONNECT_SECONDS: "2" }).limits.reconnectSeconds).toBe(2);
    expect(() => readConfig({ RECONNECT_SECONDS: "soon" })).toThrow(/RECONNECT_SECONDS must be a number/);
  });

  it("a dropped player reconnects within the window and gets its avatar and the welcome back", async () => {
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: scene }))).roomId;
    const a = await enter(relay.url, roomId);
    const b = await enter(server.url, roomId);
    expect(a.welcome.reconnectSeconds).toBe(2);
    const avatar = `avatar-${a.room.sessionId}`;
    await eventually("A's avatar on B", () => b.room.state.bodies.has(avatar));
    a.room.send(MSG_MOVE, { vx: 3, vz: 0 });
    await eventually("A moving", () => position(b.room.state.bodies.get(avatar)!)[0] > 1);
    const token = a.room.reconnectionToken;

    const dropped = left(a.room);
    relay.cut();
    expect(await dropped).toBe(1006);
    // The server saw the drop; during the window the avatar stays (and stands still: the drop stopped it).
    await eventually("the server sees one client", async () => (await json<{ clients: number }>(api(server.url, "GET", `/rooms/${roomId}`))).clients === 1);
    await patches(b.room, 5);
    expect(b.room.state.bodies.has(avatar)).toBe(true);

    const again = (await a.client.reconnect(token, RoomState)) as TestRoom;
    const welcome = await new Promise<WelcomeMessage>((res) => again.onMessage(MSG_WELCOME, (m: WelcomeMessage) => res(m)));
    expect(again.sessionId).toBe(a.room.sessionId);
    expect(welcome).toMatchObject({ sessionId: a.room.sessionId, avatarId: avatar, reconnectSeconds: 2 });
    await eventually("own avatar in the reconnected state", () => again.state.bodies.has(avatar) && again.state.avatars.has(again.sessionId));
    // The same avatar (never removed on B's side), and it obeys the reconnected client.
    expect(b.room.state.bodies.has(avatar)).toBe(true);
    const x0 = position(b.room.state.bodies.get(avatar)!)[0];
    again.send(MSG_MOVE, { vx: -4, vz: 0 });
    await eventually("the reconnected client moves its avatar", () => position(b.room.state.bodies.get(avatar)!)[0] < x0 - 1);
    expect((await json<{ clients: number }>(api(server.url, "GET", `/rooms/${roomId}`))).clients).toBe(2);
    await again.leave();
    await b.room.leave();
  });

  it("after the window the avatar is removed and the token no longer works", async () => {
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: scene }))).roomId;
    const a = await enter(relay.url, roomId);
    const b = await enter(server.url, roomId);
    const avatar = `avatar-${a.room.sessionId}`;
    await eventually("A's avatar on B", () => b.room.state.bodies.has(avatar));
    const token = a.room.reconnectionToken;
    const dropped = left(a.room);
    relay.cut();
    await dropped;
    await eventually("A's avatar removed after the 2 s window", () => !b.room.state.bodies.has(avatar) && !b.room.state.avatars.has(a.room.sessionId), 12000);
    await expect(a.client.reconnect(token, RoomState)).rejects.toThrow();
    expect((await json<{ clients: number }>(api(server.url, "GET", `/rooms/${roomId}`))).clients).toBe(1);
    // The replay holds the drop (a stop) and the leave, and verifies.
    const text = await (await api(server.url, "GET", `/rooms/${roomId}/replay`, undefined, null)).text();
    expect(text).toContain(`"type":"leave","session":"${a.room.sessionId}"`);
    const file = join(tempDir("copy"), "expired.ndjson");
    writeFileSync(file, text);
    expect((await verifyReplay(file)).divergence).toBeNull();
    await b.room.leave();
  });
});

/** Records, on every patch B decodes, whether the avatar body and its avatar entry are there. */
function watchAvatar(observer: TestRoom, bodyId: string, sessionId: string): { missing: number; patches: number } {
  const seen = { missing: 0, patches: 0 };
  observer.onStateChange(() => {
    seen.patches++;
    if (!observer.state.bodies.has(bodyId) || !observer.state.avatars.has(sessionId)) seen.missing++;
  });
  return seen;
}

/**
 * A second party presents a live session's reconnection token while the session's socket is still open
 * (what a client on a half-open connection does): the newer connection takes the session over.
 */
describe("a reconnection for a live session", () => {
  it("replaces the old socket (closed with CLOSE_REPLACED) and keeps the session, seat and avatar", async () => {
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: scene }))).roomId;
    const a = await enter(server.url, roomId);
    const b = await enter(server.url, roomId);
    const avatar = `avatar-${a.room.sessionId}`;
    expect(a.welcome.avatarId).toBe(avatar);
    await eventually("A's avatar on B", () => b.room.state.bodies.has(avatar) && b.room.state.avatars.has(a.room.sessionId));
    const watch = watchAvatar(b.room, avatar, a.room.sessionId);
    const aClosed = new Promise<{ code: number; reason?: string }>((res) => a.room.onLeave((code, reason) => res({ code, reason })));
    const token = a.room.reconnectionToken;

    // A's socket is open and answering; a second client presents its token.
    const second = new Client(server.url);
    const again = (await second.reconnect(token, RoomState)) as TestRoom;
    again.reconnection.enabled = false;
    const welcome = await new Promise<WelcomeMessage>((res) => again.onMessage(MSG_WELCOME, (m: WelcomeMessage) => res(m)));
    expect(again.sessionId).toBe(a.room.sessionId);
    expect(welcome).toMatchObject({ sessionId: a.room.sessionId, avatarId: avatar });
    expect(await aClosed).toEqual({ code: CLOSE_REPLACED, reason: CLOSE_REPLACED_REASON });

    // The same avatar body obeys the new connection.
    await eventually("own avatar in the new connection's state", () => again.state.bodies.has(avatar) && again.state.avatars.has(again.sessionId));
    const x0 = position(b.room.state.bodies.get(avatar)!)[0];
    again.send(MSG_MOVE, { vx: 4, vz: 0 });
    await eventually("the new connection moves the avatar", () => position(b.room.state.bodies.get(avatar)!)[0] > x0 + 1);
    expect((await json<{ clients: number }>(api(server.url, "GET", `/rooms/${roomId}`))).clients).toBe(2);
    // The avatar never left the synced state, on any patch B decoded.
    expect(watch.patches).toBeGreaterThan(0);
    expect(watch.missing).toBe(0);
    // The replaced socket's token was used up: it cannot take the session back.
    await expect(new Client(server.url).reconnect(token, RoomState)).rejects.toThrow();
    expect(again.connection.isOpen).toBe(true);
    await again.leave();
    await b.room.leave();
  });

  it("the same takeover for a connection straight to the room with the token (the SDK's own reconnection)", async () => {
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: scene }))).roomId;
    const a = await enter(server.url, roomId);
    const b = await enter(server.url, roomId);
    const avatar = `avatar-${a.room.sessionId}`;
    await eventually("A's avatar on B", () => b.room.state.bodies.has(avatar) && b.room.state.avatars.has(a.room.sessionId));
    const watch = watchAvatar(b.room, avatar, a.room.sessionId);
    const aClosed = new Promise<number>((res) => a.room.onLeave((code) => res(code)));
    const { processId } = await json<{ processId: string }>(api(server.url, "GET", `/rooms/${roomId}`));
    const token = a.room.reconnectionToken.split(":")[1];
    // No matchmaker request: the WebSocket URL the SDK reconnects to, with the session id and token.
    const peer = await rawWebSocket(`ws://127.0.0.1:${server.port}/${processId}/${roomId}?sessionId=${a.room.sessionId}&reconnectionToken=${token}`);
    await peer.waitFor("the JOIN_ROOM frame", (p) => p[0] === Protocol.JOIN_ROOM);
    peer.send(Uint8Array.of(Protocol.JOIN_ROOM));
    await peer.waitFor("the welcome", (p) => p.includes(MSG_WELCOME) && p.includes(avatar));
    expect(await aClosed).toBe(CLOSE_REPLACED);
    await patches(b.room, 5);
    expect(watch.missing).toBe(0);
    expect(b.room.state.bodies.has(avatar)).toBe(true);
    expect((await json<{ clients: number }>(api(server.url, "GET", `/rooms/${roomId}`))).clients).toBe(2);
    peer.socket.destroy();
    await b.room.leave();
  });

  it("a stale socket that never answers the close frame is cut within the close deadline; the session goes on", async () => {
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: scene }))).roomId;
    // A half-open connection as the server sees it: joined, then silent (never answers anything again).
    const stale = await rawJoin(server.url, roomId, true);
    await stale.peer.waitFor("the welcome", (p) => p.includes(MSG_WELCOME));
    const avatar = `avatar-${stale.sessionId}`;
    const again = (await new Client(server.url).reconnect(stale.reconnectionToken, RoomState)) as TestRoom;
    again.reconnection.enabled = false;
    const welcome = await new Promise<WelcomeMessage>((res) => again.onMessage(MSG_WELCOME, (m: WelcomeMessage) => res(m)));
    expect(welcome).toMatchObject({ sessionId: stale.sessionId, avatarId: avatar });
    await eventually("the replaced socket told why", () => stale.peer.closeCodes.length > 0);
    expect(stale.peer.closeCodes).toEqual([CLOSE_REPLACED]);
    // It never answers the close frame: the server terminates it (ws alone would wait 30 s).
    await eventually("the server cutting the silent socket", () => stale.peer.ended, 5000, 20);
    await eventually("the avatar in the new connection's state", () => again.state.bodies.has(avatar));
    await again.leave();
  });
});
