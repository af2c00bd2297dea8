import { describe, expect, it } from "vitest";
import type { BodyDef, Vec3Tuple } from "../../shared/engine/index.ts";
import { GROUND, steps, worldWith } from "./helpers.ts";

/** A flat 10 x 10 m height field at y = 0. */
const FLAT: BodyDef = {
  id: "terrain",
  type: "static",
  shape: { type: "heightfield", heights: new Array(64).fill(0), rows: 8, cols: 8, size: [10, 10] },
  position: [0, 0, 0],
};

const CUBE_CORNERS: Vec3Tuple[] = [];
for (let k = 0; k < 8; k++) CUBE_CORNERS.push([k & 1 ? 0.2 : -0.2, k & 2 ? 0.2 : -0.2, k & 4 ? 0.2 : -0.2]);

const HULL_CUBE: BodyDef = { id: "hull", type: "dynamic", shape: { type: "hull", points: CUBE_CORNERS }, position: [-2, 0.2, 0] };
const L_COMPOUND: BodyDef = {
  id: "l",
  type: "dynamic",
  shape: {
    type: "compound",
    children: [
      { shape: { type: "box", halfExtents: [0.28, 0.08, 0.08] }, position: [0, -0.1, 0] },
      { shape: { type: "box", halfExtents: [0.08, 0.16, 0.08] }, position: [-0.2, 0.12, 0] },
    ],
  },
  position: [2, 0.18, 0],
};

/** Steps n times; returns the smallest per-step count of recycled manifolds over the last `tail` steps. */
function minRecycled(w: ReturnType<typeof worldWith>, n: number, tail: number): number {
  let min = Number.POSITIVE_INFINITY;
  for (let i = 0; i < n; i++) {
    w.step();
    if (i >= n - tail) min = Math.min(min, w.lastStepStats.recycled);
  }
  return min;
}

describe("recycled manifolds of convex and piece contacts at rest (sleeping off)", () => {
  it("a hull and a compound resting on a height field reuse their pieces and stay put", () => {
    const w = worldWith({ sleep: false }, [FLAT, HULL_CUBE, L_COMPOUND]);
    const hull = w.handleOf("hull");
    const l = w.handleOf("l");
    steps(w, 60);
    const hullStart = w.getPosition(hull);
    const lStart = w.getPosition(l);
    // Both pairs with the terrain are recycled on every step once the bodies rest.
    expect(minRecycled(w, 180, 120)).toBe(2);
    const hullEnd = w.getPosition(hull);
    const lEnd = w.getPosition(l);
    for (let k = 0; k < 3; k++) {
      expect(Math.abs(hullEnd[k] - hullStart[k])).toBeLessThan(1e-3);
      expect(Math.abs(lEnd[k] - lStart[k])).toBeLessThan(1e-3);
    }
    expect(hullEnd[1]).toBeCloseTo(0.2, 2);
  });

  it("a hull resting on a hull, and a compound on a box, reuse their manifolds", () => {
    const base: BodyDef = { id: "base", type: "dynamic", shape: { type: "hull", points: CUBE_CORNERS }, position: [-2, 0.2, 0] };
    const top: BodyDef = { id: "top", type: "dynamic", shape: { type: "hull", points: CUBE_CORNERS }, position: [-2, 0.6, 0] };
    const w = worldWith({ sleep: false }, [GROUND, base, top, L_COMPOUND]);
    const t = w.handleOf("top");
    steps(w, 60);
    const start = w.getPosition(t);
    // Hull on hull and the compound on the ground at least (the hull on the box ground goes through the convex routine too).
    expect(minRecycled(w, 180, 120)).toBeGreaterThanOrEqual(2);
    const end = w.getPosition(t);
    for (let k = 0; k < 3; k++) expect(Math.abs(end[k] - start[k])).toBeLessThan(1e-3);
    expect(end[1]).toBeCloseTo(0.6, 2);
  });
});
