import type { ShapeDef } from "../../shared/engine/types.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";
import { CANNON_SHAPES, CannonEngine, unsupportedCannonJoints } from "./cannon.ts";
import { OurEngine } from "./ours.ts";
import { scenarioJoints } from "./joints.ts";
import { RAPIER_COMPAT, RAPIER_SIMD_COMPAT, RapierEngine, rapierJointGap } from "./rapier.ts";
import type { BenchEngineFactory } from "./types.ts";

export type { BenchEngine, BenchEngineFactory } from "./types.ts";

/**
 * Every engine the benchmarks can run, by name (the name is the table column and the `--engines`
 * filter value). Insertion order is column order.
 */
export const ENGINES: Record<string, BenchEngineFactory> = {
  "cannon-es": () => new CannonEngine(),
  // @dimforge/rapier3d-compat (WASM) and @dimforge/rapier3d-simd-compat (WASM SIMD): one adapter, same settings.
  [RAPIER_COMPAT.name]: () => new RapierEngine(RAPIER_COMPAT),
  [RAPIER_SIMD_COMPAT.name]: () => new RapierEngine(RAPIER_SIMD_COMPAT),
  ours: () => new OurEngine(),
  // Not in the default set: cannon-es with SAPBroadphase instead of its default NaiveBroadphase.
  "cannon-es-sap": () => new CannonEngine({ broadphase: "sap" }),
};

/** Engines run when `--engines` is not given. */
export const DEFAULT_ENGINES = ["cannon-es", "rapier", "rapier-simd", "ours"].filter((n) => n in ENGINES);

/** The reference engines ours is divided by in the ratio columns (ours/<name>), in column order. */
export const REFERENCE_ENGINES = ["rapier", "rapier-simd", "cannon-es"];

export function createEngine(name: string): ReturnType<BenchEngineFactory> {
  const f = ENGINES[name];
  if (!f) throw new Error(`unknown engine "${name}" (have: ${Object.keys(ENGINES).join(", ")})`);
  return f();
}

/** Shape types each engine's adapter can build, where it cannot build them all (absent: every shape). */
const SHAPE_SUPPORT: Record<string, readonly string[]> = {
  "cannon-es": CANNON_SHAPES,
  "cannon-es-sap": CANNON_SHAPES,
};

function shapeTypes(shape: ShapeDef, out: Set<string>): void {
  out.add(shape.type);
  if (shape.type === "compound") for (const child of shape.children) shapeTypes(child.shape, out);
}

/**
 * The shape types of `scenario` that engine `name` cannot build (compound children included); empty when
 * it can run the scene. The bench shows "n/a" for such (scene, engine) pairs instead of running them.
 */
export function unsupportedShapes(name: string, scenario: Scenario): string[] {
  const supported = SHAPE_SUPPORT[name];
  if (!supported) return [];
  const types = new Set<string>();
  for (const b of scenario.bodies) shapeTypes(b.shape, types);
  return [...types].filter((t) => !supported.includes(t));
}

/**
 * The joint features of `scenario` that engine `name`'s adapter cannot build (e.g. "hinge limits" for
 * cannon-es, "distance lower limits" for Rapier); empty when it can. Such pairs show "n/a" like
 * unsupported shapes. Ours builds every joint.
 */
export function unsupportedJoints(name: string, scenario: Scenario): string[] {
  if (name.startsWith("cannon-es")) return unsupportedCannonJoints(scenario);
  if (!name.startsWith("rapier")) return [];
  const out = new Set<string>();
  for (const j of scenarioJoints(scenario)) {
    const gap = rapierJointGap(j);
    if (gap) out.add(gap);
  }
  return [...out];
}
