import { describe, expect, it } from "vitest";
import type { ConvexHull } from "../../shared/engine/geometry/convex-hull.ts";
import { buildHull, HullError, transformHull } from "../../shared/engine/geometry/hull-builder.ts";

/** A small deterministic LCG (Numerical Recipes constants) giving floats in [0, 1). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 4294967296;
  };
}

const BOX_CORNERS = [
  [-1, -2, -3],
  [1, -2, -3],
  [-1, 2, -3],
  [1, 2, -3],
  [-1, -2, 3],
  [1, -2, 3],
  [-1, 2, 3],
  [1, 2, 3],
];

function vertex(h: ConvexHull, i: number): number[] {
  return [h.vertices[i * 3], h.vertices[i * 3 + 1], h.vertices[i * 3 + 2]];
}

function faceVerts(h: ConvexHull, f: number): number[] {
  return Array.from(h.faceVertices.subarray(h.faceStart[f], h.faceStart[f + 1]));
}

/** Structural invariants every hull must satisfy, with tolerance `tol` for plane tests. */
function checkHull(h: ConvexHull, tol: number): void {
  expect(h.vertexCount - h.edgeCount + h.faceCount).toBe(2);
  expect(h.faceStart.length).toBe(h.faceCount + 1);
  expect(h.faceStart[h.faceCount]).toBe(h.faceVertices.length);
  let r = 0;
  for (let i = 0; i < h.vertexCount; i++) r = Math.max(r, Math.hypot(...vertex(h, i)));
  expect(h.boundRadius).toBeCloseTo(r, 12);
  for (let f = 0; f < h.faceCount; f++) {
    const [nx, ny, nz, d] = h.planes.subarray(f * 4, f * 4 + 4);
    expect(Math.hypot(nx, ny, nz)).toBeCloseTo(1, 12);
    const verts = faceVerts(h, f);
    expect(verts.length).toBeGreaterThanOrEqual(3);
    for (const v of verts) {
      const [x, y, z] = vertex(h, v);
      expect(Math.abs(nx * x + ny * y + nz * z - d)).toBeLessThan(tol);
    }
    // Convex and counter-clockwise seen from outside: every corner turns around +n.
    for (let i = 0; i < verts.length; i++) {
      const a = vertex(h, verts[i]);
      const b = vertex(h, verts[(i + 1) % verts.length]);
      const c = vertex(h, verts[(i + 2) % verts.length]);
      const u = [b[0] - a[0], b[1] - a[1], b[2] - a[2]];
      const w = [c[0] - b[0], c[1] - b[1], c[2] - b[2]];
      const turn = nx * (u[1] * w[2] - u[2] * w[1]) + ny * (u[2] * w[0] - u[0] * w[2]) + nz * (u[0] * w[1] - u[1] * w[0]);
      expect(turn).toBeGreaterThan(0);
    }
    for (let i = 0; i < h.vertexCount; i++) {
      const [x, y, z] = vertex(h, i);
      expect(nx * x + ny * y + nz * z - d).toBeLessThanOrEqual(tol);
    }
  }
  // Every edge appears once and joins the two faces that hold it (in opposite directions).
  const seen = new Set<string>();
  for (let e = 0; e < h.edgeCount; e++) {
    const a = h.edges[e * 2];
    const b = h.edges[e * 2 + 1];
    const key = `${Math.min(a, b)},${Math.max(a, b)}`;
    expect(seen.has(key)).toBe(false);
    seen.add(key);
    const f0 = faceVerts(h, h.edgeFaces[e * 2]);
    const f1 = faceVerts(h, h.edgeFaces[e * 2 + 1]);
    const has = (face: number[], p: number, q: number) => face.some((v, i) => v === p && face[(i + 1) % face.length] === q);
    expect(has(f0, a, b) !== has(f0, b, a)).toBe(true);
    expect(has(f0, a, b) ? has(f1, b, a) : has(f1, a, b)).toBe(true);
  }
}

describe("buildHull", () => {
  it("turns a box's 8 corners into 6 quads, 12 edges and 8 vertices with the right planes", () => {
    const h = buildHull(BOX_CORNERS);
    expect(h.vertexCount).toBe(8);
    expect(h.faceCount).toBe(6);
    expect(h.edgeCount).toBe(12);
    for (let f = 0; f < 6; f++) expect(h.faceStart[f + 1] - h.faceStart[f]).toBe(4);
    // Vertices keep the input order.
    expect(Array.from(h.vertices)).toEqual(BOX_CORNERS.flat());
    const planes: string[] = [];
    for (let f = 0; f < 6; f++) planes.push(Array.from(h.planes.subarray(f * 4, f * 4 + 4)).join(","));
    expect(planes.sort()).toEqual(["-1,0,0,1", "0,-1,0,2", "0,0,-1,3", "0,0,1,3", "0,1,0,2", "1,0,0,1"]);
    expect(h.boundRadius).toBe(Math.sqrt(14));
    checkHull(h, 1e-12);
  });

  it("ignores points on the faces, on the edges and inside a cube, whatever their order", () => {
    const extra: number[][] = [];
    for (const s of [-1, 1]) extra.push([s, 0, 0], [0, s, 0], [0, 0, s], [s, s, 0], [0, s, -s], [s * 0.5, 0.25, 1]);
    extra.push([0, 0, 0], [0.3, -0.2, 0.9]);
    const cube = BOX_CORNERS.map(([x, y, z]) => [x, y / 2, z / 3]);
    for (const pts of [[...extra, ...cube], [...cube, ...extra], [...extra.slice(0, 7), ...cube, ...extra.slice(7)]]) {
      const h = buildHull(pts);
      expect(h.faceCount).toBe(6);
      expect(h.edgeCount).toBe(12);
      expect(h.vertexCount).toBe(8);
      for (let i = 0; i < 8; i++) expect(vertex(h, i).map(Math.abs)).toEqual([1, 1, 1]);
      checkHull(h, 1e-12);
    }
  });

  it("merges faces that are flat within the tolerance (a 1e-8 bump on a cube face)", () => {
    const cube = BOX_CORNERS.map(([x, y, z]) => [x, y / 2, z / 3]);
    const h = buildHull([...cube, [0.2, 0.1, 1 + 1e-8], [1 + 1e-8, 0.999, 0]]);
    expect(h.faceCount).toBe(6);
    expect(h.vertexCount).toBe(8);
    checkHull(h, 1e-7);
  });

  it("merges the faces of turned boxes whose corners were rounded to float32, near and far from the origin", () => {
    const rand = lcg(5);
    for (let i = 0; i < 200; i++) {
      const q = [rand() - 0.5, rand() - 0.5, rand() - 0.5, rand() - 0.5];
      const len = Math.hypot(...q);
      const [x, y, z, w] = q.map((v) => v / len);
      const half = [0.1 + rand() * 3, 0.1 + rand() * 3, 0.1 + rand() * 3];
      const offset = i % 2 ? [rand() * 100, rand() * 100, rand() * 100] : [0, 0, 0];
      const pts = BOX_CORNERS.map(([sx, sy, sz]) => {
        const [px, py, pz] = [Math.sign(sx) * half[0], Math.sign(sy) * half[1], Math.sign(sz) * half[2]];
        // v + 2w (q × v) + 2 q × (q × v)
        const [tx, ty, tz] = [2 * (y * pz - z * py), 2 * (z * px - x * pz), 2 * (x * py - y * px)];
        return [
          Math.fround(px + w * tx + (y * tz - z * ty) + offset[0]),
          Math.fround(py + w * ty + (z * tx - x * tz) + offset[1]),
          Math.fround(pz + w * tz + (x * ty - y * tx) + offset[2]),
        ];
      });
      const h = buildHull(pts);
      expect([h.faceCount, h.edgeCount, h.vertexCount]).toEqual([6, 12, 8]);
      checkHull(h, 1e-4);
    }
  });

  it("contains a random cloud and keeps only input points as vertices", () => {
    for (const seed of [1, 2, 3, 42]) {
      const rand = lcg(seed);
      const pts: number[][] = [];
      for (let i = 0; i < 200; i++) pts.push([rand() * 4 - 2 + 10, rand() * 2 - 1, rand() * 3 - 1.5]);
      const h = buildHull(pts);
      checkHull(h, 1e-12);
      for (let i = 0; i < h.vertexCount; i++) {
        const v = vertex(h, i);
        expect(pts.some((p) => p[0] === v[0] && p[1] === v[1] && p[2] === v[2])).toBe(true);
      }
      for (const [x, y, z] of pts) {
        for (let f = 0; f < h.faceCount; f++) {
          const [nx, ny, nz, d] = h.planes.subarray(f * 4, f * 4 + 4);
          expect(nx * x + ny * y + nz * z - d).toBeLessThanOrEqual(1e-12);
        }
      }
      // Deterministic: the same input gives the same bits.
      const again = buildHull(pts);
      expect(Array.from(again.vertices)).toEqual(Array.from(h.vertices));
      expect(Array.from(again.planes)).toEqual(Array.from(h.planes));
      expect(Array.from(again.faceVertices)).toEqual(Array.from(h.faceVertices));
    }
  });

  it("builds 256 points on a sphere and rejects 257", () => {
    const pts: number[][] = [];
    for (let i = 0; i < 256; i++) {
      const y = 1 - (2 * (i + 0.5)) / 256;
      const r = Math.sqrt(1 - y * y);
      const a = i * Math.PI * (3 - Math.sqrt(5));
      pts.push([r * Math.cos(a), y, r * Math.sin(a)]);
    }
    const h = buildHull(pts);
    expect(h.vertexCount).toBe(256);
    checkHull(h, 1e-12);
    expect(() => buildHull([...pts, [0, 0, 0]])).toThrow(/at most 256/);
  });

  it("gives a prism's caps as single polygons, in any orientation", () => {
    const s = Math.sin(0.4);
    const c = Math.cos(0.4);
    for (const m of [3, 5, 17, 64]) {
      const pts: number[][] = [];
      for (let i = 0; i < m; i++) {
        const a = (2 * Math.PI * i) / m;
        for (const y of [-1, 1]) {
          // Tilted 0.4 rad about x so no face is axis-aligned.
          const [x, z] = [Math.cos(a), Math.sin(a)];
          pts.push([x, c * y - s * z, s * y + c * z]);
        }
      }
      pts.push([0, 0, 0]);
      const h = buildHull(pts);
      expect(h.faceCount).toBe(m + 2);
      expect(h.vertexCount).toBe(2 * m);
      expect(h.edgeCount).toBe(3 * m);
      checkHull(h, 1e-12);
    }
  });

  it("handles clouds just thicker than the flatness tolerance", () => {
    const rand = lcg(9);
    for (const thickness of [2e-6, 5e-6, 1e-5, 1e-4]) {
      const pts: number[][] = [];
      for (let i = 0; i < 100; i++) pts.push([rand(), rand(), rand() * thickness]);
      const h = buildHull(pts);
      checkHull(h, 3e-6);
    }
  });

  it("throws HullError with a readable message for degenerate clouds", () => {
    const cases: [number[][], RegExp][] = [
      [[[0, 0, 0], [1, 0, 0], [0, 1, 0]], /at least 4 points/],
      [Array.from({ length: 10 }, (_, i) => [i % 3, Math.floor(i / 3), 0.5 * (i % 3)]), /not all in one plane/],
      [Array.from({ length: 6 }, (_, i) => [i, 2 * i, -i]), /not all on one line/],
      [[[1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3], [1, 2, 3]], /same place/],
      [[[0, 0, 0], [0, 0, 0], [1, 0, 0], [1, 0, 0], [0, 1, 0]], /not all in one plane/],
      [[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, Number.NaN]], /non-finite/],
      [[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, Number.POSITIVE_INFINITY]], /non-finite/],
      [[[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0]], /3 coordinates/],
      [[[0, 0, 0], [1, 0, 0], [0, 1, 0], [1e-9, 1e-9, 1e-9]], /not all in one plane/],
    ];
    for (const [pts, message] of cases) {
      let error: unknown;
      try {
        buildHull(pts);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(HullError);
      expect((error as Error).message).toMatch(message);
    }
  });

  it("transformHull turns and moves vertices and planes", () => {
    const h = buildHull(BOX_CORNERS);
    // 90° about z: x -> y, y -> -x.
    const s = Math.SQRT1_2;
    const t = transformHull(h, new Float64Array([10, 0, 0]), new Float64Array([0, 0, s, s]));
    checkHull(t, 1e-12);
    expect(t.faceCount).toBe(6);
    expect(Array.from(t.faceVertices)).toEqual(Array.from(h.faceVertices));
    for (let i = 0; i < 8; i++) {
      const [x, y, z] = vertex(h, i);
      const [tx, ty, tz] = vertex(t, i);
      expect(tx).toBeCloseTo(10 - y, 12);
      expect(ty).toBeCloseTo(x, 12);
      expect(tz).toBeCloseTo(z, 12);
    }
    expect(t.boundRadius).toBeCloseTo(Math.hypot(12, 1, 3), 12);
    // The original is untouched.
    expect(Array.from(h.vertices)).toEqual(BOX_CORNERS.flat());
  });
});
