import type { Scenario } from "../format.ts";
import { builtinBounds, camera, REFERENCE_DENSITY, REFERENCE_FRICTION, REFERENCE_RESTITUTION, staticBox } from "./common.ts";

/** The tunnelling case: a 0.1 m sphere at 300 m/s (5 m per 60 Hz tick) toward a 0.1 m thick wall. */
export const BULLET_RADIUS = 0.1;
export const BULLET_SPEED = 300;
export const WALL_HALF_THICKNESS = 0.05;
/** Gap between the bullet's surface and the wall's near face, metres. */
export const WALL_GAP = 7.5;
/**
 * A 4 x 3 m platform for the players to stand on (the scene has no ground), its top at y = 0, beside the
 * line of fire (y = 1, z = 0) and 2.5 m clear of it, so it never touches the experiment.
 */
export const PLATFORM_HALF_EXTENTS: [number, number, number] = [2, 0.25, 1.5];
export const PLATFORM_POSITION: [number, number, number] = [3.8, -0.25, 4];

export function failureLab(): Scenario {
  return {
    name: "failure-lab",
    description:
      "A 0.1 m sphere fired at 300 m/s at a 0.1 m thick wall 7.5 m away, far more than the wall's thickness per tick; without CCD it tunnels through, with CCD it stops at the wall. Players watch from a platform beside it and restart it at will.",
    world: { gravity: [0, 0, 0], sleep: false, ccd: true, bounds: builtinBounds() },
    bodies: [
      {
        id: "bullet",
        type: "dynamic",
        shape: { type: "sphere", radius: BULLET_RADIUS },
        position: [0, 1, 0],
        linearVelocity: [BULLET_SPEED, 0, 0],
        density: REFERENCE_DENSITY,
        friction: REFERENCE_FRICTION,
        restitution: REFERENCE_RESTITUTION,
      },
      // Centre x = radius + gap + half thickness = 0.1 + 7.5 + 0.05.
      staticBox("wall", [WALL_HALF_THICKNESS, 1, 1], [7.65, 1, 0]),
      staticBox("platform", PLATFORM_HALF_EXTENTS, PLATFORM_POSITION),
    ],
    camera: camera([3.8, 4, 13], [3.8, 0.5, 0]),
    spawn: [3.8, 1, 4],
  };
}
