import { describe, expect, it } from "vitest";
import { ManifoldOut } from "../../shared/engine/collision/manifold.ts";
import { collidePair } from "../../shared/engine/collision/narrow-phase.ts";
import type { BodyDef, QuatTuple, World } from "../../shared/engine/index.ts";
import { worldInternals } from "../../shared/engine/internal.ts";
import { GROUND, worldWith } from "./helpers.ts";

const SLOP = 1e-6;
const noGravity = { gravity: [0, 0, 0] as [number, number, number], sleep: false };
const character: BodyDef = { id: "me", type: "kinematic", shape: { type: "box", halfExtents: [0.4, 0.9, 0.4] }, position: [0, 1, 0] };
function wall(id: string, position: [number, number, number], half: [number, number, number], rotation?: QuatTuple): BodyDef {
  return { id, type: "static", shape: { type: "box", halfExtents: half }, position, ...(rotation ? { rotation } : {}) };
}
/** Signed gap between the character and a body (negative = overlap). */
function gap(w: World, other: string): number {
  const out = new ManifoldOut();
  const b = worldInternals(w).bodies;
  out.margin = 1;
  collidePair(out, b, b.slotOfId("me"), b.slotOfId(other));
  let min = Number.POSITIVE_INFINITY;
  for (let k = 0; k < out.count; k++) min = Math.min(min, out.separation[k]);
  return min;
}

describe("kinematic characters (accumulated-correction resolution against several contacts)", () => {
  it("moved into a 90° corner it ends touching both walls and never overshoots", () => {
    // Walls' inner faces at x = 2 and z = 2.
    const w = worldWith(noGravity, [character, wall("wx", [2.5, 1, 0], [0.5, 2, 5]), wall("wz", [0, 1, 2.5], [5, 2, 0.5])]);
    const me = w.handleOf("me");
    for (let i = 0; i < 20; i++) {
      w.moveCharacter(me, [0.3, 0, 0.25]);
      expect(gap(w, "wx")).toBeGreaterThan(-SLOP);
      expect(gap(w, "wz")).toBeGreaterThan(-SLOP);
    }
    expect(gap(w, "wx")).toBeLessThan(SLOP);
    expect(gap(w, "wz")).toBeLessThan(SLOP);
    expect(w.getPosition(me)[0]).toBeCloseTo(1.6, 9);
    expect(w.getPosition(me)[2]).toBeCloseTo(1.6, 9);
  });

  it("a wall made of two boxes pushes out once, not by the sum of both penetrations", () => {
    // Two blockers with the same normal; the naive sum would push out twice the depth.
    const w = worldWith(noGravity, [character, wall("a", [2.5, 1, -1], [0.5, 2, 1]), wall("b", [2.5, 1, 1], [0.5, 2, 1])]);
    const me = w.handleOf("me");
    const r = w.moveCharacter(me, [1.8, 0, 0]);
    expect(r.moved[0]).toBeCloseTo(1.6, 9);
    expect(gap(w, "a")).toBeLessThan(SLOP);
    expect(gap(w, "a")).toBeGreaterThan(-SLOP);
    expect(gap(w, "b")).toBeGreaterThan(-SLOP);
    expect(r.hits).toBeGreaterThan(0);
  });

  it("in a 45° wedge it settles touching both faces", () => {
    // Two walls whose inner faces meet at the apex (3, y, 0) with 45° between them, opening towards -x.
    const half = (22.5 * Math.PI) / 180;
    const apex = [3, 1, 0];
    const wedgeWall = (id: string, side: 1 | -1): BodyDef => {
      const n = [-Math.sin(half), 0, -side * Math.cos(half)]; // inner face normal, towards the opening
      const d = [-Math.cos(half), 0, side * Math.sin(half)]; // along the face, away from the apex
      const theta = side * (Math.PI / 2 + half); // rotation about y taking local +x to n
      return wall(id, [apex[0] + 3 * d[0] - 0.5 * n[0], 1, apex[2] + 3 * d[2] - 0.5 * n[2]], [0.5, 2, 4], [0, Math.sin(theta / 2), 0, Math.cos(theta / 2)]);
    };
    const w = worldWith(noGravity, [{ ...character, shape: { type: "sphere", radius: 0.5 } }, wedgeWall("upper", 1), wedgeWall("lower", -1)]);
    const me = w.handleOf("me");
    for (let i = 0; i < 40; i++) {
      w.moveCharacter(me, [0.2, 0, 0.01]);
      expect(gap(w, "upper")).toBeGreaterThan(-SLOP);
      expect(gap(w, "lower")).toBeGreaterThan(-SLOP);
    }
    expect(gap(w, "upper")).toBeLessThan(SLOP);
    expect(gap(w, "lower")).toBeLessThan(SLOP);
    // The sphere's centre sits on the bisector, 0.5 / sin(22.5°) from the apex.
    expect(w.getPosition(me)[0]).toBeCloseTo(3 - 0.5 / Math.sin(half), 6);
  });

  it("sliding along a wall keeps the tangential part of the motion", () => {
    const w = worldWith(noGravity, [character, wall("wx", [1.5, 1, 0], [0.5, 2, 50])]);
    const me = w.handleOf("me");
    w.moveCharacter(me, [0.6, 0, 0]); // now touching the wall at x = 1
    const before = w.getPosition(me);
    const r = w.moveCharacter(me, [0.5, 0, 0.7]);
    expect(r.moved[0]).toBeCloseTo(0, 9);
    expect(r.moved[2]).toBeCloseTo(0.7, 9);
    expect(w.getPosition(me)[2] - before[2]).toBeCloseTo(0.7, 9);
  });

  it("stands on the ground (grounded) and cannot fall through it", () => {
    const w = worldWith({ sleep: false }, [GROUND, character]);
    const me = w.handleOf("me");
    const r = w.moveCharacter(me, [0, -0.5, 0]);
    expect(r.grounded).toBe(true);
    expect(w.getPosition(me)[1]).toBeCloseTo(0.9, 9);
  });

  it("pushes a dynamic box through the solver", () => {
    const w = worldWith({ sleep: true }, [
      GROUND,
      { ...character, position: [0, 0.9, 0] },
      { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [1.5, 0.5, 0] },
    ]);
    const me = w.handleOf("me");
    const crate = w.handleOf("crate");
    for (let i = 0; i < 60; i++) w.step(); // let the crate fall asleep
    expect(w.isSleeping(crate)).toBe(true);
    for (let i = 0; i < 90; i++) {
      w.moveCharacter(me, [3 / 60, 0, 0]);
      w.step();
    }
    const x = w.getPosition(crate)[0];
    expect(x).toBeGreaterThan(3);
    // It is shoved ahead of the character, not overlapped for long.
    expect(x - w.getPosition(me)[0]).toBeGreaterThan(0.85);
  });
});
