import type { BodyDef, QuatTuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { createPrng, type Prng } from "../prng.ts";
import { builtinBounds, camera, centred, ground, unitBox } from "./common.ts";

const COUNT = 10;
const LOWEST_Y = 3;

/**
 * Ground plus 10 x 10 x 10 unit boxes on a grid `spacing` apart, centred on x = z = 0, lowest layer at
 * y = 3. Created (and rotations drawn) layer by layer from the bottom, then z, then x; ids
 * `b<x>_<y>_<z>` by grid index. Shared by pile1000 and heap1000.
 */
export function boxGrid(spacing: number, seed: number, rotation: (prng: Prng) => QuatTuple): BodyDef[] {
  const prng = createPrng(seed);
  const bodies = [ground()];
  for (let y = 0; y < COUNT; y++) {
    for (let z = 0; z < COUNT; z++) {
      for (let x = 0; x < COUNT; x++) {
        const position: [number, number, number] = [
          centred(x, COUNT, spacing),
          LOWEST_Y + y * spacing,
          centred(z, COUNT, spacing),
        ];
        bodies.push(unitBox(`b${x}_${y}_${z}`, position, rotation(prng)));
      }
    }
  }
  return bodies;
}

/**
 * 10 x 10 x 10 unit boxes, 1.5 m apart, each turned by a random angle about the vertical. Fully random
 * orientations would not fit: a tumbled unit box reaches 0.87 m from its centre, so neighbours 1.5 m
 * apart would start overlapping (296 pairs, up to 13 cm deep) and the pile would explode. A yaw keeps
 * every box within 0.71 m horizontally and 0.5 m vertically.
 */
export function pile1000(): Scenario {
  return {
    name: "pile1000",
    description:
      "A thousand unit boxes, each turned by a random yaw, dropped from a 10x10x10 grid 1.5 m apart; they land as 100 stacks of ten. The reference engines' benchmark scene (see heap1000 for a tumbling heap).",
    world: { sleep: false, bounds: builtinBounds() },
    bodies: boxGrid(1.5, 1000, (prng) => prng.yawQuaternion()),
    camera: camera([16, 18, 32], [0, 7, 0]),
    spawn: [0, 1, 11],
  };
}
