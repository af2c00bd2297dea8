import { type BodyStore, COMPOUND, HEIGHTFIELD, MESH } from "../dynamics/body-store.ts";
import type { CompoundGeometry } from "../geometry/compound.ts";
import { buildHull } from "../geometry/hull-builder.ts";
import type { TriangleSource } from "../geometry/triangle-source.ts";
import { matrixFromQuat } from "../math/quat.ts";
import type { ConvexShapeDef } from "../types.ts";
import { collideConvex } from "./convex/collide-convex.ts";
import { GJK_BEYOND, GJK_OVERLAP, gjk, gjkIn, gjkOut, startDir } from "./convex/gjk.ts";
import { fillPolyView, PolyView } from "./convex/poly-view.ts";
import { supportCore } from "./convex/support.ts";
import { ConvexProxy, PROXY_BOX, PROXY_CAPSULE, PROXY_CYLINDER, PROXY_HULL, PROXY_SPHERE, PROXY_TRIANGLE } from "./convex/proxy.ts";
import { ManifoldOut } from "./manifold.ts";
import { bodyProxy } from "./pieces.ts";

/** A cast stops advancing once the shapes are closer than this, metres. */
export const CAST_TOLERANCE = 1e-4;
/** Most advancement steps against one piece; a cast still this far out counts as a miss. */
export const CAST_ITERATIONS = 32;
/** `distance` found the gap wider than asked. */
const NO_GAP = Number.POSITIVE_INFINITY;

/**
 * Shape queries against the bodies of a world: a convex shape swept along a direction (first time of
 * contact with a body's geometry) or tested in place (does it overlap a body). The query shape comes from
 * a ConvexShapeDef placed at a pose (`setShape`, allocates: a hull is built); every body is tested piece
 * by piece — its own convex shape, each child of a compound, each triangle of a mesh or height field
 * under the query's box — with reused buffers only.
 *
 * Distances come from the convex narrow phase's GJK (gjk.ts) on the two cores, contact normals and points
 * from its manifold (collideConvex; EPA or the separating axis test when they overlap). A manifold alone
 * is no distance: its points are clipped to the reference face, so far apart it over-estimates the gap.
 *
 * The sweep is conservative advancement along a separating plane (van den Bergen, "Ray casting against
 * general convex objects with application to continuous collision detection", 2004): GJK gives a normal
 * n from the piece to the shape; the supports along n give the gap s between the planes n · x = c holding
 * the piece behind and the shape beyond (a lower bound on the distance, whatever n's accuracy), so the
 * shape moving by t along the unit direction u cannot touch the piece before t = s / (-n · u), and never
 * when n · u <= 0. Advancing by that bound repeats until GJK's distance (an upper bound) is below
 * CAST_TOLERANCE. The result is never a penetrating pose and, for a flat contact, exact after one step.
 */
export class ShapeCaster {
  /** The query shape at its start pose. */
  readonly shape = new ConvexProxy();
  /** World box of the shape at its start pose: min xyz, max xyz. */
  readonly bounds = new Float64Array(6);
  /** World box the query covers (the start box, swept along the direction for a cast), plus the tolerance. */
  readonly reach = new Float64Array(6);
  /** Unit direction of the cast (zero for an overlap test). */
  readonly dir = new Float64Array(3);
  /** Input: hits beyond this distance are of no interest (the caller's maximum, then the best so far). */
  limit = 0;
  /** Of the last hit: distance, normal (from the body towards the shape) xyz, contact point on the body xyz. */
  readonly hit = new Float64Array(7);
  /** Narrow-phase calls made (for tests: a query must not visit far bodies). */
  narrowTests = 0;

  private readonly moving = new ConvexProxy();
  private readonly piece = new ConvexProxy();
  private readonly out = new ManifoldOut();
  private readonly m = new Float64Array(9);
  private readonly childM = new Float64Array(9);
  private readonly levelM = new Float64Array(9);
  private readonly quat = new Float64Array(4);
  private readonly tri = new Float64Array(9);
  private readonly lo = new Float64Array(3);
  private readonly hi = new Float64Array(3);
  private triangles = new Int32Array(256);
  /** Of the last piece hit: distance and normal xyz, contact point xyz (as `hit`). */
  private readonly pieceHit = new Float64Array(7);
  private readonly pieceView = new PolyView();
  private readonly movingView = new PolyView();
  /** Of the last `distance`: unit normal from the piece to the shape, the piece's closest point. */
  private readonly normal = new Float64Array(3);
  private readonly closest = new Float64Array(3);
  /** Input of `distance`: gaps wider than this are of no interest. */
  private reachLimit = 0;
  /** The two cores' radii, summed, as of the last `distance`. */
  private radii = 0;
  private readonly back = new Float64Array(3);
  /** The last verified separating axis of a cast (piece to shape). */
  private readonly axis = new Float64Array(3);
  private readonly supportA = new Float64Array(3);
  private readonly supportB = new Float64Array(3);

  /**
   * Builds the query shape from its definition, placed at `position` with the unit-normalised `rotation`
   * [x, y, z, w] (identity when absent), and computes its box. Throws on an invalid definition.
   */
  setShape(def: ConvexShapeDef, position: readonly number[], rotation: readonly number[] | undefined): void {
    const p = this.shape;
    p.hull = null;
    p.half[0] = p.half[1] = p.half[2] = 0;
    p.radius = 0;
    switch (def.type) {
      case "sphere":
        p.kind = PROXY_SPHERE;
        p.radius = positive("sphere radius", def.radius);
        p.half[0] = p.half[1] = p.half[2] = p.radius;
        break;
      case "box":
        p.kind = PROXY_BOX;
        for (let k = 0; k < 3; k++) p.half[k] = positive("box half extent", def.halfExtents?.[k]);
        break;
      case "capsule":
      case "cylinder":
        p.kind = def.type === "capsule" ? PROXY_CAPSULE : PROXY_CYLINDER;
        p.radius = positive(`${def.type} radius`, def.radius);
        p.half[0] = p.half[2] = p.radius;
        p.half[1] = positive(`${def.type} halfHeight`, def.halfHeight);
        break;
      case "hull":
        p.kind = PROXY_HULL;
        p.hull = buildHull(def.points);
        break;
      default:
        throw new Error(`shape query: expected a convex shape (sphere, box, capsule, cylinder, hull), got ${(def as { type?: unknown }).type}`);
    }
    const q = this.quat;
    for (let k = 0; k < 3; k++) p.pos[k] = position[k];
    if (rotation === undefined) {
      q[0] = q[1] = q[2] = 0;
      q[3] = 1;
    } else {
      const len = Math.sqrt(rotation[0] * rotation[0] + rotation[1] * rotation[1] + rotation[2] * rotation[2] + rotation[3] * rotation[3]);
      if (!(len > 0 && Number.isFinite(len))) throw new Error("shape query: rotation must be a finite, non-zero quaternion");
      for (let k = 0; k < 4; k++) q[k] = rotation[k] / len;
    }
    matrixFromQuat(p.rot, 0, q, 0);
    p.id = 0;
    p.triEdges = 7;
    const mv = this.moving;
    mv.kind = p.kind;
    mv.radius = p.radius;
    mv.half.set(p.half);
    mv.hull = p.hull;
    mv.rot.set(p.rot);
    mv.id = 0;
    mv.triEdges = 7;
    this.shapeBounds();
  }

  /** Sets the direction (unit) and `reach` to the box swept over `distance` along it. */
  sweep(dx: number, dy: number, dz: number, distance: number): void {
    const b = this.bounds;
    const r = this.reach;
    this.dir[0] = dx;
    this.dir[1] = dy;
    this.dir[2] = dz;
    for (let k = 0; k < 3; k++) {
      const move = this.dir[k] * distance;
      r[k] = (move < 0 ? b[k] + move : b[k]) - CAST_TOLERANCE;
      r[3 + k] = (move > 0 ? b[3 + k] + move : b[3 + k]) + CAST_TOLERANCE;
    }
  }

  /**
   * The first contact of the swept shape with body `slot` no farther than `limit`: true with `hit` set
   * (distance 0 and the narrow phase's minimum-translation normal when they overlap at the start).
   * Equal distances go to the lower piece.
   */
  castBody(bodies: BodyStore, slot: number): boolean {
    return this.visitPieces(bodies, slot, false);
  }

  /** Whether the shape at its start pose overlaps (gap <= 0) body `slot`'s geometry. Call `sweep(0, 0, 0, 0)` first. */
  overlapsBody(bodies: BodyStore, slot: number): boolean {
    return this.visitPieces(bodies, slot, true);
  }

  /** Every piece of the body near `reach`, cast against (or, for `overlap`, tested for overlap). */
  private visitPieces(bodies: BodyStore, slot: number, overlap: boolean): boolean {
    const shape = bodies.shape[slot];
    const piece = this.piece;
    const hit = this.hit;
    let found = false;
    if (shape === MESH || shape === HEIGHTFIELD) {
      const source = bodies.geometry[slot] as unknown as TriangleSource;
      const count = this.levelTriangles(bodies, slot, source);
      for (let t = 0; t < count; t++) {
        this.triangleProxy(bodies, slot, source, this.triangles[t]);
        if (overlap ? this.overlapPiece() : this.castPiece()) {
          if (overlap) return true;
          found = this.keep(found);
        }
      }
      return found;
    }
    if (shape === COMPOUND) {
      const g = bodies.geometry[slot] as CompoundGeometry;
      for (let i = 0; i < g.childCount; i++) {
        if (!this.childProxy(bodies, slot, g, i)) continue;
        if (overlap ? this.overlapPiece() : this.castPiece()) {
          if (overlap) return true;
          found = this.keep(found);
        }
      }
      return found;
    }
    bodyProxy(piece, bodies, slot);
    if (overlap) return this.overlapPiece();
    if (!this.castPiece()) return false;
    hit.set(this.pieceHit);
    return true;
  }

  /** Keeps the last piece's hit when it is the body's first or nearer than the best so far. */
  private keep(found: boolean): boolean {
    if (!found || this.pieceHit[0] < this.hit[0]) {
      this.hit.set(this.pieceHit);
      // Later pieces only matter when nearer.
      this.limit = this.pieceHit[0];
    }
    return true;
  }

  /** Conservative advancement of the shape against `piece` up to `limit`; the hit into `pieceHit`. */
  private castPiece(): boolean {
    const mv = this.moving;
    const start = this.shape.pos;
    const dir = this.dir;
    const limit = this.limit;
    const n = this.normal;
    const axis = this.axis;
    this.preparePiece();
    let haveAxis = false;
    let t = 0;
    for (let iter = 0; iter < CAST_ITERATIONS; iter++) {
      mv.pos[0] = start[0] + t * dir[0];
      mv.pos[1] = start[1] + t * dir[1];
      mv.pos[2] = start[2] + t * dir[2];
      // A gap wider than the rest of the sweep cannot close within it.
      this.reachLimit = limit - t + CAST_TOLERANCE;
      const gap = this.distance();
      if (gap === NO_GAP) return false;
      if (gap < 0) return this.overlapHit(t);
      if (gap < CAST_TOLERANCE) return this.touchHit(t, haveAxis);
      // GJK's distance bounds the true one from above; the supports along its normal give a separating
      // plane, a bound from below: stepping by that one can never pass the first contact. Near contact
      // GJK's normal (the difference of two close points) can be poor; then the last good axis serves.
      let plane = this.planeGap();
      if (!(plane > 0) && haveAxis) {
        n.set(axis);
        plane = this.planeGap();
      }
      if (!(plane > 0) && gap >= 16 * CAST_TOLERANCE) {
        // Last resort: the motion's own axis (what lies ahead of the shape along it).
        n[0] = -dir[0];
        n[1] = -dir[1];
        n[2] = -dir[2];
        plane = this.planeGap();
      }
      // No plane clears the tolerance while GJK (whose accuracy on curved shapes is limited) puts the
      // shapes within a few of them: touching.
      if (!(plane > 0) || (plane < CAST_TOLERANCE && gap < 16 * CAST_TOLERANCE)) return this.touchHit(t, haveAxis);
      axis.set(n);
      haveAxis = true;
      const approach = -(n[0] * dir[0] + n[1] * dir[1] + n[2] * dir[2]);
      // Moving along or away from a separating plane never closes the gap.
      if (!(approach > 1e-12)) return false;
      t += plane / approach;
      if (t > limit) return false;
    }
    // Only safe steps were taken, so nothing touched before t; steps this small mean nearly touching.
    return this.touchHit(t, haveAxis);
  }

  /**
   * The shape touches the piece (gap below the tolerance) at distance t: the narrow phase's manifold gives
   * the contact normal and point (else the last separating axis, else GJK's). Touching at the start while
   * sliding along or leaving the piece (a shape resting on the floor cast sideways) is no hit.
   */
  private touchHit(t: number, haveAxis: boolean): boolean {
    const out = this.out;
    const h = this.pieceHit;
    out.margin = 2 * CAST_TOLERANCE;
    this.narrowTests++;
    collideConvex(out, this.piece, this.moving);
    if (out.count > 0) {
      let k = 0;
      for (let i = 1; i < out.count; i++) if (out.separation[i] < out.separation[k]) k = i;
      h[1] = out.normal[0];
      h[2] = out.normal[1];
      h[3] = out.normal[2];
      h[4] = out.pointA[3 * k];
      h[5] = out.pointA[3 * k + 1];
      h[6] = out.pointA[3 * k + 2];
    } else {
      const n = haveAxis ? this.axis : this.normal;
      h[1] = n[0];
      h[2] = n[1];
      h[3] = n[2];
      h[4] = this.closest[0];
      h[5] = this.closest[1];
      h[6] = this.closest[2];
    }
    const dir = this.dir;
    // Reached by advancing, the shape was closing in; only a start in contact may be sliding or leaving.
    if (t === 0 && !(-(h[1] * dir[0] + h[2] * dir[1] + h[3] * dir[2]) > 0)) return false;
    h[0] = t;
    return true;
  }

  /**
   * The shape overlaps the piece at distance t (at the start, or after a step the distance's rounding
   * let through): the narrow phase's manifold gives the minimum-translation normal and the deepest point.
   */
  private overlapHit(t: number): boolean {
    const out = this.out;
    out.margin = 0;
    this.narrowTests++;
    collideConvex(out, this.piece, this.moving);
    const h = this.pieceHit;
    h[0] = t;
    if (out.count === 0) {
      // The manifold found nothing to clip (the shapes only graze): back along the motion.
      h[1] = -this.dir[0];
      h[2] = -this.dir[1];
      h[3] = -this.dir[2];
      h.set(this.moving.pos, 4);
      return true;
    }
    let k = 0;
    for (let i = 1; i < out.count; i++) if (out.separation[i] < out.separation[k]) k = i;
    h[1] = out.normal[0];
    h[2] = out.normal[1];
    h[3] = out.normal[2];
    h[4] = out.pointA[3 * k];
    h[5] = out.pointA[3 * k + 1];
    h[6] = out.pointA[3 * k + 2];
    return true;
  }

  /** Gap between the supporting planes of the piece and the shape along `normal` (a lower bound on their distance). */
  private planeGap(): number {
    const a = this.piece;
    const b = this.moving;
    const n = this.normal;
    const back = this.back;
    back[0] = -n[0];
    back[1] = -n[1];
    back[2] = -n[2];
    supportCore(a, this.pieceView, n, this.supportA, 0);
    supportCore(b, this.movingView, back, this.supportB, 0);
    const sa = this.supportA;
    const sb = this.supportB;
    return n[0] * (sb[0] - sa[0]) + n[1] * (sb[1] - sa[1]) + n[2] * (sb[2] - sa[2]) - this.radii;
  }

  /** Whether `piece` and the shape at its start pose overlap (gap <= 0). */
  private overlapPiece(): boolean {
    this.moving.pos.set(this.shape.pos);
    this.preparePiece();
    this.reachLimit = 0;
    const gap = this.distance();
    return gap !== NO_GAP && gap <= 0;
  }

  /** The piece's polytope view, once per piece (it does not move during a cast). */
  private preparePiece(): void {
    const p = this.piece;
    if (p.kind === PROXY_BOX || p.kind === PROXY_HULL || p.kind === PROXY_TRIANGLE) fillPolyView(this.pieceView, p);
  }

  /**
   * GJK distance between the piece and the moving shape (GJK runs on their cores: a sphere's centre, a
   * capsule's segment, the other shapes themselves; the radii are added afterwards): the gap (<= 0 when they overlap) with `normal` from the piece to the shape and `closest` the
   * piece's point nearest the shape; NO_GAP when the gap exceeds `reachLimit`.
   */
  private distance(): number {
    const a = this.piece;
    const b = this.moving;
    if (b.kind === PROXY_BOX || b.kind === PROXY_HULL) fillPolyView(this.movingView, b);
    const rA = a.kind === PROXY_SPHERE || a.kind === PROXY_CAPSULE ? a.radius : 0;
    const rB = b.kind === PROXY_SPHERE || b.kind === PROXY_CAPSULE ? b.radius : 0;
    if (a.kind === PROXY_TRIANGLE) {
      const t = a.tri;
      startDir[0] = (t[0] + t[3] + t[6]) / 3 - b.pos[0];
      startDir[1] = (t[1] + t[4] + t[7]) / 3 - b.pos[1];
      startDir[2] = (t[2] + t[5] + t[8]) / 3 - b.pos[2];
    } else {
      startDir[0] = a.pos[0] - b.pos[0];
      startDir[1] = a.pos[1] - b.pos[1];
      startDir[2] = a.pos[2] - b.pos[2];
    }
    this.radii = rA + rB;
    gjkIn[0] = this.reachLimit + rA + rB;
    this.narrowTests++;
    const status = gjk(a, this.pieceView, b, this.movingView);
    if (status === GJK_BEYOND) return NO_GAP;
    if (status === GJK_OVERLAP) return -1;
    const d = gjkOut[0];
    const gap = d - rA - rB;
    if (gap > this.reachLimit) return NO_GAP;
    const n = this.normal;
    for (let k = 0; k < 3; k++) {
      n[k] = (gjkOut[4 + k] - gjkOut[1 + k]) / d;
      this.closest[k] = gjkOut[1 + k] + rA * n[k];
    }
    return gap;
  }

  /** The query shape's world box at its start pose into `bounds`. */
  private shapeBounds(): void {
    const p = this.shape;
    const R = p.rot;
    const b = this.bounds;
    for (let k = 0; k < 3; k++) {
      const r0 = R[3 * k];
      const r1 = R[3 * k + 1];
      const r2 = R[3 * k + 2];
      let e: number;
      if (p.kind === PROXY_SPHERE) e = p.radius;
      else if (p.kind === PROXY_BOX) e = Math.abs(r0) * p.half[0] + Math.abs(r1) * p.half[1] + Math.abs(r2) * p.half[2];
      else if (p.kind === PROXY_CAPSULE) e = Math.abs(r1) * p.half[1] + p.radius;
      else if (p.kind === PROXY_CYLINDER) e = Math.abs(r1) * p.half[1] + p.radius * Math.sqrt(Math.max(0, 1 - r1 * r1));
      else {
        const hull = p.hull!;
        let lo = Infinity;
        let hi = -Infinity;
        for (let v = 0; v < hull.vertexCount; v++) {
          const x = r0 * hull.vertices[3 * v] + r1 * hull.vertices[3 * v + 1] + r2 * hull.vertices[3 * v + 2];
          lo = Math.min(lo, x);
          hi = Math.max(hi, x);
        }
        b[k] = p.pos[k] + lo;
        b[3 + k] = p.pos[k] + hi;
        continue;
      }
      b[k] = p.pos[k] - e;
      b[3 + k] = p.pos[k] + e;
    }
  }

  /** Child i of compound body `slot` placed in the world as `piece`; false when its bounding sphere misses `reach`. */
  private childProxy(bodies: BodyStore, slot: number, g: CompoundGeometry, i: number): boolean {
    const p = this.piece;
    const s3 = slot * 3;
    const m = this.m;
    matrixFromQuat(m, 0, bodies.rot, slot * 4);
    const cp = g.position;
    const i3 = 3 * i;
    const r = g.boundRadius[i];
    const reach = this.reach;
    for (let k = 0; k < 3; k++) {
      const x = bodies.pos[s3 + k] + m[3 * k] * cp[i3] + m[3 * k + 1] * cp[i3 + 1] + m[3 * k + 2] * cp[i3 + 2];
      if (x + r < reach[k] || x - r > reach[3 + k]) return false;
      p.pos[k] = x;
    }
    p.kind = g.kind[i];
    p.radius = g.half[i3];
    p.half[0] = g.half[i3];
    p.half[1] = g.half[i3 + 1];
    p.half[2] = g.half[i3 + 2];
    p.hull = g.hull[i];
    p.id = i;
    const cm = this.childM;
    matrixFromQuat(cm, 0, g.rotation, 4 * i);
    for (let row = 0; row < 3; row++) {
      for (let col = 0; col < 3; col++) {
        p.rot[3 * row + col] = m[3 * row] * cm[col] + m[3 * row + 1] * cm[3 + col] + m[3 * row + 2] * cm[6 + col];
      }
    }
    return true;
  }

  /**
   * The triangles of level body `slot` whose local bounds meet `reach` (turned into the body's frame)
   * into `triangles`; returns their count. The buffer doubles when a query fills it (a one-off).
   */
  private levelTriangles(bodies: BodyStore, slot: number, source: TriangleSource): number {
    const m = this.levelM;
    matrixFromQuat(m, 0, bodies.rot, slot * 4);
    const reach = this.reach;
    const s3 = slot * 3;
    const cx = 0.5 * (reach[0] + reach[3]) - bodies.pos[s3];
    const cy = 0.5 * (reach[1] + reach[4]) - bodies.pos[s3 + 1];
    const cz = 0.5 * (reach[2] + reach[5]) - bodies.pos[s3 + 2];
    const ex = 0.5 * (reach[3] - reach[0]);
    const ey = 0.5 * (reach[4] - reach[1]);
    const ez = 0.5 * (reach[5] - reach[2]);
    for (let k = 0; k < 3; k++) {
      // Column k of R is the body's axis k: the centre's coordinate along it and the box's extent.
      const c = m[k] * cx + m[3 + k] * cy + m[6 + k] * cz;
      const e = Math.abs(m[k]) * ex + Math.abs(m[3 + k]) * ey + Math.abs(m[6 + k]) * ez;
      this.lo[k] = c - e;
      this.hi[k] = c + e;
    }
    let count = source.queryTriangles(this.lo, this.hi, this.triangles);
    while (count === this.triangles.length && count < source.triangleCount) {
      this.triangles = new Int32Array(this.triangles.length * 2);
      count = source.queryTriangles(this.lo, this.hi, this.triangles);
    }
    return count;
  }

  /** Triangle `id` of level body `slot` in world space as `piece`. */
  private triangleProxy(bodies: BodyStore, slot: number, source: TriangleSource, id: number): void {
    const p = this.piece;
    const t = this.tri;
    p.triEdges = source.triangle(id, t, 0);
    const m = this.levelM;
    const s3 = slot * 3;
    for (let v = 0; v < 9; v += 3) {
      const x = t[v];
      const y = t[v + 1];
      const z = t[v + 2];
      for (let k = 0; k < 3; k++) p.tri[v + k] = bodies.pos[s3 + k] + m[3 * k] * x + m[3 * k + 1] * y + m[3 * k + 2] * z;
    }
    p.kind = PROXY_TRIANGLE;
    p.hull = null;
    p.id = id;
  }
}

function positive(what: string, v: number | undefined): number {
  if (typeof v !== "number" || !(v > 0 && Number.isFinite(v))) throw new RangeError(`shape query: ${what} must be a finite number > 0, got ${v}`);
  return v;
}
