import type { Scenario } from "../../shared/scenarios/format.ts";

/**
 * One physics engine behind the benchmark. Every engine (cannon-es, Rapier, ours) is driven through this
 * interface only, so the harness and the scenes are identical for all of them.
 *
 * Contract:
 * - `load` builds a fresh world from the Scenario JSON (bodies in array order). `opts.sleep` overrides
 *   `scenario.world.sleep`. Gravity is `scenario.world.gravity ?? [0, -9.81, 0]`, the step is
 *   `1 / (scenario.world.tickRate ?? 60)`. Anything the scenario does not say is left at the engine's
 *   own usual default.
 * - `step` advances exactly one fixed step. The harness times this call and nothing else, so it must not
 *   do bookkeeping that a normal user of the engine would not do per tick.
 * - `position` / `rotation` read a body by its scenario `id` (rotation is [x, y, z, w]).
 */
export interface BenchEngine {
  name: string;
  /** Build a world from a scenario (our Scenario JSON type). Options: sleep on/off override. */
  load(scenario: Scenario, opts: { sleep: boolean }): Promise<void> | void;
  /** One fixed step of 1/tickRate (default 1/60). */
  step(): void;
  position(id: string): [number, number, number];
  rotation(id: string): [number, number, number, number];
  /** Dynamic bodies asleep. */
  sleepingCount(): number;
  dynamicCount(): number;
  dispose(): void;
}

/** Creates a new, unloaded engine instance. */
export type BenchEngineFactory = () => BenchEngine;
