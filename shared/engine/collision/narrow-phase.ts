import { BOX, type BodyStore, SPHERE } from "../dynamics/body-store.ts";
import { collideBoxes } from "./box-box.ts";
import { collideConvexOwned } from "./convex/collide-convex.ts";
import { ConvexProxy } from "./convex/proxy.ts";
import type { ManifoldOut } from "./manifold.ts";
import { bodyProxy } from "./pieces.ts";
import { collideSphereBox } from "./sphere-box.ts";
import { collideSpheres } from "./sphere-sphere.ts";

const proxyA = new ConvexProxy();
const proxyB = new ConvexProxy();

/**
 * Contact manifold between bodies a and b (normal from a to b) for gaps up to `out.margin`, for pairs of
 * convex shapes (compounds, meshes and height fields go piece by piece: pieces.ts). Spheres and boxes
 * keep their dedicated routines; every other convex pair goes through the general convex routine.
 */
export function collidePair(out: ManifoldOut, bodies: BodyStore, a: number, b: number): void {
  const sa = bodies.shape[a];
  const sb = bodies.shape[b];
  if (sa === SPHERE && sb === SPHERE) collideSpheres(out, bodies, a, b);
  // out.motion is B's relative to A: here the box's relative to the sphere (sign -1).
  else if (sa === SPHERE && sb === BOX) collideSphereBox(out, bodies, a, b, -1);
  else if (sa === BOX && sb === SPHERE) {
    collideSphereBox(out, bodies, b, a, 1);
    out.flip();
  } else if (sa === BOX && sb === BOX) collideBoxes(out, bodies, a, b);
  else collideGeneral(out, bodies, a, b);
}

/** Any other convex pair (capsules, cylinders, hulls) through the general convex routine. */
function collideGeneral(out: ManifoldOut, bodies: BodyStore, a: number, b: number): void {
  bodyProxy(proxyA, bodies, a);
  bodyProxy(proxyB, bodies, b);
  collideConvexOwned(out, proxyA, proxyB);
}
