import type { Scenario } from "../format.ts";
import { createPrng } from "../prng.ts";
import { centred, ground, unitBox } from "./common.ts";

const COUNT = 10;
const SPACING = 1.5;
const LOWEST_Y = 3;
const SEED = 1000;

/**
 * 10 x 10 x 10 unit boxes, 1.5 m apart, each with a random orientation. Created (and rotations drawn)
 * layer by layer from the bottom, then z, then x; ids `b<x>_<y>_<z>` by grid index.
 */
export function pile1000(): Scenario {
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
    name: "pile1000",
    description: "A thousand randomly oriented unit boxes dropped from a 10x10x10 grid into a heap; a broad- and narrow-phase stress test.",
    world: { sleep: false },
    bodies,
  };
}
