import type { BroadPhase } from "../collision/broad-phase.ts";
import { raycastBody } from "../collision/raycast.ts";
import { type BodyStore, SPHERE } from "../dynamics/body-store.ts";
import { matrixFromQuat } from "../math/quat.ts";
import type { Vec3Tuple } from "../types.ts";

export interface RaycastHit {
  handle: number;
  id: string;
  /** Distance along the (normalised) ray, metres. */
  distance: number;
  point: Vec3Tuple;
  normal: Vec3Tuple;
}

const scratch4 = new Float64Array(4);
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
  /** A raycast is walking the broad phase's query result and calling its `skip`. */
  private raycasting = false;
  private readonly bodies: BodyStore;
  private readonly broad: BroadPhase;

  constructor(bodies: BodyStore, broad: BroadPhase) {
    this.bodies = bodies;
    this.broad = broad;
  }

  /** Bodies whose box overlaps `queryBox`, into `broad.queryResult` (ascending slots); returns the count. */
  queryBoxSlots(): number {
    this.notInRaycast("queryAabb");
    return this.broad.queryAabb(this.bodies, this.queryBox, 0);
  }

  /**
   * First body hit by the ray, or null. `direction` need not be unit length. A finite ray tests only the
   * bodies the broad phase finds around it; an infinite one tests every body. Equal distances go to the
   * lower slot. `skip` is called for the bodies tested and must not query the world.
   */
  raycast(
    tick: number,
    origin: readonly number[],
    direction: readonly number[],
    maxDistance: number,
    skip?: (handle: number) => boolean,
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
    this.raycasting = skip !== undefined;
    try {
      for (let k = 0; k < n; k++) {
        const s = candidates === null ? k : candidates[k];
        if (b.alive[s] === 0) continue;
        if (skip?.(b.handleOf(s))) continue;
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
      this.raycasting = false;
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
      if (b.shape[s] !== SPHERE) {
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
    if (this.raycasting) throw new Error(`${what}: not allowed from a raycast's skip callback`);
  }
}
