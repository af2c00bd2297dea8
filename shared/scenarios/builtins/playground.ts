import type { BodyDef, CompoundShapeDef, HeightfieldShapeDef, MeshShapeDef, QuatTuple, ShapeDef, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { createPrng, type Prng } from "../prng.ts";
import { builtinBounds, camera, ground, REFERENCE_DENSITY, REFERENCE_FRICTION, REFERENCE_RESTITUTION } from "./common.ts";

const SEED = 31;

/**
 * The terrain: a 40 x 40 m height field of 33 x 33 samples (1.25 m apart) centred on the origin. Its
 * surface (metres above y = 0) is a base that falls gently east (TILT) to x = 13.5, a hill west of the
 * centre, a valley along z = 0 whose sides (8 m high at the edges) lead rolling bodies to the middle, a
 * basin at x = 12 that catches them, and a rim rising east of the basin. Piecewise polynomials only (no
 * sin/cos), so every engine computes the same bits.
 */
export const TERRAIN_SIZE = 40;
export const TERRAIN_SAMPLES = 33;
const BASE = 1.5;
const HILL_X = -8;
const HILL_RADIUS_SQ = 144;
const HILL_HEIGHT = 6;
const VALLEY = 0.02;
export const BASIN_X = 12;
const BASIN_RADIUS_SQ = 25;
const BASIN_DEPTH = 1.2;
const RIM_X = 13.5;
const RIM = 0.08;
const TILT = 0.12;

/** (1 - u)² for u < 1, else 0: a bump with zero slope at its edge (u is the squared distance over the squared radius). */
function bump(u: number): number {
  return u < 1 ? (1 - u) * (1 - u) : 0;
}

/** Terrain height at (x, z), metres above y = 0. */
export function terrainHeight(x: number, z: number): number {
  const hx = x - HILL_X;
  const bx = x - BASIN_X;
  const rim = x > RIM_X ? RIM * (x - RIM_X) * (x - RIM_X) : 0;
  const tilt = x < RIM_X ? TILT * (RIM_X - x) : 0;
  return (
    BASE +
    tilt +
    HILL_HEIGHT * bump((hx * hx + z * z) / HILL_RADIUS_SQ) +
    VALLEY * z * z -
    BASIN_DEPTH * bump((bx * bx + z * z) / BASIN_RADIUS_SQ) +
    rim
  );
}

function terrain(): HeightfieldShapeDef {
  const n = TERRAIN_SAMPLES;
  const spacing = TERRAIN_SIZE / (n - 1);
  const heights: number[] = [];
  // Row-major, rows along z and columns along x, the first sample at (-20, -20).
  for (let r = 0; r < n; r++) {
    for (let c = 0; c < n; c++) heights.push(terrainHeight(-TERRAIN_SIZE / 2 + c * spacing, -TERRAIN_SIZE / 2 + r * spacing));
  }
  return { type: "heightfield", heights, rows: n, cols: n, size: [TERRAIN_SIZE, TERRAIN_SIZE] };
}

/**
 * The ramp: a closed 8 x 2 m wedge on the valley's north side, as a triangle mesh (counter-clockwise seen
 * from outside), in the frame of a body at RAMP_POSITION (y = 0, so vertex heights are world heights). Its
 * top falls 2.5 m toward +x and ends 0.1 m above the terrain at the low end's outer (z = -12) corner; its
 * bottom is buried 0.5 m under the terrain's lowest point beneath it (x = 6, z = -10: the terrain falls
 * toward +x and toward the valley).
 */
export const RAMP_POSITION: Vec3Tuple = [2, 0, -11];
const RAMP_HALF_LENGTH = 4;
const RAMP_HALF_WIDTH = 1;
const RAMP_LOW = cm(terrainHeight(RAMP_POSITION[0] + RAMP_HALF_LENGTH, RAMP_POSITION[2] - RAMP_HALF_WIDTH) + 0.1);
const RAMP_HIGH = cm(RAMP_LOW + 2.5);
const RAMP_BOTTOM = cm(terrainHeight(RAMP_POSITION[0] + RAMP_HALF_LENGTH, RAMP_POSITION[2] + RAMP_HALF_WIDTH) - 0.5);

/** Rounded to centimetres: short, exact JSON. */
function cm(v: number): number {
  return Math.round(v * 100) / 100;
}

function ramp(): MeshShapeDef {
  const [h, l, b] = [RAMP_HIGH, RAMP_LOW, RAMP_BOTTOM];
  const [x, z] = [RAMP_HALF_LENGTH, RAMP_HALF_WIDTH];
  return {
    type: "mesh",
    vertices: [
      [-x, b, -z],
      [x, b, -z],
      [x, b, z],
      [-x, b, z],
      [-x, h, -z],
      [x, l, -z],
      [x, l, z],
      [-x, h, z],
    ],
    indices: [
      [0, 1, 2],
      [0, 2, 3], // bottom
      [4, 7, 6],
      [4, 6, 5], // sloped top
      [0, 4, 5],
      [0, 5, 1], // -z side
      [3, 2, 6],
      [3, 6, 7], // +z side
      [0, 3, 7],
      [0, 7, 4], // high end
      [1, 5, 6],
      [1, 6, 2], // low end
    ],
  };
}

/** Top of the ramp at local x (-4..4), metres. */
function rampTop(localX: number): number {
  return RAMP_HIGH + ((localX + RAMP_HALF_LENGTH) / (2 * RAMP_HALF_LENGTH)) * (RAMP_LOW - RAMP_HIGH);
}

/**
 * The catch area: a sensor box over the basin (whose bottom is 0.3 m up), from 0.2 m to 2.2 m; the HUD
 * counts the bodies inside it.
 */
export const ZONE_HALF_EXTENTS: Vec3Tuple = [4, 1, 4];
export const ZONE_POSITION: Vec3Tuple = [BASIN_X, 1.2, 0];

/** A quarter turn about z: a child's local y axis (capsule, cylinder) along x. */
const Y_TO_X: QuatTuple = [0, 0, Math.SQRT1_2, Math.SQRT1_2];
/** A quarter turn about x: a lying cylinder whose axis runs along z, so it rolls along x. */
const Y_TO_Z: QuatTuple = [Math.SQRT1_2, 0, 0, Math.SQRT1_2];

const TETRAHEDRON: Vec3Tuple[] = [
  [0.6, 0.6, 0.6],
  [0.6, -0.6, -0.6],
  [-0.6, 0.6, -0.6],
  [-0.6, -0.6, 0.6],
];
const OCTAHEDRON: Vec3Tuple[] = [
  [0.7, 0, 0],
  [-0.7, 0, 0],
  [0, 0.7, 0],
  [0, -0.7, 0],
  [0, 0, 0.7],
  [0, 0, -0.7],
];
const ROCK_POINTS = 12;

/** A rock: 12 points in random directions at 0.45..0.7 m, rounded to millimetres (short JSON, exact round trip). */
function rock(prng: Prng): Vec3Tuple[] {
  const points: Vec3Tuple[] = [];
  while (points.length < ROCK_POINTS) {
    const x = prng.range(-1, 1);
    const y = prng.range(-1, 1);
    const z = prng.range(-1, 1);
    const lengthSq = x * x + y * y + z * z;
    if (lengthSq > 1 || lengthSq < 0.04) continue;
    const scale = prng.range(0.45, 0.7) / Math.sqrt(lengthSq);
    points.push([mm(x * scale), mm(y * scale), mm(z * scale)]);
  }
  return points;
}

function mm(v: number): number {
  return Math.round(v * 1000) / 1000;
}

/** Two 0.3 m balls on a 0.9 m bar along x. */
function dumbbell(): CompoundShapeDef {
  return {
    type: "compound",
    children: [
      { shape: { type: "sphere", radius: 0.3 }, position: [-0.6, 0, 0] },
      { shape: { type: "sphere", radius: 0.3 }, position: [0.6, 0, 0] },
      { shape: { type: "cylinder", radius: 0.1, halfHeight: 0.45 }, rotation: Y_TO_X },
    ],
  };
}

/** A falling body's shape and the radius of a sphere about its origin that holds it. */
interface Piece {
  kind: string;
  shape: ShapeDef;
  reach: number;
}

function pieces(prng: Prng): Piece[] {
  const out: Piece[] = [];
  for (let i = 0; i < 6; i++) {
    const radius = 0.25 + 0.05 * (i % 3);
    const halfHeight = 0.3 + 0.1 * (i % 2);
    out.push({ kind: "capsule", shape: { type: "capsule", radius, halfHeight }, reach: radius + halfHeight });
  }
  for (let i = 0; i < 4; i++) {
    const radius = 0.4 + 0.1 * (i % 2);
    out.push({ kind: "cylinder", shape: { type: "cylinder", radius, halfHeight: 0.3 }, reach: Math.sqrt(radius * radius + 0.09) });
  }
  out.push({ kind: "tetra", shape: { type: "hull", points: TETRAHEDRON.map((p) => [...p] as Vec3Tuple) }, reach: 0.6 * Math.sqrt(3) });
  out.push({ kind: "octa", shape: { type: "hull", points: OCTAHEDRON.map((p) => [...p] as Vec3Tuple) }, reach: 0.7 });
  for (let i = 0; i < 6; i++) out.push({ kind: "rock", shape: { type: "hull", points: rock(prng) }, reach: 0.71 });
  for (let i = 0; i < 4; i++) out.push({ kind: "dumbbell", shape: dumbbell(), reach: 0.9 });
  for (let i = 0; i < 2; i++) out.push({ kind: "ball", shape: { type: "sphere", radius: 0.4 }, reach: 0.4 });
  return out;
}

function dynamicBody(id: string, shape: ShapeDef, position: Vec3Tuple, rotation?: QuatTuple): BodyDef {
  return {
    id,
    type: "dynamic",
    shape,
    position,
    ...(rotation ? { rotation } : {}),
    density: REFERENCE_DENSITY,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
    angularDamping: ROLLING_DAMPING,
  };
}

function level(id: string, shape: ShapeDef, position: Vec3Tuple, sensor = false): BodyDef {
  return {
    id,
    type: "static",
    shape,
    position,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
    ...(sensor ? { sensor } : {}),
  };
}

/**
 * Angular damping of the falling bodies, 1/s: a stand-in for rolling resistance. Without it capsules,
 * wheels and dumbbells rock back and forth across the valley for minutes instead of settling.
 */
const ROLLING_DAMPING = 0.3;

/**
 * Start spots of the falling bodies: a 4 x 6 grid, 3 m apart, on the hill's eastern flank (x -6..3, z
 * -7.5..7.5), so most roll east down the valley into the basin. A body's reach is at most 1.04 m, so
 * bodies 3 m apart cannot touch; each starts its reach plus 1 m above the terrain under its centre (the
 * terrain's slope there is below 0.9, so it rises less than 1 m within any body's reach).
 */
const GRID_X = [-6, -3, 0, 3];
const GRID_Z = [-7.5, -4.5, -1.5, 1.5, 4.5, 7.5];
const CLEARANCE = 1;

/**
 * A 40 x 40 m height field hill, a mesh ramp, and capsules, cylinders, hulls (a tetrahedron, an
 * octahedron, six rocks), compound dumbbells and two balls tumbling down into a basin watched by the
 * `zone` sensor. Bodies are dealt to the grid spots by a seeded Fisher-Yates shuffle, each turned by a
 * seeded random rotation; two cylinders roll down the ramp.
 */
export function playground(): Scenario {
  const prng = createPrng(SEED);
  const list = pieces(prng);
  const spots: number[] = [];
  for (let i = 0; i < GRID_X.length * GRID_Z.length; i++) spots.push(i);
  for (let i = spots.length - 1; i > 0; i--) {
    const j = prng.int(i + 1);
    [spots[i], spots[j]] = [spots[j], spots[i]];
  }
  const bodies: BodyDef[] = [
    ground(),
    level("hill", terrain(), [0, 0, 0]),
    level("ramp", ramp(), [...RAMP_POSITION] as Vec3Tuple),
    level("zone", { type: "box", halfExtents: [...ZONE_HALF_EXTENTS] as Vec3Tuple }, [...ZONE_POSITION] as Vec3Tuple, true),
  ];
  const counts: Record<string, number> = {};
  list.forEach((piece, n) => {
    const spot = spots[n];
    const x = GRID_X[spot % GRID_X.length];
    const z = GRID_Z[Math.floor(spot / GRID_X.length)];
    const y = terrainHeight(x, z) + piece.reach + CLEARANCE;
    const index = counts[piece.kind] ?? 0;
    counts[piece.kind] = index + 1;
    bodies.push(dynamicBody(`${piece.kind}${index}`, piece.shape, [x, y, z], prng.unitQuaternion()));
  });
  // Two wheels on the ramp, axes across it: they roll down toward +x.
  for (const [i, localX] of [-3, 0].entries()) {
    const radius = 0.45;
    const position: Vec3Tuple = [RAMP_POSITION[0] + localX, rampTop(localX) + radius + 0.05, RAMP_POSITION[2]];
    bodies.push(dynamicBody(`wheel${i}`, { type: "cylinder", radius, halfHeight: 0.25 }, position, [...Y_TO_Z] as QuatTuple));
  }
  return {
    name: "playground",
    description:
      "Every shape at once: capsules, cylinders, convex hulls, compound dumbbells and balls tumble down a height field hill and a mesh ramp into a basin; a sensor zone counts what lands there.",
    world: { bounds: builtinBounds() },
    bodies,
    camera: camera([0, 28, 48], [0, 1, -1]),
    // On the valley's south side (terrain 6.56 m there), facing the hill and the basin.
    spawn: [4, 8, 14],
  };
}
