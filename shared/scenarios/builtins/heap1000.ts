import type { Scenario } from "../format.ts";
import { createPrng } from "../prng.ts";
import { centred, ground, unitBox } from "./common.ts";

const COUNT = 10;
const SPACING = 1.8;
const LOWEST_Y = 3;
const SEED = 1001;

/**
 * 10 x 10 x 10 unit boxes with fully random orientations, 1.8 m apart (a tumbled unit box reaches
 * 0.87 m from its centre, so none overlap at the start), dropped into a real heap: boxes land on
 * edges and corners, tumble and spread. Ids `b<x>_<y>_<z>` by grid index.
 */
export function heap1000(): Scenario {
  const prng = createPrng(SEED);
  const bodies = [ground()];
  for (let y = 0; y < COUNT; y++) {
    for (let z = 0; z < COUNT; z++) {
      for (let x = 0; x < COUNT; x++) {
        const position: [number, number, number] = [
          centred(x, COUNT, SPACING),
          LOWEST_Y + y * SPACING,
          centred(z, COUNT, SPACING),
        ];
        bodies.push(unitBox(`b${x}_${y}_${z}`, position, prng.unitQuaternion()));
      }
    }
  }
  return {
    name: "heap1000",
    description:
      "A thousand randomly tumbled unit boxes dropped from a 10x10x10 grid 1.8 m apart into a heap that spreads over the ground; the hardest broad/narrow-phase and solver workload of the built-ins.",
    world: { sleep: false },
    bodies,
  };
}
