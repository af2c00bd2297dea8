import { MAX_MANIFOLD_POINTS, type ManifoldOut, NORMAL_OF_B, NORMAL_OF_NEITHER } from "../collision/manifold.ts";
import { ENGINE_CONSTANTS } from "../config.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";
import { type BodyStore, grow, groupsCollide, SPHERE } from "./body-store.ts";
import { CONTACT_END, type ContactEventLog, SENSOR_EXIT } from "./contact-events.ts";

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
/** One body is a sensor: overlap is reported, never solved (never touching for islands and wake-ups). */
export const FLAG_SENSOR = 8;
/** A begin/enter event was reported and its end/exit has not been yet. */
export const FLAG_REPORTED = 16;
/**
 * A pair with a compound, mesh or height field: its own contact holds no points and carries the pair's
 * bookkeeping (broad-phase stamp, events); each touching piece (a compound child against a child or a
 * triangle) has a piece contact of its own, with its own normal and up to four points (Rapier and
 * Box2D keep one manifold per shape pair the same way).
 */
export const FLAG_MULTI = 32;
/** A piece contact of a FLAG_MULTI pair (key > 0): solved like any contact, managed by its pair. */
export const FLAG_PIECE = 64;
/** The pair's pieces are listed through body B's contacts (body A is a mesh or height field: a long list). */
export const FLAG_WALK_B = 128;
/** Bits that belong to the pair, not to the manifold of one step. */
const PAIR_FLAGS = FLAG_SENSOR | FLAG_REPORTED | FLAG_MULTI | FLAG_PIECE | FLAG_WALK_B;

const EMPTY = -1;

const oldIds = new Int32Array(MAX_MANIFOLD_POINTS);
/** Keys of the pieces being removed (grown when a pair has more). */
let pieceKeys = new Int32Array(64);
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
  /** 0 for a pair's own contact; a piece contact's key (> 0) names the pieces (see FLAG_PIECE). */
  key = new Int32Array(0);
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
  /** Normal impulse the contact applied during the step, summed over points (solver → events). */
  stepImpulse = new Float64Array(0);

  /**
   * Per-body contact lists (Box2D's contact edges): contact c has edge 2c in bodyA's list and 2c+1 in
   * bodyB's, doubly linked, so removing a body or waking an island visits only the contacts it has.
   */
  edgeNext = new Int32Array(0);
  edgePrev = new Int32Array(0);
  /** First edge of each body slot's list, or -1. */
  bodyHead = new Int32Array(0);
  /**
   * The awake contact set: contacts with an awake dynamic or a kinematic body, contiguous (Box2D v3's
   * awake contact array). Contacts of sleeping islands with static or sleeping bodies leave it when the
   * island sleeps and come back when it wakes, so the step never visits them. `awakeIndex[c]` is the
   * contact's position in `awake`, or -1.
   */
  awake = new Int32Array(64);
  awakeCount = 0;
  awakeIndex = new Int32Array(0);

  private tableA = new Int32Array(0);
  private tableB = new Int32Array(0);
  private tableKey = new Int32Array(0);
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
    this.key = growI(this.key, 1);
    this.pointCount = growU(this.pointCount);
    this.flags = growU(this.flags);
    this.stamp = growI(this.stamp, 1);
    this.normal = growF(this.normal, 3);
    this.localNormal = growF(this.localNormal, 3);
    this.points = growF(this.points, CONTACT_POINTS);
    this.ids = growI(this.ids, MAX_MANIFOLD_POINTS);
    this.friction = growF(this.friction, 4);
    this.buildPose = growF(this.buildPose, 8);
    this.stepImpulse = growF(this.stepImpulse, 1);
    this.edgeNext = growI(this.edgeNext, 2);
    this.edgePrev = growI(this.edgePrev, 2);
    this.awakeIndex = growI(this.awakeIndex, 1);
    this.awake = growI(this.awake, 1);
    this.capacity = cap;
    this.rehash(cap * 2);
  }

  private rehash(size: number): void {
    this.tableA = new Int32Array(size).fill(EMPTY);
    this.tableB = new Int32Array(size);
    this.tableKey = new Int32Array(size);
    this.tableIndex = new Int32Array(size);
    this.tableMask = size - 1;
    for (let c = 0; c < this.count; c++) this.insertKey(this.bodyA[c], this.bodyB[c], this.key[c], c);
  }

  private home(a: number, b: number, key: number): number {
    let h = Math.imul(a ^ Math.imul(b, 0x9e3779b1) ^ Math.imul(key, 0x27d4eb2f), 0x85ebca6b);
    h ^= h >>> 13;
    h = Math.imul(h, 0xc2b2ae35);
    h ^= h >>> 16;
    return h & this.tableMask;
  }

  private insertKey(a: number, b: number, key: number, index: number): void {
    let i = this.home(a, b, key);
    while (this.tableA[i] !== EMPTY) i = (i + 1) & this.tableMask;
    this.tableA[i] = a;
    this.tableB[i] = b;
    this.tableKey[i] = key;
    this.tableIndex[i] = index;
  }

  private findSlot(a: number, b: number, key: number): number {
    let i = this.home(a, b, key);
    for (;;) {
      const ka = this.tableA[i];
      if (ka === EMPTY) return -1;
      if (ka === a && this.tableB[i] === b && this.tableKey[i] === key) return i;
      i = (i + 1) & this.tableMask;
    }
  }

  /** Contact index of the pair (a < b), or of one of its pieces (key > 0), or -1. */
  find(a: number, b: number, key = 0): number {
    const i = this.findSlot(a, b, key);
    return i < 0 ? -1 : this.tableIndex[i];
  }

  /**
   * Creates an empty contact for the pair (a < b) and returns its index; `sensor`: either body is one.
   * `pairFlags` may add FLAG_MULTI (with FLAG_WALK_B when body A is level geometry), or FLAG_PIECE with a
   * piece's key.
   */
  add(a: number, b: number, stamp: number, sensor: boolean, pairFlags = 0, key = 0): number {
    if (this.count + 1 > this.capacity) this.ensureCapacity(this.count + 1);
    const c = this.count++;
    this.bodyA[c] = a;
    this.bodyB[c] = b;
    this.key[c] = key;
    this.pointCount[c] = 0;
    this.flags[c] = (sensor ? FLAG_SENSOR : 0) | pairFlags;
    this.stamp[c] = stamp;
    this.stepImpulse[c] = 0;
    const f = c * 4;
    this.friction[f] = this.friction[f + 1] = this.friction[f + 2] = this.friction[f + 3] = 0;
    this.insertKey(a, b, key, c);
    this.link(2 * c, a);
    this.link(2 * c + 1, b);
    // Pairs come from the broad phase only when a body is awake or moving: the contact starts awake.
    this.awakeIndex[c] = -1;
    this.activate(c);
    return c;
  }

  /** Room for body slots below n in the per-body lists. */
  ensureBodies(n: number): void {
    if (n <= this.bodyHead.length) return;
    let cap = Math.max(64, this.bodyHead.length);
    while (cap < n) cap *= 2;
    const head = new Int32Array(cap).fill(-1);
    head.set(this.bodyHead);
    this.bodyHead = head;
  }

  /** First edge of the body's contact list (-1: none); `edgeNext[e]` continues, contact e >> 1. */
  firstEdge(slot: number): number {
    return this.bodyHead[slot];
  }

  /** The body at the other end of edge e. */
  otherBody(e: number): number {
    return (e & 1) === 0 ? this.bodyB[e >> 1] : this.bodyA[e >> 1];
  }

  /** Puts contact c in the awake set (no-op when it is in). */
  activate(c: number): void {
    if (this.awakeIndex[c] >= 0) return;
    this.awakeIndex[c] = this.awakeCount;
    this.awake[this.awakeCount++] = c;
  }

  /** Takes contact c out of the awake set (no-op when it is out). */
  deactivate(c: number): void {
    const i = this.awakeIndex[c];
    if (i < 0) return;
    const last = this.awake[--this.awakeCount];
    this.awake[i] = last;
    this.awakeIndex[last] = i;
    this.awakeIndex[c] = -1;
  }

  private link(e: number, slot: number): void {
    const head = this.bodyHead[slot];
    this.edgePrev[e] = -1;
    this.edgeNext[e] = head;
    if (head >= 0) this.edgePrev[head] = e;
    this.bodyHead[slot] = e;
  }

  private unlink(e: number, slot: number): void {
    const prev = this.edgePrev[e];
    const next = this.edgeNext[e];
    if (prev >= 0) this.edgeNext[prev] = next;
    else this.bodyHead[slot] = next;
    if (next >= 0) this.edgePrev[next] = prev;
  }

  /** Edge `from` (of contact `last`, moving to a new index) becomes edge `to` in its body's list. */
  private relink(from: number, to: number, slot: number): void {
    const prev = this.edgePrev[from];
    const next = this.edgeNext[from];
    this.edgePrev[to] = prev;
    this.edgeNext[to] = next;
    if (prev >= 0) this.edgeNext[prev] = to;
    else this.bodyHead[slot] = to;
    if (next >= 0) this.edgePrev[next] = to;
  }

  /**
   * Removes contact c; the last contact moves into its index. A contact whose begin (enter) was reported
   * logs its end (exit) in `events` first.
   */
  removeAt(c: number, events: ContactEventLog, bodies: BodyStore): void {
    const flags = this.flags[c];
    if ((flags & FLAG_REPORTED) !== 0) {
      events.push(bodies, (flags & FLAG_SENSOR) !== 0 ? SENSOR_EXIT : CONTACT_END, this.bodyA[c], this.bodyB[c]);
    }
    if ((flags & FLAG_MULTI) !== 0) {
      // The pieces go with their pair; removing them moves other contacts, so find the pair again after.
      const a = this.bodyA[c];
      const b = this.bodyB[c];
      this.removePieces(c, -1, events, bodies);
      c = this.find(a, b);
    }
    this.deleteKey(this.bodyA[c], this.bodyB[c], this.key[c]);
    this.deactivate(c);
    this.unlink(2 * c, this.bodyA[c]);
    this.unlink(2 * c + 1, this.bodyB[c]);
    const last = --this.count;
    if (c !== last) {
      this.relink(2 * last, 2 * c, this.bodyA[last]);
      this.relink(2 * last + 1, 2 * c + 1, this.bodyB[last]);
      const i = this.awakeIndex[last];
      this.awakeIndex[c] = i;
      if (i >= 0) this.awake[i] = c;
      this.bodyA[c] = this.bodyA[last];
      this.bodyB[c] = this.bodyB[last];
      this.key[c] = this.key[last];
      this.pointCount[c] = this.pointCount[last];
      this.flags[c] = this.flags[last];
      this.stamp[c] = this.stamp[last];
      this.normal.copyWithin(c * 3, last * 3, last * 3 + 3);
      this.localNormal.copyWithin(c * 3, last * 3, last * 3 + 3);
      this.points.copyWithin(c * CONTACT_POINTS, last * CONTACT_POINTS, (last + 1) * CONTACT_POINTS);
      this.ids.copyWithin(c * MAX_MANIFOLD_POINTS, last * MAX_MANIFOLD_POINTS, (last + 1) * MAX_MANIFOLD_POINTS);
      this.friction.copyWithin(c * 4, last * 4, last * 4 + 4);
      this.buildPose.copyWithin(c * 8, last * 8, last * 8 + 8);
      this.stepImpulse[c] = this.stepImpulse[last];
      this.tableIndex[this.findSlot(this.bodyA[c], this.bodyB[c], this.key[c])] = c;
    }
  }

  /** First edge of the list that holds pair contact c's pieces (the list of its body that is not level geometry). */
  pieceEdges(c: number): number {
    return this.bodyHead[(this.flags[c] & FLAG_WALK_B) !== 0 ? this.bodyB[c] : this.bodyA[c]];
  }

  /**
   * Removes the pieces of pair contact c whose stamp differs from `keepStamp` (all of them for -1). Piece
   * contacts never report events (their pair does). Removal moves contacts, so the keys are collected
   * first and each piece found again by key.
   */
  removePieces(c: number, keepStamp: number, events: ContactEventLog, bodies: BodyStore): void {
    const a = this.bodyA[c];
    const b = this.bodyB[c];
    let n = 0;
    for (let e = this.pieceEdges(c); e >= 0; e = this.edgeNext[e]) {
      const p = e >> 1;
      if (this.key[p] === 0 || this.bodyA[p] !== a || this.bodyB[p] !== b || this.stamp[p] === keepStamp) continue;
      if (n === pieceKeys.length) pieceKeys = grow(pieceKeys, 2 * n);
      pieceKeys[n++] = this.key[p];
    }
    for (let k = 0; k < n; k++) {
      const p = this.find(a, b, pieceKeys[k]);
      if (p >= 0) this.removeAt(p, events, bodies);
    }
  }

  /**
   * Removes the contacts of `slot` that the collision groups now filter out (after a groups change),
   * logging the end of those that were reported. Allocates: between steps only.
   */
  removeFiltered(slot: number, bodies: BodyStore, events: ContactEventLog): void {
    // Pairs first, then removal by pair: a removal moves another contact (and its edges) to a new index.
    const filtered: number[] = [];
    for (let e = this.bodyHead[slot]; e >= 0; e = this.edgeNext[e]) {
      if (!groupsCollide(bodies.groups[slot], bodies.groups[this.otherBody(e)])) filtered.push(this.bodyA[e >> 1], this.bodyB[e >> 1]);
    }
    for (let k = 0; k < filtered.length; k += 2) {
      const c = this.find(filtered[k]!, filtered[k + 1]!);
      if (c >= 0) this.removeAt(c, events, bodies);
    }
  }

  /** Linear-probing delete with backward shift, so no tombstones accumulate. */
  private deleteKey(a: number, b: number, key: number): void {
    let i = this.findSlot(a, b, key);
    if (i < 0) return;
    const mask = this.tableMask;
    let j = i;
    for (;;) {
      j = (j + 1) & mask;
      const ka = this.tableA[j];
      if (ka === EMPTY) break;
      const k = this.home(ka, this.tableB[j], this.tableKey[j]);
      // Move j back to i unless its home lies cyclically in (i, j].
      const stays = i <= j ? i < k && k <= j : i < k || k <= j;
      if (!stays) {
        this.tableA[i] = ka;
        this.tableB[i] = this.tableB[j];
        this.tableKey[i] = this.tableKey[j];
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
    const pair = this.flags[c] & PAIR_FLAGS;
    let flags = (touching && (pair & FLAG_SENSOR) === 0 ? FLAG_TOUCHING : 0) | (ofB ? FLAG_NORMAL_OF_B : 0) | pair;
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
    if (!this.poseKept(c, bodies, query)) return false;
    this.refreshPoints(c, bodies);
    return true;
  }

  /**
   * Marks pair contact c (FLAG_MULTI) as built at the bodies' present relative pose with `query.margin`:
   * its pieces may be refreshed instead of collided again while `poseKept` holds.
   */
  markPairBuilt(c: number, bodies: BodyStore, query: ManifoldOut): void {
    this.flags[c] |= FLAG_RECYCLABLE;
    relativePose(this.buildPose, c * 8, bodies, this.bodyA[c], this.bodyB[c]);
    this.buildPose[c * 8 + 7] = query.margin;
  }

  /**
   * Whether contact c is recyclable and the pair's relative pose moved less than the thresholds since
   * it was built (and the margin in `query.margin` did not grow).
   */
  poseKept(c: number, bodies: BodyStore, query: ManifoldOut): boolean {
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
    // Written as the negation so that a NaN pose keeps the old behaviour (reused).
    return !(1 - dot > maxRotation);
  }

  /**
   * Recomputes world points, normal and separations of contact c from its stored anchors without moving
   * a point's lever arm: only the incident body (the one that does not own the normal) keeps a material
   * anchor; the reference side is that point projected onto the reference face, which turns with its
   * body. Taking both sides from rotating local anchors let the midpoint (where the solver applies the
   * normal force) trail behind a rolling or sliding sphere, and the force's lever arm spun it up.
   * A sphere has no material anchor at all: its point is always centre ∓ radius · normal, so its normal
   * force passes through its centre whatever the sphere did since the manifold was built.
   */
  refreshPoints(c: number, bodies: BodyStore): void {
    const touchDistance = ENGINE_CONSTANTS.touchDistance;
    const a = this.bodyA[c];
    const b = this.bodyB[c];
    const pos = bodies.pos;
    const rot = bodies.rot;
    const n3 = c * 3;
    const ofB = (this.flags[c] & FLAG_NORMAL_OF_B) !== 0;
    const ref = ofB ? b : a;
    const inc = ofB ? a : b;
    rotateVec(this.normal, n3, rot, ref * 4, this.localNormal, n3);
    const nx = this.normal[n3];
    const ny = this.normal[n3 + 1];
    const nz = this.normal[n3 + 2];
    const r3 = ref * 3;
    const i3 = inc * 3;
    // The normal points from A to B: towards the reference body when the incident body is A (sign +1),
    // away from it when the incident body is B (sign -1).
    const sign = ofB ? 1 : -1;
    const incSphere = bodies.shape[inc] === SPHERE;
    const radius = bodies.half[i3];
    const pts = this.points;
    const base = c * CONTACT_POINTS;
    const incLocal = ofB ? P_LOCAL_A : P_LOCAL_B;
    const refLocal = ofB ? P_LOCAL_B : P_LOCAL_A;
    let touching = false;
    for (let k = 0; k < this.pointCount[c]; k++) {
      const o = base + k * POINT_STRIDE;
      let ix: number;
      let iy: number;
      let iz: number;
      if (incSphere) {
        ix = pos[i3] + sign * radius * nx;
        iy = pos[i3 + 1] + sign * radius * ny;
        iz = pos[i3 + 2] + sign * radius * nz;
      } else {
        rotateVec(vecScratch, 0, rot, inc * 4, pts, o + incLocal);
        ix = pos[i3] + vecScratch[0];
        iy = pos[i3 + 1] + vecScratch[1];
        iz = pos[i3 + 2] + vecScratch[2];
      }
      // Any point of the reference face fixes its plane; the stored anchor is one.
      rotateVec(vecScratch, 0, rot, ref * 4, pts, o + refLocal);
      const fx = pos[r3] + vecScratch[0];
      const fy = pos[r3 + 1] + vecScratch[1];
      const fz = pos[r3 + 2] + vecScratch[2];
      // sep = (pB - pA)·n; the reference point is the incident point moved onto the face along n.
      const sep = sign * ((fx - ix) * nx + (fy - iy) * ny + (fz - iz) * nz);
      const h = 0.5 * sep * sign;
      pts[o + P_SEPARATION] = sep;
      pts[o + P_MID] = ix + h * nx;
      pts[o + P_MID + 1] = iy + h * ny;
      pts[o + P_MID + 2] = iz + h * nz;
      if (sep <= touchDistance) touching = true;
    }
    const flags = this.flags[c];
    this.flags[c] = (flags & ~FLAG_TOUCHING) | (touching && (flags & FLAG_SENSOR) === 0 ? FLAG_TOUCHING : 0);
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
