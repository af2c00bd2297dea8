import { describe, expect, it } from "vitest";
import type { BodyDef, ContactEvent, Vec3Tuple, World } from "../../shared/engine/index.ts";
import { GROUND, worldWith } from "./helpers.ts";

/**
 * Collision groups, sensors and contact events: each claim is about what a game would rely on (a goal
 * counts each ball once, debris passes through players, an impact reports its strength).
 */
const ball = (id: string, position: Vec3Tuple, extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "dynamic",
  shape: { type: "sphere", radius: 0.25 },
  position,
  ...extra,
});

/** Steps n times and returns every event in order, with the tick it was read after. */
function run(w: World, n: number): (ContactEvent & { tick: number })[] {
  const out: (ContactEvent & { tick: number })[] = [];
  for (let i = 0; i < n; i++) {
    w.step();
    w.forEachEvent((e) => out.push({ ...e, tick: w.tick }));
  }
  return out;
}

const names = (events: ContactEvent[]) => events.map((e) => `${e.type} ${e.a} ${e.b}`);

describe("sensors", () => {
  it("a ball dropped through a sensor slab: exactly one enter and one exit, and it falls as if nothing were there", () => {
    const slab: BodyDef = { id: "gate", type: "static", sensor: true, shape: { type: "box", halfExtents: [2, 0.5, 2] }, position: [0, 5, 0] };
    const w = worldWith({ tickRate: 60, sleep: false }, [slab, ball("b", [0, 10, 0])]);
    const free = worldWith({ tickRate: 60, sleep: false }, [ball("b", [0, 10, 0])]);
    const events = run(w, 120);
    for (let i = 0; i < 120; i++) free.step();
    expect(names(events)).toEqual(["sensorEnter gate b", "sensorExit gate b"]);
    expect(events[1]!.tick).toBeGreaterThan(events[0]!.tick);
    // Never pushed, never slowed: bit-identical to the same fall without the sensor.
    expect(w.getPosition(w.handleOf("b"))).toEqual(free.getPosition(free.handleOf("b")));
    expect(w.getLinearVelocity(w.handleOf("b"))).toEqual(free.getLinearVelocity(free.handleOf("b")));
  });

  it("100 balls poured into a sensor cup report 100 enters and no exit", () => {
    const bodies: BodyDef[] = [GROUND];
    // A cup: floor plus four walls, and the sensor filling its inside.
    const wall = (id: string, position: Vec3Tuple, half: Vec3Tuple): BodyDef => ({ id, type: "static", shape: { type: "box", halfExtents: half }, position });
    bodies.push(wall("wx0", [-2.1, 1.5, 0], [0.1, 1.5, 2.2]), wall("wx1", [2.1, 1.5, 0], [0.1, 1.5, 2.2]));
    bodies.push(wall("wz0", [0, 1.5, -2.1], [2, 1.5, 0.1]), wall("wz1", [0, 1.5, 2.1], [2, 1.5, 0.1]));
    bodies.push({ id: "cup", type: "static", sensor: true, shape: { type: "box", halfExtents: [2, 1.5, 2] }, position: [0, 1.5, 0] });
    for (let i = 0; i < 100; i++) {
      const x = ((i % 5) - 2) * 0.6;
      const z = ((Math.floor(i / 5) % 5) - 2) * 0.6;
      bodies.push(ball(`b${i}`, [x, 4 + Math.floor(i / 25) * 0.7, z]));
    }
    const w = worldWith({ tickRate: 60 }, bodies);
    const events = run(w, 600);
    const enters = events.filter((e) => e.type === "sensorEnter");
    expect(enters.length).toBe(100);
    expect(new Set(enters.map((e) => e.b)).size).toBe(100);
    expect(events.filter((e) => e.type === "sensorExit")).toEqual([]);
    // Sensor events never come with contact forces on the sensor: the cup itself is not in any contact event.
    expect(events.filter((e) => e.type.startsWith("contact") && (e.a === "cup" || e.b === "cup"))).toEqual([]);
  });

  it("a moving kinematic sensor sweeps through resting boxes without pushing or waking them", () => {
    const boxes: BodyDef[] = [0, 1, 2].map((i) => ({ id: `box${i}`, type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [i * 3, 0.5, 0] }));
    const w = worldWith({ tickRate: 60 }, [GROUND, ...boxes]);
    for (let i = 0; i < 120; i++) w.step();
    expect(boxes.every((b) => w.isSleeping(w.handleOf(b.id)))).toBe(true);
    const before = boxes.map((b) => w.getPosition(w.handleOf(b.id)));
    const probe = w.createBody({ id: "probe", type: "kinematic", sensor: true, shape: { type: "sphere", radius: 0.3 }, position: [-3, 0.5, 0] });
    w.setLinearVelocity(probe, [6, 0, 0]);
    const events = run(w, 120);
    expect(names(events)).toEqual([
      "sensorEnter probe box0",
      "sensorExit probe box0",
      "sensorEnter probe box1",
      "sensorExit probe box1",
      "sensorEnter probe box2",
      "sensorExit probe box2",
    ]);
    expect(boxes.map((b) => w.getPosition(w.handleOf(b.id)))).toEqual(before);
  });
});

describe("sensors and characters", () => {
  it("a kinematic character walking through a static zone enters and exits it once, and the zone never blocks it", () => {
    const zone: BodyDef = { id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 1, 1] }, position: [0, 1, 0] };
    const w = worldWith({ tickRate: 60 }, [GROUND, zone, { id: "hero", type: "kinematic", shape: { type: "box", halfExtents: [0.3, 0.5, 0.3] }, position: [-3, 0.5, 0] }]);
    const hero = w.handleOf("hero");
    const seen: string[] = [];
    for (let i = 0; i < 60; i++) {
      // 0.1 m a tick: 6 m in total, straight through the 2 m zone.
      w.moveCharacter(hero, [0.1, 0, 0]);
      w.step();
      w.forEachEvent((e) => seen.push(`${e.type} ${e.a} ${e.b}`));
    }
    expect(seen).toEqual(["sensorEnter zone hero", "sensorExit zone hero"]);
    expect(w.getPosition(hero)[0]).toBeCloseTo(3, 9);
  });
});

describe("collision groups", () => {
  it("bodies in groups that filter each other out pass through each other with zero events", () => {
    const debris = { memberships: 0b10, filter: 0b01 };
    const players = { memberships: 0b100, filter: 0b11 };
    const w = worldWith({ tickRate: 60, gravity: [0, 0, 0] }, [
      ball("debris", [-2, 0, 0], { linearVelocity: [2, 0, 0], collisionGroups: debris }),
      ball("player", [2, 0, 0], { linearVelocity: [-2, 0, 0], collisionGroups: players }),
    ]);
    const events = run(w, 120);
    expect(events).toEqual([]);
    expect(w.getLinearVelocity(w.handleOf("debris"))).toEqual([2, 0, 0]);
    expect(w.getPosition(w.handleOf("debris"))[0]).toBeCloseTo(2, 9);
  });

  it("one-sided membership is not enough (Rapier's rule): A in B's filter but B not in A's", () => {
    const w = worldWith({ tickRate: 60, gravity: [0, 0, 0] }, [
      ball("a", [-1, 0, 0], { linearVelocity: [2, 0, 0], collisionGroups: { memberships: 1, filter: 1 } }),
      ball("b", [1, 0, 0], { linearVelocity: [-2, 0, 0], collisionGroups: { memberships: 2, filter: 1 } }),
    ]);
    expect(run(w, 60)).toEqual([]);
  });

  it("changing groups at run time ends the filtered contacts at once: a box resting on the ground falls through", () => {
    const w = worldWith({ tickRate: 60 }, [GROUND, { id: "box", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 0.5, 0] }]);
    run(w, 240);
    const box = w.handleOf("box");
    expect(w.isSleeping(box)).toBe(true);
    w.setCollisionGroups(box, { memberships: 1, filter: 0 });
    expect(w.getCollisionGroups(box)).toEqual({ memberships: 1, filter: 0 });
    const ended: string[] = [];
    w.forEachEvent((e) => ended.push(`${e.type} ${e.a} ${e.b}`));
    expect(ended).toEqual(["contactEnd ground box"]);
    run(w, 60);
    expect(w.getPosition(box)[1]).toBeLessThan(-1);
    expect(() => w.setCollisionGroups(box, { memberships: 0x10000, filter: 0 })).toThrow(/memberships/);
  });
});

describe("contact events", () => {
  it("an impact begins with its impulse (m·v·(1+e)), ends when the ball leaves, once per bounce", () => {
    const w = worldWith({ tickRate: 60, sleep: false }, [GROUND, ball("b", [0, 3, 0], { restitution: 0.5, mass: 2 })]);
    const events = run(w, 240);
    const begins = events.filter((e) => e.type === "contactBegin");
    const ends = events.filter((e) => e.type === "contactEnd");
    expect(begins.length).toBeGreaterThanOrEqual(3);
    // Alternating begin/end: one contact per bounce, never two begins in a row.
    const seq = events.filter((e) => e.a === "ground" && e.b === "b").map((e) => e.type);
    for (let i = 1; i < seq.length; i++) expect(seq[i]).not.toBe(seq[i - 1]);
    // First impact at v = sqrt(2 g h) with h = 3 - 0.25: impulse ≈ m v (1 + e).
    const v = Math.sqrt(2 * 9.81 * 2.75);
    const expected = 2 * v * 1.5;
    console.log(`first impact impulse ${begins[0]!.impulse.toFixed(4)} N·s, m·v·(1+e) = ${expected.toFixed(4)}`);
    expect(Math.abs(begins[0]!.impulse - expected) / expected).toBeLessThan(0.01);
    expect(ends.length).toBeGreaterThanOrEqual(2);
    expect(ends.every((e) => e.impulse === 0)).toBe(true);
  });

  it("a body removed while touching ends its contacts at once, and the next step still reports them", () => {
    const w = worldWith({ tickRate: 60 }, [GROUND, ball("b", [0, 0.25, 0])]);
    const first = run(w, 5);
    expect(names(first)).toEqual(["contactBegin ground b"]);
    w.removeBody(w.handleOf("b"));
    const between: string[] = [];
    w.forEachEvent((e) => between.push(`${e.type} ${e.a} ${e.b}`));
    expect(between).toEqual(["contactEnd ground b"]);
    // The step keeps what was recorded between steps (nothing is dropped before it could be read)...
    w.step();
    expect(w.eventCount).toBe(1);
    // ...and drops it after.
    w.step();
    expect(w.eventCount).toBe(0);
  });

  it("a resting stack reports each contact once and nothing while it rests or sleeps", () => {
    const bodies: BodyDef[] = [GROUND];
    for (let i = 0; i < 5; i++) bodies.push({ id: `s${i}`, type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 0.5 + i, 0] });
    const w = worldWith({ tickRate: 60 }, bodies);
    const events = run(w, 600);
    expect(names(events).sort()).toEqual(["contactBegin ground s0", "contactBegin s0 s1", "contactBegin s1 s2", "contactBegin s2 s3", "contactBegin s3 s4"]);
  });

  it("events are deterministic: the same scene twice gives the same sequence", () => {
    const scene = (): World => {
      const bodies: BodyDef[] = [GROUND];
      for (let i = 0; i < 30; i++) bodies.push(ball(`b${i}`, [(i % 3) * 0.3, 1 + i * 0.6, (i % 2) * 0.2], { restitution: 0.3 }));
      return worldWith({ tickRate: 60 }, bodies);
    };
    const a = run(scene(), 300);
    const b = run(scene(), 300);
    expect(a.length).toBeGreaterThan(30);
    expect(b).toEqual(a);
  });
});
