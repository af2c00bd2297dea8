import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { matchMaker } from "@colyseus/core";
import { pack, unpack } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { PhysicsRoom } from "../../server/rooms/physics-room.ts";
import { createRoom, startTestServer, type TestServer } from "../server/helpers.ts";

/**
 * The k6 script's protocol module (plain JS, no k6 imports) driven from Node against a real server on a
 * loopback port: matchmaking over HTTP, the WebSocket join handshake, state frames, and input messages
 * that the room applies (checked on the server's own world).
 */

interface SeatReservation {
  sessionId: string;
  roomId: string;
  processId: string;
  publicAddress?: string;
}
interface SessionStats {
  fullStates: number;
  fullStateBytes: number;
  patches: number;
  patchIntervals: number[];
  errors: number;
  bytesIn: number;
}
interface RoomSession {
  state: "handshake" | "joined" | "left";
  reconnectionToken: string;
  messages: Record<string, unknown[]>;
  stats: SessionStats;
  receive(data: ArrayBuffer | Uint8Array): { code: number };
  sendMessage(type: string, payload?: unknown): boolean;
  leave(): void;
}
/** The parts of loadtest/k6/protocol.js this test uses (typed here: the module is JS with JSDoc). */
interface ProtocolModule {
  Protocol: Record<string, number>;
  matchmakeUrl(base: string, method: string, room: string): string;
  parseSeatReservation(status: number, body: string): SeatReservation;
  roomEndpoint(base: string, seat: SeatReservation): string;
  encodeRoomData(type: string, payload?: unknown): Uint8Array;
  msgpackEncode(out: number[], value: unknown): void;
  msgpackDecode(bytes: Uint8Array, it: { offset: number }): unknown;
  RoomSession: new (send: (bytes: Uint8Array) => void, now?: () => number) => RoomSession;
}

const protocolUrl = pathToFileURL(resolve(import.meta.dirname, "../../loadtest/k6/protocol.js")).href;
let P: ProtocolModule;
let srv: TestServer;

beforeAll(async () => {
  P = (await import(protocolUrl)) as ProtocolModule;
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.close();
});

function until(what: string, cond: () => boolean, timeoutMs = 10_000): Promise<void> {
  return new Promise((res, rej) => {
    const t0 = Date.now();
    const timer = setInterval(() => {
      if (cond()) {
        clearInterval(timer);
        res();
      } else if (Date.now() - t0 > timeoutMs) {
        clearInterval(timer);
        rej(new Error(`timed out waiting for ${what}`));
      }
    }, 10);
  });
}

describe("msgpack subset", () => {
  const values: unknown[] = [
    0,
    127,
    128,
    255,
    65535,
    65536,
    2 ** 32 - 1,
    -1,
    -32,
    -33,
    -200,
    -40000,
    -(2 ** 31),
    1.5,
    -0.25,
    2 ** 40,
    "",
    "move",
    "é — ✓ 🎲",
    "x".repeat(40),
    "y".repeat(300),
    true,
    false,
    null,
    [1, "a", [2]],
    { vx: 1.25, vz: -3, jump: true },
    { bodyId: "box7", impulse: [4.5, 2, -6.25] },
    Array.from({ length: 20 }, (_, i) => i),
  ];
  it("what it encodes, msgpackr decodes to the same value", () => {
    for (const v of values) {
      const out: number[] = [];
      P.msgpackEncode(out, v);
      expect(unpack(Uint8Array.from(out))).toEqual(v);
    }
  });
  it("decodes what the server's msgpackr (useRecords: false) encodes", () => {
    for (const v of values) {
      const bytes = pack(v);
      expect(P.msgpackDecode(bytes, { offset: 0 })).toEqual(v);
    }
  });
});

describe("Colyseus 0.18 protocol against the real server", () => {
  it("joins by matchmaking + WebSocket handshake, receives state and patches, and its inputs move the avatar", async () => {
    const roomId = await createRoom(srv.url, { scenario: "arena", patchRateMs: 50 });
    const res = await fetch(P.matchmakeUrl(srv.url, "joinById", roomId), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const seat = P.parseSeatReservation(res.status, await res.text());
    expect(seat.roomId).toBe(roomId);
    const endpoint = P.roomEndpoint(srv.url, seat);
    expect(endpoint).toBe(`ws://127.0.0.1:${srv.port}/${seat.processId}/${roomId}?sessionId=${seat.sessionId}`);

    const ws = new WebSocket(endpoint);
    ws.binaryType = "arraybuffer";
    const session = new P.RoomSession((bytes) => ws.send(bytes as Uint8Array<ArrayBuffer>));
    ws.addEventListener("message", (e) => session.receive(e.data as ArrayBuffer));
    await until("the welcome and 3 patches", () => session.state === "joined" && (session.messages.welcome?.length ?? 0) > 0 && session.stats.patches >= 3);
    expect(session.reconnectionToken.length).toBeGreaterThan(0);
    expect(session.stats.fullStates).toBe(1);
    // The arena's full state: 200+ bodies at a few bytes each.
    expect(session.stats.fullStateBytes).toBeGreaterThan(1000);
    const welcome = session.messages.welcome[0] as { sessionId: string; avatarId: string; tickRate: number };
    expect(welcome.sessionId).toBe(seat.sessionId);
    expect(welcome.tickRate).toBe(60);

    const room = matchMaker.getLocalRoomById(roomId) as unknown as PhysicsRoom;
    expect(room.clients.length).toBe(1);
    const world = () => room.sim.world;
    const avatarX = () => world().getPosition(world().handleOf(welcome.avatarId))[0];
    await until("the avatar on the server", () => world().handleOf(welcome.avatarId) >= 0);
    const x0 = avatarX();
    // Walk +x at 5 m/s for ~0.5 s at 20 Hz, as the k6 script does.
    for (let i = 0; i < 10; i++) {
      expect(session.sendMessage("move", { vx: 5, vz: 0 })).toBe(true);
      await new Promise((r) => setTimeout(r, 50));
    }
    await until("the avatar to move 1 m along +x", () => avatarX() - x0 > 1);
    session.sendMessage("move", { vx: 0, vz: 0 });

    // A shove: the room applies it to the body (its velocity changes on the server).
    const box = world().handleOf("box0");
    const v0 = world().getLinearVelocity(box)[1];
    expect(session.sendMessage("impulse", { bodyId: "box0", impulse: [0, 8, 0] })).toBe(true);
    await until("box0 to be pushed up", () => world().getLinearVelocity(box)[1] > v0 + 1 || world().getPosition(box)[1] > 0.6);

    // Invalid input: the room answers `rejected` (a ROOM_DATA frame with a msgpack map) and keeps us.
    session.sendMessage("move", { vx: 999, vz: 0 });
    await until("a rejection", () => (session.messages.rejected?.length ?? 0) > 0);
    expect((session.messages.rejected[0] as { type: string }).type).toBe("move");
    expect(session.stats.errors).toBe(0);

    const patchesBefore = session.stats.patches;
    await until("more patches", () => session.stats.patches > patchesBefore + 2);
    expect(session.stats.patchIntervals.every((ms) => ms > 0)).toBe(true);

    const closed = new Promise((r) => ws.addEventListener("close", r));
    session.leave();
    await closed;
    await until("the room to see the leave", () => room.clients.length === 0);
  });

  it("reports the server's matchmaking error", async () => {
    const res = await fetch(P.matchmakeUrl(srv.url, "joinById", "no-such-room"), { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
    const body = await res.text();
    expect(() => P.parseSeatReservation(res.status, body)).toThrow(/matchmake: HTTP 4\d\d/);
  });
});
