import { Session } from "node:inspector/promises";
import { describe, expect, it } from "vitest";
import { collideConvex } from "../../shared/engine/collision/convex/collide-convex.ts";
import {
  ConvexProxy,
  PROXY_BOX,
  PROXY_CAPSULE,
  PROXY_CYLINDER,
  PROXY_HULL,
  PROXY_SPHERE,
  PROXY_TRIANGLE,
} from "../../shared/engine/collision/convex/proxy.ts";
import { ManifoldOut, NORMAL_OF_NEITHER } from "../../shared/engine/collision/manifold.ts";
import { collidePair } from "../../shared/engine/collision/narrow-phase.ts";
import { ConvexHull } from "../../shared/engine/geometry/convex-hull.ts";
import { buildHull } from "../../shared/engine/geometry/hull-builder.ts";
import type { BodyDef, QuatTuple } from "../../shared/engine/index.ts";
import { worldInternals } from "../../shared/engine/internal.ts";
import { matrixFromQuat } from "../../shared/engine/math/quat.ts";
import { worldWith } from "./helpers.ts";

type V3 = [number, number, number];
const ID: QuatTuple = [0, 0, 0, 1];

function quat(axis: V3, angle: number): QuatTuple {
  const l = Math.hypot(...axis);
  const s = Math.sin(angle / 2) / l;
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

function place(p: ConvexProxy, pos: V3, q: QuatTuple): ConvexProxy {
  p.pos.set(pos);
  matrixFromQuat(p.rot, 0, new Float64Array(q), 0);
  return p;
}
function sphere(r: number, pos: V3, id = 0): ConvexProxy {
  const p = place(new ConvexProxy(), pos, ID);
  p.kind = PROXY_SPHERE;
  p.radius = r;
  p.id = id;
  return p;
}
function box(half: V3, pos: V3, q: QuatTuple = ID, id = 0): ConvexProxy {
  const p = place(new ConvexProxy(), pos, q);
  p.kind = PROXY_BOX;
  p.half.set(half);
  p.id = id;
  return p;
}
function capsule(r: number, halfHeight: number, pos: V3, q: QuatTuple = ID): ConvexProxy {
  const p = place(new ConvexProxy(), pos, q);
  p.kind = PROXY_CAPSULE;
  p.radius = r;
  p.half[1] = halfHeight;
  return p;
}
function cylinder(r: number, halfHeight: number, pos: V3, q: QuatTuple = ID): ConvexProxy {
  const p = place(new ConvexProxy(), pos, q);
  p.kind = PROXY_CYLINDER;
  p.radius = r;
  p.half[1] = halfHeight;
  return p;
}
function hull(h: ConvexHull, pos: V3, q: QuatTuple = ID): ConvexProxy {
  const p = place(new ConvexProxy(), pos, q);
  p.kind = PROXY_HULL;
  p.hull = h;
  return p;
}
function triangle(v0: V3, v1: V3, v2: V3, edges: number, id = 0): ConvexProxy {
  const p = new ConvexProxy();
  p.kind = PROXY_TRIANGLE;
  p.tri.set([...v0, ...v1, ...v2]);
  p.triEdges = edges;
  p.id = id;
  return p;
}

/** A box's hull built by hand: 8 corners (bit k of the index = sign of axis k), 6 quads, 12 edges. */
function boxHull(hx: number, hy: number, hz: number): ConvexHull {
  const h = new ConvexHull();
  const v: number[] = [];
  for (let k = 0; k < 8; k++) v.push(k & 1 ? hx : -hx, k & 2 ? hy : -hy, k & 4 ? hz : -hz);
  h.vertexCount = 8;
  h.vertices = new Float64Array(v);
  const faces = [
    [1, 3, 7, 5],
    [0, 4, 6, 2],
    [2, 6, 7, 3],
    [0, 1, 5, 4],
    [4, 5, 7, 6],
    [0, 2, 3, 1],
  ];
  const halves = [hx, hy, hz];
  h.faceCount = 6;
  h.planes = new Float64Array(faces.flatMap((_, f) => {
    const n: V3 = [0, 0, 0];
    n[f >> 1] = f & 1 ? -1 : 1;
    return [...n, halves[f >> 1]];
  }));
  h.faceStart = new Int32Array([0, 4, 8, 12, 16, 20, 24]);
  h.faceVertices = new Int32Array(faces.flat());
  const edges: number[] = [];
  const edgeFaces: number[] = [];
  for (let i = 0; i < 8; i++) {
    for (let j = i + 1; j < 8; j++) {
      const x = i ^ j;
      if (x !== 1 && x !== 2 && x !== 4) continue;
      edges.push(i, j);
      for (let f = 0; f < 6; f++) if (faces[f].includes(i) && faces[f].includes(j)) edgeFaces.push(f);
    }
  }
  h.edgeCount = 12;
  h.edges = new Int32Array(edges);
  h.edgeFaces = new Int32Array(edgeFaces);
  h.boundRadius = Math.hypot(hx, hy, hz);
  return h;
}

function collide(a: ConvexProxy, b: ConvexProxy, margin = 0.02): ManifoldOut {
  const out = new ManifoldOut();
  out.margin = margin;
  collideConvex(out, a, b);
  return out;
}

/** Checks the contract: unit normal, separation = (pB - pA)·n, within margin, distinct ids, owner. */
function checkContract(m: ManifoldOut, label = ""): void {
  expect(m.normalOwner).toBe(NORMAL_OF_NEITHER);
  expect(m.count).toBeLessThanOrEqual(4);
  if (m.count === 0) return;
  expect(Math.hypot(m.normal[0], m.normal[1], m.normal[2])).toBeCloseTo(1, 9);
  const ids = new Set<number>();
  for (let k = 0; k < m.count; k++) {
    let s = 0;
    for (let c = 0; c < 3; c++) s += (m.pointB[3 * k + c] - m.pointA[3 * k + c]) * m.normal[c];
    expect(s, label).toBeCloseTo(m.separation[k], 9);
    expect(m.separation[k]).toBeLessThanOrEqual(m.margin + 1e-12);
    ids.add(m.id[k]);
  }
  expect(ids.size).toBe(m.count);
}

function points(m: ManifoldOut, which: "A" | "B"): V3[] {
  const src = which === "A" ? m.pointA : m.pointB;
  const out: V3[] = [];
  for (let k = 0; k < m.count; k++) out.push([src[3 * k], src[3 * k + 1], src[3 * k + 2]]);
  return out;
}

const floorBox = () => box([10, 0.5, 10], [0, -0.5, 0]);
/**
 * A 4 × 4 quad at y = 0 split along its diagonal (-Q,0,-Q)-(Q,0,Q) into two triangles (counter-clockwise
 * seen from +y); the diagonal is inactive in both, the quad's outline active.
 */
const Q = 2;
const tri1 = () => triangle([-Q, 0, -Q], [Q, 0, Q], [Q, 0, -Q], 0b110, 1);
const tri2 = () => triangle([-Q, 0, -Q], [-Q, 0, Q], [Q, 0, Q], 0b011, 2);

describe("collideConvex: resting polytopes", () => {
  it("a box resting flat on a big box: 4 points at the true depth, normal exactly +y", () => {
    const m = collide(floorBox(), box([0.5, 0.5, 0.5], [0.1, 0.49, 0.2], quat([0, 1, 0], 0.3)));
    checkContract(m);
    expect(m.count).toBe(4);
    expect([...m.normal]).toEqual([0, 1, 0]);
    for (let k = 0; k < 4; k++) expect(m.separation[k]).toBeCloseTo(-0.01, 12);
  });

  it("a box resting flat on a triangle: 4 points, normal exactly -y (box is A)", () => {
    // Wound clockwise seen from +y (normal -y): triangles are two-sided, the box's side is used.
    const t = triangle([-5, 0, -5], [5, 0, -5], [0, 0, 5], 7);
    const m = collide(box([0.5, 0.5, 0.5], [0, 0.49, 0]), t);
    checkContract(m);
    expect(m.count).toBe(4);
    expect([...m.normal]).toEqual([0, -1, 0]);
    for (let k = 0; k < 4; k++) expect(m.separation[k]).toBeCloseTo(-0.01, 12);
  });

  it("a hull made of a box's corners gives the same points as box-box", () => {
    const h = boxHull(0.5, 0.5, 0.5);
    const cases: { pos: V3; q: QuatTuple }[] = [
      { pos: [0.1, 0.49, -0.2], q: quat([0, 1, 0], 0.4) },
      { pos: [0, Math.SQRT1_2 - 0.02, 0], q: quat([0, 0, 1], Math.PI / 4) },
      { pos: [0.3, 0.48, 0.1], q: quat([1, 0.2, 0.1], 0.05) },
    ];
    for (const { pos, q } of cases) {
      const ground: BodyDef = { id: "g", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] };
      const body: BodyDef = { id: "b", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: pos, rotation: q };
      const w = worldWith({}, [ground, body]);
      const ref = new ManifoldOut();
      ref.margin = 0.02;
      const { bodies } = worldInternals(w);
      collidePair(ref, bodies, bodies.slotOfId("g"), bodies.slotOfId("b"));
      const m = collide(floorBox(), hull(h, pos, q));
      checkContract(m);
      expect(m.count).toBe(ref.count);
      expect(m.count).toBeGreaterThan(0);
      for (let c = 0; c < 3; c++) expect(m.normal[c]).toBeCloseTo(ref.normal[c], 9);
      const mine = points(m, "B");
      const theirs = points(ref, "B");
      for (const p of theirs) {
        const near = mine.some((q2) => Math.hypot(q2[0] - p[0], q2[1] - p[1], q2[2] - p[2]) < 1e-9);
        expect(near, `point ${p} of box-box`).toBe(true);
      }
      // The same via a box proxy.
      const mb = collide(floorBox(), box([0.5, 0.5, 0.5], pos, q));
      expect(mb.count).toBe(ref.count);
    }
  });

  it("crossed box edges give one edge-edge point", () => {
    const e = quat([0, 0, 1], Math.PI / 4);
    const f = quat([1, 0, 0], Math.PI / 4);
    const m = collide(box([0.5, 0.5, 0.5], [0, 0, 0], e), box([0.5, 0.5, 0.5], [0, 2 * Math.SQRT1_2 - 0.01, 0], f));
    checkContract(m);
    expect(m.count).toBe(1);
    expect(m.normal[1]).toBeCloseTo(1, 9);
    expect(m.separation[0]).toBeCloseTo(-0.01, 9);
  });
});

describe("collideConvex: cylinders and capsules", () => {
  it("a cylinder standing on its cap gets at least 3 points spread over the cap", () => {
    const m = collide(cylinder(0.5, 0.5, [0.2, 0.495, 0.1], quat([0, 1, 0], 0.2)), floorBox());
    checkContract(m);
    expect(m.count).toBeGreaterThanOrEqual(3);
    expect([...m.normal]).toEqual([0, -1, 0]);
    const pts = points(m, "A");
    const xs = pts.map((p) => p[0]);
    const zs = pts.map((p) => p[2]);
    expect(Math.max(...xs) - Math.min(...xs)).toBeGreaterThan(0.5);
    expect(Math.max(...zs) - Math.min(...zs)).toBeGreaterThan(0.5);
    for (let k = 0; k < m.count; k++) expect(m.separation[k]).toBeCloseTo(-0.005, 9);
  });

  it("a cylinder lying on its side gets 2 points along the line of contact", () => {
    // Axis along x after a quarter turn about z.
    const m = collide(floorBox(), cylinder(0.5, 0.8, [0, 0.49, 0], quat([0, 0, 1], Math.PI / 2)));
    checkContract(m);
    expect(m.count).toBe(2);
    expect(m.normal[1]).toBeCloseTo(1, 12);
    const pts = points(m, "B");
    expect(Math.abs(pts[0][0] - pts[1][0])).toBeCloseTo(1.6, 9);
    for (let k = 0; k < 2; k++) expect(m.separation[k]).toBeCloseTo(-0.01, 6);
  });

  it("a cylinder tilted onto its rim gets 1-2 points", () => {
    const tilt = 0.5;
    // Lowest rim point at centre.y - (h cos + r sin).
    const y = 0.5 * Math.cos(tilt) + 0.5 * Math.sin(tilt) - 0.01;
    const m = collide(floorBox(), cylinder(0.5, 0.5, [0, y, 0], quat([1, 0, 0], tilt)));
    checkContract(m);
    expect(m.count).toBeGreaterThanOrEqual(1);
    expect(m.count).toBeLessThanOrEqual(2);
    expect(m.normal[1]).toBeCloseTo(1, 9);
    expect(Math.min(...m.separation.subarray(0, m.count))).toBeCloseTo(-0.01, 6);
  });

  it("a capsule lying on a floor: 2 points at the segment ends; standing: 1 point", () => {
    const lying = collide(capsule(0.3, 0.6, [0, 0.31, 0], quat([0, 0, 1], Math.PI / 2)), floorBox());
    checkContract(lying);
    expect(lying.count).toBe(2);
    const xs = points(lying, "A").map((p) => p[0]);
    expect(Math.max(...xs)).toBeCloseTo(0.6, 9);
    expect(Math.min(...xs)).toBeCloseTo(-0.6, 9);
    for (let k = 0; k < 2; k++) expect(lying.separation[k]).toBeCloseTo(0.01, 9);
    const standing = collide(capsule(0.3, 0.6, [0, 0.89, 0]), floorBox());
    checkContract(standing);
    expect(standing.count).toBe(1);
    expect(standing.separation[0]).toBeCloseTo(-0.01, 9);
    expect(standing.normal[1]).toBeCloseTo(-1, 9);
  });

  it("capsules lying side by side give 2 points; crossed give 1", () => {
    const q = quat([0, 0, 1], Math.PI / 2);
    const par = collide(capsule(0.25, 0.5, [0, 0, 0], q), capsule(0.25, 0.5, [0.2, 0.49, 0], q));
    checkContract(par);
    expect(par.count).toBe(2);
    for (let k = 0; k < 2; k++) expect(par.separation[k]).toBeCloseTo(-0.01, 9);
    const crossed = collide(capsule(0.25, 0.5, [0, 0, 0], q), capsule(0.25, 0.5, [0, 0.49, 0], quat([1, 0, 0], Math.PI / 2)));
    checkContract(crossed);
    expect(crossed.count).toBe(1);
    expect(crossed.separation[0]).toBeCloseTo(-0.01, 9);
  });
});

describe("collideConvex: round shapes near the surface", () => {
  const targets: { name: string; make: () => ConvexProxy; top: number }[] = [
    { name: "box", make: () => box([0.5, 0.5, 0.5], [0, 0, 0], quat([0, 1, 0], 0.3)), top: 0.5 },
    { name: "hull", make: () => hull(boxHull(0.5, 0.4, 0.6), [0, 0, 0], quat([0, 1, 0], -0.2)), top: 0.4 },
    { name: "cylinder", make: () => cylinder(0.6, 0.5, [0, 0, 0]), top: 0.5 },
  ];
  for (const t of targets) {
    for (const gap of [0.01, -0.01, 0.05]) {
      it(`sphere and capsule above a ${t.name} with a gap of ${gap}`, () => {
        const r = 0.25;
        const s = collide(sphere(r, [0.05, t.top + r + gap, 0.02]), t.make());
        const c = collide(capsule(r, 0.3, [0.05, t.top + r + 0.3 + gap, 0.02]), t.make());
        const flipped = collide(t.make(), sphere(r, [0.05, t.top + r + gap, 0.02]));
        for (const m of [s, c, flipped]) {
          checkContract(m);
          if (gap > m.margin) {
            expect(m.count).toBe(0);
            continue;
          }
          expect(m.count).toBe(1);
          expect(m.separation[0]).toBeCloseTo(gap, 7);
          expect(Math.abs(m.normal[1])).toBeCloseTo(1, 7);
        }
        if (gap <= 0.02) {
          expect(s.normal[1]).toBeLessThan(0);
          expect(flipped.normal[1]).toBeGreaterThan(0);
        }
      });
    }
  }

  it("a sphere beside a box edge gets the normal towards the edge", () => {
    const d = 0.01 + 0.25;
    const m = collide(sphere(0.25, [0.5 + d * Math.SQRT1_2, 0.5 + d * Math.SQRT1_2, 0]), box([0.5, 0.5, 0.5], [0, 0, 0]));
    checkContract(m);
    expect(m.count).toBe(1);
    expect(m.separation[0]).toBeCloseTo(0.01, 9);
    expect(m.normal[0]).toBeCloseTo(-Math.SQRT1_2, 9);
    expect(m.normal[1]).toBeCloseTo(-Math.SQRT1_2, 9);
  });

  it("deep penetration: a small sphere centred inside a box or hull leaves through the nearest face", () => {
    for (const target of [box([0.5, 0.5, 0.5], [0, 0, 0]), hull(boxHull(0.5, 0.5, 0.5), [0, 0, 0])]) {
      const m = collide(sphere(0.1, [0.3, 0.1, -0.05]), target);
      checkContract(m);
      expect(m.count).toBe(1);
      expect(m.normal[0]).toBeCloseTo(-1, 9);
      expect(m.separation[0]).toBeCloseTo(-(0.2 + 0.1), 9);
      const c = collide(capsule(0.1, 0.1, [0.05, 0.1, 0.38], quat([0, 0, 1], Math.PI / 2)), target);
      checkContract(c);
      expect(c.count).toBeGreaterThanOrEqual(1);
      expect(c.normal[2]).toBeCloseTo(-1, 6);
      for (let k = 0; k < c.count; k++) expect(c.separation[k]).toBeCloseTo(-(0.12 + 0.1), 6);
    }
  });

  it("a cylinder on a cylinder, and a sphere against a cylinder's side", () => {
    const m = collide(cylinder(0.5, 0.5, [0, 0, 0]), cylinder(0.4, 0.3, [0.1, 0.79, 0]));
    checkContract(m);
    expect(m.count).toBeGreaterThanOrEqual(3);
    expect(m.normal[1]).toBeCloseTo(1, 9);
    for (let k = 0; k < m.count; k++) expect(m.separation[k]).toBeCloseTo(-0.01, 6);
    const s = collide(sphere(0.2, [0.69, 0.1, 0]), cylinder(0.5, 0.5, [0, 0, 0]));
    checkContract(s);
    expect(s.count).toBe(1);
    expect(s.normal[0]).toBeCloseTo(-1, 9);
    expect(s.separation[0]).toBeCloseTo(-0.01, 9);
  });
});

describe("collideConvex: triangles", () => {
  it("a box sliding over a two-triangle floor always gets the face normal", () => {
    const t1 = tri1();
    const t2 = tri2();
    for (const angle of [0, 0.3, Math.PI / 4]) {
      for (let x = -1.6; x <= 1.6; x += 0.05) {
        for (const z of [-1.5, -0.3, 0, 0.2, 1.55]) {
          const b = box([0.4, 0.4, 0.4], [x, 0.39, z], quat([0, 1, 0], angle));
          let total = 0;
          for (const t of [t1, t2]) {
            const m = collide(b, t);
            checkContract(m);
            total += m.count;
            if (m.count > 0) expect([...m.normal]).toEqual([0, -1, 0]);
            for (let k = 0; k < m.count; k++) expect(m.separation[k]).toBeCloseTo(-0.01, 9);
          }
          expect(total).toBeGreaterThanOrEqual(4);
        }
      }
    }
  });

  it("a sphere resting on the shared edge or vertex gets the face normal", () => {
    for (const pos of [
      [0.3, 0.29, 0.3001],
      [0.3, 0.29, 0.2999],
      [0, 0.29, 0],
      [-Q, 0.29, -Q],
      [-Q + 1e-4, 0.29, -Q + 2e-4],
    ] as V3[]) {
      let total = 0;
      for (const t of [tri1(), tri2()]) {
        const m = collide(sphere(0.3, pos), t);
        checkContract(m);
        total += m.count;
        if (m.count > 0) {
          expect(m.normal[0], `${pos}`).toBe(0);
          expect(m.normal[1]).toBe(-1);
          expect(m.separation[0]).toBeCloseTo(-0.01, 9);
        }
      }
      expect(total).toBeGreaterThanOrEqual(1);
    }
  });

  it("a sphere past the mesh boundary (an active edge) gets the edge normal", () => {
    // tri1's edge v1-v2 is the quad's side x = Q (active).
    const m = collide(sphere(0.3, [Q + 0.2, 0.1, 0]), tri1());
    checkContract(m);
    expect(m.count).toBe(1);
    expect(m.normal[0]).toBeLessThan(-0.5);
    expect(m.separation[0]).toBeCloseTo(Math.hypot(0.2, 0.1) - 0.3, 9);
  });

  it("capsules and cylinders on triangles", () => {
    const cap = collide(capsule(0.2, 0.5, [0.5, 0.19, -0.8], quat([0, 0, 1], Math.PI / 2)), tri1());
    checkContract(cap);
    expect(cap.count).toBe(2);
    expect([...cap.normal]).toEqual([0, -1, 0]);
    const cyl = collide(cylinder(0.3, 0.4, [1, 0.395, -1]), tri1());
    checkContract(cyl);
    expect(cyl.count).toBeGreaterThanOrEqual(3);
    expect(cyl.normal[1]).toBeCloseTo(-1, 12);
    // Triangle as A.
    const flipped = collide(tri1(), cylinder(0.3, 0.4, [1, 0.395, -1]));
    expect(flipped.count).toBe(cyl.count);
    expect(flipped.normal[1]).toBeCloseTo(1, 12);
    // A capsule pierced deep into the triangle still gets the face normal.
    const deep = collide(capsule(0.2, 0.5, [0.5, -0.1, -0.8], quat([0, 0, 1], Math.PI / 2)), tri1());
    checkContract(deep);
    expect(deep.count).toBe(2);
    expect(deep.normal[1]).toBe(1);
  });

  it("triangle pairs give nothing", () => {
    expect(collide(tri1(), tri2()).count).toBe(0);
  });
});

/** A mixed set of pairs for determinism, id and allocation tests. */
function mixedPairs(): [ConvexProxy, ConvexProxy][] {
  const h = boxHull(0.4, 0.3, 0.5);
  const shapes = (y: number, q: QuatTuple) => [
    sphere(0.3, [0.1, y, 0]),
    box([0.4, 0.3, 0.5], [0.1, y, 0.05], q),
    capsule(0.25, 0.4, [0.1, y, 0], q),
    cylinder(0.35, 0.3, [0.1, y, 0.1], q),
    hull(h, [0.1, y, 0], q),
  ];
  const lower = [...shapes(0, quat([0.3, 1, 0.2], 0.7)), tri1()];
  const upper = shapes(0.55, quat([1, 0.4, -0.3], 1.1));
  const pairs: [ConvexProxy, ConvexProxy][] = [];
  for (const a of lower) for (const b of upper) pairs.push([a, b], [b, a]);
  return pairs;
}

describe("collideConvex: determinism, ids and allocation", () => {
  it("every pair kind in both orders meets the contract, bit-identically on repeat", () => {
    const pairs = mixedPairs();
    const snap = (m: ManifoldOut) => [m.count, ...m.normal, ...m.pointA, ...m.pointB, ...m.separation, ...m.id];
    const first = pairs.map(([a, b]) => snap(collide(a, b, 0.05)));
    let touching = 0;
    for (let i = 0; i < pairs.length; i++) {
      const m = collide(pairs[i][0], pairs[i][1], 0.05);
      checkContract(m);
      if (m.count > 0) touching++;
      expect(snap(m)).toEqual(first[i]);
    }
    expect(touching).toBeGreaterThan(pairs.length / 2);
  });

  it("ids differ between triangles and stay put when the shape moves slightly", () => {
    const b1 = box([0.4, 0.4, 0.4], [1, 0.39, -1], quat([0, 1, 0], 0.2));
    const b2 = box([0.4, 0.4, 0.4], [1.001, 0.392, -1], quat([0, 1, 0], 0.2));
    const m1 = collide(b1, tri1());
    const m2 = collide(b2, tri1());
    expect(m1.count).toBe(4);
    expect([...m1.id].sort()).toEqual([...m2.id].sort());
    const other = tri1();
    other.id = 7;
    const m3 = collide(b1, other);
    for (const id of m3.id) expect([...m1.id]).not.toContain(id);
  });

  it("100k calls allocate (next to) nothing", async () => {
    const pairs = mixedPairs();
    const out = new ManifoldOut();
    out.margin = 0.05;
    const run = (n: number) => {
      for (let i = 0; i < n; i++) {
        const p = pairs[i % pairs.length];
        collideConvex(out, p[0], p[1]);
      }
    };
    // Warm up until V8 has optimised everything (unoptimised code boxes doubles).
    run(300_000);
    const session = new Session();
    session.connect();
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 512,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    run(100_000);
    const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as {
      profile: { head: { selfSize: number; children: unknown[]; callFrame: { functionName: string; url: string } } };
    };
    session.disconnect();
    let total = 0;
    const sites: string[] = [];
    type Node = { selfSize: number; children: Node[]; callFrame: { functionName: string; url: string } };
    const walk = (n: Node) => {
      if (n.callFrame.url.includes("/collision/convex/") && n.selfSize > 0) {
        total += n.selfSize;
        sites.push(`${n.callFrame.functionName}:${n.selfSize}`);
      }
      for (const c of n.children) walk(c);
    };
    walk(profile.head as Node);
    expect(total, sites.join(" ")).toBeLessThan(100_000);
  });
});

/** Deterministic pseudo-random numbers in [0, 1) (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** World point into the proxy's frame. */
function toLocal(p: ConvexProxy, x: V3): V3 {
  const d = [x[0] - p.pos[0], x[1] - p.pos[1], x[2] - p.pos[2]];
  const R = p.rot;
  return [R[0] * d[0] + R[3] * d[1] + R[6] * d[2], R[1] * d[0] + R[4] * d[1] + R[7] * d[2], R[2] * d[0] + R[5] * d[1] + R[8] * d[2]];
}

/** Signed distance-like measure of x against the proxy's surface (positive outside; exact on the surface). */
function surface(p: ConvexProxy, x: V3): number {
  if (p.kind === PROXY_TRIANGLE) {
    const t = p.tri;
    const a: V3 = [t[0], t[1], t[2]];
    const e1 = [t[3] - a[0], t[4] - a[1], t[5] - a[2]];
    const e2 = [t[6] - a[0], t[7] - a[1], t[8] - a[2]];
    const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
    const ln = Math.hypot(n[0], n[1], n[2]);
    const h = Math.abs((x[0] - a[0]) * n[0] + (x[1] - a[1]) * n[1] + (x[2] - a[2]) * n[2]) / ln;
    // Outside an edge: distance beyond it in the plane.
    let out = 0;
    for (let k = 0; k < 3; k++) {
      const i = 3 * k;
      const j = 3 * ((k + 1) % 3);
      const ex = [t[j] - t[i], t[j + 1] - t[i + 1], t[j + 2] - t[i + 2]];
      const o = [ex[1] * n[2] - ex[2] * n[1], ex[2] * n[0] - ex[0] * n[2], ex[0] * n[1] - ex[1] * n[0]];
      const lo = Math.hypot(o[0], o[1], o[2]);
      out = Math.max(out, ((x[0] - t[i]) * o[0] + (x[1] - t[i + 1]) * o[1] + (x[2] - t[i + 2]) * o[2]) / lo);
    }
    return Math.hypot(h, out);
  }
  const l = toLocal(p, x);
  if (p.kind === PROXY_SPHERE) return Math.hypot(...l) - p.radius;
  if (p.kind === PROXY_CAPSULE) {
    const y = Math.max(-p.half[1], Math.min(p.half[1], l[1]));
    return Math.hypot(l[0], l[1] - y, l[2]) - p.radius;
  }
  if (p.kind === PROXY_CYLINDER) {
    const radial = Math.hypot(l[0], l[2]) - p.radius;
    const axial = Math.abs(l[1]) - p.half[1];
    return radial > 0 && axial > 0 ? Math.hypot(radial, axial) : Math.max(radial, axial);
  }
  if (p.kind === PROXY_BOX) {
    const q = [Math.abs(l[0]) - p.half[0], Math.abs(l[1]) - p.half[1], Math.abs(l[2]) - p.half[2]];
    const outside = Math.hypot(Math.max(q[0], 0), Math.max(q[1], 0), Math.max(q[2], 0));
    return outside > 0 ? outside : Math.max(...q);
  }
  const h = p.hull!;
  let m = -Infinity;
  for (let f = 0; f < h.faceCount; f++) {
    const P = h.planes;
    m = Math.max(m, P[4 * f] * l[0] + P[4 * f + 1] * l[1] + P[4 * f + 2] * l[2] - P[4 * f + 3]);
  }
  return m;
}

function randomQuat(r: () => number): QuatTuple {
  const q: QuatTuple = [r() - 0.5, r() - 0.5, r() - 0.5, r() - 0.5];
  const l = Math.hypot(...q);
  return [q[0] / l, q[1] / l, q[2] / l, q[3] / l];
}

function randomProxy(r: () => number, kind: number, pos: V3): ConvexProxy {
  const q = randomQuat(r);
  const size = () => 0.15 + 0.5 * r();
  if (kind === PROXY_SPHERE) return sphere(size(), pos);
  if (kind === PROXY_BOX) return box([size(), size(), size()], pos, q);
  if (kind === PROXY_CAPSULE) return capsule(size() * 0.6, size(), pos, q);
  if (kind === PROXY_CYLINDER) return cylinder(size(), size(), pos, q);
  if (kind === PROXY_HULL) return hull(boxHull(size(), size(), size()), pos, q);
  const v = () => [pos[0] + 1.5 * (r() - 0.5), pos[1] + 1.5 * (r() - 0.5), pos[2] + 1.5 * (r() - 0.5)] as V3;
  return triangle(v(), v(), v(), Math.floor(8 * r()));
}

describe("collideConvex: random poses", () => {
  it("points lie on both surfaces and the contract holds for 6000 random pairs", () => {
    const r = rng(Number(process.env.CONVEX_SEED ?? 12345));
    const kinds = [PROXY_SPHERE, PROXY_BOX, PROXY_CAPSULE, PROXY_CYLINDER, PROXY_HULL, PROXY_TRIANGLE];
    let contacts = 0;
    for (let i = 0; i < Number(process.env.CONVEX_PAIRS ?? 6000); i++) {
      const ka = kinds[i % 6];
      const kb = kinds[Math.floor(i / 6) % 6];
      if (ka === PROXY_TRIANGLE && kb === PROXY_TRIANGLE) continue;
      const a = randomProxy(r, ka, [0, 0, 0]);
      const b = randomProxy(r, kb, [1.2 * (r() - 0.5), 1.2 * (r() - 0.5), 1.2 * (r() - 0.5)]);
      const m = collide(a, b, 0.05);
      const label = `pair ${i}: ${ka} vs ${kb}`;
      expect(Number.isFinite(m.normal[0] + m.normal[1] + m.normal[2]) || m.count === 0, label).toBe(true);
      checkContract(m, label);
      if (m.count > 0) contacts++;
      // Curved shapes: EPA's polytope approximation, and a lying capsule's segment tilted up to ~4.6°
      // against a face puts its raised end up to r (1 - cos 4.6°) inside: a looser tolerance.
      const curved = ka === PROXY_CYLINDER || kb === PROXY_CYLINDER || ka === PROXY_CAPSULE || kb === PROXY_CAPSULE;
      const tol = curved ? 5e-3 : 1e-6;
      // Deep overlaps (beyond 5 cm) place points approximately.
      for (let k = 0; k < m.count; k++) {
        if (m.separation[k] < -0.05) continue;
        const pa: V3 = [m.pointA[3 * k], m.pointA[3 * k + 1], m.pointA[3 * k + 2]];
        const pb: V3 = [m.pointB[3 * k], m.pointB[3 * k + 1], m.pointB[3 * k + 2]];
        expect(Math.abs(surface(a, pa)), `${label} A point ${k}`).toBeLessThan(tol);
        expect(Math.abs(surface(b, pb)), `${label} B point ${k}`).toBeLessThan(tol);
      }
      // A centre inside the other shape must give a contact.
      if (kb !== PROXY_TRIANGLE && surface(b, [a.pos[0], a.pos[1], a.pos[2]]) < -0.01 && ka !== PROXY_TRIANGLE) {
        expect(m.count, `${label} centre inside`).toBeGreaterThan(0);
      }
    }
    expect(contacts).toBeGreaterThan(2000);
  });
});

describe("collideConvex: hulls from buildHull", () => {
  /** A hexagonal prism of circumradius 0.5 and half height 0.3, hexagons facing ±y. */
  function prism(): ConvexHull {
    const pts: number[][] = [];
    const c = Math.sqrt(3) / 2;
    const ring = [
      [1, 0],
      [0.5, c],
      [-0.5, c],
      [-1, 0],
      [-0.5, -c],
      [0.5, -c],
    ];
    for (const y of [-0.3, 0.3]) for (const [x, z] of ring) pts.push([0.5 * x, y, 0.5 * z]);
    return buildHull(pts);
  }

  it("a prism resting on its hexagon: 4 points at the depth, normal exactly ±y, on a box and on triangles", () => {
    const h = prism();
    expect(h.faceCount).toBe(8);
    const onBox = collide(floorBox(), hull(h, [0.2, 0.29, -0.1], quat([0, 1, 0], 0.4)));
    checkContract(onBox);
    expect(onBox.count).toBe(4);
    expect([...onBox.normal]).toEqual([0, 1, 0]);
    for (let k = 0; k < 4; k++) expect(onBox.separation[k]).toBeCloseTo(-0.01, 9);
    let total = 0;
    for (const t of [tri1(), tri2()]) {
      const m = collide(hull(h, [0.2, 0.29, -0.1], quat([0, 1, 0], 0.4)), t);
      checkContract(m);
      total += m.count;
      if (m.count > 0) expect([...m.normal]).toEqual([0, -1, 0]);
    }
    expect(total).toBeGreaterThanOrEqual(4);
  });

  it("a prism stacked on a prism, and a prism on its side against a box edge", () => {
    const h = prism();
    const stacked = collide(hull(h, [0, 0, 0]), hull(h, [0.1, 0.59, 0.05], quat([0, 1, 0], 0.5)));
    checkContract(stacked);
    expect(stacked.count).toBe(4);
    expect(stacked.normal[1]).toBeCloseTo(1, 12);
    for (let k = 0; k < 4; k++) expect(stacked.separation[k]).toBeCloseTo(-0.01, 9);
    // Lying on a rectangular side face: a quad of 0.5 × 0.6.
    const side = collide(floorBox(), hull(h, [0, Math.sqrt(3) / 4 - 0.01, 0], quat([1, 0, 0], Math.PI / 2)));
    checkContract(side);
    expect(side.count).toBe(4);
    expect(side.normal[1]).toBeCloseTo(1, 12);
    for (let k = 0; k < 4; k++) expect(side.separation[k]).toBeCloseTo(-0.01, 9);
  });

  it("ids of a resting cylinder and capsule stay put when they move slightly", () => {
    const c1 = collide(cylinder(0.5, 0.5, [0.2, 0.495, 0.1], quat([0, 1, 0], 0.2)), floorBox());
    const c2 = collide(cylinder(0.5, 0.5, [0.2005, 0.4952, 0.1], quat([0, 1, 0], 0.2)), floorBox());
    expect(c1.count).toBeGreaterThanOrEqual(3);
    expect([...c1.id.subarray(0, c1.count)].sort()).toEqual([...c2.id.subarray(0, c2.count)].sort());
    const q = quat([0, 0, 1], Math.PI / 2);
    const k1 = collide(capsule(0.3, 0.6, [0, 0.29, 0], q), floorBox());
    const k2 = collide(capsule(0.3, 0.6, [0.001, 0.291, 0], q), floorBox());
    expect(k1.count).toBe(2);
    expect([...k1.id.subarray(0, 2)].sort()).toEqual([...k2.id.subarray(0, 2)].sort());
  });
});
