import type { WorldSettings } from "./types.ts";

/**
 * Everything one step needs that is the same for the whole step, resolved once at its start, plus the
 * stage timers it fills (Box2D v3's b2StepContext, Rapier's IntegrationParameters): the stages read
 * their scalars here instead of taking them as arguments (V8 boxes doubles passed to calls it does not
 * inline) or keeping copies of their own.
 */
export class StepContext {
  /** Step length and its inverse, s and 1/s. */
  dt = 0;
  invDt = 0;
  /** Soft step (sub-steps with relaxation) or the classic linear-projection method. */
  soft = true;
  /** Sub-steps per step (soft) or velocity iterations (projection). */
  iterations = 1;
  relaxIterations = 0;
  /** Sub-step length, s: dt / iterations for the soft step, dt for projection. */
  h = 0;
  gravityX = 0;
  gravityY = 0;
  gravityZ = 0;
  /** Soft contact stiffness (0 for projection) and damping ratio. */
  contactHertz = 0;
  dampingRatio = 0;
  maxPushVelocity = 0;
  slop = 0;
  projectionPercent = 0;
  projectionIterations = 0;
  warmStarting = true;
  restitutionThreshold = 0;
  /**
   * True in the soft step, where positions are integrated before restitution: a bounce then also moves
   * the bodies over the part of the step after the impact (ContactSolver.applyRestitution).
   */
  bounceAtImpact = false;
  ccd = false;
  sleep = false;
  sleepTime = 0;
  sleepLinearThreshold = 0;
  sleepAngularThreshold = 0;

  /** Stage timers of this step, ms (filled only when profiling). */
  profiling = false;
  ccdMs = 0;
  integrateMs = 0;

  /** The settings object the scalars were resolved from (the world replaces it on every change). */
  private resolvedFrom: WorldSettings | null = null;

  /**
   * Starts a step: clears the timers and resolves the scalars from the world's settings when they
   * changed. Only then: a call once per step runs unoptimised, where every double it computes is a heap
   * allocation.
   */
  begin(s: WorldSettings, profiling: boolean): void {
    this.profiling = profiling;
    this.ccdMs = 0;
    this.integrateMs = 0;
    if (s === this.resolvedFrom) return;
    this.resolvedFrom = s;
    const pc = s.positionCorrection;
    this.dt = 1 / s.tickRate;
    this.invDt = s.tickRate;
    this.soft = pc.method === "soft";
    this.iterations = s.velocityIterations;
    this.relaxIterations = s.relaxIterations;
    this.h = this.soft ? this.dt / s.velocityIterations : this.dt;
    this.gravityX = s.gravity[0];
    this.gravityY = s.gravity[1];
    this.gravityZ = s.gravity[2];
    this.contactHertz = this.soft ? pc.contactHertz : 0;
    this.dampingRatio = pc.dampingRatio;
    this.maxPushVelocity = pc.maxPushVelocity;
    this.slop = pc.slop;
    this.projectionPercent = pc.percent;
    this.projectionIterations = pc.iterations;
    this.warmStarting = s.warmStarting;
    this.restitutionThreshold = s.restitutionThreshold;
    this.bounceAtImpact = this.soft;
    this.ccd = s.ccd;
    this.sleep = s.sleep;
    this.sleepTime = s.sleepTime;
    this.sleepLinearThreshold = s.sleepLinearThreshold;
    this.sleepAngularThreshold = s.sleepAngularThreshold;
  }
}
