import { type BodyStore, COMPOUND, HEIGHTFIELD, HULL, MESH } from "../dynamics/body-store.ts";
import type { ContactEventLog } from "../dynamics/contact-events.ts";
import { CONTACT_POINT_STRIDE, type ContactStore, FLAG_PIECE, FLAG_RECYCLABLE, FLAG_SENSOR, P_SEPARATION, POINT_STRIDE } from "../dynamics/contact-store.ts";
import type { CompoundGeometry } from "../geometry/compound.ts";
import type { ConvexHull } from "../geometry/convex-hull.ts";
import type { TriangleSource } from "../geometry/triangle-source.ts";
import { matrixFromQuat } from "../math/quat.ts";
import { collideConvexOwned } from "./convex/collide-convex.ts";
import { ConvexProxy, PROXY_TRIANGLE } from "./convex/proxy.ts";
import { type ManifoldOut, NORMAL_OF_A, NORMAL_OF_B, NORMAL_OF_NEITHER } from "./manifold.ts";

/** Most triangles one pair looks at in a step (a body resting on a finer mesh than this misses some). */
export const MAX_PAIR_TRIANGLES = 256;
/** Compound children per body (the scenario format's limit): piece keys pack a child index in 6 bits. */
export const MAX_COMPOUND_CHILDREN = 64;

/** Receives each piece's manifold (out.count > 0) with its key. */
export interface PieceSink {
  piece(out: ManifoldOut, key: number): void;
}

/**
 * Narrow phase for pairs with a compound, a mesh or a height field. Such a pair's own contact holds no
 * points; each touching piece — a compound child, or a triangle, against the other body or one of its
 * children — gets a piece contact with its own manifold, found again next step by its key so warm
 * starting carries over. Pieces that stopped touching are removed after the step's narrow phase (never
 * during it: removal moves contacts the narrow phase has yet to visit).
 *
 * Keys (> 0): child i against a convex body → i + 1; child i against child j → i·64 + j + 1; triangle t
 * against a convex body → t + 1; triangle t against child j → t·64 + j + 1.
 */
export class PieceCollider {
  private readonly a = new ConvexProxy();
  private readonly b = new ConvexProxy();
  private readonly m = new Float64Array(9);
  /** The level body's rotation, kept while children are placed with `m`. */
  private readonly levelM = new Float64Array(9);
  private readonly childM = new Float64Array(9);
  private readonly v = new Float64Array(3);
  private readonly tri = new Float64Array(9);
  private readonly triangles = new Int32Array(MAX_PAIR_TRIANGLES);
  private readonly lo = new Float64Array(3);
  private readonly hi = new Float64Array(3);
  /** Pairs whose stale pieces are removed after the narrow phase (pair contact indices are not stable: body slots). */
  private stalePairs = new Int32Array(64);
  private staleCount = 0;
  /** Of the last collide: pieces with points, the smallest separation and the normal of that piece. */
  pieceCount = 0;
  minSeparation = 0;
  readonly minNormal = new Float64Array(3);

  private contacts: ContactStore | null = null;
  private bodies: BodyStore | null = null;
  private pair = 0;
  private margin = 0;
  private stamp = 0;
  /** Which side owns every piece normal of the pair being collided (the level body's), or neither. */
  private owner = NORMAL_OF_NEITHER;
  /** Whether every piece stored since `collide` began has a normal that turns with one of the bodies. */
  private allOwned = true;

  /** Collides pair contact c (bodies a < b) piece by piece, storing each piece's manifold in a piece contact. */
  collide(out: ManifoldOut, bodies: BodyStore, contacts: ContactStore, c: number, stamp: number): void {
    this.pieceCount = 0;
    this.minSeparation = Number.POSITIVE_INFINITY;
    this.contacts = contacts;
    this.bodies = bodies;
    this.pair = c;
    this.stamp = stamp;
    const a = contacts.bodyA[c];
    const b = contacts.bodyB[c];
    this.owner = levelSide(bodies, a, b);
    this.allOwned = true;
    this.collidePieces(out, bodies, a, b, this);
    this.owner = NORMAL_OF_NEITHER;
    this.markStale(a, b);
    // The pair's pieces may be recycled together when each one's normal belongs to a body.
    if (this.allOwned) contacts.markPairBuilt(c, bodies, out);
    else contacts.flags[c] &= ~FLAG_RECYCLABLE;
  }

  /**
   * Reuses the pieces of a pair when the pair's relative pose barely changed since they were built (the
   * recycling of contact-store.ts, pair-wide; only pairs whose every piece normal belongs to a body,
   * against level geometry always the level body's): each piece's points are refreshed from their
   * anchors, and no triangle is queried and no piece collided. Returns false when the pieces must be collided again. Sets pieceCount, minSeparation
   * and minNormal as `collide` does.
   */
  tryRecycle(out: ManifoldOut, bodies: BodyStore, contacts: ContactStore, c: number, stamp: number): boolean {
    if (!contacts.poseKept(c, bodies, out)) return false;
    this.pieceCount = 0;
    this.minSeparation = Number.POSITIVE_INFINITY;
    const a = contacts.bodyA[c];
    const b = contacts.bodyB[c];
    const pts = contacts.points;
    for (let e = contacts.pieceEdges(c); e >= 0; e = contacts.edgeNext[e]) {
      const p = e >> 1;
      if (contacts.key[p] === 0 || contacts.bodyA[p] !== a || contacts.bodyB[p] !== b) continue;
      contacts.refreshPoints(p, bodies);
      contacts.stamp[p] = stamp;
      this.pieceCount++;
      const base = p * CONTACT_POINT_STRIDE;
      for (let k = 0; k < contacts.pointCount[p]; k++) {
        const s = pts[base + k * POINT_STRIDE + P_SEPARATION];
        if (s < this.minSeparation) {
          this.minSeparation = s;
          this.minNormal[0] = contacts.normal[3 * p];
          this.minNormal[1] = contacts.normal[3 * p + 1];
          this.minNormal[2] = contacts.normal[3 * p + 2];
        }
      }
    }
    return true;
  }

  /** Every touching piece of bodies a and b (normal from a to b) handed to `sink`. */
  collidePieces(out: ManifoldOut, bodies: BodyStore, a: number, b: number, sink: PieceSink): void {
    // Read from a field by the helpers: a double passed as an argument to a call V8 does not inline is boxed.
    this.margin = out.margin;
    const sa = bodies.shape[a];
    const sb = bodies.shape[b];
    const levelA = sa === MESH || sa === HEIGHTFIELD;
    const levelB = sb === MESH || sb === HEIGHTFIELD;
    if (levelA && levelB) return;
    if (levelA || levelB) this.collideLevel(out, bodies, a, b, levelA, sink);
    else this.collideCompound(out, bodies, a, b, sink);
  }

  /** Removes the pieces of the pairs collided since the last call that were not produced again. */
  removeStale(bodies: BodyStore, contacts: ContactStore, events: ContactEventLog, stamp: number): void {
    for (let k = 0; k < this.staleCount; k++) {
      const c = contacts.find(this.stalePairs[2 * k], this.stalePairs[2 * k + 1]);
      if (c >= 0) contacts.removePieces(c, stamp, events, bodies);
    }
    this.staleCount = 0;
  }

  private markStale(a: number, b: number): void {
    if (2 * this.staleCount + 2 > this.stalePairs.length) {
      const next = new Int32Array(this.stalePairs.length * 2);
      next.set(this.stalePairs);
      this.stalePairs = next;
    }
    this.stalePairs[2 * this.staleCount] = a;
    this.stalePairs[2 * this.staleCount + 1] = b;
    this.staleCount++;
  }

  private collideCompound(out: ManifoldOut, bodies: BodyStore, a: number, b: number, sink: PieceSink): void {
    const ga = bodies.shape[a] === COMPOUND ? (bodies.geometry[a] as CompoundGeometry) : null;
    const gb = bodies.shape[b] === COMPOUND ? (bodies.geometry[b] as CompoundGeometry) : null;
    const na = ga === null ? 1 : ga.childCount;
    const nb = gb === null ? 1 : gb.childCount;
    for (let i = 0; i < na; i++) {
      if (ga === null) bodyProxy(this.a, bodies, a);
      else if (!this.childProxy(this.a, bodies, a, ga, i, b)) continue;
      this.a.id = i;
      for (let j = 0; j < nb; j++) {
        if (gb === null) bodyProxy(this.b, bodies, b);
        else if (!this.childProxy(this.b, bodies, b, gb, j, a)) continue;
        this.b.id = j;
        collideConvexOwned(out, this.a, this.b);
        if (out.count > 0) sink.piece(out, ga === null ? j + 1 : gb === null ? i + 1 : i * MAX_COMPOUND_CHILDREN + j + 1);
      }
    }
  }

  /** Level geometry (a mesh or height field) against a convex body or a compound's children. */
  private collideLevel(out: ManifoldOut, bodies: BodyStore, a: number, b: number, levelIsA: boolean, sink: PieceSink): void {
    const level = levelIsA ? a : b;
    const other = levelIsA ? b : a;
    const source = bodies.geometry[level] as unknown as TriangleSource;
    // The other body's broad-phase box (margins and sweep included), grown by the margin, in level space.
    const m = this.levelM;
    matrixFromQuat(m, 0, bodies.rot, level * 4);
    const box = bodies.aabb;
    const o6 = other * 6;
    const l3 = level * 3;
    const margin = out.margin;
    for (let k = 0; k < 3; k++) this.v[k] = 0.5 * (box[o6 + k] + box[o6 + 3 + k]) - bodies.pos[l3 + k];
    for (let k = 0; k < 3; k++) {
      // Column k of R is level axis k: centre · axis, and the box's extent along the axis.
      const centre = m[k] * this.v[0] + m[3 + k] * this.v[1] + m[6 + k] * this.v[2];
      const extent =
        Math.abs(m[k]) * 0.5 * (box[o6 + 3] - box[o6]) +
        Math.abs(m[3 + k]) * 0.5 * (box[o6 + 4] - box[o6 + 1]) +
        Math.abs(m[6 + k]) * 0.5 * (box[o6 + 5] - box[o6 + 2]) +
        margin;
      this.lo[k] = centre - extent;
      this.hi[k] = centre + extent;
    }
    const n = source.queryTriangles(this.lo, this.hi, this.triangles);
    if (n === 0) return;
    const compound = bodies.shape[other] === COMPOUND ? (bodies.geometry[other] as CompoundGeometry) : null;
    const tri = levelIsA ? this.a : this.b;
    const body = levelIsA ? this.b : this.a;
    if (compound === null) bodyProxy(body, bodies, other);
    for (let t = 0; t < n; t++) {
      const id = this.triangles[t];
      this.triangleProxy(tri, bodies, level, source, id);
      tri.id = id;
      const children = compound === null ? 1 : compound.childCount;
      for (let j = 0; j < children; j++) {
        if (compound !== null) {
          if (!this.childProxy(body, bodies, other, compound, j, -1)) continue;
          if (!this.sphereNearTriangle(body, compound, j)) continue;
        }
        body.id = j;
        collideConvexOwned(out, this.a, this.b);
        if (out.count > 0) sink.piece(out, compound === null ? id + 1 : id * MAX_COMPOUND_CHILDREN + j + 1);
      }
    }
  }

  /** Whether a sphere about proxy p's origin reaches the triangle's bounds (world space, in `tri`). */
  private sphereNearTriangle(p: ConvexProxy, g: CompoundGeometry, i: number): boolean {
    const r = g.boundRadius[i] + this.margin;
    const t = this.tri;
    for (let k = 0; k < 3; k++) {
      const lo = Math.min(t[k], t[3 + k], t[6 + k]);
      const hi = Math.max(t[k], t[3 + k], t[6 + k]);
      if (p.pos[k] + r < lo || p.pos[k] - r > hi) return false;
    }
    return true;
  }

  /** The step's sink: the piece's manifold goes into its piece contact (created on first touch). */
  piece(out: ManifoldOut, key: number): void {
    const contacts = this.contacts!;
    const bodies = this.bodies!;
    const c = this.pair;
    const stamp = this.stamp;
    const a = contacts.bodyA[c];
    const b = contacts.bodyB[c];
    let p = contacts.find(a, b, key);
    if (p < 0) p = contacts.add(a, b, stamp, (contacts.flags[c] & FLAG_SENSOR) !== 0, FLAG_PIECE, key);
    contacts.stamp[p] = stamp;
    // Against level geometry the level body owns every piece's normal (static terrain: the normal stays
    // put while the pair's pieces are recycled); otherwise the convex routine's owner (neither) stands.
    if (this.owner !== NORMAL_OF_NEITHER) out.normalOwner = this.owner;
    else if (out.normalOwner === NORMAL_OF_NEITHER) this.allOwned = false;
    contacts.storeManifold(p, out, bodies);
    this.pieceCount++;
    for (let k = 0; k < out.count; k++) {
      if (out.separation[k] < this.minSeparation) {
        this.minSeparation = out.separation[k];
        this.minNormal[0] = out.normal[0];
        this.minNormal[1] = out.normal[1];
        this.minNormal[2] = out.normal[2];
      }
    }
  }

  /**
   * Child i of a compound body placed in the world. Returns false when its bounding sphere misses the
   * broad-phase box of body `near` grown by the margin (near < 0: no test).
   */
  private childProxy(p: ConvexProxy, bodies: BodyStore, slot: number, g: CompoundGeometry, i: number, near: number): boolean {
    const s3 = slot * 3;
    const m = this.m;
    matrixFromQuat(m, 0, bodies.rot, slot * 4);
    const cp = g.position;
    const i3 = 3 * i;
    for (let k = 0; k < 3; k++) {
      p.pos[k] = bodies.pos[s3 + k] + m[3 * k] * cp[i3] + m[3 * k + 1] * cp[i3 + 1] + m[3 * k + 2] * cp[i3 + 2];
    }
    if (near >= 0) {
      const r = g.boundRadius[i] + this.margin;
      const box = bodies.aabb;
      const n6 = near * 6;
      for (let k = 0; k < 3; k++) if (p.pos[k] + r < box[n6 + k] || p.pos[k] - r > box[n6 + 3 + k]) return false;
    }
    p.kind = g.kind[i];
    p.radius = g.half[i3];
    p.half[0] = g.half[i3];
    p.half[1] = g.half[i3 + 1];
    p.half[2] = g.half[i3 + 2];
    p.hull = g.hull[i];
    // World rotation of the child: R_body · R_child.
    const cm = this.childM;
    matrixFromQuat(cm, 0, g.rotation, 4 * i);
    for (let r = 0; r < 3; r++) {
      for (let col = 0; col < 3; col++) {
        p.rot[3 * r + col] = m[3 * r] * cm[col] + m[3 * r + 1] * cm[3 + col] + m[3 * r + 2] * cm[6 + col];
      }
    }
    return true;
  }

  /** Triangle `id` of level body `slot` in world space. */
  private triangleProxy(p: ConvexProxy, bodies: BodyStore, slot: number, source: TriangleSource, id: number): void {
    const t = this.tri;
    p.triEdges = source.triangle(id, t, 0);
    const m = this.levelM;
    const s3 = slot * 3;
    for (let v = 0; v < 9; v += 3) {
      const x = t[v];
      const y = t[v + 1];
      const z = t[v + 2];
      for (let k = 0; k < 3; k++) t[v + k] = bodies.pos[s3 + k] + m[3 * k] * x + m[3 * k + 1] * y + m[3 * k + 2] * z;
    }
    p.kind = PROXY_TRIANGLE;
    p.tri.set(t);
  }
}

/** NORMAL_OF_A or NORMAL_OF_B for the side of a pair that is a mesh or height field, else NORMAL_OF_NEITHER. */
function levelSide(bodies: BodyStore, a: number, b: number): number {
  const sa = bodies.shape[a];
  const sb = bodies.shape[b];
  if (sa === MESH || sa === HEIGHTFIELD) return sb === MESH || sb === HEIGHTFIELD ? NORMAL_OF_NEITHER : NORMAL_OF_A;
  return sb === MESH || sb === HEIGHTFIELD ? NORMAL_OF_B : NORMAL_OF_NEITHER;
}

/** A body's own convex shape as a proxy (sphere, box, capsule, cylinder, hull: the proxy kinds share the shape codes). */
export function bodyProxy(p: ConvexProxy, bodies: BodyStore, slot: number): void {
  const s3 = slot * 3;
  p.kind = bodies.shape[slot];
  p.radius = bodies.half[s3];
  p.half[0] = bodies.half[s3];
  p.half[1] = bodies.half[s3 + 1];
  p.half[2] = bodies.half[s3 + 2];
  p.hull = p.kind === HULL ? (bodies.geometry[slot] as ConvexHull) : null;
  p.pos[0] = bodies.pos[s3];
  p.pos[1] = bodies.pos[s3 + 1];
  p.pos[2] = bodies.pos[s3 + 2];
  matrixFromQuat(p.rot, 0, bodies.rot, slot * 4);
  p.id = 0;
}
