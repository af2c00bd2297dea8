import type { BodyStore } from "../dynamics/body-store.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";
import { type ManifoldOut, NORMAL_OF_B, NORMAL_OF_NEITHER } from "./manifold.ts";

const local = new Float64Array(3);
const world = new Float64Array(3);

/**
 * Sphere (A) against box (B); the normal points from the sphere to the box. A centre inside the box is
 * pushed out through the nearest face with the true depth, radius + distance to that face (reporting
 * only the radius there would leave a deep sphere half inside).
 */
export function collideSphereBox(out: ManifoldOut, bodies: BodyStore, s: number, b: number): void {
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
