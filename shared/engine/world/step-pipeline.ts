import { ENGINE_CONSTANTS } from "../config.ts";
import {
  BroadPhase,
  CAT_AWAKE,
  CAT_KINEMATIC_IDLE,
  CAT_KINEMATIC_MOVING,
  CAT_SLEEPING,
  CAT_STATIC,
} from "../collision/broad-phase.ts";
import { ManifoldOut } from "../collision/manifold.ts";
import { collidePair } from "../collision/narrow-phase.ts";
import { type BodyStore, KINEMATIC, SPHERE, STATIC } from "../dynamics/body-store.ts";
import { ContactSolver, type SolverSettings } from "../dynamics/contact-solver.ts";
import type { ContactStore } from "../dynamics/contact-store.ts";
import { Islands, wakeIsland } from "../dynamics/islands.ts";
import { SolverBodies } from "../dynamics/solver-bodies.ts";
import type { WorldSettings } from "../types.ts";
import { now, type StepProfile } from "./profile.ts";

/** Counters of the last step, for tests, metrics and the admin API. */
export interface StepStats {
  /** Dynamic bodies simulated (awake). */
  awake: number;
  /** Pairs whose AABBs overlap, from the broad phase. */
  broadPairs: number;
  /** Contacts that went through the narrow phase (fresh or recycled). */
  narrowPairs: number;
  /** ... of which reused their previous manifold. */
  recycled: number;
  /** ... of which had their contact margin stretched by CCD over the distance swept this step. */
  sweptPairs: number;
  /** Contact constraints solved. */
  constraints: number;
}

export function emptyStats(): StepStats {
  return { awake: 0, broadPairs: 0, narrowPairs: 0, recycled: 0, sweptPairs: 0, constraints: 0 };
}

/** Why the engine removed a body on its own. */
export type RemovalReason = "bounds" | "non-finite";

export interface RemovedBody {
  id: string;
  handle: number;
  reason: RemovalReason;
}

/** What the pipeline needs from its world. */
export interface PipelineHost {
  readonly bodies: BodyStore;
  readonly contacts: ContactStore;
  readonly settings: WorldSettings;
  readonly profiling: boolean;
  readonly profile: StepProfile;
  readonly lastStepStats: StepStats;
  readonly removedLastStep: RemovedBody[];
  removeSlotInternal(slot: number): void;
}

/**
 * One step as a pipeline of named stages: classify → broad phase → pair update → narrow phase →
 * solve (soft sub-steps or projection) → finalize (kinematic targets, guards, bounds) → islands/sleep.
 * Owns the per-step scratch state; the world owns bodies and contacts.
 */
export class StepPipeline {
  readonly broad = new BroadPhase();
  private readonly solverBodies = new SolverBodies();
  private readonly solver = new ContactSolver();
  private readonly islands = new Islands();
  private readonly manifold = new ManifoldOut();
  private category = new Uint8Array(64);
  private awake = new Int32Array(64);
  private awakeCount = 0;
  private kinematic = new Int32Array(64);
  private kinematicCount = 0;
  private movingKinematicCount = 0;
  private pairStamp = 0;
  private readonly solverSettings: SolverSettings = {
    h: 0,
    contactHertz: 0,
    dampingRatio: 0,
    maxPushVelocity: 0,
    slop: 0,
    warmStarting: true,
    restitutionThreshold: 0,
  };
  /** Narrow-phase milliseconds spent on CCD-swept pairs this step (profiling only). */
  private ccdMs = 0;
  /** Length of the current step, s (a field, so helpers need not take it as a boxed argument). */
  private dt = 0;

  private readonly world: PipelineHost;

  constructor(world: PipelineHost) {
    this.world = world;
  }

  step(): void {
    const w = this.world;
    const prof = w.profiling;
    const p = w.profile;
    const stats = w.lastStepStats;
    const t0 = prof ? now() : 0;
    const dt = 1 / w.settings.tickRate;
    this.dt = dt;
    if (w.removedLastStep.length > 0) w.removedLastStep.length = 0;
    stats.narrowPairs = 0;
    stats.recycled = 0;
    stats.sweptPairs = 0;
    this.ccdMs = 0;

    this.classify(true);
    // Nothing awake and no kinematic body moving: no pair can change, skip the sweep entirely.
    if (this.awakeCount > 0 || this.movingKinematicCount > 0) this.broad.findPairs(w.bodies, this.category);
    else this.broad.pairCount = 0;
    stats.broadPairs = this.broad.pairCount;
    const t1 = prof ? now() : 0;

    this.updatePairs();
    const woke = this.collide(dt);
    if (woke) this.classify(false);
    const t2 = prof ? now() : 0;

    const tIntegrate = this.solve();
    const t3 = prof ? now() : 0;

    this.finalize();
    stats.awake = this.awakeCount;
    let t4 = t3;
    if (w.settings.sleep) {
      this.islands.update(
        w.bodies,
        w.contacts,
        this.awake,
        this.awakeCount,
        dt,
        w.settings.sleepTime,
        w.settings.sleepLinearThreshold,
        w.settings.sleepAngularThreshold,
      );
      t4 = prof ? now() : 0;
    }
    this.clearKinematicMoves();
    if (prof) {
      const t5 = now();
      p.broad = t1 - t0;
      p.narrow = t2 - t1 - this.ccdMs;
      p.integrate = tIntegrate;
      p.solve = t3 - t2 - tIntegrate;
      p.islands = t4 - t3;
      p.ccd = this.ccdMs;
      p.total = t5 - t0;
    }
  }

  /**
   * Sorts bodies into activity categories, builds the awake and kinematic lists (slot order) and
   * refreshes AABBs of moving bodies. With CCD on, AABBs are stretched over the distance swept this step.
   */
  private classify(refreshAabbs: boolean): void {
    const b = this.world.bodies;
    const n = b.slotCount;
    if (this.category.length < n) {
      let cap = this.category.length;
      while (cap < n) cap *= 2;
      this.category = new Uint8Array(cap);
      this.awake = new Int32Array(cap);
      this.kinematic = new Int32Array(cap);
    }
    const ccd = this.world.settings.ccd;
    let na = 0;
    let nk = 0;
    let moving = 0;
    for (let s = 0; s < n; s++) {
      if (b.alive[s] === 0) continue;
      const type = b.type[s];
      let cat: number;
      if (type === STATIC) {
        cat = CAT_STATIC;
      } else if (type === KINEMATIC) {
        this.kinematic[nk++] = s;
        cat = isKinematicMoving(b, s) ? CAT_KINEMATIC_MOVING : CAT_KINEMATIC_IDLE;
        if (cat === CAT_KINEMATIC_MOVING) moving++;
      } else if (b.sleeping[s] === 1) {
        cat = CAT_SLEEPING;
      } else {
        this.awake[na++] = s;
        cat = CAT_AWAKE;
      }
      this.category[s] = cat;
      if (refreshAabbs && (cat === CAT_AWAKE || cat === CAT_KINEMATIC_MOVING)) {
        b.updateAabb(s);
        if (ccd) this.sweepAabb(s);
      }
    }
    this.awakeCount = na;
    this.kinematicCount = nk;
    this.movingKinematicCount = moving;
  }

  /** Stamps the broad-phase pairs, creates contacts for new ones and drops contacts whose AABBs parted. */
  private updatePairs(): void {
    const stamp = ++this.pairStamp;
    const contacts = this.world.contacts;
    const pairs = this.broad.pairs;
    for (let k = 0; k < this.broad.pairCount; k++) {
      const a = pairs[2 * k];
      const b = pairs[2 * k + 1];
      const c = contacts.find(a, b);
      if (c < 0) contacts.add(a, b, stamp);
      else contacts.stamp[c] = stamp;
    }
    const cat = this.category;
    for (let c = contacts.count - 1; c >= 0; c--) {
      if (contacts.stamp[c] === stamp) continue;
      // Contacts between bodies that were not swept (sleeping/static pairs) are kept for their wake-up.
      const ca = cat[contacts.bodyA[c]];
      const cb = cat[contacts.bodyB[c]];
      if (ca === CAT_AWAKE || cb === CAT_AWAKE || ca === CAT_KINEMATIC_MOVING || cb === CAT_KINEMATIC_MOVING) {
        contacts.removeAt(c);
      }
    }
  }

  /**
   * Narrow phase for every contact with an active body. Manifolds of pairs that barely moved are
   * recycled. A sleeping body that an active body touches (or will reach this step) wakes with its
   * island. Returns true if any island woke.
   */
  private collide(dt: number): boolean {
    const b = this.world.bodies;
    const contacts = this.world.contacts;
    const cat = this.category;
    const ccd = this.world.settings.ccd;
    const spec = ENGINE_CONSTANTS.speculativeDistance;
    const vel = b.vel;
    const angVel = b.angVel;
    const stats = this.world.lastStepStats;
    const prof = this.world.profiling;
    let woke = false;
    for (let c = 0; c < contacts.count; c++) {
      const a = contacts.bodyA[c];
      const bb = contacts.bodyB[c];
      const ca = cat[a];
      const cb = cat[bb];
      const activeA = ca === CAT_AWAKE || ca === CAT_KINEMATIC_MOVING;
      const activeB = cb === CAT_AWAKE || cb === CAT_KINEMATIC_MOVING;
      if (!activeA && !activeB) continue;
      const a3 = a * 3;
      const b3 = bb * 3;
      const dvx = vel[b3] - vel[a3];
      const dvy = vel[b3 + 1] - vel[a3 + 1];
      const dvz = vel[b3 + 2] - vel[a3 + 2];
      let margin: number = spec;
      if (ccd) {
        const wa = Math.sqrt(angVel[a3] * angVel[a3] + angVel[a3 + 1] * angVel[a3 + 1] + angVel[a3 + 2] * angVel[a3 + 2]);
        const wb = Math.sqrt(angVel[b3] * angVel[b3] + angVel[b3 + 1] * angVel[b3 + 1] + angVel[b3 + 2] * angVel[b3 + 2]);
        const sweep = (Math.sqrt(dvx * dvx + dvy * dvy + dvz * dvz) + wa * b.boundRadius[a] + wb * b.boundRadius[bb]) * dt;
        if (sweep > margin) margin = sweep;
      }
      // Sphere-sphere is cheaper to recompute than to check for reuse.
      const recyclable = b.shape[a] !== SPHERE || b.shape[bb] !== SPHERE;
      stats.narrowPairs++;
      // The margin travels in a field: passing computed doubles to calls V8 does not inline boxes them.
      this.manifold.margin = margin;
      // Pairs whose margin CCD stretched beyond the speculative distance are the CCD stage's work.
      const swept = margin > spec;
      const t0 = swept && prof ? now() : 0;
      if (swept) stats.sweptPairs++;
      if (recyclable && contacts.tryRecycle(c, b, this.manifold)) {
        stats.recycled++;
      } else {
        collidePair(this.manifold, b, a, bb);
        contacts.storeManifold(c, this.manifold, b);
      }
      if (swept && prof) this.ccdMs += now() - t0;
      if (ca === CAT_SLEEPING || cb === CAT_SLEEPING) {
        const count = contacts.pointCount[c];
        if (count === 0) continue;
        // Wake when touching, or when the closing speed covers the gap within this step.
        const n3 = c * 3;
        const closing = -(dvx * contacts.normal[n3] + dvy * contacts.normal[n3 + 1] + dvz * contacts.normal[n3 + 2]);
        if (contacts.minSeparation(c) - (closing > 0 ? closing * dt : 0) <= ENGINE_CONSTANTS.touchDistance) {
          wakeIsland(b, ca === CAT_SLEEPING ? a : bb);
          woke = true;
        }
      }
    }
    return woke;
  }

  /** Returns the milliseconds spent integrating (profiling only). */
  private solve(): number {
    const s = this.world.settings;
    const pc = s.positionCorrection;
    const sb = this.solverBodies;
    const solver = this.solver;
    const b = this.world.bodies;
    const prof = this.world.profiling;
    const dt = this.dt;
    let tInt = 0;
    sb.load(b, this.awake, this.awakeCount, this.kinematic, this.kinematicCount);
    const iterations = s.velocityIterations;
    const soft = pc.method === "soft";
    // One settings object reused every step (a literal per step would be garbage).
    const ss = this.solverSettings;
    ss.h = soft ? dt / iterations : dt;
    ss.contactHertz = soft ? pc.contactHertz : 0;
    ss.dampingRatio = pc.dampingRatio;
    ss.maxPushVelocity = pc.maxPushVelocity;
    ss.slop = pc.slop;
    ss.warmStarting = s.warmStarting;
    ss.restitutionThreshold = s.restitutionThreshold;
    solver.prepare(this.world.contacts, b, sb, ss);
    sb.h = ss.h;
    if (soft) {
      for (let i = 0; i < iterations; i++) {
        let t = prof ? now() : 0;
        sb.integrateVelocities(b, s.gravity);
        if (prof) tInt += now() - t;
        if (s.warmStarting) solver.warmStart(sb);
        else solver.resetImpulses();
        solver.solve(sb, true);
        t = prof ? now() : 0;
        sb.integratePositions(b);
        if (prof) tInt += now() - t;
        for (let r = 0; r < s.relaxIterations; r++) solver.solve(sb, false);
      }
      solver.applyRestitution(sb);
    } else {
      let t = prof ? now() : 0;
      sb.integrateVelocities(b, s.gravity);
      if (prof) tInt += now() - t;
      if (s.warmStarting) solver.warmStart(sb);
      for (let i = 0; i < iterations; i++) solver.solve(sb, false);
      solver.applyRestitution(sb);
      t = prof ? now() : 0;
      sb.integratePositions(b);
      if (prof) tInt += now() - t;
      solver.projectionSlop = pc.slop;
      solver.projectionPercent = pc.percent;
      for (let i = 0; i < pc.iterations; i++) solver.projectPositions(sb, b);
    }
    solver.storeImpulses(this.world.contacts);
    this.world.lastStepStats.constraints = solver.count;
    sb.store(b);
    return tInt;
  }

  /**
   * After integration: kinematic bodies with a target land exactly on it; world inertia follows the new
   * orientations; bodies that became non-finite or left the world bounds are removed and reported.
   */
  private finalize(): void {
    const b = this.world.bodies;
    for (let k = 0; k < this.kinematicCount; k++) {
      const s = this.kinematic[k];
      if (b.hasTarget[s] === 0) continue;
      const t = s * 7;
      b.pos[s * 3] = b.target[t];
      b.pos[s * 3 + 1] = b.target[t + 1];
      b.pos[s * 3 + 2] = b.target[t + 2];
      for (let i = 0; i < 4; i++) b.rot[s * 4 + i] = b.target[t + 3 + i];
    }
    for (let k = 0; k < this.awakeCount; k++) {
      const s = this.awake[k];
      b.updateWorldInertia(s);
      this.guard(s);
    }
    // Kinematic bodies are moved from outside: the same guard applies to them.
    for (let k = 0; k < this.kinematicCount; k++) this.guard(this.kinematic[k]);
    if (this.world.removedLastStep.length > 0) this.removeReported();
  }

  /** Reports a body that became non-finite or left the world bounds (it is removed after the loop). */
  private guard(s: number): void {
    const b = this.world.bodies;
    const bounds = this.world.settings.bounds;
    const s3 = s * 3;
    const x = b.pos[s3];
    const y = b.pos[s3 + 1];
    const z = b.pos[s3 + 2];
    const finite =
      Number.isFinite(x + y + z) &&
      Number.isFinite(b.vel[s3] + b.vel[s3 + 1] + b.vel[s3 + 2]) &&
      Number.isFinite(b.angVel[s3] + b.angVel[s3 + 1] + b.angVel[s3 + 2]) &&
      Number.isFinite(b.rot[s * 4] + b.rot[s * 4 + 1] + b.rot[s * 4 + 2] + b.rot[s * 4 + 3]);
    let reason: RemovedBody["reason"] | null = finite ? null : "non-finite";
    if (
      reason === null &&
      bounds !== null &&
      (x < bounds.min[0] || y < bounds.min[1] || z < bounds.min[2] || x > bounds.max[0] || y > bounds.max[1] || z > bounds.max[2])
    ) {
      reason = "bounds";
    }
    if (reason !== null) this.world.removedLastStep.push({ id: b.ids[s]!, handle: b.handleOf(s), reason });
  }

  private removeReported(): void {
    for (const r of this.world.removedLastStep) {
      const slot = this.world.bodies.resolve(r.handle);
      if (slot >= 0) this.world.removeSlotInternal(slot);
    }
    // The removed bodies are gone from the awake list's view; rebuild it for the island pass.
    this.classify(false);
  }

  /** Stretches a body's AABB over its motion this step (linear sweep, plus rotation of its bounding sphere). */
  private sweepAabb(s: number): void {
    const b = this.world.bodies;
    const dt = this.dt;
    const s3 = s * 3;
    const s6 = s * 6;
    const w = b.angVel;
    const rot = Math.sqrt(w[s3] * w[s3] + w[s3 + 1] * w[s3 + 1] + w[s3 + 2] * w[s3 + 2]) * b.boundRadius[s] * dt;
    for (let k = 0; k < 3; k++) {
      const d = b.vel[s3 + k] * dt;
      if (d < 0) b.aabb[s6 + k] += d;
      else b.aabb[s6 + 3 + k] += d;
      b.aabb[s6 + k] -= rot;
      b.aabb[s6 + 3 + k] += rot;
    }
  }

  private clearKinematicMoves(): void {
    const b = this.world.bodies;
    for (let k = 0; k < this.kinematicCount; k++) {
      const s = this.kinematic[k];
      if (b.hasTarget[s] === 0 && b.moved[s] === 0) continue;
      b.hasTarget[s] = 0;
      b.moved[s] = 0;
      const s3 = s * 3;
      b.vel[s3] = b.vel[s3 + 1] = b.vel[s3 + 2] = 0;
      b.angVel[s3] = b.angVel[s3 + 1] = b.angVel[s3 + 2] = 0;
      b.updateAabb(s);
    }
  }
}

function isKinematicMoving(b: BodyStore, s: number): boolean {
  const s3 = s * 3;
  return (
    b.moved[s] === 1 ||
    b.hasTarget[s] === 1 ||
    b.vel[s3] !== 0 ||
    b.vel[s3 + 1] !== 0 ||
    b.vel[s3 + 2] !== 0 ||
    b.angVel[s3] !== 0 ||
    b.angVel[s3 + 1] !== 0 ||
    b.angVel[s3 + 2] !== 0
  );
}
