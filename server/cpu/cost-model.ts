import type { StepStats } from "../../shared/engine/index.ts";

/**
 * What one tick costs, estimated from the engine's own work counts instead of a stopwatch, so that a
 * scenario's admission does not depend on what else the machine is doing at that moment (a verdict is
 * the same on a loaded CI machine and an idle one, and the same every time it is asked).
 *
 * Fitted (non-negative least squares, each tick's fastest of 3 runs) on 1750 ticks of arena, stack10,
 * pyramid20, heap1000, rain2000, pile1000, columns of 100-300 spheres and piles of 60-200 spheres
 * overlapping at one point with 5-65 solver iterations, on the 2-core EPYC CI machine. For ticks over
 * 1 ms the estimate is within 0.73x-1.48x of the measured time (10th-90th percentile).
 */
export const COST_US = Object.freeze({
  /** Per awake dynamic body and solver iteration (integration, body velocity updates). */
  awakeBodyIteration: 0.16,
  /** Per contact constraint and solver iteration (the sequential impulses). */
  constraintIteration: 0.31,
  /** Per broad-phase pair (narrow phase, manifold and constraint preparation). */
  broadPair: 1.37,
});

/** Estimated time of the tick that produced `stats`, microseconds. */
export function estimateTickUs(stats: Readonly<StepStats>, iterationsPerTick: number): number {
  return (
    COST_US.awakeBodyIteration * stats.awake * iterationsPerTick +
    COST_US.constraintIteration * stats.constraints * iterationsPerTick +
    COST_US.broadPair * stats.broadPairs
  );
}
