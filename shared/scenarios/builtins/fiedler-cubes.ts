import type { Scenario } from "../format.ts";
import { builtinBounds, camera, centred, ground, unitBox } from "./common.ts";

const GRID = 30;
const SPACING = 1.5;

/**
 * The cube field of Glenn Fiedler's "Snapshot Compression" (Gaffer On Games): 30 x 30 unit boxes resting
 * on the ground with 0.5 m gaps, ids `c<i>_<j>` (i along x, j along z). The server adds the player's avatar.
 */
export function fiedlerCubes(): Scenario {
  const bodies = [ground()];
  for (let i = 0; i < GRID; i++) {
    for (let j = 0; j < GRID; j++) {
      bodies.push(unitBox(`c${i}_${j}`, [centred(i, GRID, SPACING), 0.5, centred(j, GRID, SPACING)]));
    }
  }
  return {
    name: "fiedler-cubes",
    description: "Glenn Fiedler's snapshot-compression scene: 900 cubes resting on the ground in a 30x30 grid, mostly asleep until something pushes them.",
    world: { bounds: builtinBounds() },
    bodies,
    // From behind the avatar, which stands just off the field's +z edge: W walks into the cubes.
    camera: camera([0, 30, 50], [0, 0, 2]),
    spawn: [0, 1, 24],
  };
}
