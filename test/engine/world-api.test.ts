import { describe, expect, it } from "vitest";
import type { BodyDef } from "../../shared/engine/index.ts";
import { World } from "../../shared/engine/index.ts";
import { GROUND, steps, worldWith } from "./helpers.ts";

const noGravity = { gravity: [0, 0, 0] as [number, number, number], sleep: false };
const box = (id: string, position: [number, number, number], extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "dynamic",
  shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] },
  position,
  ...extra,
});

describe("world API", () => {
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
  });

  it("a body that becomes non-finite is removed, the rest keeps running", () => {
    const w = worldWith({ sleep: false }, [GROUND, box("bad", [0, 3, 0]), box("good", [3, 0.5, 0])]);
    w.setLinearVelocity(w.handleOf("bad"), [Number.NaN, 0, 0]);
    w.step();
    expect(w.removedLastStep.map((r) => `${r.id}:${r.reason}`)).toEqual(["bad:non-finite"]);
    steps(w, 30);
    for (const x of w.getPosition(w.handleOf("good"))) expect(Number.isFinite(x)).toBe(true);
  });

  it("profile reports per-stage timings when profiling is on", () => {
    const w = worldWith({ sleep: false }, [GROUND, box("b", [0, 2, 0])]);
    w.profiling = true;
    steps(w, 5);
    const p = w.profile;
    expect(p.total).toBeGreaterThan(0);
    expect(p.broad + p.narrow + p.solve + p.integrate + p.islands).toBeLessThanOrEqual(p.total + 1e-9);
  });
});
