import type { BodyStore } from "../dynamics/body-store.ts";
import { type ManifoldOut, NORMAL_OF_NEITHER } from "./manifold.ts";

/** Sphere A against sphere B. Produces one point when the gap is at most `out.margin`. */
export function collideSpheres(out: ManifoldOut, bodies: BodyStore, a: number, b: number): void {
  out.count = 0;
  const margin = out.margin;
  const p = bodies.pos;
  const a3 = a * 3;
  const b3 = b * 3;
  const ra = bodies.half[a3];
  const rb = bodies.half[b3];
  const dx = p[b3] - p[a3];
  const dy = p[b3 + 1] - p[a3 + 1];
  const dz = p[b3 + 2] - p[a3 + 2];
  const d2 = dx * dx + dy * dy + dz * dz;
  const reach = ra + rb + margin;
  if (d2 > reach * reach) return;
  const dist = Math.sqrt(d2);
  let nx = 0;
  let ny = 1;
  let nz = 0;
  // Coincident centres have no direction; +y is an arbitrary but deterministic choice.
  if (dist > 1e-12) {
    nx = dx / dist;
    ny = dy / dist;
    nz = dz / dist;
  }
  out.normal[0] = nx;
  out.normal[1] = ny;
  out.normal[2] = nz;
  out.pointA[0] = p[a3] + nx * ra;
  out.pointA[1] = p[a3 + 1] + ny * ra;
  out.pointA[2] = p[a3 + 2] + nz * ra;
  out.pointB[0] = p[b3] - nx * rb;
  out.pointB[1] = p[b3 + 1] - ny * rb;
  out.pointB[2] = p[b3 + 2] - nz * rb;
  out.separation[0] = dist - ra - rb;
  out.id[0] = 0;
  out.count = 1;
  out.normalOwner = NORMAL_OF_NEITHER;
}
