import type { TriangleSource } from "./triangle-source.ts";

/**
 * An edge between two triangles is active (its own normal may be used by contacts) only when the
 * surface folds outwards across it by more than about 0.8 degrees: the cosine of the angle between the
 * two face normals is below this. Flatter folds and every concave fold leave the edge inactive, so a body
 * sliding over a tessellated floor never catches on the seams (the "internal edge" problem; see
 * Ericson, Real-Time Collision Detection 12.1, and the active-edge flags of Bullet's btInternalEdgeUtility).
 */
export const ACTIVE_EDGE_COS = 0.9999;

/** Largest number of triangles in a bounding-volume-hierarchy leaf. */
const LEAF_SIZE = 4;
/**
 * Median splits keep the tree balanced, so its depth is at most ceil(log2(triangles)) + 1; a depth-first
 * walk that pushes both children needs at most depth + 1 stack slots.
 */
const STACK_SIZE = 64;

/** Creation-time scratch for `isActiveEdge`: a, b, c, d. */
const edgeCorners = new Float64Array(12);

/**
 * The active-edge rule shared by meshes and height fields. `p` holds a, b, c (this triangle, edge a-b,
 * counter-clockwise seen from its front) then d, the far corner of the neighbour b, a, d across the edge.
 * Active when the normals differ by more than the threshold and the fold is convex (d lies behind this
 * triangle's plane).
 */
export function isActiveEdge(p: Float64Array): boolean {
  const abx = p[3] - p[0];
  const aby = p[4] - p[1];
  const abz = p[5] - p[2];
  const acx = p[6] - p[0];
  const acy = p[7] - p[1];
  const acz = p[8] - p[2];
  const adx = p[9] - p[0];
  const ady = p[10] - p[1];
  const adz = p[11] - p[2];
  // n1 = ab × ac (this face), n2 = ad × ab (the neighbour b, a, d: (a - b) × (d - b) = ad × ab).
  const n1x = aby * acz - abz * acy;
  const n1y = abz * acx - abx * acz;
  const n1z = abx * acy - aby * acx;
  const n2x = ady * abz - adz * aby;
  const n2y = adz * abx - adx * abz;
  const n2z = adx * aby - ady * abx;
  const l1 = Math.sqrt(n1x * n1x + n1y * n1y + n1z * n1z);
  const l2 = Math.sqrt(n2x * n2x + n2y * n2y + n2z * n2z);
  if (l1 === 0 || l2 === 0) return true;
  const cos = (n1x * n2x + n1y * n2y + n1z * n2z) / (l1 * l2);
  if (cos >= ACTIVE_EDGE_COS) return false;
  return n1x * adx + n1y * ady + n1z * adz < 0;
}

/**
 * A triangle soup with a static bounding-volume hierarchy, for level geometry. Built once, never changed.
 *
 * Triangles whose corners are collinear (zero area, to a relative tolerance) are dropped at construction;
 * the others keep their input order and are numbered 0..triangleCount-1 without gaps. `sourceTriangle`
 * maps an id back to its index in the constructor's `indices`.
 *
 * Adjacency: two triangles are neighbours when they share an edge, i.e. the same two vertices. Vertices
 * with exactly equal positions are welded for this purpose (the stored corners are unchanged), so a mesh
 * exported with duplicated vertices per face still finds its neighbours; nearly-equal positions are not
 * welded. An edge shared by more than two triangles, or by two triangles wound inconsistently, counts as
 * a boundary and is active.
 */
export class TriMesh implements TriangleSource {
  readonly bounds = new Float64Array(6);
  readonly triangleCount: number;
  /** x, y, z per vertex. */
  readonly vertices: Float64Array;
  /** Three vertex indices per triangle, counter-clockwise seen from the front. */
  readonly triangleVertices: Int32Array;
  /** Per triangle: its index in the constructor's `indices`. */
  readonly sourceTriangle: Int32Array;
  /** Per triangle: min xyz, max xyz. */
  readonly triangleBounds: Float64Array;
  /** Per triangle: active-edge bits as `triangle` returns them. */
  readonly activeEdges: Uint8Array;

  /** Hierarchy nodes, depth first: node 0 is the root and an inner node's first child is the next node. */
  readonly nodeCount: number;
  /** Per node: min xyz, max xyz of its triangles. */
  readonly nodeBounds: Float64Array;
  /** Per node: index of its second child, or -1 for a leaf. */
  readonly nodeSecondChild: Int32Array;
  /** Per leaf: its triangles are leafTriangles[nodeFirst .. nodeFirst + nodeTriangles). */
  readonly nodeFirst: Int32Array;
  readonly nodeTriangles: Int32Array;
  readonly leafTriangles: Int32Array;
  /** Walk stack, shared by this mesh's queries (never re-entered). */
  readonly stack = new Int32Array(STACK_SIZE);

  constructor(vertices: readonly (readonly number[])[], indices: readonly (readonly number[])[]) {
    const vertexCount = vertices.length;
    this.vertices = new Float64Array(vertexCount * 3);
    for (let v = 0; v < vertexCount; v++) {
      this.vertices[v * 3] = vertices[v][0];
      this.vertices[v * 3 + 1] = vertices[v][1];
      this.vertices[v * 3 + 2] = vertices[v][2];
    }
    const kept: number[] = [];
    for (let t = 0; t < indices.length; t++) {
      if (!this.isDegenerate(indices[t][0], indices[t][1], indices[t][2])) kept.push(t);
    }
    const count = kept.length;
    this.triangleCount = count;
    this.sourceTriangle = Int32Array.from(kept);
    this.triangleVertices = new Int32Array(count * 3);
    for (let t = 0; t < count; t++) {
      const src = indices[kept[t]];
      this.triangleVertices[t * 3] = src[0];
      this.triangleVertices[t * 3 + 1] = src[1];
      this.triangleVertices[t * 3 + 2] = src[2];
    }
    this.triangleBounds = new Float64Array(count * 6);
    this.computeBounds();
    this.activeEdges = new Uint8Array(count);
    this.computeActiveEdges();

    // A binary tree with at most `count` leaves has fewer than 2 * count nodes.
    const maxNodes = Math.max(1, 2 * count);
    const nodeBounds = new Float64Array(maxNodes * 6);
    const second = new Int32Array(maxNodes);
    const first = new Int32Array(maxNodes);
    const tris = new Int32Array(maxNodes);
    this.leafTriangles = new Int32Array(count);
    for (let t = 0; t < count; t++) this.leafTriangles[t] = t;
    let nodes = 0;
    if (count > 0) nodes = this.buildNode(0, count, 0, nodeBounds, second, first, tris);
    this.nodeCount = nodes;
    this.nodeBounds = nodeBounds.slice(0, nodes * 6);
    this.nodeSecondChild = second.slice(0, nodes);
    this.nodeFirst = first.slice(0, nodes);
    this.nodeTriangles = tris.slice(0, nodes);
  }

  queryTriangles(lo: Float64Array, hi: Float64Array, out: Int32Array): number {
    if (this.nodeCount === 0 || out.length === 0) return 0;
    const nb = this.nodeBounds;
    const tb = this.triangleBounds;
    const stack = this.stack;
    const lx = lo[0];
    const ly = lo[1];
    const lz = lo[2];
    const hx = hi[0];
    const hy = hi[1];
    const hz = hi[2];
    const cap = out.length;
    let n = 0;
    let top = 0;
    stack[top++] = 0;
    while (top > 0) {
      const node = stack[--top];
      const b = node * 6;
      if (nb[b] > hx || nb[b + 1] > hy || nb[b + 2] > hz || nb[b + 3] < lx || nb[b + 4] < ly || nb[b + 5] < lz) continue;
      const second = this.nodeSecondChild[node];
      if (second >= 0) {
        stack[top++] = second;
        stack[top++] = node + 1;
        continue;
      }
      const end = this.nodeFirst[node] + this.nodeTriangles[node];
      for (let i = this.nodeFirst[node]; i < end; i++) {
        const t = this.leafTriangles[i];
        const o = t * 6;
        if (tb[o] > hx || tb[o + 1] > hy || tb[o + 2] > hz || tb[o + 3] < lx || tb[o + 4] < ly || tb[o + 5] < lz) continue;
        // Keep the `cap` smallest ids, sorted (insertion sort: results are small), so a full buffer
        // holds the same triangles whatever order the tree is walked in.
        if (n === cap) {
          if (t > out[n - 1]) continue;
          n--;
        }
        let j = n;
        while (j > 0 && out[j - 1] > t) {
          out[j] = out[j - 1];
          j--;
        }
        out[j] = t;
        n++;
      }
    }
    return n;
  }

  triangle(id: number, out: Float64Array, o: number): number {
    const v = this.vertices;
    const t = id * 3;
    const a = this.triangleVertices[t] * 3;
    const b = this.triangleVertices[t + 1] * 3;
    const c = this.triangleVertices[t + 2] * 3;
    out[o] = v[a];
    out[o + 1] = v[a + 1];
    out[o + 2] = v[a + 2];
    out[o + 3] = v[b];
    out[o + 4] = v[b + 1];
    out[o + 5] = v[b + 2];
    out[o + 6] = v[c];
    out[o + 7] = v[c + 1];
    out[o + 8] = v[c + 2];
    return this.activeEdges[id];
  }

  /** Zero area: the cross product of two edges is tiny next to the squared length of the longest edge. */
  private isDegenerate(a: number, b: number, c: number): boolean {
    const v = this.vertices;
    const e1x = v[b * 3] - v[a * 3];
    const e1y = v[b * 3 + 1] - v[a * 3 + 1];
    const e1z = v[b * 3 + 2] - v[a * 3 + 2];
    const e2x = v[c * 3] - v[a * 3];
    const e2y = v[c * 3 + 1] - v[a * 3 + 1];
    const e2z = v[c * 3 + 2] - v[a * 3 + 2];
    const nx = e1y * e2z - e1z * e2y;
    const ny = e1z * e2x - e1x * e2z;
    const nz = e1x * e2y - e1y * e2x;
    const cross2 = nx * nx + ny * ny + nz * nz;
    const scale = Math.max(e1x * e1x + e1y * e1y + e1z * e1z, e2x * e2x + e2y * e2y + e2z * e2z);
    return cross2 <= 1e-24 * scale * scale;
  }

  private computeBounds(): void {
    const v = this.vertices;
    const tb = this.triangleBounds;
    const all = this.bounds;
    all.fill(0);
    for (let t = 0; t < this.triangleCount; t++) {
      for (let axis = 0; axis < 3; axis++) {
        const a = v[this.triangleVertices[t * 3] * 3 + axis];
        const b = v[this.triangleVertices[t * 3 + 1] * 3 + axis];
        const c = v[this.triangleVertices[t * 3 + 2] * 3 + axis];
        tb[t * 6 + axis] = Math.min(a, b, c);
        tb[t * 6 + 3 + axis] = Math.max(a, b, c);
        if (t === 0 || tb[t * 6 + axis] < all[axis]) all[axis] = tb[t * 6 + axis];
        if (t === 0 || tb[t * 6 + 3 + axis] > all[3 + axis]) all[3 + axis] = tb[t * 6 + 3 + axis];
      }
    }
  }

  private computeActiveEdges(): void {
    const v = this.vertices;
    const tv = this.triangleVertices;
    // Weld exactly equal positions (String(-0) is "0", so -0 and 0 weld too).
    const welded = new Map<string, number>();
    const canonical = new Int32Array(this.vertices.length / 3);
    for (let i = 0; i < canonical.length; i++) {
      const key = `${v[i * 3]},${v[i * 3 + 1]},${v[i * 3 + 2]}`;
      const found = welded.get(key);
      canonical[i] = found === undefined ? i : found;
      if (found === undefined) welded.set(key, i);
    }
    const vertexCount = canonical.length;
    const edgeKey = (t: number, e: number): number => {
      const a = canonical[tv[t * 3 + e]];
      const b = canonical[tv[t * 3 + ((e + 1) % 3)]];
      return a < b ? a * vertexCount + b : b * vertexCount + a;
    };
    // Each undirected edge lists its (triangle * 3 + edge) uses, in triangle order.
    const uses = new Map<number, number[]>();
    for (let t = 0; t < this.triangleCount; t++) {
      for (let e = 0; e < 3; e++) {
        const key = edgeKey(t, e);
        const list = uses.get(key);
        if (list === undefined) uses.set(key, [t * 3 + e]);
        else list.push(t * 3 + e);
      }
    }
    for (let t = 0; t < this.triangleCount; t++) {
      let bits = 0;
      for (let e = 0; e < 3; e++) {
        const list = uses.get(edgeKey(t, e))!;
        let active = true;
        if (list.length === 2) {
          const other = list[0] === t * 3 + e ? list[1] : list[0];
          const u = (other / 3) | 0;
          const f = other - u * 3;
          // Consistent winding: the neighbour runs the edge the other way.
          if (canonical[tv[u * 3 + f]] === canonical[tv[t * 3 + ((e + 1) % 3)]]) {
            this.copyCorner(tv[t * 3 + e], 0);
            this.copyCorner(tv[t * 3 + ((e + 1) % 3)], 3);
            this.copyCorner(tv[t * 3 + ((e + 2) % 3)], 6);
            this.copyCorner(tv[u * 3 + ((f + 2) % 3)], 9);
            active = isActiveEdge(edgeCorners);
          }
        }
        if (active) bits |= 1 << e;
      }
      this.activeEdges[t] = bits;
    }
  }

  private copyCorner(vertex: number, o: number): void {
    edgeCorners[o] = this.vertices[vertex * 3];
    edgeCorners[o + 1] = this.vertices[vertex * 3 + 1];
    edgeCorners[o + 2] = this.vertices[vertex * 3 + 2];
  }

  /**
   * Builds the subtree over leafTriangles[start .. end) at node `node`; returns the next free node.
   * Splits at the median of the triangle centroids along the centroids' longest axis, ties by id, so the
   * tree depends only on the input (Ericson, Real-Time Collision Detection 6.2, median-cut top-down build).
   */
  private buildNode(
    start: number,
    end: number,
    node: number,
    nodeBounds: Float64Array,
    second: Int32Array,
    first: Int32Array,
    tris: Int32Array,
  ): number {
    const tb = this.triangleBounds;
    const order = this.leafTriangles;
    const cmin = [Infinity, Infinity, Infinity];
    const cmax = [-Infinity, -Infinity, -Infinity];
    for (let axis = 0; axis < 3; axis++) {
      let lo = Infinity;
      let hi = -Infinity;
      for (let i = start; i < end; i++) {
        const t = order[i];
        lo = Math.min(lo, tb[t * 6 + axis]);
        hi = Math.max(hi, tb[t * 6 + 3 + axis]);
        const centroid = (tb[t * 6 + axis] + tb[t * 6 + 3 + axis]) * 0.5;
        cmin[axis] = Math.min(cmin[axis], centroid);
        cmax[axis] = Math.max(cmax[axis], centroid);
      }
      nodeBounds[node * 6 + axis] = lo;
      nodeBounds[node * 6 + 3 + axis] = hi;
    }
    if (end - start <= LEAF_SIZE) {
      second[node] = -1;
      first[node] = start;
      tris[node] = end - start;
      return node + 1;
    }
    let axis = 0;
    if (cmax[1] - cmin[1] > cmax[axis] - cmin[axis]) axis = 1;
    if (cmax[2] - cmin[2] > cmax[axis] - cmin[axis]) axis = 2;
    // The centroid of a triangle's bounds: cheap, and as good a sorting key as the true centroid.
    const key = (t: number): number => (tb[t * 6 + axis] + tb[t * 6 + 3 + axis]) * 0.5;
    const sorted = Array.from(order.subarray(start, end)).sort((a, b) => key(a) - key(b) || a - b);
    order.set(sorted, start);
    const mid = start + ((end - start) >> 1);
    const next = this.buildNode(start, mid, node + 1, nodeBounds, second, first, tris);
    second[node] = next;
    first[node] = 0;
    tris[node] = 0;
    return this.buildNode(mid, end, next, nodeBounds, second, first, tris);
  }
}
