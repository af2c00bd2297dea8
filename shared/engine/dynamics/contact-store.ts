import { MAX_MANIFOLD_POINTS, type ManifoldOut, NORMAL_OF_B, NORMAL_OF_NEITHER } from "../collision/manifold.ts";
import { ENGINE_CONSTANTS } from "../config.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";
import type { BodyStore } from "./body-store.ts";

/** Per point: localA xyz, localB xyz, separation, normal impulse, world midpoint xyz, spare. */
export const POINT_STRIDE = 12;
export const P_LOCAL_A = 0;
export const P_LOCAL_B = 3;
export const P_SEPARATION = 6;
export const P_IMPULSE = 7;
export const P_MID = 8;
const CONTACT_POINTS = MAX_MANIFOLD_POINTS * POINT_STRIDE;

/** Manifold can be reused while the pair's relative pose stays close to the one it was built at. */
export const FLAG_RECYCLABLE = 1;
/** Some point is at or below the touching distance (links islands, wakes sleepers). */
export const FLAG_TOUCHING = 2;
/** The normal belongs to B's face (stored in B's frame); otherwise to A's. */
const FLAG_NORMAL_OF_B = 4;

const EMPTY = -1;

const oldIds = new Int32Array(MAX_MANIFOLD_POINTS);
const oldImpulses = new Float64Array(MAX_MANIFOLD_POINTS);

/**
 * Persistent contacts, one per broad-phase pair, in a dense array (swap-remove) with an open-addressing
 * hash from (bodyA, bodyB) slots to the contact index. Each keeps its manifold (points in both bodies'
 * frames, with the accumulated impulses used to warm-start the next tick) and its friction impulses.
 */
export class ContactStore {
  count = 0;
  capacity = 0;
  bodyA = new Int32Array(0);
  bodyB = new Int32Array(0);
  pointCount = new Uint8Array(0);
  flags = new Uint8Array(0);
  /** Broad-phase step stamp: the last step in which the pair's AABBs overlapped. */
  stamp = new Int32Array(0);
  normal = new Float64Array(0);
  localNormal = new Float64Array(0);
  points = new Float64Array(0);
  ids = new Int32Array(0);
  /** Friction impulse as a world vector (xyz) and the twist impulse about the normal. */
  friction = new Float64Array(0);
  /** Relative pose at build: B's centre in A's frame (xyz), qA* ⊗ qB (xyzw), then the margin used. */
  buildPose = new Float64Array(0);

  private tableA = new Int32Array(0);
  private tableB = new Int32Array(0);
  private tableIndex = new Int32Array(0);
  private tableMask = 0;

  constructor(initialCapacity = 256) {
    this.ensureCapacity(initialCapacity);
  }

  private ensureCapacity(n: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(64, this.capacity);
    while (cap < n) cap *= 2;
    const growF = (a: Float64Array, k: number) => {
      const b = new Float64Array(cap * k);
      b.set(a);
      return b;
    };
    const growI = (a: Int32Array, k: number) => {
      const b = new Int32Array(cap * k);
      b.set(a);
      return b;
    };
    const growU = (a: Uint8Array) => {
      const b = new Uint8Array(cap);
      b.set(a);
      return b;
    };
    this.bodyA = growI(this.bodyA, 1);
    this.bodyB = growI(this.bodyB, 1);
    this.pointCount = growU(this.pointCount);
    this.flags = growU(this.flags);
    this.stamp = growI(this.stamp, 1);
    this.normal = growF(this.normal, 3);
    this.localNormal = growF(this.localNormal, 3);
    this.points = growF(this.points, CONTACT_POINTS);
    this.ids = growI(this.ids, MAX_MANIFOLD_POINTS);
    this.friction = growF(this.friction, 4);
    this.buildPose = growF(this.buildPose, 8);
    this.capacity = cap;
    this.rehash(cap * 2);
  }

  private rehash(size: number): void {
    this.tableA = new Int32Array(size).fill(EMPTY);
    this.tableB = new Int32Array(size);
    this.tableIndex = new Int32Array(size);
    this.tableMask = size - 1;
    for (let c = 0; c < this.count; c++) this.insertKey(this.bodyA[c], this.bodyB[c], c);
  }

  private home(a: number, b: number): number {
    let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h & this.tableMask;
  }

  private insertKey(a: number, b: number, index: number): void {
    let i = this.home(a, b);
    while (this.tableA[i] !== EMPTY) i = (i + 1) & this.tableMask;
    this.tableA[i] = a;
    this.tableB[i] = b;
    this.tableIndex[i] = index;
  }

  private findSlot(a: number, b: number): number {
    let i = this.home(a, b);
    for (;;) {
      const ka = this.tableA[i];
      if (ka === EMPTY) return -1;
      if (ka === a && this.tableB[i] === b) return i;
      i = (i + 1) & this.tableMask;
    }
  }

  /** Contact index of the pair (a < b), or -1. */
  find(a: number, b: number): number {
    const i = this.findSlot(a, b);
    return i < 0 ? -1 : this.tableIndex[i];
  }

  /** Creates an empty contact for the pair (a < b) and returns its index. */
  add(a: number, b: number, stamp: number): number {
    if (this.count + 1 > this.capacity) this.ensureCapacity(this.count + 1);
    const c = this.count++;
    this.bodyA[c] = a;
    this.bodyB[c] = b;
    this.pointCount[c] = 0;
    this.flags[c] = 0;
    this.stamp[c] = stamp;
    const f = c * 4;
    this.friction[f] = this.friction[f + 1] = this.friction[f + 2] = this.friction[f + 3] = 0;
    this.insertKey(a, b, c);
    return c;
  }

  /** Removes contact c; the last contact moves into its index. */
  removeAt(c: number): void {
    this.deleteKey(this.bodyA[c], this.bodyB[c]);
    const last = --this.count;
    if (c !== last) {
      this.bodyA[c] = this.bodyA[last];
      this.bodyB[c] = this.bodyB[last];
      this.pointCount[c] = this.pointCount[last];
      this.flags[c] = this.flags[last];
      this.stamp[c] = this.stamp[last];
      this.normal.copyWithin(c * 3, last * 3, last * 3 + 3);
      this.localNormal.copyWithin(c * 3, last * 3, last * 3 + 3);
      this.points.copyWithin(c * CONTACT_POINTS, last * CONTACT_POINTS, (last + 1) * CONTACT_POINTS);
      this.ids.copyWithin(c * MAX_MANIFOLD_POINTS, last * MAX_MANIFOLD_POINTS, (last + 1) * MAX_MANIFOLD_POINTS);
      this.friction.copyWithin(c * 4, last * 4, last * 4 + 4);
      this.buildPose.copyWithin(c * 8, last * 8, last * 8 + 8);
      this.tableIndex[this.findSlot(this.bodyA[c], this.bodyB[c])] = c;
    }
  }

  /** Linear-probing delete with backward shift, so no tombstones accumulate. */
  private deleteKey(a: number, b: number): void {
    let i = this.findSlot(a, b);
    if (i < 0) return;
    const mask = this.tableMask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const ka = this.tableA[j];
      if (ka === EMPTY) break;
      const k = this.home(ka, this.tableB[j]);
      // Move j back to i unless its home lies cyclically in (i, j].
      const stays = i <= j ? i < k && k <= j : i < k || k <= j;
      if (!stays) {
        this.tableA[i] = ka;
        this.tableB[i] = this.tableB[j];
        this.tableIndex[i] = this.tableIndex[j];
        i = j;
      }
    }
    this.tableA[i] = EMPTY;
  }

  /**
   * Stores a fresh narrow-phase result in contact c. Points whose feature id matches a point of the
   * previous manifold inherit its accumulated normal impulse (warm starting).
   */
  storeManifold(c: number, out: ManifoldOut, bodies: BodyStore): void {
    const touchDistance = ENGINE_CONSTANTS.touchDistance;
    const base = c * CONTACT_POINTS;
    const idBase = c * MAX_MANIFOLD_POINTS;
    const oldCount = this.pointCount[c];
    for (let k = 0; k < oldCount; k++) {
      oldIds[k] = this.ids[idBase + k];
      oldImpulses[k] = this.points[base + k * POINT_STRIDE + P_IMPULSE];
    }
    const a = this.bodyA[c];
    const b = this.bodyB[c];
    const pos = bodies.pos;
    const rot = bodies.rot;
    const a3 = a * 3;
    const b3 = b * 3;
    const a4 = a * 4;
    const b4 = b * 4;
    const pts = this.points;
    let touching = false;
    for (let k = 0; k < out.count; k++) {
      const id = out.id[k];
      let impulse = 0;
      for (let o = 0; o < oldCount; o++) {
        if (oldIds[o] === id) {
          impulse = oldImpulses[o];
          break;
        }
      }
      const o = base + k * POINT_STRIDE;
      const k3 = k * 3;
      const ax = out.pointA[k3];
      const ay = out.pointA[k3 + 1];
      const az = out.pointA[k3 + 2];
      const bx = out.pointB[k3];
      const by = out.pointB[k3 + 1];
      const bz = out.pointB[k3 + 2];
      pts[o + P_LOCAL_A] = ax - pos[a3];
      pts[o + P_LOCAL_A + 1] = ay - pos[a3 + 1];
      pts[o + P_LOCAL_A + 2] = az - pos[a3 + 2];
      inverseRotateVec(pts, o + P_LOCAL_A, rot, a4, pts, o + P_LOCAL_A);
      pts[o + P_LOCAL_B] = bx - pos[b3];
      pts[o + P_LOCAL_B + 1] = by - pos[b3 + 1];
      pts[o + P_LOCAL_B + 2] = bz - pos[b3 + 2];
      inverseRotateVec(pts, o + P_LOCAL_B, rot, b4, pts, o + P_LOCAL_B);
      const sep = out.separation[k];
      pts[o + P_SEPARATION] = sep;
      pts[o + P_IMPULSE] = impulse;
      pts[o + P_MID] = 0.5 * (ax + bx);
      pts[o + P_MID + 1] = 0.5 * (ay + by);
      pts[o + P_MID + 2] = 0.5 * (az + bz);
      this.ids[idBase + k] = id;
      if (sep <= touchDistance) touching = true;
    }
    this.pointCount[c] = out.count;
    const n3 = c * 3;
    this.normal[n3] = out.normal[0];
    this.normal[n3 + 1] = out.normal[1];
    this.normal[n3 + 2] = out.normal[2];
    // The normal is kept in the frame of the body whose face defines it, so a recycled manifold turns it
    // with that body (a box rocking on an edge must not drag the ground's normal along).
    const ofB = out.normalOwner === NORMAL_OF_B;
    inverseRotateVec(this.localNormal, n3, rot, ofB ? b4 : a4, out.normal, 0);
    if (oldCount === 0 || out.count === 0) {
      const f = c * 4;
      this.friction[f] = this.friction[f + 1] = this.friction[f + 2] = this.friction[f + 3] = 0;
    }
    let flags = (touching ? FLAG_TOUCHING : 0) | (ofB ? FLAG_NORMAL_OF_B : 0);
    if (out.normalOwner !== NORMAL_OF_NEITHER || out.count === 0) {
      flags |= FLAG_RECYCLABLE;
      relativePose(this.buildPose, c * 8, bodies, a, b);
      this.buildPose[c * 8 + 7] = out.margin;
    }
    this.flags[c] = flags;
  }

  /**
   * Reuses contact c's manifold if the pair's relative pose moved less than the thresholds since it was
   * built (and the margin in `query.margin` did not grow): world points, normal and separations are
   * recomputed from the stored local anchors. Returns false when the narrow phase must run again.
   */
  tryRecycle(c: number, bodies: BodyStore, query: ManifoldOut): boolean {
    if ((this.flags[c] & FLAG_RECYCLABLE) === 0) return false;
    const p = c * 8;
    const bp = this.buildPose;
    if (query.margin > bp[p + 7]) return false;
    const maxDistance = ENGINE_CONSTANTS.recycleDistance;
    const maxRotation = ENGINE_CONSTANTS.recycleRotation;
    relativePose(poseScratch, 0, bodies, this.bodyA[c], this.bodyB[c]);
    const dx = poseScratch[0] - bp[p];
    const dy = poseScratch[1] - bp[p + 1];
    const dz = poseScratch[2] - bp[p + 2];
    if (dx * dx + dy * dy + dz * dz > maxDistance * maxDistance) return false;
    const dot = Math.abs(
      poseScratch[3] * bp[p + 3] + poseScratch[4] * bp[p + 4] + poseScratch[5] * bp[p + 5] + poseScratch[6] * bp[p + 6],
    );
    if (1 - dot > maxRotation) return false;
    this.refreshPoints(c, bodies);
    return true;
  }

  /** Recomputes world points, normal and separations of contact c from its local anchors. */
  refreshPoints(c: number, bodies: BodyStore): void {
    const touchDistance = ENGINE_CONSTANTS.touchDistance;
    const a = this.bodyA[c];
    const b = this.bodyB[c];
    const pos = bodies.pos;
    const rot = bodies.rot;
    const a3 = a * 3;
    const b3 = b * 3;
    const n3 = c * 3;
    const owner = (this.flags[c] & FLAG_NORMAL_OF_B) !== 0 ? b : a;
    rotateVec(this.normal, n3, rot, owner * 4, this.localNormal, n3);
    const nx = this.normal[n3];
    const ny = this.normal[n3 + 1];
    const nz = this.normal[n3 + 2];
    const pts = this.points;
    const base = c * CONTACT_POINTS;
    let touching = false;
    for (let k = 0; k < this.pointCount[c]; k++) {
      const o = base + k * POINT_STRIDE;
      rotateVec(vecScratch, 0, rot, a * 4, pts, o + P_LOCAL_A);
      const ax = pos[a3] + vecScratch[0];
      const ay = pos[a3 + 1] + vecScratch[1];
      const az = pos[a3 + 2] + vecScratch[2];
      rotateVec(vecScratch, 0, rot, b * 4, pts, o + P_LOCAL_B);
      const bx = pos[b3] + vecScratch[0];
      const by = pos[b3 + 1] + vecScratch[1];
      const bz = pos[b3 + 2] + vecScratch[2];
      const sep = (bx - ax) * nx + (by - ay) * ny + (bz - az) * nz;
      pts[o + P_SEPARATION] = sep;
      pts[o + P_MID] = 0.5 * (ax + bx);
      pts[o + P_MID + 1] = 0.5 * (ay + by);
      pts[o + P_MID + 2] = 0.5 * (az + bz);
      if (sep <= touchDistance) touching = true;
    }
    this.flags[c] = (this.flags[c] & ~FLAG_TOUCHING) | (touching ? FLAG_TOUCHING : 0);
  }

  /** Smallest separation of contact c's points (Infinity with no points). */
  minSeparation(c: number): number {
    let s = Number.POSITIVE_INFINITY;
    const base = c * CONTACT_POINTS;
    for (let k = 0; k < this.pointCount[c]; k++) {
      const v = this.points[base + k * POINT_STRIDE + P_SEPARATION];
      if (v < s) s = v;
    }
    return s;
  }
}

export const CONTACT_POINT_STRIDE = CONTACT_POINTS;

const poseScratch = new Float64Array(7);
const vecScratch = new Float64Array(3);

/** out[o..o+6] = (qA* (pB - pA), qA* ⊗ qB). */
function relativePose(out: Float64Array, o: number, bodies: BodyStore, a: number, b: number): void {
  const pos = bodies.pos;
  const rot = bodies.rot;
  const a3 = a * 3;
  const b3 = b * 3;
  const a4 = a * 4;
  const b4 = b * 4;
  out[o] = pos[b3] - pos[a3];
  out[o + 1] = pos[b3 + 1] - pos[a3 + 1];
  out[o + 2] = pos[b3 + 2] - pos[a3 + 2];
  inverseRotateVec(out, o, rot, a4, out, o);
  const ax = -rot[a4];
  const ay = -rot[a4 + 1];
  const az = -rot[a4 + 2];
  const aw = rot[a4 + 3];
  const bx = rot[b4];
  const by = rot[b4 + 1];
  const bz = rot[b4 + 2];
  const bw = rot[b4 + 3];
  out[o + 3] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 4] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 5] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 6] = aw * bw - ax * bx - ay * by - az * bz;
}
