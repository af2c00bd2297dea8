import type { Vec3Tuple, World } from "../engine/index.ts";

/** An impulse's point must lie within the body's bounding radius plus this, metres. */
export const IMPULSE_POINT_SLACK = 0.5;

/** True if `point` lies within the body's bounding radius plus the message slack. */
export function pointNearBody(world: World, handle: number, point: readonly number[]): boolean {
  if (!world.has(handle)) return false;
  const p = world.getPosition(handle, nearScratch);
  const dx = point[0] - p[0];
  const dy = point[1] - p[1];
  const dz = point[2] - p[2];
  const r = world.getBoundingRadius(handle) + IMPULSE_POINT_SLACK;
  return dx * dx + dy * dy + dz * dz <= r * r;
}

const nearScratch: Vec3Tuple = [0, 0, 0];

