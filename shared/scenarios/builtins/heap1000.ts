import type { Scenario } from "../format.ts";
import { builtinBounds, camera } from "./common.ts";
import { boxGrid } from "./pile1000.ts";

/**
 * 10 x 10 x 10 unit boxes with fully random orientations, 1.8 m apart (a tumbled unit box reaches
 * 0.87 m from its centre, so none overlap at the start), dropped into a real heap: boxes land on
 * edges and corners, tumble and spread. Ids `b<x>_<y>_<z>` by grid index.
 */
export function heap1000(): Scenario {
  return {
    name: "heap1000",
    description:
      "A thousand randomly tumbled unit boxes dropped from a 10x10x10 grid 1.8 m apart into a heap that spreads over the ground; the hardest broad/narrow-phase and solver workload of the built-ins.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies: boxGrid(1.8, 1001, (prng) => prng.unitQuaternion()),
    camera: camera([18, 20, 38], [0, 8, 0]),
    spawn: [0, 1, 13],
  };
}
