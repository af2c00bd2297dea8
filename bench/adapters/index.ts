import { CannonEngine } from "./cannon.ts";
import { OurEngine } from "./ours.ts";
import { RapierEngine } from "./rapier.ts";
import type { BenchEngineFactory } from "./types.ts";

export type { BenchEngine, BenchEngineFactory } from "./types.ts";

/**
 * Every engine the benchmarks can run, by name (the name is the table column and the `--engines`
 * filter value). Insertion order is column order.
 */
export const ENGINES: Record<string, BenchEngineFactory> = {
  "cannon-es": () => new CannonEngine(),
  rapier: () => new RapierEngine(),
  ours: () => new OurEngine(),
  // Not in the default set: cannon-es with SAPBroadphase instead of its default NaiveBroadphase.
  "cannon-es-sap": () => new CannonEngine({ broadphase: "sap" }),
};

/** Engines run when `--engines` is not given. */
export const DEFAULT_ENGINES = ["cannon-es", "rapier", "ours"].filter((n) => n in ENGINES);

export function createEngine(name: string): ReturnType<BenchEngineFactory> {
  const f = ENGINES[name];
  if (!f) throw new Error(`unknown engine "${name}" (have: ${Object.keys(ENGINES).join(", ")})`);
  return f();
}
