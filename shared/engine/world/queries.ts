import type { BroadPhase } from "../collision/broad-phase.ts";
import { raycastBody } from "../collision/raycast.ts";
import { ShapeCaster } from "../collision/shape-cast.ts";
import { BOX, type BodyStore, groupsCollide, packGroups, SPHERE } from "../dynamics/body-store.ts";
import { matrixFromQuat } from "../math/quat.ts";
import type { CollisionGroups, ConvexShapeDef, Vec3Tuple } from "../types.ts";

export interface RaycastHit {
  handle: number;
  id: string;
  /** Distance along the (normalised) ray, metres. */
  distance: number;
  point: Vec3Tuple;
  normal: Vec3Tuple;
}

/** The first body a swept shape touches (castShape). */
export interface ShapeCastHit {
  handle: number;
  id: string;
  /** How far the shape travelled along the (normalised) direction before touching, metres. */
  distance: number;
  /** A contact point on the hit body's surface, with the shape at `distance`. */
  point: Vec3Tuple;
  /** Unit normal from the hit body towards the cast shape. */
  normal: Vec3Tuple;
}

/** Where a query shape is placed: world position of its origin, orientation [x, y, z, w] (default identity). */
export interface ShapePose {
  position: readonly number[];
  rotation?: readonly number[];
}

export interface ShapeCastOptions {
  /** Only bodies whose collision groups collide with these (Rapier's rule). Default: every body. */
  groups?: CollisionGroups;
  /** Bodies for which this returns true are left out. Must not query the world. */
  skip?: (handle: number) => boolean;
}

export interface OverlapOptions {
  /** Only bodies whose collision groups collide with these (Rapier's rule). Default: every body. */
  groups?: CollisionGroups;
}

/**
 * Counts the exact tests the queries make (a body's ray test, a piece's narrow-phase call), so tests can
 * check that a query leaves far bodies alone. Never read by the engine.
 */
export const queryCounters = { exactTests: 0 };

/**
 * Packs a query's collision groups (validated: 16-bit masks). Undefined: the query filters nothing, not
 * even bodies whose own groups collide with nothing.
 */
export function queryGroups(what: string, groups: CollisionGroups | undefined): number | undefined {
  if (groups === undefined) return undefined;
  return packGroups(mask(what, groups.memberships), mask(what, groups.filter));
}

function mask(what: string, v: number): number {
  if (!(Number.isInteger(v) && v >= 0 && v <= 0xffff)) throw new RangeError(`${what}: collision groups must be integers in [0, 65535], got ${v}`);
  return v;
}

const scratch4 = new Float64Array(4);
const scratch7 = new Float64Array(7);
const scratch3 = new Float64Array(3);
const scratch9 = new Float64Array(9);

/**
 * The world's spatial queries (raycast, AABB query) over the broad phase's grid, with the bookkeeping
 * they share: the query box, the per-tick bound on how far moving bodies lie outside their boxes, and
 * the guard against re-entry from a raycast's `skip` callback (which would overwrite the result buffer).
 */
export class SpatialQueries {
  /** Query box (min xyz, max xyz) handed to the broad phase. */
  readonly queryBox = new Float64Array(6);
  /** `maxDrift()` as computed at tick `driftTick`. */
  private driftTick = -1;
  private drift = 0;
  /** The query (raycast, castShape) walking the broad phase's query result and calling its `skip`, or null. */
  private inSkip: string | null = null;
  private readonly bodies: BodyStore;
  private readonly broad: BroadPhase;
  private readonly caster = new ShapeCaster();
  /** Candidate slots of a shape query (the broad phase's result is copied: skip callbacks may not query, but be safe). */
  private candidates = new Int32Array(64);

  constructor(bodies: BodyStore, broad: BroadPhase) {
    this.bodies = bodies;
    this.broad = broad;
  }

  /**
   * Bodies whose box overlaps `queryBox` and whose groups collide with `groups` (packed; undefined: all),
   * into `broad.queryResult` (ascending slots); returns the count.
   */
  queryBoxSlots(groups?: number): number {
    this.notInRaycast("queryAabb");
    const n = this.broad.queryAabb(this.bodies, this.queryBox, 0);
    return groups === undefined ? n : this.filterGroups(n, groups);
  }

  /** Keeps, in order, the first n slots of `broad.queryResult` whose groups collide with `groups`; returns how many. */
  private filterGroups(n: number, groups: number): number {
    const slots = this.broad.queryResult;
    const g = this.bodies.groups;
    let kept = 0;
    for (let k = 0; k < n; k++) if (groupsCollide(groups, g[slots[k]])) slots[kept++] = slots[k];
    return kept;
  }

  /**
   * First body hit by the ray, or null. `direction` need not be unit length. A finite ray tests only the
   * bodies the broad phase finds around it; an infinite one tests every body. Equal distances go to the
   * lower slot. `skip` is called for the bodies tested and must not query the world. With `groups`
   * (packed), only bodies whose groups collide with them are tested.
   */
  raycast(
    tick: number,
    origin: readonly number[],
    direction: readonly number[],
    maxDistance: number,
    skip?: (handle: number) => boolean,
    groups?: number,
  ): RaycastHit | null {
    this.notInRaycast("raycast");
    const len = Math.sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(len > 0)) return null;
    const dx = direction[0] / len;
    const dy = direction[1] / len;
    const dz = direction[2] / len;
    let best = maxDistance;
    let bestSlot = -1;
    let nx = 0;
    let ny = 0;
    let nz = 0;
    const b = this.bodies;
    // Candidates in ascending slot order either way, so the winner is the one a scan of every slot picks.
    let candidates: Int32Array | null = null;
    let n = b.slotCount;
    if (this.rayBox(tick, origin, dx, dy, dz, maxDistance)) {
      n = this.broad.queryAabb(b, this.queryBox, 0);
      candidates = this.broad.queryResult;
    }
    this.inSkip = skip === undefined ? null : "raycast";
    try {
      for (let k = 0; k < n; k++) {
        const s = candidates === null ? k : candidates[k];
        if (b.alive[s] === 0) continue;
        if (groups !== undefined && !groupsCollide(groups, b.groups[s])) continue;
        if (skip?.(b.handleOf(s))) continue;
        queryCounters.exactTests++;
        if (raycastBody(b, s, origin[0], origin[1], origin[2], dx, dy, dz, best, scratch4) && scratch4[0] <= best) {
          if (bestSlot >= 0 && scratch4[0] === best) continue;
          best = scratch4[0];
          bestSlot = s;
          nx = scratch4[1];
          ny = scratch4[2];
          nz = scratch4[3];
        }
      }
    } finally {
      this.inSkip = null;
    }
    if (bestSlot < 0) return null;
    return {
      handle: b.handleOf(bestSlot),
      id: b.ids[bestSlot]!,
      distance: best,
      point: [origin[0] + dx * best, origin[1] + dy * best, origin[2] + dz * best],
      normal: [nx, ny, nz],
    };
  }

  /**
   * The first body the convex `shape`, placed at `pose` and swept along `direction` (normalised; zero is
   * an error) for up to `maxDistance` (finite, >= 0), touches, or null. The candidates are the bodies the
   * broad phase finds in the swept box; each is tested piece by piece (ShapeCaster). Equal distances go
   * to the lower slot. A shape overlapping a body at the start hits it at distance 0. `skip` is called
   * for the bodies tested and must not query the world; with `groups` (packed) only bodies whose groups
   * collide with them are tested.
   */
  castShape(
    tick: number,
    shape: ConvexShapeDef,
    pose: ShapePose,
    direction: readonly number[],
    maxDistance: number,
    groups: number | undefined,
    skip: ((handle: number) => boolean) | undefined,
  ): ShapeCastHit | null {
    this.notInRaycast("castShape");
    finiteVector("castShape: pose.position", pose.position, 3);
    if (pose.rotation !== undefined) finiteVector("castShape: pose.rotation", pose.rotation, 4);
    finiteVector("castShape: direction", direction, 3);
    const len = Math.sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(len > 0)) throw new Error("castShape: direction must not be zero");
    if (!(Number.isFinite(maxDistance) && maxDistance >= 0)) throw new RangeError(`castShape: maxDistance must be a finite number >= 0, got ${maxDistance}`);
    const c = this.caster;
    c.setShape(shape, pose.position, pose.rotation);
    c.sweep(direction[0] / len, direction[1] / len, direction[2] / len, maxDistance);
    const n = this.reachSlots(tick, groups);
    const b = this.bodies;
    const candidates = this.candidates;
    const hit = c.hit;
    let best = maxDistance;
    let bestSlot = -1;
    const found = scratch7;
    this.inSkip = skip === undefined ? null : "castShape";
    try {
      for (let k = 0; k < n; k++) {
        const s = candidates[k];
        if (b.alive[s] === 0) continue;
        if (skip?.(b.handleOf(s))) continue;
        c.limit = best;
        if (c.castBody(b, s) && (bestSlot < 0 || hit[0] < best)) {
          best = hit[0];
          bestSlot = s;
          found.set(hit);
        }
      }
    } finally {
      this.inSkip = null;
      queryCounters.exactTests += c.narrowTests;
      c.narrowTests = 0;
    }
    if (bestSlot < 0) return null;
    return {
      handle: b.handleOf(bestSlot),
      id: b.ids[bestSlot]!,
      distance: best,
      point: [found[4], found[5], found[6]],
      normal: [found[1], found[2], found[3]],
    };
  }

  /**
   * The bodies whose geometry overlaps (gap <= 0) the convex `shape` placed at `pose`, in ascending slot
   * order, into `out` (its previous contents replaced); with `groups` (packed) only bodies whose groups
   * collide with them. Candidates come from the broad phase.
   */
  overlap(tick: number, shape: ConvexShapeDef, pose: ShapePose, groups: number | undefined, out: number[]): number[] {
    this.notInRaycast("overlap");
    finiteVector("overlap: pose.position", pose.position, 3);
    if (pose.rotation !== undefined) finiteVector("overlap: pose.rotation", pose.rotation, 4);
    const c = this.caster;
    c.setShape(shape, pose.position, pose.rotation);
    c.sweep(0, 0, 0, 0);
    const n = this.reachSlots(tick, groups);
    const b = this.bodies;
    const candidates = this.candidates;
    let count = 0;
    for (let k = 0; k < n; k++) {
      const s = candidates[k];
      if (b.alive[s] === 0) continue;
      if (c.overlapsBody(b, s)) {
        if (count < out.length) out[count] = b.handleOf(s);
        else out.push(b.handleOf(s));
        count++;
      }
    }
    out.length = count;
    queryCounters.exactTests += c.narrowTests;
    c.narrowTests = 0;
    return out;
  }

  /**
   * The bodies whose broad-phase box meets the caster's `reach` grown by `maxDrift()` and a rounding
   * allowance, filtered by `groups`, into `candidates` (ascending slots); returns their count. When some
   * pose is not finite every slot is a candidate.
   */
  private reachSlots(tick: number, groups: number | undefined): number {
    const box = this.queryBox;
    const reach = this.caster.reach;
    let extent = 0;
    for (let k = 0; k < 6; k++) {
      box[k] = reach[k];
      extent = Math.max(extent, Math.abs(reach[k]));
    }
    const pad = this.maxDrift(tick) + 1e-9 * (1 + extent);
    const b = this.bodies;
    let n: number;
    let slots: Int32Array;
    if (Number.isFinite(pad)) {
      for (let k = 0; k < 3; k++) {
        box[k] -= pad;
        box[3 + k] += pad;
      }
      n = this.broad.queryAabb(b, box, 0);
      slots = this.broad.queryResult;
    } else {
      n = b.slotCount;
      if (this.candidates.length < n) this.candidates = new Int32Array(n);
      slots = this.candidates;
      for (let k = 0; k < n; k++) slots[k] = k;
    }
    if (this.candidates.length < n) this.candidates = new Int32Array(Math.max(n, 2 * this.candidates.length));
    const out = this.candidates;
    let kept = 0;
    for (let k = 0; k < n; k++) {
      const s = slots[k];
      if (groups === undefined || groupsCollide(groups, b.groups[s])) out[kept++] = s;
    }
    return kept;
  }

  /**
   * Puts the bounds of the ray segment into `queryBox`, grown by `maxDrift()` (so every body whose shape
   * the segment can reach has its broad-phase box inside) plus a rounding allowance. False when the ray
   * is infinite or anything is not finite: the caller then tests every body.
   */
  private rayBox(tick: number, origin: readonly number[], dx: number, dy: number, dz: number, maxDistance: number): boolean {
    if (!(Number.isFinite(maxDistance) && maxDistance >= 0)) return false;
    const drift = this.maxDrift(tick);
    const box = this.queryBox;
    const d = scratch3;
    d[0] = dx;
    d[1] = dy;
    d[2] = dz;
    let extent = 0;
    for (let k = 0; k < 3; k++) {
      const a = origin[k];
      const e = a + d[k] * maxDistance;
      box[k] = Math.min(a, e);
      box[3 + k] = Math.max(a, e);
      extent = Math.max(extent, Math.abs(box[k]), Math.abs(box[3 + k]));
    }
    // Shapes and AABBs are computed in floating point from the same pose: 1e-9 relative is ~10⁷ ulps.
    const pad = drift + 1e-9 * (1 + extent);
    if (!Number.isFinite(pad)) return false;
    for (let k = 0; k < 3; k++) {
      box[k] -= pad;
      box[3 + k] += pad;
    }
    return true;
  }

  /**
   * How far any body's shape may reach outside its broad-phase box (getAabb) now, metres. A step moves
   * bodies after it refreshed their boxes (the next step refreshes them again), so a body that moved in
   * the last step can lie outside by up to that motion; between steps only createBody, setTransform and
   * moveCharacter move a body, and they refresh its box. So the value is computed once per tick (one
   * pass over the awake and kinematic sets) and stays an upper bound until the next step. Static bodies move
   * only through setTransform. Infinity when some pose is not finite.
   */
  private maxDrift(tick: number): number {
    if (this.driftTick === tick) return this.drift;
    const b = this.bodies;
    const a = b.aabb;
    const m = scratch9;
    let drift = 0;
    // Only awake and kinematic bodies move in a step: a body falls asleep below 0.05 m/s, well inside its
    // box's margin, and sleeping and static bodies stay put.
    const awake = b.awakeCount;
    for (let k = 0; k < awake + b.kinematicCount; k++) {
      const s = k < awake ? b.awakeList[k] : b.kinematicList[k - awake];
      const s3 = s * 3;
      const s6 = s * 6;
      const hx = b.half[s3];
      let ex = hx;
      let ey = hx;
      let ez = hx;
      if (b.shape[s] !== SPHERE && b.shape[s] !== BOX) {
        // Other shapes: their bounding sphere about the body's origin holds them.
        ex = ey = ez = b.boundRadius[s];
      } else if (b.shape[s] === BOX) {
        const hy = b.half[s3 + 1];
        const hz = b.half[s3 + 2];
        matrixFromQuat(m, 0, b.rot, s * 4);
        ex = Math.abs(m[0]) * hx + Math.abs(m[1]) * hy + Math.abs(m[2]) * hz;
        ey = Math.abs(m[3]) * hx + Math.abs(m[4]) * hy + Math.abs(m[5]) * hz;
        ez = Math.abs(m[6]) * hx + Math.abs(m[7]) * hy + Math.abs(m[8]) * hz;
      }
      const px = b.pos[s3];
      const py = b.pos[s3 + 1];
      const pz = b.pos[s3 + 2];
      const out = Math.max(
        a[s6] - (px - ex),
        px + ex - a[s6 + 3],
        a[s6 + 1] - (py - ey),
        py + ey - a[s6 + 4],
        a[s6 + 2] - (pz - ez),
        pz + ez - a[s6 + 5],
      );
      if (out > drift) drift = out;
      else if (!(out <= drift)) {
        drift = Number.POSITIVE_INFINITY;
        break;
      }
    }
    this.driftTick = tick;
    this.drift = drift;
    return drift;
  }

  notInRaycast(what: string): void {
    if (this.inSkip !== null) throw new Error(`${what}: not allowed from a ${this.inSkip}'s skip callback`);
  }
}

function finiteVector(what: string, v: readonly number[], n: number): void {
  for (let k = 0; k < n; k++) if (typeof v[k] !== "number" || !Number.isFinite(v[k])) throw new Error(`${what}: expected ${n} finite numbers`);
}
