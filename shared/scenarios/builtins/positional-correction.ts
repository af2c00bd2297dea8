import type { Scenario } from "../format.ts";
import { builtinBounds, camera, REFERENCE_FRICTION, REFERENCE_RESTITUTION } from "./common.ts";

/**
 * The positional-correction case: two 1 kg spheres of radius 1 overlapping by 0.5 m in zero gravity,
 * separated only by the projection pass (slop 0.05, percent 0.4, one pass per tick), so each tick's push
 * can be checked by hand.
 */
export function positionalCorrection(): Scenario {
  const sphere = (id: string, x: number) => ({
    id,
    type: "dynamic" as const,
    shape: { type: "sphere" as const, radius: 1 },
    position: [x, 0, 0] as [number, number, number],
    mass: 1,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  });
  return {
    name: "positional-correction",
    description: "Two overlapping spheres in zero gravity pushed apart by projection-style positional correction (slop 0.05, 40 % per pass); the overlap shrinks by a fixed fraction each tick.",
    world: {
      gravity: [0, 0, 0],
      velocityIterations: 1,
      positionCorrection: { method: "projection", slop: 0.05, percent: 0.4, iterations: 1 },
      sleep: false,
      bounds: builtinBounds(),
    },
    bodies: [sphere("a", 0), sphere("b", 1.5)],
    // Zero gravity and nothing static: the avatar floats beside the spheres, at their height.
    camera: camera([0.75, 2.5, 11], [0.75, 0, 0]),
    spawn: [0.75, 0, 4],
  };
}
