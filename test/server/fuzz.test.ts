import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSG_IMPULSE, MSG_MOVE, MSG_REJECTED, MSG_SPAWN, MSG_WELCOME, type RejectedMessage, RoomState } from "../../shared/net/index.ts";
import { createPrng, type Prng } from "../../shared/scenarios/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { patches } from "./helpers.ts";
import { alive, api, cleanupDirs, eventually, json, type ServerProcess, spawnServer, stopAllServers, tempDir } from "./processes.ts";

/**
 * Message fuzzing over real sockets against a real server process, with a fixed seed: SDK clients send
 * thousands of well-framed messages with garbage content (wrong types, missing and extra fields, NaN,
 * ±Infinity, huge numbers, long strings, unknown and numeric message types), raw WebSocket clients send
 * garbage bytes (random protocol codes, broken msgpack, text frames), and frames over the 4 KB limit.
 * The input rate limit is raised for this server (it has its own test); everything else is default.
 */

const SEED = 0x5eed_f022;
const SDK_MESSAGES = 3000;
const RAW_FRAMES = 2000;

interface Info {
  tick: number;
  finite: boolean;
  clients: number;
  bodies: number;
}

type TestRoom = Room<unknown, RoomState>;

let server: ServerProcess;
beforeAll(async () => {
  // Every fuzzing client connects from 127.0.0.1: the per-address admission limits (test/hostile) are lifted.
  server = await spawnServer({
    ADMIN_TOKEN: "test-admin-token",
    REPLAY_DIR: tempDir("replays"),
    MAX_INPUTS_PER_SECOND: "1000000",
    SEAT_RESERVATIONS_PER_MINUTE: "1000000",
    PENDING_SEATS_PER_ADDRESS: "1000000",
    ROOM_CREATIONS_PER_MINUTE: "1000000",
  });
});
afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

// ---------------------------------------------------------------- generators

const KEYS = ["vx", "vz", "jump", "shape", "size", "velocity", "bodyId", "impulse", "point", "__proto__", "constructor", "toString", "", "x".repeat(40)];

/** Mostly ASCII, some 2-byte and astral characters, and (if `lone`) unpaired UTF-16 surrogates. */
function text(rng: Prng, max: number, lone = true): string {
  const n = rng.int(max + 1);
  let s = "";
  for (let i = 0; i < n; i++) {
    const r = rng.int(10);
    s += r < 7 ? String.fromCharCode(32 + rng.int(95)) : r < 8 ? "é" : r < 9 || !lone ? "😀" : String.fromCharCode(0xd800 + rng.int(0x400));
  }
  return s;
}

function garbage(rng: Prng, depth = 0): unknown {
  switch (rng.int(17)) {
    case 0:
      return Number.NaN;
    case 1:
      return Number.POSITIVE_INFINITY;
    case 2:
      return Number.NEGATIVE_INFINITY;
    case 3:
      return rng.next() < 0.5 ? 1.7e308 : -1.7e308;
    case 4:
      return Number.MAX_SAFE_INTEGER + 2;
    case 5:
      return -0;
    case 6:
      return rng.range(-1e6, 1e6);
    case 7:
      return text(rng, depth === 0 ? 1200 : 60);
    case 8:
      return null;
    case 9:
      return undefined;
    case 10:
      return rng.next() < 0.5;
    case 11:
      return depth < 2 ? Array.from({ length: rng.int(5) }, () => garbage(rng, depth + 1)) : [];
    case 12: {
      if (depth >= 2) return {};
      const o: Record<string, unknown> = {};
      for (let i = rng.int(4); i > 0; i--) o[KEYS[rng.int(KEYS.length)]] = garbage(rng, depth + 1);
      return o;
    }
    case 13:
      return Uint8Array.from({ length: rng.int(64) }, () => rng.int(256));
    case 14:
      return rng.int(256) - 128;
    case 15:
      return [rng.range(-50, 50), rng.range(-50, 50), rng.range(-50, 50)];
    default:
      return 1e-320;
  }
}

function valid(rng: Prng, type: string): Record<string, unknown> {
  if (type === MSG_MOVE) return { vx: rng.range(-6, 6), vz: rng.range(-6, 6), ...(rng.next() < 0.3 ? { jump: true } : {}) };
  if (type === MSG_SPAWN) return { shape: rng.next() < 0.5 ? "box" : "sphere", size: rng.range(0.1, 1), ...(rng.next() < 0.5 ? { velocity: [rng.range(-20, 20), rng.range(-20, 20), rng.range(-20, 20)] } : {}) };
  return { bodyId: ["box7", "ball3", "ground", "nope", `s${rng.int(5)}`][rng.int(5)], impulse: [rng.range(-30, 30), rng.range(-30, 30), rng.range(-30, 30)], ...(rng.next() < 0.3 ? { point: [0, 1, 0] } : {}) };
}

/** One fuzzed (type, payload): a valid message, a mutated one, or garbage under a random type. */
function fuzzMessage(rng: Prng): [type: string | number, payload: unknown] {
  const types = [MSG_MOVE, MSG_SPAWN, MSG_IMPULSE];
  const type = types[rng.int(3)];
  const r = rng.int(10);
  if (r === 0) return [type, valid(rng, type)];
  if (r <= 4) {
    const m = valid(rng, type);
    const keys = Object.keys(m);
    const op = rng.int(3);
    if (op === 0) m[keys[rng.int(keys.length)]] = garbage(rng, 1);
    else if (op === 1) delete m[keys[rng.int(keys.length)]];
    else m[KEYS[rng.int(KEYS.length)]] = garbage(rng, 1);
    return [type, m];
  }
  if (r <= 6) return [type, garbage(rng)];
  // Type names stay valid UTF-16 and under 64 characters: the SDK writes a broken frame header for a type
  // with an unpaired surrogate (its UTF-8 length is miscounted) or over 255 bytes (msgpackr's
  // RESERVE_START_SPACE keeps 8 bits). Broken frames are the raw phase's business.
  if (r <= 8) return [text(rng, 60, false) || "?", garbage(rng)];
  return [rng.int(1_000_000) - 1000, garbage(rng)];
}

/** A raw frame: random protocol code + random bytes, the ROOM_DATA header of a real type + garbage, or text. */
function rawFrame(rng: Prng): Uint8Array<ArrayBuffer> | string {
  const bytes = (n: number) => Array.from({ length: n }, () => rng.int(256));
  switch (rng.int(9)) {
    case 0:
      return Uint8Array.from(bytes(rng.int(200)));
    case 1:
      return Uint8Array.from([13, ...bytes(rng.int(120))]); // ROOM_DATA
    case 2:
      return Uint8Array.from([21, ...bytes(rng.int(120))]); // ROOM_REQUEST
    case 3:
      return Uint8Array.from([17, ...bytes(rng.int(120))]); // ROOM_DATA_BYTES
    case 4:
      return Uint8Array.from([19 | (rng.int(8) << 5), ...bytes(rng.int(60))]); // ROOM_INPUT_RELIABLE + modifiers
    case 5: {
      // ROOM_DATA "move" / "spawn" with a broken msgpack payload.
      const name = rng.next() < 0.5 ? "move" : "spawn";
      return Uint8Array.from([13, 0xa0 | name.length, ...Buffer.from(name), ...bytes(rng.int(40))]);
    }
    case 6:
      return text(rng, 300);
    case 7:
      return Uint8Array.from([rng.int(32), ...bytes(rng.int(8))]);
    default:
      return new Uint8Array(0);
  }
}

// ---------------------------------------------------------------- clients

async function player(url: string, roomId: string): Promise<{ room: TestRoom; rejected: RejectedMessage[]; leftWith: () => number | null; errors: string[] }> {
  const room = (await new Client(url).joinById(roomId, {}, RoomState)) as TestRoom;
  room.reconnection.enabled = false;
  const rejected: RejectedMessage[] = [];
  const errors: string[] = [];
  let left: number | null = null;
  room.onMessage(MSG_REJECTED, (m: RejectedMessage) => rejected.push(m));
  room.onMessage(MSG_WELCOME, () => {});
  room.onMessage("*", () => {});
  room.onLeave((code) => {
    left = code;
  });
  room.onError((code, message) => errors.push(`${code} ${message}`));
  return { room, rejected, leftWith: () => left, errors };
}

/** A raw WebSocket with a seat in the room; resolves once open (the JOIN_ROOM ack sent). */
async function rawSocket(url: string, port: number, roomId: string): Promise<{ ws: WebSocket; closed: Promise<number> }> {
  const seat = await json<{ sessionId: string; roomId: string; processId: string }>(
    fetch(`${url}/matchmake/joinById/${roomId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" }),
  );
  const ws = new WebSocket(`ws://127.0.0.1:${port}/${seat.processId}/${seat.roomId}?sessionId=${seat.sessionId}`);
  ws.binaryType = "arraybuffer";
  const closed = new Promise<number>((res) => ws.addEventListener("close", (e) => res(e.code)));
  await new Promise<void>((res, rej) => {
    ws.addEventListener("open", () => res());
    ws.addEventListener("error", () => rej(new Error("raw socket failed")));
  });
  ws.send(Uint8Array.from([10]));
  return { ws, closed };
}

async function info(roomId: string): Promise<Info> {
  return json<Info>(api(server.url, "GET", `/rooms/${roomId}`));
}

describe("fuzzing over real sockets", () => {
  it(`survives ${SDK_MESSAGES} fuzzed messages, ${RAW_FRAMES} garbage frames and oversized frames; nobody else notices`, async () => {
    const rng = createPrng(SEED);
    const target = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "arena", maxClients: 64, maxSpawnsPerSecond: 20 }))).roomId;
    const other = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "stack10" }))).roomId;
    const bystander = await player(server.url, target);
    const elsewhere = await player(server.url, other);
    const fuzzers = [await player(server.url, target), await player(server.url, target)];

    // 1. Well-framed messages with garbage content.
    let unsendable = 0;
    for (let i = 0; i < SDK_MESSAGES; i++) {
      const [type, payload] = fuzzMessage(rng);
      try {
        fuzzers[i % 2].room.send(type as typeof MSG_MOVE, payload as never);
      } catch {
        unsendable++; // the SDK itself refused to encode it
      }
      if (i % 500 === 499) await patches(bystander.room, 1);
    }
    expect(unsendable).toBeLessThan(SDK_MESSAGES / 10);
    // The server answered (rejections, within each client's notice budget) and kept both fuzzers connected.
    await eventually("rejections for the fuzzers", () => fuzzers.every((f) => f.rejected.length > 0));
    for (const f of fuzzers) expect(f.leftWith()).toBeNull();

    // 2. Raw garbage bytes; a socket the server closes is replaced by a new one.
    const closeCodes = new Map<number, number>();
    let sock = await rawSocket(server.url, server.port, target);
    let sent = 0;
    while (sent < RAW_FRAMES) {
      const frame = rawFrame(rng);
      if (sock.ws.readyState === WebSocket.OPEN) {
        sock.ws.send(frame);
        sent++;
        if (sent % 100 === 0) await patches(bystander.room, 1);
        continue;
      }
      const code = await sock.closed;
      closeCodes.set(code, (closeCodes.get(code) ?? 0) + 1);
      sock = await rawSocket(server.url, server.port, target);
    }
    sock.ws.close(1000);
    // Colyseus closes a socket whose frame it cannot decode with 4002; LEAVE_ROOM bytes leave (4000).
    for (const code of closeCodes.keys()) expect([4000, 4002, 1000, 1005]).toContain(code);

    // 3. Frames over the 4 KB limit: the connection is closed with 1009 before anything decodes them.
    const big = await rawSocket(server.url, server.port, target);
    big.ws.send(new Uint8Array(5000).fill(13));
    expect(await big.closed).toBe(1009);
    const oversized = await player(server.url, target);
    oversized.room.send(MSG_MOVE, { vx: 0, vz: 0, pad: "x".repeat(6000) } as never);
    await eventually("the oversized sender closed", () => oversized.leftWith() !== null);
    expect(oversized.leftWith()).toBe(1009);

    // Afterwards: alive, ticking, finite; the bystanders saw nothing; the fuzzers are still in.
    expect(alive(server)).toBe(true);
    const before = await info(target);
    await patches(bystander.room, 5);
    await patches(elsewhere.room, 5);
    const after = await info(target);
    expect(after.tick).toBeGreaterThan(before.tick);
    expect(after.finite).toBe(true);
    expect((await info(other)).finite).toBe(true);
    for (const p of [bystander, elsewhere]) {
      expect(p.rejected).toEqual([]);
      expect(p.errors).toEqual([]);
      expect(p.leftWith()).toBeNull();
    }
    for (const f of fuzzers) expect(f.leftWith()).toBeNull();
    expect(server.logs(/threw/)).toEqual([]);
    // Whatever valid input got through is in the replay, which re-simulates identically.
    const text = await (await api(server.url, "GET", `/rooms/${target}/replay`, undefined, null)).text();
    const file = join(tempDir("copy"), "fuzzed.ndjson");
    writeFileSync(file, text);
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.inputs).toBeGreaterThan(50);
    for (const p of [bystander, elsewhere, ...fuzzers]) await p.room.leave();
  });
});
