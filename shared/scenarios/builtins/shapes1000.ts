import type { BodyDef, CompoundShapeDef, HeightfieldShapeDef, QuatTuple, ShapeDef, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { createPrng, type Prng } from "../prng.ts";
import { builtinBounds, camera, centred, REFERENCE_DENSITY, REFERENCE_FRICTION, REFERENCE_RESTITUTION } from "./common.ts";

const SEED = 1000;

/**
 * The terrain: a 60 x 60 m height field of 64 x 64 samples centred on the origin. Its height is a sum
 * f(x) + g(z) of two one-dimensional profiles (rolling hills from smoothstep-interpolated random knots,
 * plus a rim rising toward the edges that keeps the bodies on the field), each rounded to 1/1024 m.
 * With a sum, every cell's four corners lie in one plane (hA + hD = hB + hC, exactly: multiples of
 * 1/1024 below 16 m add without rounding in 32 and 64 bits), so the surface does not depend on which
 * diagonal splits a cell: engines that triangulate cells differently still collide with the same
 * terrain.
 */
export const TERRAIN_SIZE = 60;
export const TERRAIN_SAMPLES = 64;
/** Samples between random knots of a profile (7 knot intervals across the field, 8.6 m each). */
const KNOT_SPACING = 9;
/** Knot heights of each profile are uniform in ±HILL_AMPLITUDE metres. */
const HILL_AMPLITUDE = 0.8;
/** Where the rim starts (|x| or |z|, metres) and how steeply it rises: 0.06·(|x| - 22)², 3.8 m at the edge. */
const RIM_START = 22;
const RIM = 0.06;
/** Height rounding: 1/1024 m. */
const QUANTUM = 1024;

/**
 * The bodies: 20 (x) x 10 (z) x 5 (y) grid cells 1.2 m apart, the lowest layer at y = 5 (the terrain
 * under the grid reaches 1.18 m), each body turned by a random rotation. Every body fits in a
 * sphere of radius 0.45 m about its origin, so bodies 1.2 m apart never start in contact.
 */
const GRID_X = 20;
const GRID_Z = 10;
const GRID_Y = 5;
const SPACING = 1.2;
const LOWEST_Y = 5;
/** Bounding radius every body shape stays within (checked by the tests). */
export const MAX_BODY_RADIUS = 0.45;

/** Kinds in the order they cycle through the grid: 250 of each in 1000 cells. */
const KINDS = ["capsule", "cylinder", "hull", "compound"] as const;

/** Smoothstep: 0 at 0, 1 at 1, zero slope at both ends. */
function smoothstep(t: number): number {
  return t * t * (3 - 2 * t);
}

/** Rounded to 1/QUANTUM m. */
function quantize(v: number): number {
  return Math.round(v * QUANTUM) / QUANTUM;
}

/** A profile along one axis: TERRAIN_SAMPLES heights, hills plus rim, quantized. */
function profile(prng: Prng): number[] {
  const knots = Math.ceil((TERRAIN_SAMPLES - 1) / KNOT_SPACING) + 1;
  const values: number[] = [];
  for (let k = 0; k < knots; k++) values.push(prng.range(-HILL_AMPLITUDE, HILL_AMPLITUDE));
  const spacing = TERRAIN_SIZE / (TERRAIN_SAMPLES - 1);
  const out: number[] = [];
  for (let i = 0; i < TERRAIN_SAMPLES; i++) {
    // The last sample ends the last interval (t = 1) instead of starting one past the last knot.
    const k = Math.min(Math.floor(i / KNOT_SPACING), knots - 2);
    const s = smoothstep((i - k * KNOT_SPACING) / KNOT_SPACING);
    const hill = values[k] + s * (values[k + 1] - values[k]);
    const u = Math.abs(-TERRAIN_SIZE / 2 + i * spacing);
    const rim = u > RIM_START ? RIM * (u - RIM_START) * (u - RIM_START) : 0;
    out.push(quantize(hill + rim));
  }
  return out;
}

/** The terrain's height field: heights[r * cols + c] = alongZ[r] + alongX[c]. */
export function shapes1000Terrain(): HeightfieldShapeDef {
  const prng = createPrng(SEED);
  const alongX = profile(prng);
  const alongZ = profile(prng);
  const heights: number[] = [];
  for (let r = 0; r < TERRAIN_SAMPLES; r++) {
    for (let c = 0; c < TERRAIN_SAMPLES; c++) heights.push(alongZ[r] + alongX[c]);
  }
  return { type: "heightfield", heights, rows: TERRAIN_SAMPLES, cols: TERRAIN_SAMPLES, size: [TERRAIN_SIZE, TERRAIN_SIZE] };
}

/** Rounded to millimetres: short, exact JSON. */
function mm(v: number): number {
  // + 0 turns -0 into 0: JSON has no -0, so the scene would not survive a round trip.
  return Math.round(v * 1000) / 1000 + 0;
}

/** A random direction (rejection in the unit ball, then normalised). */
function direction(prng: Prng): Vec3Tuple {
  for (;;) {
    const x = prng.range(-1, 1);
    const y = prng.range(-1, 1);
    const z = prng.range(-1, 1);
    const lengthSq = x * x + y * y + z * z;
    if (lengthSq > 1 || lengthSq < 0.01) continue;
    const length = Math.sqrt(lengthSq);
    return [x / length, y / length, z / length];
  }
}

/**
 * A rock: six points near the ± axes (so the hull always has volume) and four in random directions,
 * 0.16..0.3 m from the origin, rounded to millimetres. Radius at most 0.3 m.
 */
function rock(prng: Prng): Vec3Tuple[] {
  const points: Vec3Tuple[] = [];
  for (let axis = 0; axis < 3; axis++) {
    for (const sign of [1, -1]) {
      const p: Vec3Tuple = [0, 0, 0];
      p[axis] = mm(sign * prng.range(0.16, 0.26));
      // A little sideways jitter, so the rock's faces are not those of an octahedron.
      p[(axis + 1) % 3] = mm(prng.range(-0.04, 0.04));
      points.push(p);
    }
  }
  for (let i = 0; i < 4; i++) {
    const d = direction(prng);
    const r = prng.range(0.18, 0.28);
    points.push([mm(d[0] * r), mm(d[1] * r), mm(d[2] * r)]);
  }
  return points;
}

/** A quarter turn about z: a child's local y axis (capsule, cylinder) along x. */
const Y_TO_X: QuatTuple = [0, 0, Math.SQRT1_2, Math.SQRT1_2];

/**
 * Compounds alternate between a dumbbell (two balls of 0.14 m at x = ±0.28, a 0.05 m bar between them:
 * radius 0.42 m) and an L of two boxes (a 0.56 x 0.16 x 0.16 m beam along x, a 0.16 x 0.32 x 0.16 m post
 * rising from its -x end: radius 0.41 m).
 */
function compound(n: number): CompoundShapeDef {
  if (n % 2 === 0) {
    return {
      type: "compound",
      children: [
        { shape: { type: "sphere", radius: 0.14 }, position: [-0.28, 0, 0] },
        { shape: { type: "sphere", radius: 0.14 }, position: [0.28, 0, 0] },
        { shape: { type: "cylinder", radius: 0.05, halfHeight: 0.2 }, rotation: Y_TO_X },
      ],
    };
  }
  return {
    type: "compound",
    children: [
      { shape: { type: "box", halfExtents: [0.28, 0.08, 0.08] }, position: [0, -0.1, 0] },
      { shape: { type: "box", halfExtents: [0.08, 0.16, 0.08] }, position: [-0.2, 0.12, 0] },
    ],
  };
}

function shapeOf(kind: (typeof KINDS)[number], n: number, prng: Prng): ShapeDef {
  switch (kind) {
    case "capsule":
      // Radius 0.12..0.17, half height 0.1..0.2: at most 0.74 m long (radius 0.37 m).
      return { type: "capsule", radius: mm(prng.range(0.12, 0.17)), halfHeight: mm(prng.range(0.1, 0.2)) };
    case "cylinder":
      // Radius 0.15..0.25, half height 0.1..0.25: radius at most 0.36 m.
      return { type: "cylinder", radius: mm(prng.range(0.15, 0.25)), halfHeight: mm(prng.range(0.1, 0.25)) };
    case "hull":
      return { type: "hull", points: rock(prng) };
    case "compound":
      return compound(n);
  }
}

/**
 * 1000 bodies on a 20 x 10 x 5 grid, created layer by layer from the bottom, then z, then x; the kind
 * cycles capsule, cylinder, hull, compound, so every layer and row mixes them. Ids `<kind><n>`, n
 * counting within the kind. Sizes and rotations come from one PRNG stream in creation order.
 */
function bodies(): BodyDef[] {
  const prng = createPrng(SEED + 1);
  const out: BodyDef[] = [];
  const counts = [0, 0, 0, 0];
  let i = 0;
  for (let y = 0; y < GRID_Y; y++) {
    for (let z = 0; z < GRID_Z; z++) {
      for (let x = 0; x < GRID_X; x++) {
        const k = i % KINDS.length;
        const kind = KINDS[k];
        const n = counts[k]++;
        const shape = shapeOf(kind, n, prng);
        out.push({
          id: `${kind}${n}`,
          type: "dynamic",
          shape,
          position: [centred(x, GRID_X, SPACING), LOWEST_Y + y * SPACING, centred(z, GRID_Z, SPACING)],
          rotation: prng.unitQuaternion(),
          density: REFERENCE_DENSITY,
          friction: REFERENCE_FRICTION,
          restitution: REFERENCE_RESTITUTION,
        });
        i++;
      }
    }
  }
  return out;
}

/**
 * A thousand mixed convex bodies (capsules, cylinders, rock-like hulls, dumbbell and L compounds) dropped
 * on rolling terrain: the benchmark scene for the shapes beyond boxes and spheres.
 */
export function shapes1000(): Scenario {
  return {
    name: "shapes1000",
    description:
      "A thousand mixed bodies (250 each of capsules, cylinders, rock-like convex hulls and dumbbell or L-shaped compounds) dropped from a 20x10x5 grid onto a 60 x 60 m height field of rolling hills with a raised rim. The benchmark scene for the new shapes.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies: [
      {
        id: "terrain",
        type: "static",
        shape: shapes1000Terrain(),
        position: [0, 0, 0],
        friction: REFERENCE_FRICTION,
        restitution: REFERENCE_RESTITUTION,
      },
      ...bodies(),
    ],
    camera: camera([14, 16, 30], [0, 3, 0]),
    spawn: [0, 1, 12],
  };
}
