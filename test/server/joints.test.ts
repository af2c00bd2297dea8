import type { DataChange } from "@colyseus/schema";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type JointDef, type JointType, JointTypeCode } from "../../shared/engine/index.ts";
import { type BodyState, JointState, jointAxisOf, jointTypeCodeOf, MSG_IMPULSE, MSG_MOVE, type RoomState } from "../../shared/net/index.ts";
import { getBuiltinScenario, type Scenario } from "../../shared/scenarios/index.ts";
import { admin, createRoom, joinRoom, patches, position, rotation, startTestServer, type TestRoom, type TestServer, waitForState } from "./helpers.ts";

/**
 * Joints in a real room: a real server, real SDK clients. Each joint arrives once with its anchors in its
 * bodies' frames; a player walking into a hinged door swings it about its hinge; a rope yanked past its
 * break force disappears from every client's state; a reload through the admin API brings it back.
 */

/**
 * Ground; a door hinged to the world about a vertical axis through its edge at z = -1, standing across the
 * path of the first avatar (spawned at the origin, walking along +x at z = 0, 1 m from the hinge); a 1 kg
 * bob hanging on a 2 m rope from a world point, breaking above 40 N (4x its weight).
 */
const scene: Scenario & { joints: JointDef[] } = {
  name: "joint-room-test",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [30, 0.5, 30] }, position: [0, -0.5, 0] },
    { id: "door", type: "dynamic", shape: { type: "box", halfExtents: [0.05, 1, 0.75] }, position: [2.5, 1.1, -0.25], mass: 5 },
    { id: "bob", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [-4, 1, -4], mass: 1 },
  ],
  joints: [
    { id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [2.5, 1.1, -1], axis: [0, 1, 0] },
    { id: "rope", type: "distance", bodyA: "bob", bodyB: null, anchor: [-4, 1, -4], anchorB: [-4, 3, -4], limits: [0, 2], breakForce: 40 },
  ],
  spawn: [0, 1, 0],
};

const HINGE_WORLD: [number, number, number] = [2.5, 1.1, -1];

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

/** World point of a body-frame point under the body's pose as the client decoded it. */
function worldPoint(b: BodyState, local: readonly number[]): number[] {
  const p = position(b);
  const [x, y, z, w] = rotation(b);
  const [vx, vy, vz] = local;
  const tx = 2 * (y * vz - z * vy);
  const ty = 2 * (z * vx - x * vz);
  const tz = 2 * (x * vy - y * vx);
  return [p[0] + vx + w * tx + (y * tz - z * ty), p[1] + vy + w * ty + (z * tx - x * tz), p[2] + vz + w * tz + (x * ty - y * tx)];
}

function distance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

/** Degrees a body's decoded rotation is away from identity. */
function turnedDeg(b: BodyState): number {
  const w = Math.min(1, Math.abs(rotation(b)[3]));
  return (2 * Math.acos(w) * 180) / Math.PI;
}

function jointIds(s: RoomState): string {
  return s.joints ? [...s.joints.keys()].sort().join() : "";
}

/**
 * After the first player's join: the room restarts its scene for its first player (RoomSim.join), which
 * may come after the full state the client joined with; a few patches later the world is the one it keeps.
 */
async function settled(room: TestRoom): Promise<void> {
  await patches(room, 3);
}

/** Counts what the client decodes on JointState entries from now on (chained before the SDK's own callbacks). */
function countJointFieldChanges(room: TestRoom): { count: number } {
  const decoder = (room as unknown as { serializer: { decoder: { triggerChanges?: (changes: DataChange[]) => void } } }).serializer.decoder;
  const seen = { count: 0 };
  const next = decoder.triggerChanges;
  decoder.triggerChanges = (changes) => {
    for (const c of changes) if (c.ref instanceof JointState) seen.count++;
    next?.call(decoder, changes);
  };
  return seen;
}

describe("joints in a room", () => {
  it("each joint arrives once with its anchors; pushing the door swings it on its hinge; a broken rope leaves every client's state; a reload brings it back", async () => {
    const roomId = await createRoom(srv.url, { scenario: scene });
    const a = await joinRoom(srv.url, roomId);
    await settled(a);
    await waitForState(a, "both joints", (s) => jointIds(s) === "hinge,rope");

    const hinge = a.state.joints!.get("hinge")!;
    expect(hinge.type).toBe(JointTypeCode.HINGE);
    expect([hinge.bodyA, hinge.bodyB]).toEqual(["door", ""]);
    // A's anchor in the door's frame (its edge), B's the world point; the axis in the door's frame.
    expect(distance([hinge.ax, hinge.ay, hinge.az], [0, 0, -0.75])).toBeLessThan(1e-6);
    expect([hinge.bx, hinge.by, hinge.bz]).toEqual(HINGE_WORLD.map(Math.fround));
    const axis = [0, 0, 0];
    jointAxisOf(hinge, axis);
    expect(distance(axis, [0, 1, 0])).toBeLessThan(1e-6);
    const rope = a.state.joints!.get("rope")!;
    expect(rope.type).toBe(JointTypeCode.DISTANCE);
    expect([rope.bodyA, rope.bodyB]).toEqual(["bob", ""]);
    expect(distance([rope.ax, rope.ay, rope.az], [0, 0, 0])).toBeLessThan(1e-6);
    expect([rope.bx, rope.by, rope.bz]).toEqual([-4, 3, -4]);
    // The decoded door pose puts the hinge anchor on the world point (quantization: 1 mm, 0.05°).
    expect(distance(worldPoint(a.state.bodies.get("door")!, [hinge.ax, hinge.ay, hinge.az]), HINGE_WORLD)).toBeLessThan(0.005);
    const jointChanges = countJointFieldChanges(a);

    // The rope holds the bob up: hanging at its creation height after a second (free, it would lie on the ground at 0.2).
    await waitForState(a, "a second of ticks", (s) => s.tick > 60);
    expect(position(a.state.bodies.get("bob")!)[1]).toBeCloseTo(1, 1);

    // Walking into the door swings it about the hinge; the hinge edge stays where it was.
    a.send(MSG_MOVE, { vx: 4, vz: 0 });
    const turned = await waitForState(a, "door swung by the avatar", (s) => {
      const door = s.bodies.get("door")!;
      return turnedDeg(door) > 25 ? door : false;
    });
    a.send(MSG_MOVE, { vx: 0, vz: 0 });
    expect(distance(worldPoint(turned, [hinge.ax, hinge.ay, hinge.az]), HINGE_WORLD)).toBeLessThan(0.03);
    // It turned about the vertical axis: its centre moved sideways around the hinge, not down.
    const centre = position(turned);
    expect(centre[1]).toBeCloseTo(1.1, 1);
    expect(Math.hypot(centre[0] - HINGE_WORLD[0], centre[2] - HINGE_WORLD[2])).toBeCloseTo(0.75, 1);
    expect(centre[0]).toBeGreaterThan(2.6);

    // A second client joining now gets both joints in its full state.
    const b = await joinRoom(srv.url, roomId);
    await waitForState(b, "joints on B", (s) => jointIds(s) === "hinge,rope");
    expect(b.state.joints!.get("hinge")!.az).toBe(hinge.az);

    // A shove on the bob (10 N·s sideways: swinging at 10 m/s on 2 m, the rope must pull m g + m v² / L ≈ 60 N) breaks the rope.
    b.send(MSG_IMPULSE, { bodyId: "bob", impulse: [-10, 0, 0] });
    await waitForState(a, "rope gone on A", (s) => jointIds(s) === "hinge");
    await waitForState(b, "rope gone on B", (s) => jointIds(s) === "hinge");
    await waitForState(a, "bob on the ground", (s) => position(s.bodies.get("bob")!)[1] < 0.3);
    // Each entry was decoded once: nothing of a joint was sent again in all these patches.
    expect(jointChanges.count).toBe(0);
    expect(a.state.joints!.get("hinge")).toBe(hinge);

    // The admin API reloads the scenario: the door stands closed and the rope is back, a new entry.
    const res = await admin(srv.url, "POST", `/rooms/${roomId}/scenario`, { scenario: scene });
    expect(res.status).toBe(200);
    for (const room of [a, b]) {
      const reloaded = await waitForState(room, "rope back", (s) => (jointIds(s) === "hinge,rope" ? s.joints! : false));
      expect(reloaded.get("hinge")).not.toBe(hinge);
      const again = reloaded.get("rope")!;
      expect([again.bx, again.by, again.bz]).toEqual([-4, 3, -4]);
    }
    await waitForState(a, "bob hanging again", (s) => Math.abs(position(s.bodies.get("bob")!)[1] - 1) < 0.05);
    await a.leave();
    await b.leave();
  });
});

/**
 * A push each built-in joint scene answers to, where the scene on its own hardly moves the body along
 * that axis: the chain swings and the cart drives in the x-y plane (a push along z), a plank near the
 * bridge's end is lifted, a ragdoll's head shoved sideways. `times` impulse messages at once (a player
 * shift-clicking a few times: each is at most 30 N·s).
 */
const PUSHES: { name: string; body: string; impulse: [number, number, number]; times: number }[] = [
  { name: "bridge", body: "plank3", impulse: [0, 30, 0], times: 10 },
  { name: "chain", body: "link15", impulse: [0, 0, 30], times: 5 },
  { name: "ragdolls", body: "ragdoll0-head", impulse: [0, 0, 30], times: 5 },
  { name: "cart", body: "wheel-front-left", impulse: [0, 0, -30], times: 5 },
];

/** Joint types whose two anchors coincide while the joint holds. */
const COINCIDENT: JointType[] = ["fixed", "ball", "hinge"];

/** Largest move of `body` along `axis` (unit) away from where it was at the start, over `n` patches. */
async function largestMove(room: TestRoom, body: string, axis: readonly number[], n: number): Promise<number> {
  const along = (s: RoomState) => {
    const p = position(s.bodies.get(body)!);
    return p[0] * axis[0] + p[1] * axis[1] + p[2] * axis[2];
  };
  const start = along(room.state);
  let most = 0;
  let seen = 0;
  await waitForState(room, `${n} patches of ${body}`, (s) => {
    most = Math.max(most, along(s) - start);
    return ++seen >= n;
  });
  return most;
}

describe("built-in joint scenes in a room", () => {
  it.each(PUSHES)("$name: every joint arrives once and holds on the client; a player's push on $body moves it", async ({ name, body, impulse, times }) => {
    const scenario = getBuiltinScenario(name);
    expect(scenario, `built-in ${name}`).toBeDefined();
    const joints = scenario!.joints ?? [];
    expect(joints.length).toBeGreaterThan(0);
    const roomId = await createRoom(srv.url, { scenario: name });
    const a = await joinRoom(srv.url, roomId);
    await settled(a);
    const ids = joints.map((j) => j.id).sort().join();
    await waitForState(a, `${name}'s joints`, (s) => jointIds(s) === ids);
    const changes = countJointFieldChanges(a);
    // Past the first landing: the ragdolls hit the stairs from 5-6 m in their first second, when a limb's
    // joint opens by up to 7 cm for a tick or two (2 to 5 mm from the second on); the scene starts over
    // at the first join, so two seconds after the join is two seconds into the scene.
    const joinedAt = a.state.tick;
    await waitForState(a, "two seconds of the scene", (s) => s.tick >= joinedAt + 2 * s.tickRate);

    // Over a few patches the client's poses keep each hinge, ball and fixed joint's two anchors together,
    // and a distance joint's within its limits: the anchors are right in their bodies' frames.
    let worst = 0;
    let checks = 0;
    await waitForState(a, "5 patches", (s) => {
      for (const def of joints) {
        const j = s.joints!.get(def.id)!;
        expect(j.type, def.id).toBe(jointTypeCodeOf(def.type));
        const pa = worldPoint(s.bodies.get(j.bodyA)!, [j.ax, j.ay, j.az]);
        const pb = j.bodyB === "" ? [j.bx, j.by, j.bz] : worldPoint(s.bodies.get(j.bodyB)!, [j.bx, j.by, j.bz]);
        const gap = distance(pa, pb);
        if (COINCIDENT.includes(def.type)) worst = Math.max(worst, gap);
        else if (def.type === "distance" && def.limits) expect(gap, def.id).toBeLessThan(def.limits[1] + 0.05);
      }
      return ++checks >= 5;
    });
    console.log(`${name}: ${joints.length} joints; anchors of coincident joints apart by at most ${(worst * 1000).toFixed(1)} mm on the client`);
    expect(worst).toBeLessThan(0.05);

    const norm = Math.hypot(...impulse);
    const axis = impulse.map((v) => v / norm);
    const natural = await largestMove(a, body, axis, 12);
    for (let i = 0; i < times; i++) a.send(MSG_IMPULSE, { bodyId: body, impulse });
    const pushed = await largestMove(a, body, axis, 12);
    console.log(`${name}: ${body} moved ${pushed.toFixed(3)} m along the push in 0.6 s (${natural.toFixed(3)} m on its own before)`);
    expect(a.rejected).toEqual([]);
    expect(pushed).toBeGreaterThan(natural + 0.2);
    expect(changes.count).toBe(0);
    await a.leave();
  });
});
