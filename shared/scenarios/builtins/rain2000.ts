import type { Scenario } from "../format.ts";
import { ball, builtinBounds, camera, centred, ground } from "./common.ts";

const COUNTS = [20, 5, 20] as const;
const SPACING = 1.2;
const LOWEST_Y = 2;

/** 2000 spheres of radius 0.5 in a 20 x 5 x 20 grid, created by y, then z, then x; ids `s<x>_<y>_<z>`. */
export function rain2000(): Scenario {
  const bodies = [ground()];
  for (let y = 0; y < COUNTS[1]; y++) {
    for (let z = 0; z < COUNTS[2]; z++) {
      for (let x = 0; x < COUNTS[0]; x++) {
        const position: [number, number, number] = [
          centred(x, COUNTS[0], SPACING),
          LOWEST_Y + y * SPACING,
          centred(z, COUNTS[2], SPACING),
        ];
        bodies.push(ball(`s${x}_${y}_${z}`, 0.5, position));
      }
    }
  }
  return {
    name: "rain2000",
    description: "Two thousand spheres fall from a grid onto the ground and spread out; tests many simultaneous sphere contacts.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies,
    camera: camera([0, 22, 36], [0, 2, 0]),
    spawn: [0, 1, 15],
  };
}
