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
    // Box2D v3 uses 30 Hz with damping ratio 10; measured on stack10/pyramid20, 45 Hz sags half as much
    // (11 mm vs 26 mm over stack10) and drifts less (3 mm vs 8 mm). The damping ratio trades pile calm
    // against pyramid drift and coarse-step stability: with 3, landing boxes bounce off the soft contacts
    // and tall stacks sway for seconds (pile1000 fell asleep at step 799 and shed boxes at 13 m/s); with
    // 8, pile1000 sleeps at step 350 (five other seeds of it: 332-407) and pyramid20's top drifts 1.3 mm
    // (0.6 mm with 3; Rapier: 3.1 mm); 10 and above made a restitution-1 stack at 10 Hz gain energy until
    // it flew apart (8 and below hold it at exactly its start energy for 60 s).
    // Static contacts use twice the stiffness; both are capped by the sub-step rate.
    contactHertz: 45,
    dampingRatio: 8,
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

/**
 * Ranges of the per-body material values, inclusive: what the World's material setters accept and what
 * scenario validation allows in body definitions (one source for both).
 */
export const MATERIAL_LIMITS = Object.freeze({
  /** Friction coefficient ceiling (real materials stay below ~1.5). */
  maxFriction: 2,
  /** Restitution is a fraction of the closing speed: 0..1. */
  maxRestitution: 1,
  /**
   * Linear and angular damping ceiling, 1/s: a 10 ms time constant, a 0.1 m/s terminal fall speed at
   * 9.81 m/s² (1e308 froze a falling ball in place).
   */
  maxDamping: 100,
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
  /**
   * Stiffness of rigid joint rows in the soft step, Hz, and their damping ratio (Box2D v3 uses twice
   * its contact stiffness, 60 Hz, with damping ratio 2 for joints).
   */
  jointHertz: 60,
  jointDampingRatio: 2,
});
