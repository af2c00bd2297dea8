import { type ConvexProxy, PROXY_BOX, PROXY_HULL, PROXY_TRIANGLE } from "./proxy.ts";

/**
 * A polytope proxy (box, hull or triangle) expressed in world space: vertices, face planes and the
 * topology (face polygons, edges with their two faces) that the separating axis test and the clipper
 * read. One view per pair side is reused; a hull's arrays grow the first time a larger hull is seen
 * (a one-off, like building it), so steady state allocates nothing.
 */
export class PolyView {
  kind = PROXY_BOX;
  vertexCount = 0;
  verts = new Float64Array(3 * 8);
  faceCount = 0;
  /** nx, ny, nz, d per face (outward unit normal, n · x = d on the face). */
  planes = new Float64Array(4 * 6);
  faceStart: Int32Array = BOX_FACE_START;
  faceVertices: Int32Array = BOX_FACE_VERTICES;
  edgeCount = 0;
  edges: Int32Array = BOX_EDGES;
  edgeFaces: Int32Array = BOX_EDGE_FACES;
  /**
   * Edges whose directions are worth testing against the other shape's edges when no Gauss-map pruning
   * is done: the first `edgeDirCount` edges (a box lists one edge per axis first; a triangle its 3 edges).
   */
  edgeDirCount = 0;
  /** A point inside the polytope (its centre for a box or hull, the centroid for a triangle). */
  readonly center = new Float64Array(3);
  /** A box's half extents (its axes are the normals of faces 0, 2, 4). */
  readonly boxHalf = new Float64Array(3);
  /** Distance from the proxy's origin (a triangle: its centroid) to the farthest vertex. */
  boundRadius = 0;
  /** The proxy's rotation (its local axes; a triangle's is unused): orders face polygons (clip.ts). */
  readonly rot = new Float64Array(9);
}

/**
 * Box vertex k has local coordinates (±hx, ±hy, ±hz) with bit 0, 1, 2 of k giving the sign of x, y, z
 * (set = +). Faces 0..5 are +x, -x, +y, -y, +z, -z, counter-clockwise seen from outside.
 */
const BOX_FACE_START = new Int32Array([0, 4, 8, 12, 16, 20, 24]);
const BOX_FACE_VERTICES = new Int32Array([1, 3, 7, 5, 0, 4, 6, 2, 2, 6, 7, 3, 0, 1, 5, 4, 4, 5, 7, 6, 0, 2, 3, 1]);
/** One edge along x, y, z first (edge directions for unpruned edge tests), then the other nine. */
const BOX_EDGES = new Int32Array([0, 1, 0, 2, 0, 4, 2, 3, 4, 5, 6, 7, 1, 3, 4, 6, 5, 7, 1, 5, 2, 6, 3, 7]);
const BOX_EDGE_FACES = boxEdgeFaces();

/** The two faces containing both ends of each box edge (computed once at load). */
function boxEdgeFaces(): Int32Array {
  const out = new Int32Array(24);
  for (let e = 0; e < 12; e++) {
    let n = 0;
    for (let f = 0; f < 6; f++) {
      let hits = 0;
      for (let k = BOX_FACE_START[f]; k < BOX_FACE_START[f + 1]; k++) {
        const v = BOX_FACE_VERTICES[k];
        if (v === BOX_EDGES[2 * e] || v === BOX_EDGES[2 * e + 1]) hits++;
      }
      if (hits === 2) out[2 * e + n++] = f;
    }
  }
  return out;
}

/** A triangle is a two-faced flat polytope: face 0 is v0 v1 v2 (normal by the right-hand rule), face 1 the back. */
const TRI_FACE_START = new Int32Array([0, 3, 6]);
const TRI_FACE_VERTICES = new Int32Array([0, 1, 2, 0, 2, 1]);
const TRI_EDGES = new Int32Array([0, 1, 1, 2, 2, 0]);
const TRI_EDGE_FACES = new Int32Array([0, 1, 0, 1, 0, 1]);

const IDENTITY = new Float64Array([1, 0, 0, 0, 1, 0, 0, 0, 1]);

/** Fills `v` from a box, hull or triangle proxy. */
export function fillPolyView(v: PolyView, p: ConvexProxy): void {
  v.kind = p.kind;
  // A triangle's proxy has no rotation of its own (its corners are in world space): whatever a reused
  // proxy last held must not order its points (a restored snapshot's proxies start blank).
  if (p.kind === PROXY_TRIANGLE) v.rot.set(IDENTITY);
  else v.rot.set(p.rot);
  if (p.kind === PROXY_BOX) fillBox(v, p);
  else if (p.kind === PROXY_HULL) fillHull(v, p);
  else if (p.kind === PROXY_TRIANGLE) fillTriangle(v, p);
}

function fillBox(v: PolyView, p: ConvexProxy): void {
  const R = p.rot;
  const pos = p.pos;
  const hx = p.half[0];
  const hy = p.half[1];
  const hz = p.half[2];
  const verts = v.verts;
  for (let k = 0; k < 8; k++) {
    const x = k & 1 ? hx : -hx;
    const y = k & 2 ? hy : -hy;
    const z = k & 4 ? hz : -hz;
    verts[3 * k] = pos[0] + R[0] * x + R[1] * y + R[2] * z;
    verts[3 * k + 1] = pos[1] + R[3] * x + R[4] * y + R[5] * z;
    verts[3 * k + 2] = pos[2] + R[6] * x + R[7] * y + R[8] * z;
  }
  const planes = v.planes;
  for (let f = 0; f < 6; f++) {
    const axis = f >> 1;
    // 0 - x, not -1 * x: a zero component stays +0.
    const neg = (f & 1) === 1;
    const nx = neg ? 0 - R[axis] : R[axis];
    const ny = neg ? 0 - R[3 + axis] : R[3 + axis];
    const nz = neg ? 0 - R[6 + axis] : R[6 + axis];
    planes[4 * f] = nx;
    planes[4 * f + 1] = ny;
    planes[4 * f + 2] = nz;
    planes[4 * f + 3] = nx * pos[0] + ny * pos[1] + nz * pos[2] + p.half[axis];
  }
  v.vertexCount = 8;
  v.faceCount = 6;
  v.faceStart = BOX_FACE_START;
  v.faceVertices = BOX_FACE_VERTICES;
  v.edgeCount = 12;
  v.edges = BOX_EDGES;
  v.edgeFaces = BOX_EDGE_FACES;
  v.edgeDirCount = 3;
  v.center[0] = pos[0];
  v.center[1] = pos[1];
  v.center[2] = pos[2];
  v.boxHalf[0] = hx;
  v.boxHalf[1] = hy;
  v.boxHalf[2] = hz;
  v.boundRadius = Math.sqrt(hx * hx + hy * hy + hz * hz);
}

function fillHull(v: PolyView, p: ConvexProxy): void {
  const hull = p.hull!;
  const n = hull.vertexCount;
  const F = hull.faceCount;
  if (v.verts.length < 3 * n) v.verts = new Float64Array(3 * n);
  if (v.planes.length < 4 * F) v.planes = new Float64Array(4 * F);
  const R = p.rot;
  const pos = p.pos;
  const src = hull.vertices;
  const verts = v.verts;
  for (let k = 0; k < n; k++) {
    const x = src[3 * k];
    const y = src[3 * k + 1];
    const z = src[3 * k + 2];
    verts[3 * k] = pos[0] + R[0] * x + R[1] * y + R[2] * z;
    verts[3 * k + 1] = pos[1] + R[3] * x + R[4] * y + R[5] * z;
    verts[3 * k + 2] = pos[2] + R[6] * x + R[7] * y + R[8] * z;
  }
  const sp = hull.planes;
  const planes = v.planes;
  for (let f = 0; f < F; f++) {
    const x = sp[4 * f];
    const y = sp[4 * f + 1];
    const z = sp[4 * f + 2];
    const nx = R[0] * x + R[1] * y + R[2] * z;
    const ny = R[3] * x + R[4] * y + R[5] * z;
    const nz = R[6] * x + R[7] * y + R[8] * z;
    planes[4 * f] = nx;
    planes[4 * f + 1] = ny;
    planes[4 * f + 2] = nz;
    planes[4 * f + 3] = sp[4 * f + 3] + nx * pos[0] + ny * pos[1] + nz * pos[2];
  }
  v.vertexCount = n;
  v.faceCount = F;
  v.faceStart = hull.faceStart;
  v.faceVertices = hull.faceVertices;
  v.edgeCount = hull.edgeCount;
  v.edges = hull.edges;
  v.edgeFaces = hull.edgeFaces;
  v.edgeDirCount = hull.edgeCount;
  // The mean of the vertices is inside the hull whatever its frame's origin is.
  let cx = 0;
  let cy = 0;
  let cz = 0;
  for (let k = 0; k < n; k++) {
    cx += verts[3 * k];
    cy += verts[3 * k + 1];
    cz += verts[3 * k + 2];
  }
  v.center[0] = cx / n;
  v.center[1] = cy / n;
  v.center[2] = cz / n;
  v.boundRadius = hull.boundRadius;
}

function fillTriangle(v: PolyView, p: ConvexProxy): void {
  const t = p.tri;
  const verts = v.verts;
  for (let k = 0; k < 9; k++) verts[k] = t[k];
  const ux = t[3] - t[0];
  const uy = t[4] - t[1];
  const uz = t[5] - t[2];
  const wx = t[6] - t[0];
  const wy = t[7] - t[1];
  const wz = t[8] - t[2];
  let nx = uy * wz - uz * wy;
  let ny = uz * wx - ux * wz;
  let nz = ux * wy - uy * wx;
  const len = Math.sqrt(nx * nx + ny * ny + nz * nz);
  if (len > 0) {
    nx /= len;
    ny /= len;
    nz /= len;
  } else {
    nx = 0;
    ny = 1;
    nz = 0;
  }
  const d = nx * t[0] + ny * t[1] + nz * t[2];
  const planes = v.planes;
  planes[0] = nx;
  planes[1] = ny;
  planes[2] = nz;
  planes[3] = d;
  planes[4] = -nx;
  planes[5] = -ny;
  planes[6] = -nz;
  planes[7] = -d;
  v.vertexCount = 3;
  v.faceCount = 2;
  v.faceStart = TRI_FACE_START;
  v.faceVertices = TRI_FACE_VERTICES;
  v.edgeCount = 3;
  v.edges = TRI_EDGES;
  v.edgeFaces = TRI_EDGE_FACES;
  v.edgeDirCount = 3;
  const cx = (t[0] + t[3] + t[6]) / 3;
  const cy = (t[1] + t[4] + t[7]) / 3;
  const cz = (t[2] + t[5] + t[8]) / 3;
  v.center[0] = cx;
  v.center[1] = cy;
  v.center[2] = cz;
  let r2 = 0;
  for (let k = 0; k < 3; k++) {
    const dx = t[3 * k] - cx;
    const dy = t[3 * k + 1] - cy;
    const dz = t[3 * k + 2] - cz;
    const q = dx * dx + dy * dy + dz * dz;
    if (q > r2) r2 = q;
  }
  v.boundRadius = Math.sqrt(r2);
}

/** Index of the vertex of `v` farthest along d[o..o+2] (the first on ties, so the choice is deterministic). */
export function polySupportIndex(v: PolyView, d: Float64Array, o: number): number {
  const dx = d[o];
  const dy = d[o + 1];
  const dz = d[o + 2];
  const verts = v.verts;
  let best = 0;
  let bestDot = -Infinity;
  for (let k = 0; k < v.vertexCount; k++) {
    const s = dx * verts[3 * k] + dy * verts[3 * k + 1] + dz * verts[3 * k + 2];
    if (s > bestDot) {
      bestDot = s;
      best = k;
    }
  }
  return best;
}
