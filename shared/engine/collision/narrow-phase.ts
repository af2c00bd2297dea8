import { type BodyStore, SPHERE } from "../dynamics/body-store.ts";
import { collideBoxes } from "./box-box.ts";
import type { ManifoldOut } from "./manifold.ts";
import { collideSphereBox } from "./sphere-box.ts";
import { collideSpheres } from "./sphere-sphere.ts";

/** Contact manifold between bodies a and b (normal from a to b) for gaps up to `out.margin`. */
export function collidePair(out: ManifoldOut, bodies: BodyStore, a: number, b: number): void {
  const sa = bodies.shape[a];
  const sb = bodies.shape[b];
  if (sa === SPHERE) {
    if (sb === SPHERE) collideSpheres(out, bodies, a, b);
    // out.motion is B's relative to A: here the box's relative to the sphere (sign -1).
    else collideSphereBox(out, bodies, a, b, -1);
  } else if (sb === SPHERE) {
    collideSphereBox(out, bodies, b, a, 1);
    out.flip();
  } else {
    collideBoxes(out, bodies, a, b);
  }
}
