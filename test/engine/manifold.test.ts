import { describe, expect, it } from "vitest";
import { ManifoldOut } from "../../shared/engine/collision/manifold.ts";
import { collidePair } from "../../shared/engine/collision/narrow-phase.ts";
import type { BodyDef, QuatTuple } from "../../shared/engine/index.ts";
import { worldInternals } from "../../shared/engine/internal.ts";
import { worldWith } from "./helpers.ts";

const S = Math.SQRT1_2;
function box(id: string, position: [number, number, number], rotation: QuatTuple = [0, 0, 0, 1], half = 0.5): BodyDef {
  return { id, type: "dynamic", shape: { type: "box", halfExtents: [half, half, half] }, position, rotation };
}
function manifoldOf(a: BodyDef, b: BodyDef, margin = 0) {
  const w = worldWith({}, [a, b]);
  const out = new ManifoldOut();
  out.margin = margin;
  const { bodies } = worldInternals(w);
  collidePair(out, bodies, bodies.slotOfId(a.id), bodies.slotOfId(b.id));
  return out;
}
const ground: BodyDef = { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] };

describe("narrow phase manifolds", () => {
  it("a box resting flat has 4 points at its corners with distinct feature ids", () => {
    const m = manifoldOf(ground, box("b", [0, 0.49, 0]));
    expect(m.count).toBe(4);
    expect([...m.normal]).toEqual([0, 1, 0]);
    const ids = new Set<number>();
    for (let k = 0; k < 4; k++) {
      expect(m.separation[k]).toBeCloseTo(-0.01, 12);
      expect(Math.abs(m.pointB[k * 3])).toBeCloseTo(0.5, 12);
      expect(Math.abs(m.pointB[k * 3 + 2])).toBeCloseTo(0.5, 12);
      ids.add(m.id[k]);
    }
    expect(ids.size).toBe(4);
  });

  it("a box rotated in the plane keeps 4 points and the same ids when it moves slightly", () => {
    const rot: QuatTuple = [0, 0.19509032201612825, 0, 0.9807852804032304]; // 22.5° about y
    const m1 = manifoldOf(ground, box("b", [0, 0.49, 0], rot));
    const m2 = manifoldOf(ground, box("b", [0.001, 0.495, 0], rot));
    expect(m1.count).toBe(4);
    expect(m2.count).toBe(4);
    expect([...m1.id].sort()).toEqual([...m2.id].sort());
  });

  it("a box standing on an edge gives the face normal and the true depth", () => {
    // 45° about z: the lowest edge is at y = centre - √2/2.
    const m = manifoldOf(ground, box("b", [0, S - 0.02, 0], [0, 0, Math.sin(Math.PI / 8), Math.cos(Math.PI / 8)]));
    expect(m.count).toBe(2);
    expect(m.normal[1]).toBeCloseTo(1, 12);
    for (let k = 0; k < 2; k++) expect(m.separation[k]).toBeCloseTo(-0.02, 9);
  });

  it("crossed edges give an edge-edge contact with the cross-product normal and depth", () => {
    // Both boxes balanced on an edge: A's top edge along z, B's bottom edge along x, 1 cm overlap.
    const e = Math.sin(Math.PI / 8);
    const c = Math.cos(Math.PI / 8);
    const a = box("a", [0, 0, 0], [0, 0, e, c]);
    const b = box("b", [0, 2 * S - 0.01, 0], [e, 0, 0, c]);
    const m = manifoldOf(a, b);
    expect(m.count).toBe(1);
    expect(m.normal[0]).toBeCloseTo(0, 9);
    expect(m.normal[1]).toBeCloseTo(1, 9);
    expect(m.normal[2]).toBeCloseTo(0, 9);
    expect(m.separation[0]).toBeCloseTo(-0.01, 9);
    expect(m.id[0] & 0x8000).toBe(0x8000);
    expect(m.pointA[1]).toBeCloseTo(S, 9);
  });

  it("sphere centre inside a box reports radius + distance to the nearest face", () => {
    const sphere: BodyDef = { id: "s", type: "dynamic", shape: { type: "sphere", radius: 0.25 }, position: [0, 0.4, 0] };
    const m = manifoldOf(sphere, box("b", [0, 0, 0], [0, 0, 0, 1], 1));
    expect(m.count).toBe(1);
    // nearest face is +y at distance 0.6; the sphere must move 0.6 + 0.25 up to clear it
    expect(m.separation[0]).toBeCloseTo(-0.85, 12);
    expect([...m.normal].map((x) => x + 0)).toEqual([-0, -1, -0].map((x) => x + 0));
  });

  it("sphere against a box edge points from the edge to the centre", () => {
    const sphere: BodyDef = { id: "s", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0.8, 0.8, 0] };
    const m = manifoldOf(box("b", [0, 0, 0]), sphere);
    expect(m.count).toBe(1);
    expect(m.normal[0]).toBeCloseTo(S, 12);
    expect(m.normal[1]).toBeCloseTo(S, 12);
    expect(m.separation[0]).toBeCloseTo(Math.hypot(0.3, 0.3) - 0.5, 12);
  });

  it("separated shapes beyond the margin give no points; within it, a speculative point", () => {
    expect(manifoldOf(ground, box("b", [0, 0.6, 0])).count).toBe(0);
    const m = manifoldOf(ground, box("b", [0, 0.6, 0]), 0.2);
    expect(m.count).toBe(4);
    expect(m.separation[0]).toBeCloseTo(0.1, 12);
  });
});
