import type { BodyStore } from "../dynamics/body-store.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";
import { type ManifoldOut, NORMAL_OF_B, NORMAL_OF_NEITHER } from "./manifold.ts";

const local = new Float64Array(3);
const world = new Float64Array(3);
/** The sphere's motion in the box frame, then the result of `firstContact`: t, closest point xyz. */
const sweep = new Float64Array(3);
const toi = new Float64Array(4);

/** Newton steps stop when the gap along the sweep is below this, metres. */
const TOI_TOLERANCE = 1e-9;
const TOI_ITERATIONS = 16;

/**
 * Sphere (A) against box (B); the normal points from the sphere to the box. A centre inside the box is
 * pushed out through the nearest face with the true depth, radius + distance to that face (reporting
 * only the radius there would leave a deep sphere half inside).
 *
 * A swept pair (`out.motion` times `motionSign`: the sphere's displacement relative to the box over the
 * step; the sign is -1 when the sphere is the pair's A, since out.motion is B's relative to A) takes
 * its contact plane where the sphere first touches the box, or, if it does not this step, where it passes
 * closest. From the start position, the normal towards an edge or corner is the wrong one by up to a
 * step's travel: the speculative contact then stops and bounces the sphere along that direction. The
 * plane through the closest box point at that time, perpendicular to the direction to the centre, keeps
 * the whole box behind it and the sphere's path up to then in front of it, so the speculative contact
 * is exact along the path: it closes at the time of impact and never brakes a sphere that passes by.
 */
export function collideSphereBox(out: ManifoldOut, bodies: BodyStore, s: number, b: number, motionSign: number): void {
  out.count = 0;
  const margin = out.margin;
  const p = bodies.pos;
  const s3 = s * 3;
  const b3 = b * 3;
  const r = bodies.half[s3];
  const hx = bodies.half[b3];
  const hy = bodies.half[b3 + 1];
  const hz = bodies.half[b3 + 2];
  local[0] = p[s3] - p[b3];
  local[1] = p[s3 + 1] - p[b3 + 1];
  local[2] = p[s3 + 2] - p[b3 + 2];
  inverseRotateVec(local, 0, bodies.rot, b * 4, local, 0);
  const cx = local[0];
  const cy = local[1];
  const cz = local[2];
  const qx = cx < -hx ? -hx : cx > hx ? hx : cx;
  const qy = cy < -hy ? -hy : cy > hy ? hy : cy;
  const qz = cz < -hz ? -hz : cz > hz ? hz : cz;
  let nx: number;
  let ny: number;
  let nz: number;
  let sep: number;
  let bx = qx;
  let by = qy;
  let bz = qz;
  // Against a face (at most one coordinate clamped) the normal is that face's and turns with the box;
  // against an edge or corner it depends on where the centre is.
  const clamped = (qx !== cx ? 1 : 0) + (qy !== cy ? 1 : 0) + (qz !== cz ? 1 : 0);
  out.normalOwner = clamped <= 1 ? NORMAL_OF_B : NORMAL_OF_NEITHER;
  if (clamped === 0) {
    // Centre inside: leave through the nearest face.
    const fx = hx - Math.abs(cx);
    const fy = hy - Math.abs(cy);
    const fz = hz - Math.abs(cz);
    nx = ny = nz = 0;
    if (fx <= fy && fx <= fz) {
      nx = cx < 0 ? -1 : 1;
      bx = nx * hx;
      sep = -(fx + r);
    } else if (fy <= fz) {
      ny = cy < 0 ? -1 : 1;
      by = ny * hy;
      sep = -(fy + r);
    } else {
      nz = cz < 0 ? -1 : 1;
      bz = nz * hz;
      sep = -(fz + r);
    }
  } else {
    const dx = cx - qx;
    const dy = cy - qy;
    const dz = cz - qz;
    const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    sep = dist - r;
    if (sep > margin) return;
    nx = dx / dist;
    ny = dy / dist;
    nz = dz / dist;
    const m = out.motion;
    if ((m[0] !== 0 || m[1] !== 0 || m[2] !== 0) && sweptPlane(out, bodies, b, s3, motionSign) > 0) {
      nx = swept[0];
      ny = swept[1];
      nz = swept[2];
      sep = swept[3];
      bx = swept[4];
      by = swept[5];
      bz = swept[6];
    }
  }
  // Box-local normal points box -> sphere; the manifold's normal points sphere -> box.
  const q = bodies.rot;
  const b4 = b * 4;
  world[0] = nx;
  world[1] = ny;
  world[2] = nz;
  rotateVec(world, 0, q, b4, world, 0);
  out.normal[0] = -world[0];
  out.normal[1] = -world[1];
  out.normal[2] = -world[2];
  world[0] = bx;
  world[1] = by;
  world[2] = bz;
  rotateVec(world, 0, q, b4, world, 0);
  out.pointB[0] = p[b3] + world[0];
  out.pointB[1] = p[b3 + 1] + world[1];
  out.pointB[2] = p[b3 + 2] + world[2];
  world[0] = cx - nx * r;
  world[1] = cy - ny * r;
  world[2] = cz - nz * r;
  rotateVec(world, 0, q, b4, world, 0);
  out.pointA[0] = p[b3] + world[0];
  out.pointA[1] = p[b3 + 1] + world[1];
  out.pointA[2] = p[b3 + 2] + world[2];
  out.separation[0] = sep;
  out.id[0] = 0;
  out.count = 1;
}

/** Result of `sweptPlane` (box frame): normal box -> sphere xyz, separation, box-side point xyz. */
const swept = new Float64Array(7);

/**
 * The contact plane of a swept sphere (centre in `local`, box frame): through the box point where the
 * sphere first touches, or passes closest, along `out.motion`; normal towards the centre at that time.
 * Writes `swept` and the normal's owner; returns 1 if the plane differs from the start-of-step one.
 * Kept out of collideSphereBox so callers that never sweep (character moves) inline a small function.
 */
function sweptPlane(out: ManifoldOut, bodies: BodyStore, b: number, s3: number, motionSign: number): number {
  inverseRotateVec(sweep, 0, bodies.rot, b * 4, out.motion, 0);
  if (motionSign < 0) {
    sweep[0] = -sweep[0];
    sweep[1] = -sweep[1];
    sweep[2] = -sweep[2];
  }
  const b3 = b * 3;
  if (firstContact(bodies.half, b3, s3) === 0) return 0;
  const half = bodies.half;
  const r = half[s3];
  const cx = local[0];
  const cy = local[1];
  const cz = local[2];
  const t = toi[0];
  const ex = cx + t * sweep[0] - toi[1];
  const ey = cy + t * sweep[1] - toi[2];
  const ez = cz + t * sweep[2] - toi[3];
  const inv = 1 / Math.sqrt(ex * ex + ey * ey + ez * ez);
  const nx = ex * inv;
  const ny = ey * inv;
  const nz = ez * inv;
  const sep = (cx - toi[1]) * nx + (cy - toi[2]) * ny + (cz - toi[3]) * nz - r;
  swept[0] = nx;
  swept[1] = ny;
  swept[2] = nz;
  swept[3] = sep;
  // The box-side point: the sphere's point moved onto the plane (both on the centre's normal line, so
  // the normal force puts no torque on the sphere).
  swept[4] = cx - (r + sep) * nx;
  swept[5] = cy - (r + sep) * ny;
  swept[6] = cz - (r + sep) * nz;
  const hx = half[b3];
  const hy = half[b3 + 1];
  const hz = half[b3 + 2];
  const onFace =
    (toi[1] === hx || toi[1] === -hx ? 1 : 0) + (toi[2] === hy || toi[2] === -hy ? 1 : 0) + (toi[3] === hz || toi[3] === -hz ? 1 : 0);
  out.normalOwner = onFace <= 1 ? NORMAL_OF_B : NORMAL_OF_NEITHER;
  return 1;
}

/**
 * Along the sweep c(t) = centre + t · motion, t in [0, 1] (box frame; centre in `local`, motion in
 * `sweep`), finds the first t where the gap to the box f(t) = |c(t) - clamp(c(t))| - r reaches zero,
 * or else the t where it is smallest. f is convex (distance to a convex set along a line), so Newton's
 * method from t = 0 never passes the first root; if a step would leave [0, 1] or lands beyond the
 * minimum, there is no root this step and bisection on the sign of f' finds the minimum. Writes t and
 * the closest box point to `toi`; returns 1 if that differs from t = 0, else 0. Integer arguments only
 * (box b3 and sphere s3 index `half`): doubles passed to a call that is not inlined would be boxed.
 */
function firstContact(half: Float64Array, b3: number, s3: number): number {
  const hx = half[b3];
  const hy = half[b3 + 1];
  const hz = half[b3 + 2];
  const r = half[s3];
  const cx = local[0];
  const cy = local[1];
  const cz = local[2];
  const mx = sweep[0];
  const my = sweep[1];
  const mz = sweep[2];
  let t = 0;
  let lo = 0;
  let hi = -1;
  for (let k = 0; k < TOI_ITERATIONS; k++) {
    const px = cx + t * mx;
    const py = cy + t * my;
    const pz = cz + t * mz;
    const dx = px - (px < -hx ? -hx : px > hx ? hx : px);
    const dy = py - (py < -hy ? -hy : py > hy ? hy : py);
    const dz = pz - (pz < -hz ? -hz : pz > hz ? hz : pz);
    const dist = Math.sqrt(dx * dx + dy * dy + dz * dz);
    const f = dist - r;
    if (f <= TOI_TOLERANCE || dist === 0) break;
    // f'(t) · dist: the sweep's velocity along the direction box -> centre.
    const slope = dx * mx + dy * my + dz * mz;
    if (slope >= 0) {
      // Moving away: the minimum is behind (at t = 0 if this is the first point).
      hi = t;
      break;
    }
    lo = t;
    const next = t - (f * dist) / slope;
    if (next >= 1) {
      hi = 1;
      break;
    }
    t = next;
  }
  if (hi === 0) return 0;
  if (hi > 0) {
    // No contact this step: the smallest gap lies in [lo, hi], where f' < 0 at lo. Bisect on the sign of
    // f' (at hi = 1 the sphere may still be closing: then the end is the closest point).
    for (let k = 0; k <= 2 * TOI_ITERATIONS; k++) {
      const probe = k === 0 ? hi : 0.5 * (lo + hi);
      const px = cx + probe * mx;
      const py = cy + probe * my;
      const pz = cz + probe * mz;
      const dx = px - (px < -hx ? -hx : px > hx ? hx : px);
      const dy = py - (py < -hy ? -hy : py > hy ? hy : py);
      const dz = pz - (pz < -hz ? -hz : pz > hz ? hz : pz);
      if (dx * mx + dy * my + dz * mz < 0) {
        lo = probe;
        if (k === 0) break;
      } else hi = probe;
    }
    t = lo;
  }
  if (t === 0) return 0;
  const px = cx + t * mx;
  const py = cy + t * my;
  const pz = cz + t * mz;
  toi[0] = t;
  toi[1] = px < -hx ? -hx : px > hx ? hx : px;
  toi[2] = py < -hy ? -hy : py > hy ? hy : py;
  toi[3] = pz < -hz ? -hz : pz > hz ? hz : pz;
  // The centre is still outside the box (it is, short of a root found to within the tolerance).
  return px !== toi[1] || py !== toi[2] || pz !== toi[3] ? 1 : 0;
}
