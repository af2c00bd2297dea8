import type { BodyDef, HeightfieldShapeDef, QuatTuple, Vec3Tuple } from "../../shared/engine/types.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";

/**
 * Scenario-reading helpers shared by the reference adapters, so cannon-es and Rapier interpret the
 * Scenario JSON the same way. Defaults follow the BodyDef / WorldSettings doc comments
 * (shared/engine/types.ts); they are repeated here (not imported from shared/engine/config.ts) so the
 * reference adapters do not change when our engine's tunables change.
 */

export const DEFAULT_GRAVITY: Vec3Tuple = [0, -9.81, 0];
export const DEFAULT_TICK_RATE = 60;
export const DEFAULT_FRICTION = 0.5;
export const DEFAULT_RESTITUTION = 0;
export const DEFAULT_DENSITY = 1;

export interface ResolvedWorld {
  gravity: Vec3Tuple;
  dt: number;
  /** CCD for dynamic bodies: only when the scenario says `world.ccd: true` (both engines default to off). */
  ccd: boolean;
}

export function resolveWorld(scenario: Scenario): ResolvedWorld {
  const w = scenario.world ?? {};
  const g = w.gravity ?? DEFAULT_GRAVITY;
  return { gravity: [g[0], g[1], g[2]], dt: 1 / (w.tickRate ?? DEFAULT_TICK_RATE), ccd: w.ccd === true };
}

/**
 * Volume of a body's shape, m³, where it has a closed form (sphere, box, capsule, cylinder). Hulls and
 * compounds are left to the engine (Rapier computes them from the density); meshes and height fields
 * have no volume (never dynamic).
 */
export function shapeVolume(def: BodyDef): number {
  const s = def.shape;
  switch (s.type) {
    case "sphere":
      return (4 / 3) * Math.PI * s.radius * s.radius * s.radius;
    case "box":
      return 8 * s.halfExtents[0] * s.halfExtents[1] * s.halfExtents[2];
    case "capsule":
      return Math.PI * s.radius * s.radius * (2 * s.halfHeight + (4 / 3) * s.radius);
    case "cylinder":
      return 2 * Math.PI * s.radius * s.radius * s.halfHeight;
    default:
      throw new Error(`body ${def.id}: no closed-form volume for a ${s.type}`);
  }
}

/** Mass of a dynamic body: `mass` wins, else density (default 1) x volume. */
export function bodyMass(def: BodyDef): number {
  if (def.mass !== undefined) return def.mass;
  return (def.density ?? DEFAULT_DENSITY) * shapeVolume(def);
}

/** The body's rotation, normalised (identity when absent). */
export function unitRotation(def: BodyDef): QuatTuple {
  const q = def.rotation ?? [0, 0, 0, 1];
  const n = Math.sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
  if (!(n > 0)) return [0, 0, 0, 1];
  return [q[0] / n, q[1] / n, q[2] / n, q[3] / n];
}

export function frictionOf(def: BodyDef): number {
  return def.friction ?? DEFAULT_FRICTION;
}

export function restitutionOf(def: BodyDef): number {
  return def.restitution ?? DEFAULT_RESTITUTION;
}

/** Our combine rules (types.ts): friction sqrt(muA * muB), restitution max(eA, eB). */
export function combineFriction(a: number, b: number): number {
  return Math.sqrt(a * b);
}

export function combineRestitution(a: number, b: number): number {
  return Math.max(a, b);
}

export function vec(v: Vec3Tuple | undefined): Vec3Tuple {
  return v ? [v[0], v[1], v[2]] : [0, 0, 0];
}

/** Points as one flat [x0, y0, z0, x1, ...] Float32Array (what Rapier's hull and mesh builders take). */
export function flatPoints(points: readonly Vec3Tuple[]): Float32Array {
  const out = new Float32Array(points.length * 3);
  for (let i = 0; i < points.length; i++) {
    out[3 * i] = points[i][0];
    out[3 * i + 1] = points[i][1];
    out[3 * i + 2] = points[i][2];
  }
  return out;
}

/**
 * A height field's samples in column-major order: ours are row-major (heights[r * cols + c], row r along
 * z, column c along x); a column-major matrix with the same rows and columns holds sample (r, c) at
 * r + c * rows. That is Rapier's layout (its matrix rows run along z, columns along x).
 */
export function heightfieldColumnMajor(shape: HeightfieldShapeDef): Float32Array {
  const { rows, cols, heights } = shape;
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) out[r + c * rows] = heights[r * cols + c];
  }
  return out;
}
