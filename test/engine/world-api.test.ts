import { describe, expect, it } from "vitest";
import type { BodyDef } from "../../shared/engine/index.ts";
import { World } from "../../shared/engine/index.ts";
import { worldInternals } from "../../shared/engine/internal.ts";
import { GROUND, steps, worldWith } from "./helpers.ts";

const noGravity = { gravity: [0, 0, 0] as [number, number, number], sleep: false };
const box = (id: string, position: [number, number, number], extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "dynamic",
  shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] },
  position,
  ...extra,
});

/** world API: handles, body lifetime, impulses and velocities. */
function handleAndVelocityTests(): void {
  it("handles carry a generation: a removed body's handle stays invalid after its slot is reused", () => {
    const w = new World();
    const a = w.createBody(box("a", [0, 5, 0]));
    expect(w.removeBody(a)).toBe(true);
    const b = w.createBody(box("b", [0, 5, 0]));
    expect(w.has(a)).toBe(false);
    expect(w.has(b)).toBe(true);
    expect(w.idOf(a)).toBeUndefined();
    expect(w.removeBody(a)).toBe(false);
    expect(() => w.getPosition(a)).toThrow(/unknown body handle/);
    expect(w.handleOf("b")).toBe(b);
    expect(() => w.createBody(box("b", [0, 0, 0]))).toThrow(/duplicate/);
  });

  it("two worlds in one process number their bodies independently", () => {
    const w1 = new World();
    const w2 = new World();
    w1.createBody(box("x", [0, 0, 0]));
    expect(w2.createBody(box("y", [0, 0, 0]))).toBe(w1.handleOf("x"));
  });

  it("bodies can be created and removed while the world runs", () => {
    const w = worldWith({ sleep: false }, [GROUND]);
    for (let i = 0; i < 20; i++) {
      w.createBody(box(`b${i}`, [i * 0.1, 1 + i * 1.2, 0]));
      steps(w, 5);
      if (i % 3 === 0) w.removeBody(w.handleOf(`b${Math.floor(i / 2)}`));
    }
    steps(w, 300);
    expect(w.bodyCount).toBeGreaterThan(10);
    for (const h of w.handles()) for (const x of w.getPosition(h)) expect(Number.isFinite(x)).toBe(true);
  });

  it("an impulse at a point changes v by J/m and ω by I⁻¹ (r × J)", () => {
    const w = worldWith(noGravity, [box("b", [0, 0, 0], { mass: 2 })]);
    const h = w.handleOf("b");
    w.applyImpulse(h, [0, 0, 4], [0.5, 0, 0]);
    expect(w.getLinearVelocity(h)).toEqual([0, 0, 2]);
    // I = m/3 (b² + c²) = 2/3 · 0.5 = 1/3 about y; r × J = (0.5,0,0) × (0,0,4) = (0,-2,0) → ω_y = -6.
    expect(w.getAngularVelocity(h)[1]).toBeCloseTo(-6, 12);
  });

  it("setLinearVelocity / setAngularVelocity drive a body", () => {
    const w = worldWith(noGravity, [box("b", [0, 0, 0])]);
    const h = w.handleOf("b");
    w.setLinearVelocity(h, [1, 0, 0]);
    w.setAngularVelocity(h, [0, 2, 0]);
    steps(w, 60);
    expect(w.getPosition(h)[0]).toBeCloseTo(1, 9);
    expect(w.getAngularVelocity(h)[1]).toBeCloseTo(2, 9);
  });
}

/** world API: kinematic moves, raycasts and contacts. */
function kinematicRaycastContactTests(): void {
  it("moveKinematic reaches the target pose exactly and pushes what it meets", () => {
    const w = worldWith({ sleep: false }, [
      GROUND,
      { id: "paddle", type: "kinematic", shape: { type: "box", halfExtents: [0.2, 0.5, 1] }, position: [-2, 0.5, 0] },
      box("crate", [0, 0.5, 0]),
    ]);
    const paddle = w.handleOf("paddle");
    const q: [number, number, number, number] = [0, Math.sin(0.05), 0, Math.cos(0.05)];
    for (let i = 1; i <= 60; i++) {
      w.moveKinematic(paddle, [-2 + i * 0.05, 0.5, 0], i === 60 ? q : undefined);
      w.step();
    }
    expect(w.getPosition(paddle)).toEqual([-2 + 60 * 0.05, 0.5, 0]);
    expect(w.getRotation(paddle)).toEqual(q);
    expect(w.getPosition(w.handleOf("crate"))[0]).toBeGreaterThan(1.5);
  });

  it("raycast returns the first hit with its normal: sphere, box, rotated box, from inside", () => {
    const s = Math.SQRT1_2;
    const w = worldWith(noGravity, [
      { id: "ball", type: "static", shape: { type: "sphere", radius: 1 }, position: [5, 0, 0] },
      { id: "crate", type: "static", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [10, 0, 0] },
      { id: "diamond", type: "static", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 5, 0], rotation: [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)] },
    ]);
    const hit = w.raycast([0, 0, 0], [1, 0, 0]);
    expect(hit?.id).toBe("ball");
    expect(hit?.distance).toBeCloseTo(4, 12);
    expect(hit?.normal[0]).toBeCloseTo(-1, 12);
    const past = w.raycast([7, 0, 0], [2, 0, 0]);
    expect(past?.id).toBe("crate");
    expect(past?.distance).toBeCloseTo(2.5, 12);
    // Just right of the diamond's lowest edge: hits the lower-right face, normal (s, -s, 0).
    const up = w.raycast([0.1, 0, 0], [0, 1, 0]);
    expect(up?.id).toBe("diamond");
    expect(up?.distance).toBeCloseTo(5 - s + 0.1, 12);
    expect(up?.normal[0]).toBeCloseTo(s, 9);
    expect(up?.normal[1]).toBeCloseTo(-s, 9);
    expect(w.raycast([0, 0, 0], [0, 0, 1])).toBeNull();
    expect(w.raycast([0, 0, 0], [1, 0, 0], 3)).toBeNull();
    const inside = w.raycast([10, 0, 0], [0, 1, 0]);
    expect(inside?.id).toBe("crate");
    expect(inside?.distance).toBe(0);
    expect(w.raycast([0, 0, 0], [1, 0, 0], Number.POSITIVE_INFINITY, (h) => w.idOf(h) === "ball")?.id).toBe("crate");
  });

  it("forEachContact reports resting contacts with points, normals and impulses", () => {
    const w = worldWith({ sleep: false }, [GROUND, box("b", [0, 0.5, 0])]);
    steps(w, 30);
    const contacts: { a: string; b: string; n: number[]; count: number; impulse: number }[] = [];
    w.forEachContact((c) => {
      contacts.push({ a: w.idOf(c.a)!, b: w.idOf(c.b)!, n: c.normal, count: c.points.length, impulse: c.points.reduce((s, p) => s + p.normalImpulse, 0) });
    });
    expect(contacts).toHaveLength(1);
    expect(contacts[0].a).toBe("ground");
    expect(contacts[0].count).toBe(4);
    expect(contacts[0].n[1]).toBeCloseTo(1, 12);
    // The points hold the box: Σλ over a sub-step ≈ m g h.
    expect(contacts[0].impulse).toBeCloseTo((1 * 9.81) / 240, 3);
  });
}

/** world API: removals, refused input and profiling. */
function removalAndRefusalTests(): void {
  it("bodies leaving the world bounds are removed and reported", () => {
    const w = worldWith({ sleep: false, bounds: { min: [-10, -10, -10], max: [10, 10, 10] } }, [box("falls", [0, 0, 0]), box("stays", [0, 0, 5], { type: "static" })]);
    let removed: string[] = [];
    for (let i = 0; i < 120 && removed.length === 0; i++) {
      w.step();
      removed = w.removedLastStep.map((r) => `${r.id}:${r.reason}`);
    }
    expect(removed).toEqual(["falls:bounds"]);
    expect(w.handleOf("falls")).toBe(-1);
    expect(w.handleOf("stays")).not.toBe(-1);
    // Kinematic bodies too (they are moved from outside).
    const k = w.createBody({ id: "drone", type: "kinematic", shape: { type: "sphere", radius: 0.5 }, position: [9, 0, 0] });
    w.setLinearVelocity(k, [120, 0, 0]);
    w.step();
    expect(w.removedLastStep.map((r) => `${r.id}:${r.reason}`)).toEqual(["drone:bounds"]);
  });

  it("a body that becomes non-finite is removed; bodies not touching it keep running", () => {
    // "bad" rests on the ground; "bystander" rests on another static platform. Both platforms map to the
    // solver's shared immovable body, which must not carry NaN from one contact to the other.
    // "bad" sits first along the sweep axis, so its contact is solved before the others.
    const bodies: BodyDef[] = [GROUND, box("bad", [-40, 0.5, 0])];
    const others: string[] = [];
    for (let i = 0; i < 8; i++) {
      const x = 20 + 6 * i;
      bodies.push({ id: `platform${i}`, type: "static", shape: { type: "box", halfExtents: [2, 0.5, 2] }, position: [x, 1, 0] });
      bodies.push(box(`bystander${i}`, [x, 2, 0]));
      bodies.push(box(`good${i}`, [-3 - 3 * i, 0.5, 0]));
      others.push(`bystander${i}`, `good${i}`);
    }
    // CCD off: bad's AABB stays finite, so its only contact is the ground.
    const w = worldWith({ sleep: false, ccd: false }, bodies);
    steps(w, 10);
    // Infinity, not NaN: a NaN body loses its contacts (NaN AABB) before the solver; an infinite one
    // keeps them and turns into NaN inside the solve (the speed cap computes Infinity · 0).
    // (Written straight into the store: the API refuses non-finite input, this simulates a fault.)
    const store = worldInternals(w).bodies;
    store.vel[store.slotOfId("bad") * 3] = Number.POSITIVE_INFINITY;
    w.step();
    expect(w.removedLastStep.map((r) => `${r.id}:${r.reason}`)).toEqual(["bad:non-finite"]);
    steps(w, 30);
    for (const id of others) for (const x of w.getPosition(w.handleOf(id))) expect(Number.isFinite(x)).toBe(true);
  });

  it("refuses non-finite input with a clear error and changes nothing", () => {
    const w = worldWith(noGravity, [box("b", [0, 0, 0]), { id: "k", type: "kinematic", shape: { type: "sphere", radius: 0.5 }, position: [3, 0, 0] }]);
    const h = w.handleOf("b");
    const k = w.handleOf("k");
    expect(() => w.setLinearVelocity(h, [Number.NaN, 0, 0])).toThrow(/finite/);
    expect(() => w.setAngularVelocity(h, [0, Number.POSITIVE_INFINITY, 0])).toThrow(/finite/);
    expect(() => w.applyImpulse(h, [1, 0, 0], [Number.NaN, 0, 0])).toThrow(/finite/);
    expect(() => w.setTransform(h, [0, 0, 0], [0, 0, 0, Number.NaN])).toThrow(/finite/);
    expect(() => w.moveKinematic(k, [Number.NaN, 0, 0])).toThrow(/finite/);
    expect(() => w.moveCharacter(k, [0, Number.NEGATIVE_INFINITY, 0])).toThrow(/finite/);
    expect(w.getLinearVelocity(h)).toEqual([0, 0, 0]);
    expect(w.getPosition(k)).toEqual([3, 0, 0]);
  });

  it("refuses bodies whose inverse mass or inertia would be infinite", () => {
    const w = new World();
    expect(() => w.createBody({ ...box("tiny", [0, 0, 0]), mass: 5e-324 })).toThrow(/non-finite inverse/);
    expect(() => w.createBody({ id: "dot", type: "dynamic", shape: { type: "sphere", radius: 1e-200 }, position: [0, 0, 0] })).toThrow(/non-finite inverse/);
    expect(() => w.createBody(box("nan", [Number.NaN, 0, 0]))).toThrow(/non-finite/);
    expect(w.bodyCount).toBe(0);
  });

  it("profile reports per-stage timings when profiling is on", () => {
    const w = worldWith({ sleep: false }, [GROUND, box("b", [0, 2, 0])]);
    w.profiling = true;
    steps(w, 5);
    const p = w.profile;
    expect(p.total).toBeGreaterThan(0);
    expect(p.broad + p.narrow + p.solve + p.integrate + p.islands).toBeLessThanOrEqual(p.total + 1e-9);
  });
}

describe("world API", () => {
  handleAndVelocityTests();
  kinematicRaycastContactTests();
  removalAndRefusalTests();
});
