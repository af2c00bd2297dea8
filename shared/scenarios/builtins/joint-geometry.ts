import type { QuatTuple, Vec3Tuple } from "../../engine/types.ts";

/**
 * Small vector helpers for the jointed built-ins (bridge, chain, ragdolls, cart), from + - * / and
 * Math.sqrt only, so every JavaScript engine builds the same JSON. Results pass through `+ 0`, which
 * turns -0 into 0: JSON has no -0, so a scene holding one would not survive a round trip.
 */

export function add(a: Vec3Tuple, b: Vec3Tuple): Vec3Tuple {
  return [a[0] + b[0] + 0, a[1] + b[1] + 0, a[2] + b[2] + 0];
}

/** a + s·b. */
export function addScaled(a: Vec3Tuple, b: Vec3Tuple, s: number): Vec3Tuple {
  return [a[0] + s * b[0] + 0, a[1] + s * b[1] + 0, a[2] + s * b[2] + 0];
}

/** v / |v|. */
export function normalise(v: Vec3Tuple): Vec3Tuple {
  const length = Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return [v[0] / length + 0, v[1] / length + 0, v[2] / length + 0];
}

/**
 * The shortest rotation taking unit vector `from` to unit vector `to` (not opposite): the quaternion
 * (from × to, 1 + from·to), normalised. Its half angle comes out of the normalisation, no sin or cos.
 */
export function rotationBetween(from: Vec3Tuple, to: Vec3Tuple): QuatTuple {
  const x = from[1] * to[2] - from[2] * to[1];
  const y = from[2] * to[0] - from[0] * to[2];
  const z = from[0] * to[1] - from[1] * to[0];
  const w = 1 + from[0] * to[0] + from[1] * to[1] + from[2] * to[2];
  const length = Math.sqrt(x * x + y * y + z * z + w * w);
  return [x / length + 0, y / length + 0, z / length + 0, w / length + 0];
}

/** v rotated by unit quaternion q. */
export function rotate(q: QuatTuple, v: Vec3Tuple): Vec3Tuple {
  const [x, y, z, w] = q;
  // v' = v + 2w (u × v) + 2 u × (u × v), u = (x, y, z).
  const c1x = y * v[2] - z * v[1];
  const c1y = z * v[0] - x * v[2];
  const c1z = x * v[1] - y * v[0];
  const c2x = y * c1z - z * c1y;
  const c2y = z * c1x - x * c1z;
  const c2z = x * c1y - y * c1x;
  return [v[0] + 2 * (w * c1x + c2x) + 0, v[1] + 2 * (w * c1y + c2y) + 0, v[2] + 2 * (w * c1z + c2z) + 0];
}
