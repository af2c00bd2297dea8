import { describe, expect, it } from "vitest";
import { HeightField } from "../../shared/engine/geometry/heightfield.ts";
import { raycastTriangles, type TriangleRayHit } from "../../shared/engine/geometry/triangle-raycast.ts";
import type { TriangleSource } from "../../shared/engine/geometry/triangle-source.ts";
import { TriMesh } from "../../shared/engine/geometry/trimesh.ts";

/** Deterministic generator (a 32-bit xorshift), so failures reproduce. */
function makeRandom(seed: number): () => number {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

/** An n x n grid of quads in the xz plane over [0, n]², heights from `height`, wound so normals point +y. */
function gridMesh(n: number, height: (x: number, z: number) => number): TriMesh {
  const vertices: number[][] = [];
  for (let z = 0; z <= n; z++) for (let x = 0; x <= n; x++) vertices.push([x, height(x, z), z]);
  const indices: number[][] = [];
  const at = (x: number, z: number) => z * (n + 1) + x;
  for (let z = 0; z < n; z++) {
    for (let x = 0; x < n; x++) {
      indices.push([at(x, z), at(x, z + 1), at(x + 1, z + 1)]);
      indices.push([at(x, z), at(x + 1, z + 1), at(x + 1, z)]);
    }
  }
  return new TriMesh(vertices, indices);
}

function corners(src: TriangleSource, id: number): { v: Float64Array; bits: number } {
  const v = new Float64Array(9);
  const bits = src.triangle(id, v, 0);
  return { v, bits };
}

/** Every triangle's corners, read once per source for the brute-force references. */
const cornerCache = new WeakMap<TriangleSource, Float64Array[]>();
function allCorners(src: TriangleSource): Float64Array[] {
  let list = cornerCache.get(src);
  if (list === undefined) {
    list = Array.from({ length: src.triangleCount }, (_, id) => corners(src, id).v);
    cornerCache.set(src, list);
  }
  return list;
}

function normalOf(v: Float64Array): number[] {
  const e1 = [v[3] - v[0], v[4] - v[1], v[5] - v[2]];
  const e2 = [v[6] - v[0], v[7] - v[1], v[8] - v[2]];
  const n = [e1[1] * e2[2] - e1[2] * e2[1], e1[2] * e2[0] - e1[0] * e2[2], e1[0] * e2[1] - e1[1] * e2[0]];
  const l = Math.hypot(n[0], n[1], n[2]);
  return [n[0] / l, n[1] / l, n[2] / l];
}

function bruteQuery(src: TriangleSource, lo: Float64Array, hi: Float64Array): number[] {
  const ids: number[] = [];
  const all = allCorners(src);
  for (let id = 0; id < src.triangleCount; id++) {
    const v = all[id];
    let overlaps = true;
    for (let a = 0; a < 3; a++) {
      const min = Math.min(v[a], v[a + 3], v[a + 6]);
      const max = Math.max(v[a], v[a + 3], v[a + 6]);
      if (min > hi[a] || max < lo[a]) overlaps = false;
    }
    if (overlaps) ids.push(id);
  }
  return ids;
}

/** Plain Möller–Trumbore over every triangle: the reference for the accelerated raycast. */
function bruteRaycast(src: TriangleSource, o: number[], d: number[], maxDistance: number): { t: number; id: number } | null {
  let found: { t: number; id: number } | null = null;
  const all = allCorners(src);
  for (let id = 0; id < src.triangleCount; id++) {
    const v = all[id];
    const e1 = [v[3] - v[0], v[4] - v[1], v[5] - v[2]];
    const e2 = [v[6] - v[0], v[7] - v[1], v[8] - v[2]];
    const p = [d[1] * e2[2] - d[2] * e2[1], d[2] * e2[0] - d[0] * e2[2], d[0] * e2[1] - d[1] * e2[0]];
    const det = e1[0] * p[0] + e1[1] * p[1] + e1[2] * p[2];
    if (Math.abs(det) < 1e-14) continue;
    const s = [o[0] - v[0], o[1] - v[1], o[2] - v[2]];
    const u = (s[0] * p[0] + s[1] * p[1] + s[2] * p[2]) / det;
    const q = [s[1] * e1[2] - s[2] * e1[1], s[2] * e1[0] - s[0] * e1[2], s[0] * e1[1] - s[1] * e1[0]];
    const w = (d[0] * q[0] + d[1] * q[1] + d[2] * q[2]) / det;
    const t = (e2[0] * q[0] + e2[1] * q[1] + e2[2] * q[2]) / det;
    if (u < 0 || w < 0 || u + w > 1 || t < 0 || t > maxDistance) continue;
    if (found === null || t < found.t) found = { t, id };
  }
  return found;
}

function randomBox(random: () => number, min: number[], max: number[], maxSize: number): [Float64Array, Float64Array] {
  const lo = new Float64Array(3);
  const hi = new Float64Array(3);
  for (let a = 0; a < 3; a++) {
    const span = max[a] - min[a];
    lo[a] = min[a] - 0.1 * span + random() * 1.2 * span;
    hi[a] = lo[a] + random() * maxSize;
  }
  return [lo, hi];
}

function isAscending(ids: Int32Array, n: number): boolean {
  for (let i = 1; i < n; i++) if (ids[i] <= ids[i - 1]) return false;
  return true;
}

function checkRaycasts(src: TriangleSource, random: () => number, rays: number, center: number[], spread: number): number {
  const out: TriangleRayHit = { t: 0, normal: new Float64Array(3), triangle: -1 };
  const origin = new Float64Array(3);
  const dir = new Float64Array(3);
  let hits = 0;
  for (let i = 0; i < rays; i++) {
    const o = [0, 1, 2].map((a) => center[a] + (random() * 2 - 1) * spread);
    const target = [0, 1, 2].map((a) => center[a] + (random() * 2 - 1) * spread * 0.5);
    const d = [target[0] - o[0], target[1] - o[1], target[2] - o[2]];
    const l = Math.hypot(d[0], d[1], d[2]);
    for (let a = 0; a < 3; a++) d[a] /= l;
    const maxDistance = random() < 0.3 ? l * random() : 4 * spread;
    origin.set(o);
    dir.set(d);
    const expected = bruteRaycast(src, o, d, maxDistance);
    const hit = raycastTriangles(src, origin, dir, maxDistance, out);
    expect(hit).toBe(expected !== null);
    if (expected === null) continue;
    hits++;
    expect(out.t).toBeCloseTo(expected.t, 9);
    if (out.triangle !== expected.id) {
      // Only a hit on a shared edge may name another triangle, at the same distance.
      expect(Math.abs(out.t - expected.t)).toBeLessThan(1e-9);
    }
    const n = normalOf(corners(src, out.triangle).v);
    const sign = n[0] * d[0] + n[1] * d[1] + n[2] * d[2] > 0 ? -1 : 1;
    for (let a = 0; a < 3; a++) expect(out.normal[a]).toBeCloseTo(sign * n[a], 12);
  }
  return hits;
}

describe("TriMesh", () => {
  it("a flat grid has only its border edges active", () => {
    const mesh = gridMesh(4, () => 0);
    expect(mesh.triangleCount).toBe(32);
    for (let id = 0; id < mesh.triangleCount; id++) {
      const { v, bits } = corners(mesh, id);
      expect(normalOf(v)[1]).toBeCloseTo(1, 12);
      for (let e = 0; e < 3; e++) {
        const a = e * 3;
        const b = ((e + 1) % 3) * 3;
        const onBorder =
          (v[a] === v[b] && (v[a] === 0 || v[a] === 4)) || (v[a + 2] === v[b + 2] && (v[a + 2] === 0 || v[a + 2] === 4));
        expect(((bits >> e) & 1) === 1, `triangle ${id} edge ${e}`).toBe(onBorder);
      }
    }
  });

  it("a ridge edge is active, a valley edge inactive", () => {
    // Two faces sharing the edge (0, h, -1)-(0, h, 1), falling to y = 0 at x = ±1.
    const pair = (h: number) =>
      new TriMesh(
        [
          [0, h, -1],
          [0, h, 1],
          [-1, 0, 0],
          [1, 0, 0],
        ],
        [
          [0, 2, 1], // left face: edge v2-v0 is 1 -> 0, the shared one (bit 2)
          [0, 1, 3], // right face: edge v0-v1 is the shared one (bit 0)
        ],
      );
    const ridge = pair(1);
    expect(normalOf(corners(ridge, 0).v)[1]).toBeGreaterThan(0);
    expect(normalOf(corners(ridge, 1).v)[1]).toBeGreaterThan(0);
    expect(corners(ridge, 0).bits).toBe(0b111);
    expect(corners(ridge, 1).bits).toBe(0b111);
    const valley = pair(-1);
    expect(corners(valley, 0).bits).toBe(0b011);
    expect(corners(valley, 1).bits).toBe(0b110);
    // Almost flat (well under a degree of fold): inactive even though convex.
    const nearlyFlat = pair(0.001);
    expect(corners(nearlyFlat, 0).bits).toBe(0b011);
  });

  it("welds exactly duplicated vertices and drops zero-area triangles", () => {
    const mesh = new TriMesh(
      [
        [0, 0, 0],
        [0, 0, 1],
        [1, 0, 1],
        [0, 0, 0],
        [1, 0, 1],
        [1, 0, 0],
        [2, 0, 0],
      ],
      [
        [0, 1, 2],
        [0, 5, 6], // collinear: dropped
        [3, 4, 5],
      ],
    );
    expect(mesh.triangleCount).toBe(2);
    expect(Array.from(mesh.sourceTriangle)).toEqual([0, 2]);
    // The diagonal 0-2 / 3-4 is shared through the welded positions: flat, so inactive.
    expect(corners(mesh, 0).bits).toBe(0b011);
    expect(corners(mesh, 1).bits).toBe(0b110);
  });

  it("queryTriangles matches a brute-force scan, ascending, and keeps the lowest ids when capped", () => {
    const random = makeRandom(12345);
    const heights = Array.from({ length: 21 * 21 }, () => random() * 3);
    const vertices: number[][] = [];
    for (let z = 0; z <= 20; z++) for (let x = 0; x <= 20; x++) vertices.push([x, heights[z * 21 + x], z]);
    const indices: number[][] = [];
    for (let z = 0; z < 20; z++) {
      for (let x = 0; x < 20; x++) {
        const a = z * 21 + x;
        indices.push([a, a + 21, a + 22], [a, a + 22, a + 1]);
      }
    }
    // Plus a soup of random triangles, so the tree is not just a grid.
    for (let i = 0; i < 200; i++) {
      const base = vertices.length;
      for (let k = 0; k < 3; k++) vertices.push([random() * 20, random() * 6 - 1, random() * 20]);
      indices.push([base, base + 1, base + 2]);
    }
    const mesh = new TriMesh(vertices, indices);
    expect(mesh.triangleCount).toBe(1000);
    const out = new Int32Array(2000);
    const small = new Int32Array(5);
    let total = 0;
    for (let i = 0; i < 500; i++) {
      const [lo, hi] = randomBox(random, [0, -1, 0], [20, 5, 20], i % 10 === 0 ? 15 : 3);
      const expected = bruteQuery(mesh, lo, hi);
      const n = mesh.queryTriangles(lo, hi, out);
      expect(Array.from(out.subarray(0, n))).toEqual(expected);
      expect(isAscending(out, n)).toBe(true);
      const m = mesh.queryTriangles(lo, hi, small);
      expect(Array.from(small.subarray(0, m))).toEqual(expected.slice(0, 5));
      total += n;
    }
    expect(total).toBeGreaterThan(1000);
  });

  it("raycasts match a brute-force scan", () => {
    const random = makeRandom(777);
    const vertices: number[][] = [];
    const indices: number[][] = [];
    for (let i = 0; i < 400; i++) {
      const c = [random() * 10, random() * 10, random() * 10];
      const base = vertices.length;
      for (let k = 0; k < 3; k++) vertices.push([c[0] + random() * 2 - 1, c[1] + random() * 2 - 1, c[2] + random() * 2 - 1]);
      indices.push([base, base + 1, base + 2]);
    }
    const mesh = new TriMesh(vertices, indices);
    const hits = checkRaycasts(mesh, makeRandom(99), 400, [5, 5, 5], 8);
    expect(hits).toBeGreaterThan(100);
  });

  it("a short ray over a big mesh tests only the triangles near it", () => {
    const mesh = gridMesh(64, (x, z) => 0.05 * ((x * 7 + z * 3) % 5));
    let visited = 0;
    const triangle = mesh.triangle.bind(mesh);
    mesh.triangle = (id, out, o) => {
      visited++;
      return triangle(id, out, o);
    };
    const out: TriangleRayHit = { t: 0, normal: new Float64Array(3), triangle: -1 };
    const d = [0.3, -1, 0.2];
    const l = Math.hypot(...d);
    const hit = raycastTriangles(mesh, new Float64Array([30.2, 2, 17.7]), new Float64Array(d.map((x) => x / l)), 5, out);
    expect(hit).toBe(true);
    expect(visited).toBeLessThan(40);
    expect(out.triangle).toBe(bruteRaycast(mesh, [30.2, 2, 17.7], d.map((x) => x / l), 5)!.id);
  });
});

describe("HeightField", () => {
  const random = makeRandom(4242);
  const rows = 64;
  const cols = 64;
  const bumpy = Array.from({ length: rows * cols }, () => random() * 2);
  const field = new HeightField(bumpy, rows, cols, 63, 126);

  it("lays out samples, ids and +y winding as documented", () => {
    expect(field.triangleCount).toBe(2 * 63 * 63);
    expect(Array.from(field.bounds)).toEqual([-31.5, Math.min(...bumpy), -63, 31.5, Math.max(...bumpy), 63]);
    for (let id = 0; id < field.triangleCount; id++) {
      const { v } = corners(field, id);
      expect(normalOf(v)[1]).toBeGreaterThan(0);
    }
    // Cell (r = 2, c = 5): corners at x = -26.5, -25.5 and z = -59, -57; split along A-D.
    const id = 2 * (2 * 63 + 5);
    expect(Array.from(corners(field, id).v)).toEqual([
      -26.5,
      bumpy[2 * 64 + 5],
      -59,
      -25.5,
      bumpy[3 * 64 + 6],
      -57,
      -25.5,
      bumpy[2 * 64 + 6],
      -59,
    ]);
    expect(Array.from(corners(field, id + 1).v)).toEqual([
      -26.5,
      bumpy[2 * 64 + 5],
      -59,
      -26.5,
      bumpy[3 * 64 + 5],
      -57,
      -25.5,
      bumpy[3 * 64 + 6],
      -57,
    ]);
  });

  it("a flat field has only its outer border edges active; a ridge is active, a valley not", () => {
    const flat = new HeightField(new Array(25).fill(1), 5, 5, 4, 4);
    for (let id = 0; id < flat.triangleCount; id++) {
      const { v, bits } = corners(flat, id);
      for (let e = 0; e < 3; e++) {
        const a = e * 3;
        const b = ((e + 1) % 3) * 3;
        const onBorder =
          (v[a] === v[b] && Math.abs(v[a]) === 2) || (v[a + 2] === v[b + 2] && Math.abs(v[a + 2]) === 2);
        expect(((bits >> e) & 1) === 1, `triangle ${id} edge ${e}`).toBe(onBorder);
      }
    }
    // 3 x 3 samples, middle column raised (ridge along z at x = 0) or lowered (valley).
    const ridge = new HeightField([0, 1, 0, 0, 1, 0, 0, 1, 0], 3, 3, 2, 2);
    const valley = new HeightField([0, -1, 0, 0, -1, 0, 0, -1, 0], 3, 3, 2, 2);
    // Cell (0, 0) triangle 0 = (A, D, B): edge e1 D-B runs along x = 0 (the ridge line) into cell (0, 1).
    expect(corners(ridge, 0).bits & 0b010).toBe(0b010);
    expect(corners(valley, 0).bits & 0b010).toBe(0);
    // Cell (0, 1) triangle 1 = (A, C, D): edge e0 A-C is the same line seen from the other side.
    expect(corners(ridge, 3).bits & 0b001).toBe(0b001);
    expect(corners(valley, 3).bits & 0b001).toBe(0);
    // The diagonals stay flat-inside-a-plane: inactive in both.
    expect(corners(ridge, 0).bits & 0b001).toBe(0);
    expect(corners(valley, 0).bits & 0b001).toBe(0);
  });

  it("queryTriangles returns only nearby cells and matches a brute-force scan", () => {
    const out = new Int32Array(10000);
    // A 0.4 x 0.4 box in the middle of cell (r = 40, c = 20): x in [-11.5, -10.5], z in [17, 19].
    const n = field.queryTriangles(new Float64Array([-11.2, -5, 17.8]), new Float64Array([-10.8, 5, 18.2]), out);
    expect(Array.from(out.subarray(0, n))).toEqual([2 * (40 * 63 + 20), 2 * (40 * 63 + 20) + 1]);
    // Touching a corner picks the four cells around it.
    const m = field.queryTriangles(new Float64Array([-10.5, -5, 19]), new Float64Array([-10.5, 5, 19]), out);
    const cells = [40 * 63 + 20, 40 * 63 + 21, 41 * 63 + 20, 41 * 63 + 21];
    expect(Array.from(out.subarray(0, m))).toEqual(cells.flatMap((c) => [2 * c, 2 * c + 1]));
    const boxRandom = makeRandom(31337);
    const small = new Int32Array(3);
    for (let i = 0; i < 200; i++) {
      const [lo, hi] = randomBox(boxRandom, [-31.5, -0.5, -63], [31.5, 2.5, 63], i % 20 === 0 ? 40 : 4);
      const expected = bruteQuery(field, lo, hi);
      const k = field.queryTriangles(lo, hi, out);
      expect(Array.from(out.subarray(0, k))).toEqual(expected);
      expect(isAscending(out, k)).toBe(true);
      const j = field.queryTriangles(lo, hi, small);
      expect(Array.from(small.subarray(0, j))).toEqual(expected.slice(0, 3));
    }
  });

  it("raycasts match a brute-force scan and a short ray visits few triangles", () => {
    const hits = checkRaycasts(field, makeRandom(5), 300, [0, 1, 0], 30);
    expect(hits).toBeGreaterThan(100);
    let visited = 0;
    const counting = new HeightField(bumpy, rows, cols, 63, 126);
    const triangle = counting.triangle.bind(counting);
    counting.triangle = (id, out, o) => {
      visited++;
      return triangle(id, out, o);
    };
    const out: TriangleRayHit = { t: 0, normal: new Float64Array(3), triangle: -1 };
    const d = [1, -1, 0.5];
    const l = Math.hypot(...d);
    const hit = raycastTriangles(counting, new Float64Array([0, 3, 0]), new Float64Array(d.map((x) => x / l)), 5, out);
    expect(hit).toBe(true);
    expect(visited).toBeLessThan(20);
  });

  it("rays starting just above the surface, and rays through shared corners, match a brute-force scan", () => {
    const rays = makeRandom(8);
    const out: TriangleRayHit = { t: 0, normal: new Float64Array(3), triangle: -1 };
    for (let i = 0; i < 300; i++) {
      const x = (rays() * 2 - 1) * 31;
      const z = (rays() * 2 - 1) * 62;
      const o = [x, field.heightAt(x, z) + 0.05, z];
      const d = [rays() * 2 - 1, -rays() * 0.5, rays() * 2 - 1];
      const l = Math.hypot(d[0], d[1], d[2]);
      for (let a = 0; a < 3; a++) d[a] /= l;
      const maxDistance = rays() * 3;
      const expected = bruteRaycast(field, o, d, maxDistance);
      expect(raycastTriangles(field, new Float64Array(o), new Float64Array(d), maxDistance, out)).toBe(expected !== null);
      if (expected !== null) {
        expect(out.triangle).toBe(expected.id);
        expect(out.t).toBeCloseTo(expected.t, 9);
      }
    }
    // Straight down onto a sample: six triangles share it, the lowest id wins (as the scan keeps the first).
    const down = new Float64Array([0, -1, 0]);
    for (const [r, c] of [
      [10, 20],
      [33, 1],
      [62, 40],
    ]) {
      const o = [-31.5 + c, 5, -63 + 2 * r];
      const expected = bruteRaycast(field, o, [0, -1, 0], 10)!;
      expect(raycastTriangles(field, new Float64Array(o), down, 10, out)).toBe(true);
      expect(out.triangle).toBe(expected.id);
      expect(out.t).toBe(expected.t);
    }
    // Diagonally through a grid corner (exact numbers, so every triangle around it ties at t = 0.5): the
    // cells beside the diagonal step hold the lowest id.
    // (One far sample raised, so the ray starts inside the bounds instead of entering them at the corner.)
    const flat = new HeightField([1, ...new Array(80).fill(0)], 9, 9, 8, 8);
    const through = bruteRaycast(flat, [-0.5, 0.5, 0.5], [1, -1, -1], 10)!;
    expect(through).toEqual({ t: 0.5, id: 54 });
    expect(raycastTriangles(flat, new Float64Array([-0.5, 0.5, 0.5]), new Float64Array([1, -1, -1]), 10, out)).toBe(true);
    expect([out.t, out.triangle]).toEqual([0.5, 54]);
    const mesh = gridMesh(8, () => 0);
    for (const [x, z] of [
      [3, 4],
      [5, 5],
      [1, 7],
    ]) {
      const expected = bruteRaycast(mesh, [x, 1, z], [0, -1, 0], 10)!;
      expect(raycastTriangles(mesh, new Float64Array([x, 1, z]), down, 10, out)).toBe(true);
      expect(out.triangle).toBe(expected.id);
    }
  });

  it("queries exactly on corner coordinates of an inexact grid match a brute-force scan", () => {
    // Spacing 0.1 and 0.3 are not exact in binary, so the cell guesses by division may be off by one.
    const grid = new HeightField(
      Array.from({ length: 31 * 41 }, (_, i) => (i % 3) * 0.1),
      31,
      41,
      4,
      9,
    );
    const boxes = makeRandom(11);
    const out = new Int32Array(4000);
    for (let i = 0; i < 300; i++) {
      const c0 = Math.floor(boxes() * 41);
      const c1 = Math.min(40, c0 + Math.floor(boxes() * 3));
      const r0 = Math.floor(boxes() * 31);
      const r1 = Math.min(30, r0 + Math.floor(boxes() * 3));
      const lo = new Float64Array([grid.columnX(c0), -1, grid.rowZ(r0)]);
      const hi = new Float64Array([grid.columnX(c1), 1, grid.rowZ(r1)]);
      const n = grid.queryTriangles(lo, hi, out);
      expect(Array.from(out.subarray(0, n))).toEqual(bruteQuery(grid, lo, hi));
    }
  });

  it("any other TriangleSource is raycast segment by segment, with the same answers", () => {
    const plain: TriangleSource = {
      bounds: field.bounds,
      triangleCount: field.triangleCount,
      queryTriangles: (lo, hi, out) => field.queryTriangles(lo, hi, out),
      triangle: (id, out, o) => field.triangle(id, out, o),
    };
    const hits = checkRaycasts(plain, makeRandom(6), 100, [0, 1, 0], 30);
    expect(hits).toBeGreaterThan(30);
  });

  it("a 0.1·x slope has the right height at samples and mid-cell points", () => {
    const sizeX = 10;
    const sizeZ = 6;
    const r = 4;
    const c = 11;
    const heights: number[] = [];
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) heights.push(0.1 * (-sizeX / 2 + (j * sizeX) / (c - 1)));
    const slope = new HeightField(heights, r, c, sizeX, sizeZ);
    const out: TriangleRayHit = { t: 0, normal: new Float64Array(3), triangle: -1 };
    const down = new Float64Array([0, -1, 0]);
    const expectedNormal = [-0.1 / Math.hypot(0.1, 1), 1 / Math.hypot(0.1, 1), 0];
    const points: number[][] = [];
    for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) points.push([-5 + j, -3 + 2 * i]);
    for (let i = 0; i < r - 1; i++) {
      for (let j = 0; j < c - 1; j++) {
        points.push([-4.5 + j, -2 + 2 * i], [-4.75 + j, -1.25 + 2 * i], [-4.25 + j, -2.75 + 2 * i]);
      }
    }
    for (const [x, z] of points) {
      expect(slope.heightAt(x, z)).toBeCloseTo(0.1 * x, 12);
      expect(raycastTriangles(slope, new Float64Array([x, 5, z]), down, 100, out)).toBe(true);
      expect(5 - out.t).toBeCloseTo(0.1 * x, 12);
      for (let a = 0; a < 3; a++) expect(out.normal[a]).toBeCloseTo(expectedNormal[a], 12);
    }
    expect(slope.heightAt(5.01, 0)).toBeNaN();
    // A plane: no interior edge is active.
    for (let id = 0; id < slope.triangleCount; id++) {
      const { v, bits } = corners(slope, id);
      for (let e = 0; e < 3; e++) {
        const a = e * 3;
        const b = ((e + 1) % 3) * 3;
        const onBorder =
          (v[a] === v[b] && Math.abs(v[a]) === 5) || (v[a + 2] === v[b + 2] && Math.abs(v[a + 2]) === 3);
        expect(((bits >> e) & 1) === 1).toBe(onBorder);
      }
    }
  });
});
