import type { BodyDef, QuatTuple, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { createPrng, type Prng } from "../prng.ts";
import { ball, builtinBounds, camera, ground, staticBox, unitBox } from "./common.ts";

const SEED = 200;
/** Inner half width of the walled square, metres (a 40 x 40 m floor). */
const HALF_WIDTH = 20;
const WALL_HALF_THICKNESS = 0.5;
const WALL_HALF_HEIGHT = 1;
const BOXES = 150;
const BALLS = 50;
/**
 * Bodies sit in 2 m cells whose centres run from -18 to 18 (19 x 19 cells), jittered by at most 0.25 m.
 * Centres are then at least 1.5 m apart while a yawed unit box reaches at most √0.5 ≈ 0.71 m from its
 * centre, so nothing overlaps, and everything stays more than 1 m inside the walls.
 */
const CELL = 2;
const CELLS_PER_SIDE = 19;
const JITTER = 0.25;

/** Rotation about +y by a uniformly random angle, from a point sampled in the unit disc (no sin/cos). */
function randomYaw(prng: Prng): QuatTuple {
  for (;;) {
    const s = prng.range(-1, 1);
    const c = prng.range(-1, 1);
    const lengthSq = s * s + c * c;
    if (lengthSq > 1 || lengthSq < 1e-4) continue;
    const length = Math.sqrt(lengthSq);
    return [0, s / length, 0, c / length];
  }
}

function walls(): BodyDef[] {
  const offset = HALF_WIDTH + WALL_HALF_THICKNESS;
  const outer = HALF_WIDTH + 2 * WALL_HALF_THICKNESS;
  // North/south walls span the full outer width, east/west fit between them: no overlapping corners.
  const ns: Vec3Tuple = [outer, WALL_HALF_HEIGHT, WALL_HALF_THICKNESS];
  const ew: Vec3Tuple = [WALL_HALF_THICKNESS, WALL_HALF_HEIGHT, HALF_WIDTH];
  return [
    staticBox("wall-north", ns, [0, WALL_HALF_HEIGHT, -offset]),
    staticBox("wall-south", ns, [0, WALL_HALF_HEIGHT, offset]),
    staticBox("wall-east", ew, [offset, WALL_HALF_HEIGHT, 0]),
    staticBox("wall-west", ew, [-offset, WALL_HALF_HEIGHT, 0]),
  ];
}

/**
 * A 40 x 40 m walled floor with 150 unit boxes (ids `box<n>`, random yaw) and 50 spheres of radius 0.5
 * (ids `ball<n>`) resting on it. Cells are picked by a seeded Fisher-Yates shuffle; boxes take the first
 * 150 picks, spheres the next 50.
 */
export function arena(): Scenario {
  const prng = createPrng(SEED);
  const cells: number[] = [];
  for (let i = 0; i < CELLS_PER_SIDE * CELLS_PER_SIDE; i++) cells.push(i);
  for (let i = cells.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    [cells[i], cells[j]] = [cells[j], cells[i]];
  }
  const spot = (cell: number): [number, number] => {
    const first = -(CELLS_PER_SIDE - 1) / 2;
    const x = (first + (cell % CELLS_PER_SIDE)) * CELL + prng.range(-JITTER, JITTER);
    const z = (first + Math.floor(cell / CELLS_PER_SIDE)) * CELL + prng.range(-JITTER, JITTER);
    return [x, z];
  };
  const bodies: BodyDef[] = [ground(), ...walls()];
  for (let n = 0; n < BOXES; n++) {
    const [x, z] = spot(cells[n]);
    bodies.push(unitBox(`box${n}`, [x, 0.5, z], randomYaw(prng)));
  }
  for (let n = 0; n < BALLS; n++) {
    const [x, z] = spot(cells[BOXES + n]);
    bodies.push(ball(`ball${n}`, 0.5, [x, 0.5, z]));
  }
  return {
    name: "arena",
    description: "A 40x40 m walled arena with 150 boxes and 50 balls resting on the floor at seeded positions: the default room for players to push things around.",
    world: { bounds: builtinBounds() },
    bodies,
    camera: camera([0, 26, 44], [0, 0, 2]),
    spawn: [0, 1, 19],
  };
}
