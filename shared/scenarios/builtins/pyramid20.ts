import type { Scenario } from "../format.ts";
import { builtinBounds, camera, centred, ground, unitBox } from "./common.ts";

const BASE = 20;

/** 2D pyramid in the x-y plane: row r has BASE - r unit boxes, ids `p<r>_<i>`, 210 boxes in all. */
export function pyramid20(): Scenario {
  const bodies = [ground()];
  for (let r = 0; r < BASE; r++) {
    const count = BASE - r;
    for (let i = 0; i < count; i++) bodies.push(unitBox(`p${r}_${i}`, [centred(i, count, 1), 0.5 + r, 0]));
  }
  return {
    name: "pyramid20",
    description: "A 20-box-wide pyramid of 210 touching unit boxes in one plane; it should stand without sliding apart.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies,
    camera: camera([0, 11, 34], [0, 9, 0]),
    spawn: [0, 1, 4],
  };
}
