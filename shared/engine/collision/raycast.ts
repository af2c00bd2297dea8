import { type BodyStore, SPHERE } from "../dynamics/body-store.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";

const o = new Float64Array(3);
const d = new Float64Array(3);
const n = new Float64Array(3);

/**
 * Ray (origin, unit direction) against one body. On a hit with 0 <= t <= maxT writes
 * [t, nx, ny, nz] (world normal at the hit) into `out` and returns true. A ray starting inside a shape
 * hits at t = 0 with the normal facing back along the ray.
 */
export function raycastBody(
  bodies: BodyStore,
  slot: number,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  maxT: number,
  out: Float64Array,
): boolean {
  const s3 = slot * 3;
  const px = bodies.pos[s3];
  const py = bodies.pos[s3 + 1];
  const pz = bodies.pos[s3 + 2];
  if (bodies.shape[slot] === SPHERE) {
    const r = bodies.half[s3];
    const mx = ox - px;
    const my = oy - py;
    const mz = oz - pz;
    const b = mx * dx + my * dy + mz * dz;
    const c = mx * mx + my * my + mz * mz - r * r;
    if (c <= 0) {
      out[0] = 0;
      out[1] = -dx;
      out[2] = -dy;
      out[3] = -dz;
      return true;
    }
    if (b > 0) return false;
    const disc = b * b - c;
    if (disc < 0) return false;
    const t = -b - Math.sqrt(disc);
    if (t > maxT) return false;
    out[0] = t;
    out[1] = (mx + t * dx) / r;
    out[2] = (my + t * dy) / r;
    out[3] = (mz + t * dz) / r;
    return true;
  }
  const q4 = slot * 4;
  o[0] = ox - px;
  o[1] = oy - py;
  o[2] = oz - pz;
  inverseRotateVec(o, 0, bodies.rot, q4, o, 0);
  d[0] = dx;
  d[1] = dy;
  d[2] = dz;
  inverseRotateVec(d, 0, bodies.rot, q4, d, 0);
  let tmin = 0;
  let tmax = maxT;
  let axis = -1;
  let inside = true;
  for (let k = 0; k < 3; k++) {
    const h = bodies.half[s3 + k];
    if (Math.abs(o[k]) > h) inside = false;
    if (Math.abs(d[k]) < 1e-15) {
      if (Math.abs(o[k]) > h) return false;
      continue;
    }
    const inv = 1 / d[k];
    let t1 = (-h - o[k]) * inv;
    let t2 = (h - o[k]) * inv;
    if (t1 > t2) {
      const t = t1;
      t1 = t2;
      t2 = t;
    }
    if (t1 > tmin) {
      tmin = t1;
      axis = k;
    }
    if (t2 < tmax) tmax = t2;
    if (tmin > tmax) return false;
  }
  if (inside || axis < 0) {
    out[0] = 0;
    out[1] = -dx;
    out[2] = -dy;
    out[3] = -dz;
    return true;
  }
  n[0] = n[1] = n[2] = 0;
  n[axis] = d[axis] > 0 ? -1 : 1;
  rotateVec(n, 0, bodies.rot, q4, n, 0);
  out[0] = tmin;
  out[1] = n[0];
  out[2] = n[1];
  out[3] = n[2];
  return true;
}
