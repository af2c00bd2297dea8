import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorldBounds } from "../../shared/engine/index.ts";
import { LIMITS, MSG_IMPULSE, MSG_SPAWN, type RoomInfo, type RoomState } from "../../shared/net/index.ts";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { admin, createRoom, joinRoom, position, startTestServer, type TestServer, waitForMessage, waitForState } from "./helpers.ts";

/**
 * World bounds over real sockets: a player floods in-limit impulses at arena bodies until they leave the
 * scenario's world.bounds; the engine removes them, the room counts them (GET /rooms/:id, /metrics), no
 * client ever holds a body past the bounds for more than 1 s of simulation time, and the freed capacity
 * can be spawned into again.
 */

const arena = getBuiltinScenario("arena")!;
const bounds = arena.world?.bounds as WorldBounds;
/** arena's bodies plus the one player's avatar: the room starts full. */
const MAX_BODIES = arena.bodies.length + 1;
/** Messages per 100 ms burst: 80 per second, under the default MAX_INPUTS_PER_SECOND (120). */
const BURST = 8;
/** Sim time a body may be seen past the bounds before it must be gone, ms. */
const GRACE_MS = 1000;

/** Straight up, and up at 45° along each horizontal axis: out through the ceiling. */
const DIRECTIONS: [number, number, number][] = [
  [0, LIMITS.maxImpulse, 0],
  [LIMITS.maxImpulse, LIMITS.maxImpulse, 0],
  [0, LIMITS.maxImpulse, -LIMITS.maxImpulse],
];
/** Six boxes (1 kg: +30 m/s per impulse) and six balls (0.52 kg: +57 m/s). */
const TARGETS = ["box0", "box1", "box2", "box3", "box4", "box5", "ball0", "ball1", "ball2", "ball3", "ball4", "ball5"];
/** Impulses per target: enough to reach the engine's 400 m/s speed cap. */
const IMPULSES_PER_TARGET = 14;

function outside(p: readonly number[]): boolean {
  for (let k = 0; k < 3; k++) if (p[k] < bounds.min[k] || p[k] > bounds.max[k]) return true;
  return false;
}

async function info(url: string, roomId: string): Promise<RoomInfo> {
  const res = await admin(url, "GET", `/rooms/${roomId}`);
  expect(res.status).toBe(200);
  return (await res.json()) as RoomInfo;
}

async function removedMetric(url: string, roomId: string): Promise<number> {
  const text = await (await admin(url, "GET", "/metrics")).text();
  const m = new RegExp(`^physics_removed_bodies_total\\{room="${roomId}"\\} (\\d+)$`, "m").exec(text);
  return m ? Number(m[1]) : Number.NaN;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv?.close();
});

describe("world bounds in a room", () => {
  it("bodies flooded out of the arena's bounds are removed, counted and free their capacity", async () => {
    expect(bounds).toBeDefined();
    const roomId = await createRoom(srv.url, { scenario: "arena", maxBodies: MAX_BODIES, maxSpawnsPerSecond: 4 });
    const room = await joinRoom(srv.url, roomId);
    await waitForState(room, "the arena and the avatar", (s) => s.bodies.size === MAX_BODIES);
    const before = await info(srv.url, roomId);
    expect(before).toMatchObject({ bodies: MAX_BODIES, maxBodies: MAX_BODIES, removedBodies: 0 });

    // Full: a spawn is refused.
    room.send(MSG_SPAWN, { shape: "sphere", size: 0.25 });
    const refused = await waitForMessage<{ type: string; reason: string }>(room, "rejected");
    expect(refused).toEqual({ type: MSG_SPAWN, reason: `body limit reached: the room holds at most ${MAX_BODIES} bodies` });

    // Watch every patch: when (in sim time) each body was first seen past the bounds, and whether it
    // is still there GRACE_MS later.
    const firstOutside = new Map<string, number>();
    const lingering: string[] = [];
    let highest = 0;
    const watch = (s: RoomState) => {
      s.bodies.forEach((b, id) => {
        const p = position(b);
        highest = Math.max(highest, p[1]);
        if (!outside(p)) return;
        const since = firstOutside.get(id);
        if (since === undefined) firstOutside.set(id, s.time);
        else if (s.time - since > GRACE_MS) lingering.push(`${id} at [${p.join(", ")}] for ${s.time - since} ms`);
      });
    };
    room.onStateChange(watch);

    // The flood: every target in turn, BURST messages per 100 ms, all within the per-message limits.
    const messages: { bodyId: string; impulse: [number, number, number] }[] = [];
    for (let k = 0; k < IMPULSES_PER_TARGET; k++) {
      TARGETS.forEach((bodyId, i) => {
        messages.push({ bodyId, impulse: DIRECTIONS[i % DIRECTIONS.length] });
      });
    }
    for (let i = 0; i < messages.length; i += BURST) {
      for (const m of messages.slice(i, i + BURST)) room.send(MSG_IMPULSE, m);
      await sleep(100);
    }

    const gone = (s: RoomState) => TARGETS.every((id) => !s.bodies.has(id));
    await waitForState(room, "every target removed from the synced state", gone, 30000);
    // A few more patches, so anything still lingering would be seen.
    const until = room.state.time + 2 * GRACE_MS;
    await waitForState(room, "two more seconds of simulation", (s) => s.time >= until, 15000);

    expect(lingering).toEqual([]);
    // They did fly: the client saw bodies far above anything resting in the arena.
    expect(highest).toBeGreaterThan(100);
    // Nothing else left: the avatar and the other bodies are still there.
    expect(room.state.bodies.size).toBe(MAX_BODIES - TARGETS.length);
    expect(room.state.bodies.has(`avatar-${room.sessionId}`)).toBe(true);
    // Only impulses at bodies already gone were refused (no rate limit, no invalid message).
    for (const r of room.rejected.slice(1)) expect(r.reason).toMatch(/^bodyId: no body "(box|ball)\d"$/);

    const after = await info(srv.url, roomId);
    expect(after.removedBodies).toBe(TARGETS.length);
    expect(after.bodies).toBe(MAX_BODIES - TARGETS.length);
    expect(await removedMetric(srv.url, roomId)).toBe(TARGETS.length);

    // The removed bodies' capacity is free again: a spawn is accepted and shows up.
    room.send(MSG_SPAWN, { shape: "sphere", size: 0.25 });
    const spawned = await waitForState(room, "a spawned body", (s) => [...s.bodies.keys()].find((id) => /^s\d+$/.test(id)));
    expect(spawned).toBeDefined();
    expect((await info(srv.url, roomId)).bodies).toBe(MAX_BODIES - TARGETS.length + 1);
    await room.leave();
  }, 60000);
});
