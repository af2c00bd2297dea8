/*
 * The order the contact passes visit the constraints in: slots of one or two constraints, where the two
 * of a slot share no body the solver moves, so the pair kernel (contact-pair.ts) can solve them side by
 * side in the two lanes of f64x2 instructions.
 *
 * Why the result is the serial pass's, bit for bit: a Gauss-Seidel pass over constraints in index order
 * gives the same numbers in any order that keeps, for every body the solver moves, the order of that
 * body's constraints (a constraint reads and writes only its two bodies' velocities, and only moved
 * bodies are written). A later constraint j is pulled forward to pair with i only if it shares no moved
 * body with i or with any constraint still waiting between them; so every body's constraints keep their
 * order. Static, kinematic and sleeping partners (inverse mass 0) are read, never written, and do not
 * order anything: every box of a pile shares the ground.
 *
 * Only constraints of two or more points are paired (a single point is faster alone, see `schedule`).
 * The search looks a few constraints ahead (WINDOW): in the box scenes of the bench 93-100 % of the
 * constraints pair within 4 (pyramid20 is the lowest: a 20-high pyramid's neighbours share bodies).
 */
import { SM } from "../../dynamics/constraint-layout";
import { LI, SI } from "./memory";

/** How many waiting constraints the search for a partner looks at. */
const WINDOW = 8;

// @ts-ignore: decorator
@inline function moved(massP: usize, body: i32): bool {
  return load<f64>(massP + ((<usize>body * SM) << 3)) !== 0;
}

/** Whether j moves a body that k touches (a body k touches and j moves is a moved body). */
// @ts-ignore: decorator
@inline function clash(intsP: usize, massP: usize, j: i32, k: i32): bool {
  const ja = LI(intsP, j * 4);
  const jb = LI(intsP, j * 4 + 1);
  const ka = LI(intsP, k * 4);
  const kb = LI(intsP, k * 4 + 1);
  return (moved(massP, ja) && (ja === ka || ja === kb)) || (moved(massP, jb) && (jb === ka || jb === kb));
}

/**
 * Writes the slots for `count` constraints (body indices at intsP, 4 ints each) to schedP, two ints
 * each (the second -1 for a single), and returns how many. takenP: `count` bytes of scratch.
 */
export function schedule(intsP: usize, massP: usize, count: i32, schedP: usize, takenP: usize): i32 {
  memory.fill(takenP, 0, <usize>count);
  let slots = 0;
  for (let i = 0; i < count; i++) {
    if (load<u8>(takenP + <usize>i) !== 0) continue;
    let partner = -1;
    let seen = 0;
    // A single point (spheres, capsule ends) solves faster alone: its rows are few, and the lanes'
    // loads cost the same as two serial ones.
    const single = LI(intsP, i * 4 + 2) < 2;
    for (let j = i + 1; !single && j < count && seen < WINDOW; j++) {
      if (load<u8>(takenP + <usize>j) !== 0) continue;
      seen++;
      if (LI(intsP, j * 4 + 2) < 2) continue;
      // j may go now if it clashes with neither i nor a constraint still waiting between them.
      let free = !clash(intsP, massP, j, i);
      for (let k = i + 1; free && k < j; k++) {
        if (load<u8>(takenP + <usize>k) === 0 && clash(intsP, massP, j, k)) free = false;
      }
      if (free) {
        partner = j;
        store<u8>(takenP + <usize>j, 1);
        break;
      }
    }
    SI(schedP, slots * 2, i);
    SI(schedP, slots * 2 + 1, partner);
    slots++;
  }
  return slots;
}
