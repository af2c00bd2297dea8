import type { BodyDef, QuatTuple, Vec3Tuple, WorldBounds } from "../../engine/types.ts";
import type { ScenarioCamera } from "../format.ts";

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

/**
 * `world.bounds` of every built-in scene: the engine removes a body whose centre leaves this box (rooms
 * count it in `removedBodies`), so nothing thrown away keeps costing the room. Far outside anything a
 * normal run reaches: 5x the ground's half width (100 m) to the sides; 100 m below it, under the room's
 * avatar respawn height (-50 m), so avatars are put back before the engine would remove them; 500 m up,
 * well over the avatar spawn probe (100 m) and the 167 m apex of the largest impulse a player may give
 * the lightest arena body. failure-lab's bullet, tunnelling at 300 m/s without CCD, stays inside for 1.6 s.
 */
export function builtinBounds(): WorldBounds {
  return { min: [-500, -100, -500], max: [500, 500, 500] };
}

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

/**
 * A scene's camera hint. Each built-in's is chosen so that, from its spawn point, the avatar and the
 * scene's bodies are in view of a 16:10 window and the avatar's forward (W) walks toward the action.
 */
export function camera(position: Vec3Tuple, target: Vec3Tuple): ScenarioCamera {
  return { position, target };
}

/** Offset of cell `i` in a row of `count` cells `spacing` apart, centred on 0. */
export function centred(i: number, count: number, spacing: number): number {
  return (i - (count - 1) / 2) * spacing;
}
