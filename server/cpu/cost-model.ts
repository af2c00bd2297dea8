import type { StepStats, WorldSettings } from "../../shared/engine/index.ts";

/**
 * What one tick costs, estimated from the engine's own work counts instead of a stopwatch, so that a
 * scenario's admission does not depend on what else the machine is doing at that moment (the estimate
 * is the same on a loaded machine and an idle one, and the same every time it is asked).
 *
 * Fitted (non-negative least squares, each tick's fastest of 3 warm runs) on 1058 ticks over 0.5 ms of
 * arena, stack10, pyramid20, heap1000, rain2000, pile1000, blocks, columns and wells of 18-480 spheres
 * (soft contacts with 1-64 velocity and 0-4 relax iterations, projection with up to 64 position
 * iterations) and piles of 60-200 spheres overlapping at one point, on the 2-core EPYC CI machine. The
 * estimate is within 0.55x-2.6x of the measured time (10th-90th percentile; median 0.95x).
 */
export const COST_US = Object.freeze({
  /** Per awake dynamic body and body pass (velocity and position integration). */
  bodyPass: 0.1,
  /** Per contact constraint and constraint pass (warm start, solve, relax, position projection). */
  constraintPass: 0.1,
  /** Per broad-phase pair (narrow phase, manifold and constraint preparation). */
  broadPair: 1.12,
});

/**
 * Contact constraints (and broad-phase pairs) per body assumed by the body cap: a dense pile, as a
 * scenario's author can always build (474 spheres in a well settle at 2.8; boxes carry more).
 */
export const DENSE_CONTACTS_PER_BODY = 4;

/** How many times one tick goes over every awake body and over every contact constraint. */
export interface SolverPasses {
  body: number;
  constraint: number;
}

/**
 * The passes of the engine's step (shared/engine/world/step-pipeline.ts): soft contacts run, per velocity
 * iteration, one body integration and a warm start, a solve and `relaxIterations` relax solves over the
 * constraints; projection integrates once, warm-starts, solves `velocityIterations` times and projects
 * positions `positionCorrection.iterations` times.
 */
export function solverPasses(settings: Readonly<WorldSettings>): SolverPasses {
  const v = settings.velocityIterations;
  if (settings.positionCorrection.method === "soft") return { body: v, constraint: v * (2 + settings.relaxIterations) };
  return { body: 1, constraint: 1 + v + settings.positionCorrection.iterations };
}

/** Estimated time of the tick that produced `stats`, microseconds. */
export function estimateTickUs(stats: Readonly<StepStats>, passes: SolverPasses): number {
  return COST_US.bodyPass * stats.awake * passes.body + COST_US.constraintPass * stats.constraints * passes.constraint + COST_US.broadPair * stats.broadPairs;
}

/** Estimated cost of one awake body in a dense pile for one tick, microseconds. */
export function densePileBodyTickUs(passes: SolverPasses): number {
  return COST_US.bodyPass * passes.body + DENSE_CONTACTS_PER_BODY * (COST_US.constraintPass * passes.constraint + COST_US.broadPair);
}
