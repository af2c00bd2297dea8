import type { WorldSettings, WorldSettingsPatch } from "./types.ts";

/**
 * Every tunable of the engine with its default, in one place. Units are in the doc comments of
 * `WorldSettings` (types.ts). The defaults are the ones the stacking checks and the benchmark use.
 */
export const DEFAULT_SETTINGS: Readonly<WorldSettings> = Object.freeze({
  gravity: [0, -9.81, 0],
  tickRate: 60,
  // Four soft sub-steps per tick (Rapier's default count); stacks of 10 and a 20-high pyramid hold.
  velocityIterations: 4,
  relaxIterations: 1,
  positionCorrection: Object.freeze({
    method: "soft",
    // Resting overlap adds up along a stack (5 mm per contact sinks a 10-box stack 5 cm), and the soft
    // contact already tolerates a little overlap, so the soft method pushes all the way to zero.
    slop: 0,
    percent: 0.2,
    iterations: 1,
    // Box2D v3 uses 30 Hz with damping ratio 10; measured on stack10/pyramid20, 45 Hz with ratio 3 sags
    // half as much (11 mm vs 26 mm over stack10) and drifts less (3 mm vs 8 mm) while piles stay calm.
    // Static contacts use twice the stiffness; both are capped by the sub-step rate.
    contactHertz: 45,
    dampingRatio: 3,
    maxPushVelocity: 3,
  }),
  restitutionThreshold: 1,
  warmStarting: true,
  sleep: true,
  sleepTime: 0.5,
  sleepLinearThreshold: 0.05,
  sleepAngularThreshold: 0.05,
  ccd: true,
  bounds: null,
}) as WorldSettings;

/** Full settings from defaults plus a (possibly partial) patch. Arrays are copied, never shared. */
export function resolveSettings(patch: WorldSettingsPatch = {}, base: WorldSettings = DEFAULT_SETTINGS): WorldSettings {
  const pc = { ...base.positionCorrection, ...(patch.positionCorrection ?? {}) };
  const bounds = patch.bounds !== undefined ? patch.bounds : base.bounds;
  return {
    gravity: [...(patch.gravity ?? base.gravity)] as WorldSettings["gravity"],
    tickRate: patch.tickRate ?? base.tickRate,
    velocityIterations: patch.velocityIterations ?? base.velocityIterations,
    relaxIterations: patch.relaxIterations ?? base.relaxIterations,
    positionCorrection: pc,
    restitutionThreshold: patch.restitutionThreshold ?? base.restitutionThreshold,
    warmStarting: patch.warmStarting ?? base.warmStarting,
    sleep: patch.sleep ?? base.sleep,
    sleepTime: patch.sleepTime ?? base.sleepTime,
    sleepLinearThreshold: patch.sleepLinearThreshold ?? base.sleepLinearThreshold,
    sleepAngularThreshold: patch.sleepAngularThreshold ?? base.sleepAngularThreshold,
    ccd: patch.ccd ?? base.ccd,
    bounds: bounds ? { min: [...bounds.min], max: [...bounds.max] } : null,
  } as WorldSettings;
}

/** Defaults applied to body definitions when a field is absent. */
export const BODY_DEFAULTS = Object.freeze({
  friction: 0.5,
  restitution: 0,
  linearDamping: 0,
  angularDamping: 0,
  density: 1,
});

/** Contact generation and solver constants that are not per-world settings. */
export const ENGINE_CONSTANTS = Object.freeze({
  /** Contacts are kept (speculatively) while the gap is below this, metres (Box2D: 4 x slop). */
  speculativeDistance: 0.02,
  /** Contacts count as touching (island links, wake-ups) at or below this separation, metres. */
  touchDistance: 0.005,
  /** Broad-phase AABB margin, metres: pairs are found a little before they touch. */
  aabbMargin: 0.02,
  /** A manifold is reused while the pair's relative pose moved less than this, metres. */
  recycleDistance: 0.005,
  /** ... and its relative rotation changed less than this (1 - cos(angle/2) of the quaternion). */
  recycleRotation: 1e-5,
  /** Speed cap for any body, m/s (keeps a runaway input from producing Infinity). */
  maxLinearSpeed: 400,
  /** Angular speed cap, rad/s. */
  maxAngularSpeed: 200,
});
