/** Milliseconds spent in each stage of the last step (all zero unless profiling is on). */
export interface StepProfile {
  /** AABB update, sort and sweep. */
  broad: number;
  /** Pair bookkeeping and narrow phase (contact manifolds, recycling), CCD-swept pairs excluded. */
  narrow: number;
  /** Constraint preparation, warm start, solve, relax, restitution. */
  solve: number;
  /** Velocity and position integration. */
  integrate: number;
  /** Island building and sleeping. */
  islands: number;
  /**
   * Continuous collision: narrow-phase work on pairs whose contact margin was stretched over the
   * distance swept this step (speculative CCD; the swept AABBs themselves cost next to nothing in broad).
   */
  ccd: number;
  /** Whole step. */
  total: number;
}

export function emptyProfile(): StepProfile {
  return { broad: 0, narrow: 0, solve: 0, integrate: 0, islands: 0, ccd: 0, total: 0 };
}

/**
 * Wall-clock reader for profiling only. Timings never feed back into the simulation, so reading the
 * clock here does not affect determinism.
 */
export const now: () => number =
  typeof globalThis.performance?.now === "function" ? () => globalThis.performance.now() : () => Date.now();
