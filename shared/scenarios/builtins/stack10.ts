import type { Scenario } from "../format.ts";
import { builtinBounds, camera, ground, unitBox } from "./common.ts";

/** Ten unit boxes stacked exactly touching: box0 on the ground, box9 on top. */
export function stack10(): Scenario {
  const bodies = [ground()];
  for (let i = 0; i < 10; i++) bodies.push(unitBox(`box${i}`, [0, 0.5 + i, 0]));
  return {
    name: "stack10",
    description: "A column of ten unit boxes resting exactly on top of each other; it should stand still without jitter or drift.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies,
    camera: camera([6, 6, 16], [0, 4.5, 0]),
    spawn: [0, 1, 3],
  };
}
