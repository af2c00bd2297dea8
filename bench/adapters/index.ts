import { CannonEngine } from "./cannon.ts";
import { OurEngine } from "./ours.ts";
import { RAPIER_COMPAT, RAPIER_SIMD_COMPAT, RapierEngine } from "./rapier.ts";
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
