import { createHash, randomBytes } from "node:crypto";
import { matchMaker, Protocol } from "@colyseus/core";
import { PROTOCOL_CODE_MASK } from "@colyseus/shared-types";
import { Client, type Room } from "@colyseus/sdk";
import WebSocket from "ws";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { BACKLOG_FLOOR_BYTES, BACKLOG_REASON, BACKLOG_SECONDS } from "../../server/net/transport.ts";
import type { PhysicsRoom } from "../../server/rooms/physics-room.ts";
import { CLOSE_BACKLOG, MSG_WELCOME, RoomState, type WelcomeMessage } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { createRoom, startTestServer, type TestServer } from "../server/helpers.ts";
import { eventually } from "../server/processes.ts";

/**
 * Clients that stop reading, over real loopback sockets: a raw `ws` client joins like the SDK does and
 * then pauses its TCP socket, so the kernel buffers fill and the server's socket backs up for real.
 * What the server handed to each socket is recorded (a SHA-1 per frame, through the transport's test
 * hook) and compared with what the client finally reads.
 */

/** ws-transport's heartbeat interval (our guard keeps its default), ms. */
const PING_INTERVAL_MS = 3000;

/**
 * 3000 spheres in zero gravity flying apart and spinning (20 ticks and 20 patches per second): every body
 * changes in every patch (about 55 KB, 1.1 MB/s per client) for minutes. The ground far below is where
 * avatars spawn, outside the swarm.
 */
function swarm(count: number): Scenario {
  const bodies: Scenario["bodies"] = [{ id: "ground", type: "static", shape: { type: "box", halfExtents: [60, 0.5, 60] }, position: [0, -0.5, 0] }];
  const side = Math.ceil(Math.cbrt(count));
  for (let i = 0; i < count; i++) {
    const x = (Math.floor(i / (side * side)) - side / 2) * 2;
    const y = ((Math.floor(i / side) % side) - side / 2) * 2;
    const z = ((i % side) - side / 2) * 2;
    bodies.push({
      id: `b${i}`,
      type: "dynamic",
      shape: { type: "sphere", radius: 0.3 },
      position: [x, 40 + y, z],
      linearVelocity: [x * 0.1, y * 0.1, z * 0.1],
      angularVelocity: [1, 2, 3],
    });
  }
  return { name: "swarm3000", world: { gravity: [0, 0, 0], sleep: false, tickRate: 20 }, bodies };
}

const quiet: Scenario = {
  name: "quiet",
  bodies: [{ id: "ground", type: "static", shape: { type: "box", halfExtents: [30, 0.5, 30] }, position: [0, -0.5, 0] }],
};

const sha1 = (bytes: Uint8Array) => createHash("sha1").update(bytes).digest("hex");

/** SHA-1 of every frame the server handed to each watched session's socket, in order. */
const sent = new Map<string, string[]>();
/** When (performance.now()) and how many bytes each of those frames was. */
const sentBytes = new Map<string, { at: number; bytes: number }[]>();
let lastFrame: Uint8Array | null = null;
let lastHash = "";

interface RawClient {
  ws: WebSocket;
  sessionId: string;
  /** `roomId:token`, what the SDK's reconnect() takes. */
  reconnectionToken: string;
  /** SHA-1 of every message received, in order, and the first byte of each. */
  received: string[];
  codes: number[];
  closed: Promise<{ code: number; reason: string }>;
}

/** Joins like the SDK (matchmaker seat, WebSocket, JOIN_ROOM acknowledged) with a plain `ws` client. */
async function rawJoin(server: TestServer, roomId: string): Promise<RawClient> {
  const res = await fetch(`${server.url}/matchmake/joinById/${roomId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  expect(res.status).toBe(200);
  const seat = (await res.json()) as { sessionId: string; roomId: string; processId: string };
  sent.set(seat.sessionId, []);
  sentBytes.set(seat.sessionId, []);
  const ws = new WebSocket(`ws://127.0.0.1:${server.port}/${seat.processId}/${seat.roomId}?sessionId=${seat.sessionId}`);
  const client: RawClient = {
    ws,
    sessionId: seat.sessionId,
    reconnectionToken: "",
    received: [],
    codes: [],
    closed: new Promise((resolve) => ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() }))),
  };
  ws.on("error", () => {});
  await new Promise<void>((resolve, reject) => {
    ws.on("message", (data: Buffer) => {
      client.received.push(sha1(data));
      client.codes.push(data[0] & PROTOCOL_CODE_MASK);
      if (client.received.length === 1) {
        if ((data[0] & PROTOCOL_CODE_MASK) !== Protocol.JOIN_ROOM) return reject(new Error(`first frame is ${data[0]}, not JOIN_ROOM`));
        const token = data.subarray(2, 2 + data[1]).toString("utf8");
        client.reconnectionToken = `${seat.roomId}:${token}`;
        ws.send(Uint8Array.of(Protocol.JOIN_ROOM));
        resolve();
      }
    });
    ws.on("close", (code) => reject(new Error(`closed (${code}) before joining`)));
  });
  return client;
}

/** Index of the first received frame that differs from what the server sent, or -1. */
function firstDifference(client: RawClient): number {
  const server = sent.get(client.sessionId) ?? [];
  for (let i = 0; i < client.received.length; i++) if (client.received[i] !== server[i]) return i;
  return -1;
}

/** The most the transport may let this session's socket hold unsent: max(floor, bytes sent in any 2 s) plus one frame. */
function backlogBound(sessionId: string): number {
  const frames = sentBytes.get(sessionId) ?? [];
  let window = 0;
  let most = 0;
  let largest = 0;
  for (let i = 0, first = 0; i < frames.length; i++) {
    window += frames[i].bytes;
    while (frames[first].at <= frames[i].at - BACKLOG_SECONDS * 1000) window -= frames[first++].bytes;
    most = Math.max(most, window);
    largest = Math.max(largest, frames[i].bytes);
  }
  // + frame headers, pings and the close frame
  return Math.max(BACKLOG_FLOOR_BYTES, most) + largest + 1024;
}

function localRoom(roomId: string): PhysicsRoom {
  return matchMaker.getLocalRoomById(roomId) as unknown as PhysicsRoom;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let server: TestServer;
beforeAll(async () => {
  server = await startTestServer();
  server.server.transport.onFrame = (sessionId, frame) => {
    const list = sessionId === null ? undefined : sent.get(sessionId);
    if (!list) return;
    // A broadcast hands the same frame to every socket: hash it once.
    if (frame !== lastFrame) {
      lastFrame = frame;
      lastHash = sha1(frame);
    }
    list.push(lastHash);
    sentBytes.get(sessionId!)?.push({ at: performance.now(), bytes: frame.byteLength });
  };
});
afterAll(async () => {
  if (server) server.server.transport.onFrame = null;
  await server?.close();
});

describe("clients that do not read", () => {
  it("8 clients stalled up to 15 s on a 3000-body room read only frames the server sent them; server RSS stays within 200 MB of its baseline", async () => {
    const roomId = await createRoom(server.url, { scenario: swarm(3000), maxBodies: 3100, maxClients: 16 });
    const room = localRoom(roomId);
    await eventually("the swarm room ticking", () => room.sim.tick > 30, 20000, 50);
    const baseline = process.memoryUsage().rss;

    // One after the other: an address may hold only a few unclaimed seats at once.
    const clients: RawClient[] = [];
    for (let i = 0; i < 8; i++) clients.push(await rawJoin(server, roomId));
    await eventually("every client's full state and first patches", () => clients.every((c) => c.codes.includes(Protocol.ROOM_STATE) && c.codes.length >= 5), 20000, 20);
    const sockets = clients.map((c) => room.clients.get(c.sessionId)!.ref as unknown as WebSocket);
    const ended: ({ code: number; reason: string } | null)[] = clients.map(() => null);
    for (const [i, c] of clients.entries()) void c.closed.then((end) => (ended[i] = end));
    for (const c of clients) c.ws.pause();
    const stalledAt = Date.now();
    const readBeforeStall = clients.map((c) => c.received.length);
    // Client i reads again after (i + 1) x 15/8 s: the first ones while the server still holds (or has just
    // closed) their backlog, so whatever it queued reaches them; the last one after 15 s.
    const resumeAt = clients.map((_, i) => stalledAt + ((i + 1) * 15_000) / clients.length);
    const serverStateAtResume = clients.map(() => -1);
    let peak = baseline;
    const mostUnsent = clients.map(() => 0);
    while (serverStateAtResume.includes(-1)) {
      peak = Math.max(peak, process.memoryUsage().rss);
      for (const [i, socket] of sockets.entries()) {
        mostUnsent[i] = Math.max(mostUnsent[i], socket.bufferedAmount);
        if (serverStateAtResume[i] === -1 && Date.now() >= resumeAt[i]) {
          serverStateAtResume[i] = socket.readyState;
          clients[i].ws.resume();
        }
      }
      await sleep(50);
    }
    // Stalled for 15 s: the server gave up on it meanwhile, closed for its backlog (4030, the close frame
    // queued behind the data) or, not answering pings with nothing unsent yet, terminated.
    expect(serverStateAtResume[clients.length - 1], "server socket of the client stalled 15 s").toBeGreaterThanOrEqual(WebSocket.CLOSING);
    // The server's sockets held no more than the limit (the kernel buffers hold more, outside the process).
    for (const [i, c] of clients.entries()) expect(mostUnsent[i], `client ${i}: most bytes unsent`).toBeLessThanOrEqual(backlogBound(c.sessionId));
    expect(Math.max(...mostUnsent)).toBeGreaterThan(0);

    // Let every client read what reached it, then close the ones the server kept.
    await eventually("the stalled client's end", () => ended[clients.length - 1] !== null, 10000, 50);
    await sleep(1000);
    for (const [i, c] of clients.entries()) {
      if (ended[i] === null) c.ws.close();
      else expect([CLOSE_BACKLOG, 1006], `client ${i}: close code`).toContain(ended[i]!.code);
    }
    await Promise.all(clients.map((c) => c.closed));
    for (const [i, c] of clients.entries()) {
      expect(c.received.length, `client ${i}: frames read after the stall`).toBeGreaterThan(readBeforeStall[i]);
      expect(firstDifference(c), `client ${i}: first frame that differs from what the server sent`).toBe(-1);
    }
    const mb = (peak - baseline) / 1e6;
    expect(mb, `RSS grew ${mb.toFixed(0)} MB`).toBeLessThan(200);
  });

  it("a client that never reads and only sends unsolicited pongs is disconnected within a few ping intervals", async () => {
    const roomId = await createRoom(server.url, { scenario: quiet });
    const client = await rawJoin(server, roomId);
    await eventually("the welcome", () => client.codes.length >= 3, 10000, 20);
    const room = localRoom(roomId);
    const socket = room.clients[0].ref as unknown as WebSocket;
    let pongs = 0;
    socket.on("pong", () => pongs++);
    client.ws.pause();
    const started = Date.now();
    const pongTimer = setInterval(() => {
      client.ws.pong();
      client.ws.pong(randomBytes(8));
    }, 200);
    try {
      await eventually("the server dropping the client", () => room.clients.length === 0, 4 * PING_INTERVAL_MS + 2000, 50);
    } finally {
      clearInterval(pongTimer);
    }
    const seconds = (Date.now() - started) / 1000;
    expect(seconds).toBeLessThanOrEqual((4 * PING_INTERVAL_MS) / 1000);
    expect(pongs).toBeGreaterThan(20);
    // Not a backlog close: nothing was queued (a quiet room), only the pings went unanswered.
    expect(socket.readyState).toBe(WebSocket.CLOSED);
    client.ws.resume();
    expect((await client.closed).code).toBe(1006);
  });
});

describe("a client closed for its backlog", () => {
  it("gets 4030 with the reason, then reconnects with its token and keeps its avatar", async () => {
    const roomId = await createRoom(server.url, { scenario: swarm(3000), maxBodies: 3100 });
    const room = localRoom(roomId);
    const client = await rawJoin(server, roomId);
    const avatar = `avatar-${client.sessionId}`;
    await eventually("the client's avatar", () => room.state.bodies.has(avatar), 10000, 20);
    const before = room.sim.avatarOf(client.sessionId)!;
    // The avatar must never leave the world while its player is away.
    let avatarGone = false;
    const watch = setInterval(() => (avatarGone ||= !room.state.bodies.has(avatar)), 10);
    const metrics = server.server.metrics;
    const closesBefore = metrics.backlogCloses;
    client.ws.pause();
    await eventually("the backlog close", () => metrics.backlogCloses > closesBefore, 30000, 5);
    client.ws.resume();
    const end = await client.closed;
    expect(end.code).toBe(CLOSE_BACKLOG);
    expect(metrics.backlogCloses).toBe(closesBefore + 1);
    expect(metrics.renderMetrics()).toContain(`\nphysics_backlog_closes_total ${metrics.backlogCloses}\n`);
    expect(end.reason).toMatch(new RegExp(`^${BACKLOG_REASON} \\(\\d+ KiB unsent, (limit \\d+ KiB|no pong for \\d+ pings)\\)$`));
    expect(firstDifference(client)).toBe(-1);

    const again = (await new Client(server.url).reconnect(client.reconnectionToken, RoomState)) as Room<unknown, RoomState>;
    const welcome = await new Promise<WelcomeMessage>((resolve) => again.onMessage(MSG_WELCOME, (m: WelcomeMessage) => resolve(m)));
    expect(again.sessionId).toBe(client.sessionId);
    expect(welcome).toMatchObject({ sessionId: client.sessionId, avatarId: avatar });
    await eventually("the avatar in the reconnected client's state", () => again.state.bodies.has(avatar) && again.state.avatars.has(client.sessionId), 10000, 20);
    clearInterval(watch);
    expect(avatarGone).toBe(false);
    // The same avatar (same engine body), not a new one.
    expect(room.sim.avatarOf(client.sessionId)).toBe(before);
    expect(room.sim.world.handleOf(avatar)).toBe(before.handle);
    expect(room.clients.length).toBe(1);
    await again.leave();
  });
});
