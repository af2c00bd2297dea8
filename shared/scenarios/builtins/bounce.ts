import type { Scenario } from "../format.ts";
import { ball, builtinBounds, camera, ground } from "./common.ts";

/** Spheres with restitution 0, 0.5 and 0.9 dropped side by side; combined restitution is max(e, 0) = e. */
export function bounce(): Scenario {
  const drops: [id: string, x: number, restitution: number][] = [
    ["e0", -2, 0],
    ["e05", 0, 0.5],
    ["e09", 2, 0.9],
  ];
  const bodies = [ground()];
  for (const [id, x, restitution] of drops) bodies.push({ ...ball(id, 0.5, [x, 5, 0]), restitution });
  return {
    name: "bounce",
    description: "Three spheres with restitution 0, 0.5 and 0.9 dropped from 5 m; each rebound peak should be about e squared times the previous drop height.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies,
    camera: camera([0, 4, 11], [0, 2.5, 0]),
    spawn: [0, 1, 4],
  };
}
