import { Client } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KIND_BOX, MSG_IMPULSE, MSG_MOVE, MSG_SPAWN, RoomState } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { admin, createRoom, joinRoom, position, startTestServer, type TestServer, waitForMessage, waitForState } from "./helpers.ts";

/** Ground, one box 3 m along +x from the first avatar's spawn spot (the origin), one far-away ball. */
const scene: Scenario = {
  name: "box-test",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0] },
    { id: "box", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [3, 0.5, 0] },
    { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [-10, 0.5, -10] },
  ],
  spawn: [0, 1, 0],
};

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

/** physics room: shared state, pushing, spawning and impulses. */
function sharedStateTests(): void {
  it("two clients see the same bodies; one pushes a box with its avatar and both see it move", async () => {
    const roomId = await createRoom(srv.url, { scenario: scene });
    const a = await joinRoom(srv.url, roomId);
    const b = await joinRoom(srv.url, roomId);
    const ids = (s: RoomState) => [...s.bodies.keys()].sort();
    const expected = ["avatar-" + a.sessionId, "avatar-" + b.sessionId, "ball", "box", "ground"].sort();
    await waitForState(a, "both avatars on client A", (s) => ids(s).join() === expected.join());
    await waitForState(b, "both avatars on client B", (s) => ids(s).join() === expected.join());
    // Both decode the same quantized state (once they are at the same tick).
    await waitForState(a, "box asleep on A", (s) => s.bodies.get("box")?.sleeping);
    await waitForState(b, "box asleep on B", (s) => s.bodies.get("box")?.sleeping);
    expect(position(a.state.bodies.get("box")!)).toEqual(position(b.state.bodies.get("box")!));
    expect(position(a.state.bodies.get("ground")!)).toEqual([0, -0.5, 0]);
    expect(a.state.avatars.get(a.sessionId)?.bodyId).toBe(`avatar-${a.sessionId}`);

    const boxX0 = position(a.state.bodies.get("box")!)[0];
    a.send(MSG_MOVE, { vx: 4, vz: 0 });
    const seenByA = await waitForState(a, "box pushed (A)", (s) => {
      const x = position(s.bodies.get("box")!)[0];
      return x > boxX0 + 0.5 ? x : false;
    });
    const seenByB = await waitForState(b, "box pushed (B)", (s) => {
      const x = position(s.bodies.get("box")!)[0];
      return x > boxX0 + 0.5 ? x : false;
    });
    expect(seenByA).toBeGreaterThan(boxX0);
    expect(seenByB).toBeGreaterThan(boxX0);
    // The avatar moved along +x with it and stayed on the ground.
    const avatar = position(b.state.bodies.get(`avatar-${a.sessionId}`)!);
    expect(avatar[0]).toBeGreaterThan(1);
    expect(avatar[1]).toBeCloseTo(0.9, 1);
    await a.leave();
    await waitForState(b, "A's avatar removed", (s) => !s.bodies.has(`avatar-${a.sessionId}`) && !s.avatars.has(a.sessionId));
    await b.leave();
  });

  it("spawn creates a body near the avatar and impulse moves a body, for every client", async () => {
    const roomId = await createRoom(srv.url, { scenario: scene });
    const a = await joinRoom(srv.url, roomId);
    const b = await joinRoom(srv.url, roomId);
    await waitForState(a, "own avatar", (s) => s.bodies.has(`avatar-${a.sessionId}`));
    a.send(MSG_SPAWN, { shape: "sphere", size: 0.25, velocity: [0, 2, 0] });
    const spawned = await waitForState(b, "spawned body on B", (s) => s.bodies.get("s1"));
    expect(spawned.kind & KIND_BOX).toBe(0); // sphere
    expect(spawned.hx).toBeCloseTo(0.25, 5);
    const near = position(spawned);
    const me = position(a.state.bodies.get(`avatar-${a.sessionId}`)!);
    expect(Math.hypot(near[0] - me[0], near[2] - me[2])).toBeLessThan(2);

    const y0 = position(a.state.bodies.get("ball")!)[1];
    b.send(MSG_IMPULSE, { bodyId: "ball", impulse: [0, 5, 0] });
    const top = await waitForState(a, "ball lifted (A)", (s) => {
      const y = position(s.bodies.get("ball")!)[1];
      return y > y0 + 0.3 ? y : false;
    });
    expect(top).toBeGreaterThan(y0);
    await waitForState(b, "ball lifted (B)", (s) => position(s.bodies.get("ball")!)[1] > y0 + 0.3);
    await a.leave();
    await b.leave();
  });
}

/** physics room: rejected messages and room limits. */
function rejectionAndLimitTests(): void {
  it("rejects invalid messages with a reason; the room keeps running and the other client is unaffected", async () => {
    const roomId = await createRoom(srv.url, { scenario: scene });
    const a = await joinRoom(srv.url, roomId);
    const b = await joinRoom(srv.url, roomId);
    const cases: [string, unknown, RegExp][] = [
      [MSG_MOVE, { vx: 999, vz: 0 }, /^vx: Too big/],
      [MSG_MOVE, { vx: Number.NaN, vz: 0 }, /^vx: /],
      [MSG_MOVE, "not an object", /^\(message\): /],
      [MSG_SPAWN, { shape: "cone", size: 0.5 }, /^shape: /],
      [MSG_SPAWN, { shape: "box", size: 0.5, extra: 1 }, /extra/],
      [MSG_IMPULSE, { bodyId: "nope", impulse: [0, 1, 0] }, /^bodyId: no body "nope"/],
      [MSG_IMPULSE, { bodyId: "ground", impulse: [0, 1, 0] }, /not dynamic/],
      [MSG_IMPULSE, { bodyId: "ball", impulse: [0, 1e9, 0] }, /^impulse\[1\]: Too big/],
      [MSG_IMPULSE, { bodyId: "ball", impulse: [0, 1, 0], point: [40, 0, 40] }, /^point: farther/],
      ["teleport", { x: 1 }, /unknown message type "teleport"/],
    ];
    for (const [type, payload, reason] of cases) {
      const answer = waitForMessage<{ type: string; reason: string }>(a, "rejected");
      a.send(type as typeof MSG_MOVE, payload as never);
      const r = await answer;
      expect(r.type).toBe(type);
      expect(r.reason).toMatch(reason);
    }
    // Nothing reached the world: no NaN anywhere, and the room still ticks for both clients.
    const tick = a.state.tick;
    await waitForState(a, "ticks advancing (A)", (s) => s.tick > tick + 10);
    await waitForState(b, "ticks advancing (B)", (s) => s.tick > tick + 10);
    for (const body of a.state.bodies.values()) expect(position(body).every(Number.isFinite)).toBe(true);
    expect(b.rejected).toEqual([]);
    // A is still connected and can act.
    a.send(MSG_MOVE, { vx: 0, vz: 2 });
    await waitForState(b, "A's avatar moving", (s) => position(s.bodies.get(`avatar-${a.sessionId}`)!)[2] > 0.5);
    await a.leave();
    await b.leave();
  });

  it("enforces max clients, max bodies and the spawn rate", async () => {
    // 3 scenario bodies + 1 avatar; room for exactly 2 spawns.
    const roomId = await createRoom(srv.url, { scenario: scene, maxClients: 1, maxBodies: 6, maxSpawnsPerSecond: 20 });
    const a = await joinRoom(srv.url, roomId);
    await expect(new Client(srv.url).joinById(roomId, {}, RoomState)).rejects.toThrow();
    await waitForState(a, "own avatar", (s) => s.bodies.has(`avatar-${a.sessionId}`));
    for (let i = 0; i < 3; i++) a.send(MSG_SPAWN, { shape: "box", size: 0.2 });
    const r = await waitForMessage<{ reason: string }>(a, "rejected");
    expect(r.reason).toMatch(/body limit reached: the room holds at most 6 bodies/);
    await waitForState(a, "two spawned bodies", (s) => s.bodies.has("s1") && s.bodies.has("s2"));
    expect(a.state.bodies.size).toBe(6);
    await a.leave();

    const rateRoom = await createRoom(srv.url, { scenario: scene, maxSpawnsPerSecond: 2 });
    const c = await joinRoom(srv.url, rateRoom);
    for (let i = 0; i < 3; i++) c.send(MSG_SPAWN, { shape: "sphere", size: 0.2 });
    const limited = await waitForMessage<{ reason: string }>(c, "rejected");
    expect(limited.reason).toMatch(/spawn rate limit: at most 2 per second/);
    await waitForState(c, "two spawned bodies", (s) => s.bodies.has("s1") && s.bodies.has("s2"));
    await c.leave();
  });
}

/** physics room: resting patches and player-created rooms. */
function patchAndCreationTests(): void {
  it("sends nothing for sleeping and static bodies: a resting room's patch is only the clock", async () => {
    const roomId = await createRoom(srv.url, { scenario: "fiedler-cubes" });
    const a = await joinRoom(srv.url, roomId);
    await waitForState(a, "all 900 cubes asleep", (s) => {
      let n = 0;
      for (const body of s.bodies.values()) n += body.sleeping ? 1 : 0;
      return n === 900 && s.avatars.get(a.sessionId)?.grounded;
    });
    const sizes: number[] = [];
    const ws = (a.connection as unknown as { transport: { ws: WebSocket } }).transport.ws;
    const listener = (e: MessageEvent) => sizes.push((e.data as ArrayBuffer).byteLength);
    ws.addEventListener("message", listener);
    let n = 0;
    await waitForState(a, "10 more patches", () => ++n > 10);
    ws.removeEventListener("message", listener);
    // tick (uint32) + time (uint32) + framing: about a dozen bytes, whatever the body count.
    expect(sizes.length).toBeGreaterThanOrEqual(10);
    expect(Math.max(...sizes)).toBeLessThanOrEqual(16);
    await a.leave();
    // An admin room runs on for minutes after its last player: its 900 cubes would take the process's
    // CPU from the rooms of the next test.
    await admin(srv.url, "DELETE", `/rooms/${roomId}`);
  });

  it("lets players create rooms from a scene name or scenario JSON, within the player limits", async () => {
    const named = await new Client(srv.url).create("physics", { scenario: "stack10" }, RoomState);
    await waitForState(named, "stack10", (s) => s.scenario === "stack10");
    await named.leave();
    const custom = await new Client(srv.url).create("physics", { scenario: scene }, RoomState);
    await waitForState(custom, "custom scene", (s) => s.scenario === "box-test" && s.bodies.has("box"));
    await custom.leave();
    const huge = { name: "huge", bodies: Array.from({ length: 3001 }, (_, i) => ({ id: `b${i}`, type: "static", shape: { type: "sphere", radius: 0.1 }, position: [i, 0, 0] })) };
    await expect(new Client(srv.url).create("physics", { scenario: huge, maxBodies: 20000 }, RoomState)).rejects.toThrow(/scenario.bodies: at most 3000 bodies/);
    await expect(new Client(srv.url).create("physics", { scenario: "nope" }, RoomState)).rejects.toThrow(/unknown built-in scenario/);
  });
}

describe("physics room over real sockets", () => {
  sharedStateTests();
  rejectionAndLimitTests();
  patchAndCreationTests();
});
