import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { type BodyState, dequantizeAxis, dequantizeRotation, MSG_REJECTED, MSG_WELCOME, type RejectedMessage, RoomState } from "../../shared/net/index.ts";
import { type AppOptions, createPhysicsServer, type PhysicsServer } from "../../server/app.ts";

export const TOKEN = "test-admin-token";

/**
 * Admission limits for tests of other things: their clients all share one address, and rooms of earlier
 * tests keep running in the same process (test/hostile checks the real defaults).
 */
export const LOOPBACK_ADMISSION = Object.freeze({
  roomCreationsPerMinute: 100_000,
  seatReservationsPerMinute: 100_000,
  pendingSeatsPerAddress: 100_000,
  playerRoomsCpuMs: 100_000,
});

export interface TestServer {
  server: PhysicsServer;
  port: number;
  url: string;
  replayDir: string;
  close(): Promise<void>;
}

/** A real server on a random loopback port with a temporary replay directory. */
export async function startTestServer(options: Partial<AppOptions> = {}): Promise<TestServer> {
  const replayDir = mkdtempSync(join(tmpdir(), "physics-replays-"));
  const limits = { ...LOOPBACK_ADMISSION, ...options.limits };
  const server = await createPhysicsServer({ adminToken: TOKEN, replayDir, logger: false, ...options, limits });
  const port = await server.listen(0, "127.0.0.1");
  return {
    server,
    port,
    url: `http://127.0.0.1:${port}`,
    replayDir,
    async close() {
      await server.close();
      rmSync(replayDir, { recursive: true, force: true });
    },
  };
}

export async function admin(base: string, method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

export async function createRoom(base: string, body: unknown): Promise<string> {
  const res = await admin(base, "POST", "/rooms", body);
  if (res.status !== 201) throw new Error(`POST /rooms → ${res.status} ${await res.text()}`);
  return ((await res.json()) as { roomId: string }).roomId;
}

export type TestRoom = Room<unknown, RoomState> & { rejected: RejectedMessage[] };

/** Joins with a real SDK client; collects rejections; waits for the welcome message. */
export async function joinRoom(url: string, roomId: string): Promise<TestRoom> {
  const client = new Client(url);
  const room = (await client.joinById(roomId, {}, RoomState)) as TestRoom;
  room.rejected = [];
  room.onMessage(MSG_REJECTED, (m: RejectedMessage) => room.rejected.push(m));
  await new Promise<void>((resolve) => {
    const off = room.onMessage(MSG_WELCOME, () => {
      off();
      resolve();
    });
  });
  return room;
}

/**
 * Resolves with the predicate's first truthy result, checked after every state patch the client
 * decodes (no fixed sleeps). Rejects after `timeoutMs` with `what` in the message.
 */
export function waitForState<T>(room: Room<unknown, RoomState>, what: string, predicate: (state: RoomState) => T | undefined | false | null, timeoutMs = 15000): Promise<T> {
  return new Promise((resolve, reject) => {
    const first = predicate(room.state);
    if (first) return resolve(first);
    const timer = setTimeout(() => {
      off();
      reject(new Error(`timed out waiting for ${what}`));
    }, timeoutMs);
    const off = onState(room, () => {
      const v = predicate(room.state);
      if (v) {
        clearTimeout(timer);
        off();
        resolve(v);
      }
    });
  });
}

function onState(room: Room<unknown, RoomState>, fn: () => void): () => void {
  let active = true;
  room.onStateChange(() => {
    if (active) fn();
  });
  return () => {
    active = false;
  };
}

/** Waits until `n` more patches arrived. */
export async function patches(room: Room<unknown, RoomState>, n: number): Promise<void> {
  let seen = 0;
  await waitForState(room, `${n} patches`, () => ++seen > n);
}

export function position(b: BodyState): [number, number, number] {
  return [dequantizeAxis(b.cx, b.fx), dequantizeAxis(b.cy, b.fy), dequantizeAxis(b.cz, b.fz)];
}

export function rotation(b: BodyState): number[] {
  const q = [0, 0, 0, 1];
  dequantizeRotation(b.rh, b.rl, q);
  return q;
}

export function waitForMessage<T>(room: Room<unknown, RoomState>, type: string, timeoutMs = 10000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out waiting for message ${type}`)), timeoutMs);
    const off = room.onMessage(type, (m: T) => {
      clearTimeout(timer);
      off();
      resolve(m);
    });
  });
}
