import type { BodyDef, QuatTuple, Vec3Tuple } from "../../engine/types.ts";

/**
 * Reference conventions shared by every built-in scene. The benchmark builds the same scenes in cannon-es
 * and Rapier from the exported JSON, whose defaults differ from ours, so material values are written
 * into every body instead of being left to BODY_DEFAULTS. Gravity is the engine default (0, -9.81, 0).
 */
export const REFERENCE_FRICTION = 0.5;
export const REFERENCE_RESTITUTION = 0;
export const REFERENCE_DENSITY = 1;
/** Half extents of a unit (1 m) box. */
export const UNIT_HALF_EXTENTS: Vec3Tuple = [0.5, 0.5, 0.5];

/** Static ground: a 200 x 1 x 200 m box whose top face is the plane y = 0. */
export function ground(): BodyDef {
  return {
    id: "ground",
    type: "static",
    shape: { type: "box", halfExtents: [100, 0.5, 100] },
    position: [0, -0.5, 0],
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  };
}

/** Static box with the reference material. */
export function staticBox(id: string, halfExtents: Vec3Tuple, position: Vec3Tuple, rotation?: QuatTuple): BodyDef {
  return {
    id,
    type: "static",
    shape: { type: "box", halfExtents: [...halfExtents] },
    position,
    ...(rotation ? { rotation } : {}),
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  };
}

/** Dynamic 1 m box, density 1 (1 kg), reference material. */
export function unitBox(id: string, position: Vec3Tuple, rotation?: QuatTuple): BodyDef {
  return {
    id,
    type: "dynamic",
    shape: { type: "box", halfExtents: [...UNIT_HALF_EXTENTS] },
    position,
    ...(rotation ? { rotation } : {}),
    density: REFERENCE_DENSITY,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  };
}

/** Dynamic sphere, density 1, reference material. */
export function ball(id: string, radius: number, position: Vec3Tuple): BodyDef {
  return {
    id,
    type: "dynamic",
    shape: { type: "sphere", radius },
    position,
    density: REFERENCE_DENSITY,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  };
}

/** Offset of cell `i` in a row of `count` cells `spacing` apart, centred on 0. */
export function centred(i: number, count: number, spacing: number): number {
  return (i - (count - 1) / 2) * spacing;
}
