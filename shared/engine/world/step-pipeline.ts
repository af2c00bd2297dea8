import { ENGINE_CONSTANTS } from "../config.ts";
import { BroadPhase } from "../collision/broad-phase.ts";
import { ManifoldOut } from "../collision/manifold.ts";
import { collidePair } from "../collision/narrow-phase.ts";
import { PieceCollider } from "../collision/pieces.ts";
import {
  type BodyStore,
  CAT_AWAKE,
  CAT_KINEMATIC_IDLE,
  CAT_KINEMATIC_MOVING,
  CAT_SLEEPING,
  COMPOUND,
  DYNAMIC,
  groupsCollide,
  HEIGHTFIELD,
  MESH,
  SPHERE,
} from "../dynamics/body-store.ts";
import { CONTACT_BEGIN, CONTACT_END, type ContactEventLog, SENSOR_ENTER, SENSOR_EXIT } from "../dynamics/contact-events.ts";
import { ContactSolver } from "../dynamics/contact-solver.ts";
import { type ContactStore, FLAG_MULTI, FLAG_PIECE, FLAG_REPORTED, FLAG_SENSOR, FLAG_WALK_B } from "../dynamics/contact-store.ts";
import { Islands, wakeIsland } from "../dynamics/islands.ts";
import { SolverBodies } from "../dynamics/solver-bodies.ts";
import { sharedSolverMemory } from "../kernel/solver-memory.ts";
import { JointSolver } from "../joints/joint-solver.ts";
import type { JointStore } from "../joints/joint-store.ts";
import type { WorldSettings } from "../types.ts";
import { StepContext } from "../step-context.ts";
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
  /** Contact and joint constraints solved. */
  constraints: number;
  /** Contacts in the awake contact set after the step (what the next step will visit). */
  awakeContacts: number;
}

export function emptyStats(): StepStats {
  return { awake: 0, broadPairs: 0, narrowPairs: 0, recycled: 0, sweptPairs: 0, constraints: 0, awakeContacts: 0 };
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
  readonly joints: JointStore;
  readonly events: ContactEventLog;
  readonly settings: WorldSettings;
  readonly profiling: boolean;
  readonly profile: StepProfile;
  readonly lastStepStats: StepStats;
  readonly removedLastStep: RemovedBody[];
  removeSlotInternal(slot: number): void;
  /** Removes a joint that broke this step (and reports it). */
  breakJointInternal(joint: number, force: number): void;
}

/**
 * One step as a pipeline of named stages: active sets → broad phase → pair update → narrow phase →
 * solve (soft sub-steps or projection) → finalize (kinematic targets, guards, bounds) → islands/sleep.
 * Owns the per-step scratch state; the world owns bodies and contacts.
 */
export class StepPipeline {
  readonly broad = new BroadPhase();
  /** The solver's arrays in one WebAssembly memory (the thread's: kernel/solver-memory.ts). */
  private readonly solverMemory = sharedSolverMemory();
  private readonly solverBodies = new SolverBodies(this.solverMemory);
  private readonly solver = new ContactSolver(this.solverMemory);
  private readonly jointSolver = new JointSolver();
  private readonly islands = new Islands();
  private readonly manifold = new ManifoldOut();
  private readonly pieces = new PieceCollider();
  private movingKinematicCount = 0;
  private pairStamp = 0;
  /** The step's scalars and stage timers, shared by every stage (and the solver). */
  private readonly ctx = new StepContext();

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
    const ctx = this.ctx;
    ctx.begin(w.settings, prof);
    if (w.removedLastStep.length > 0) w.removedLastStep.length = 0;
    w.events.beginStep();
    stats.narrowPairs = 0;
    stats.recycled = 0;
    stats.sweptPairs = 0;

    this.refreshActive();
    // Nothing awake and no kinematic body moving: no pair can change, skip the sweep entirely.
    if (w.bodies.awakeCount > 0 || this.movingKinematicCount > 0) this.broad.findPairs(w.bodies);
    else this.broad.pairCount = 0;
    stats.broadPairs = this.broad.pairCount;
    const t1 = prof ? now() : 0;

    this.updatePairs();
    this.collide();
    const t2 = prof ? now() : 0;

    if (w.joints.liveCount > 0) this.wakeJointPartners();
    this.solve();
    if (this.jointSolver.brokenCount > 0) this.breakJoints();
    this.reportContacts();
    const t3 = prof ? now() : 0;

    this.finalize();
    stats.awake = w.bodies.awakeCount;
    let t4 = t3;
    if (ctx.sleep) {
      this.islands.update(w.bodies, w.contacts, w.joints, ctx);
      t4 = prof ? now() : 0;
    }
    this.clearKinematicMoves();
    stats.awakeContacts = w.contacts.awakeCount;
    w.events.endStep();
    if (prof) {
      const t5 = now();
      p.broad = t1 - t0;
      p.narrow = t2 - t1 - ctx.ccdMs;
      p.integrate = ctx.integrateMs;
      p.solve = t3 - t2 - ctx.integrateMs;
      p.islands = t4 - t3;
      p.ccd = ctx.ccdMs;
      p.total = t5 - t0;
    }
  }

  /**
   * Marks which kinematic bodies move this step and refreshes the AABBs of the awake and moving bodies
   * (with CCD on, stretched over the distance swept this step). Visits only the awake and kinematic
   * sets: sleeping and static bodies keep their AABBs and categories from when they last changed.
   */
  private refreshActive(): void {
    const b = this.world.bodies;
    const ccd = this.ctx.ccd;
    let moving = 0;
    for (let k = 0; k < b.kinematicCount; k++) {
      const s = b.kinematicList[k];
      if (isKinematicMoving(b, s)) {
        b.activity[s] = CAT_KINEMATIC_MOVING;
        moving++;
        b.updateAabb(s);
        if (ccd) this.sweepAabb(s);
      } else b.activity[s] = CAT_KINEMATIC_IDLE;
    }
    for (let k = 0; k < b.awakeCount; k++) {
      const s = b.awakeList[k];
      b.updateAabb(s);
      if (ccd) this.sweepAabb(s);
    }
    this.movingKinematicCount = moving;
  }

  /**
   * Stamps the broad-phase pairs, creates contacts for new ones and drops awake contacts whose AABBs
   * parted. Contacts between bodies that were not swept (a sleeping body and an idle kinematic one) are
   * kept for their wake-up.
   */
  private updatePairs(): void {
    const stamp = ++this.pairStamp;
    const contacts = this.world.contacts;
    const pairs = this.broad.pairs;
    const groups = this.world.bodies.groups;
    const sensor = this.world.bodies.sensor;
    const shape = this.world.bodies.shape;
    const joints = this.world.joints;
    const jointed = joints.liveCount > 0;
    for (let k = 0; k < this.broad.pairCount; k++) {
      const a = pairs[2 * k];
      const b = pairs[2 * k + 1];
      // Filtered pairs never become contacts; two sensors do not sense each other.
      if (!groupsCollide(groups[a], groups[b]) || (sensor[a] & sensor[b]) === 1) continue;
      const c = contacts.find(a, b);
      if (c >= 0) {
        contacts.stamp[c] = stamp;
        continue;
      }
      // Bodies joined by a joint do not collide unless the joint says so.
      if (jointed && (joints.filtersPair(a, b) || joints.filtersPair(b, a))) continue;
      const sa = shape[a];
      const sb = shape[b];
      const levelA = sa === MESH || sa === HEIGHTFIELD;
      const levelB = sb === MESH || sb === HEIGHTFIELD;
      // Level geometry does not collide with level geometry (neither can be dynamic).
      if (levelA && levelB) continue;
      const multi = levelA || levelB || sa === COMPOUND || sb === COMPOUND;
      contacts.add(a, b, stamp, (sensor[a] | sensor[b]) === 1, multi ? FLAG_MULTI | (levelA ? FLAG_WALK_B : 0) : 0);
    }
    const activity = this.world.bodies.activity;
    // Backwards: removal swaps the last awake contact into this position, which was already visited (a
    // pair with pieces removes several, so the position may now lie past the end). Pieces go with their pair.
    for (let i = contacts.awakeCount - 1; i >= 0; i--) {
      if (i >= contacts.awakeCount) continue;
      const c = contacts.awake[i];
      if (contacts.stamp[c] === stamp || (contacts.flags[c] & FLAG_PIECE) !== 0) continue;
      const ca = activity[contacts.bodyA[c]];
      const cb = activity[contacts.bodyB[c]];
      if (ca === CAT_AWAKE || cb === CAT_AWAKE || ca === CAT_KINEMATIC_MOVING || cb === CAT_KINEMATIC_MOVING) {
        contacts.removeAt(c, this.world.events, this.world.bodies);
      }
    }
  }

  /**
   * Narrow phase for every contact with an active body. Manifolds of pairs that barely moved are
   * recycled. A sleeping body that an active body touches (or will reach this step) wakes with its
   * island; the woken contacts join the awake set after the ones visited here and keep the manifolds
   * they slept with (their bodies have not moved since).
   */
  private collide(): void {
    const b = this.world.bodies;
    const contacts = this.world.contacts;
    const cat = b.activity;
    const ctx = this.ctx;
    const dt = ctx.dt;
    const ccd = ctx.ccd;
    const spec = ENGINE_CONSTANTS.speculativeDistance;
    const vel = b.vel;
    const angVel = b.angVel;
    const stats = this.world.lastStepStats;
    const prof = ctx.profiling;
    // What gravity adds to a sweep within the step (semi-implicit Euler over n sub-steps moves a body
    // g dt² (n + 1) / 2n, at most g dt²): a ball whose start-of-step speed fell just short of its gap
    // still reached the floor, with no speculative contact to catch it.
    const gravitySweep = Math.sqrt(ctx.gravityX * ctx.gravityX + ctx.gravityY * ctx.gravityY + ctx.gravityZ * ctx.gravityZ) * dt * dt;
    // The relaxation after the last sub-step already holds speculative contacts to the first sub-step
    // of the next step, so a swept pair's motion covers that sub-step too.
    const reach = dt + dt / ctx.iterations;
    const awakeContacts = contacts.awake;
    const n = contacts.awakeCount;
    const pieces = this.pieces;
    const stamp = this.pairStamp;
    for (let i = 0; i < n; i++) {
      const c = awakeContacts[i];
      const flags = contacts.flags[c];
      // A pair with pieces collides them all when its own contact comes up.
      if ((flags & FLAG_PIECE) !== 0) continue;
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
      const motion = this.manifold.motion;
      motion[0] = motion[1] = motion[2] = 0;
      if (ccd) {
        const wa = Math.sqrt(angVel[a3] * angVel[a3] + angVel[a3 + 1] * angVel[a3 + 1] + angVel[a3 + 2] * angVel[a3 + 2]);
        const wb = Math.sqrt(angVel[b3] * angVel[b3] + angVel[b3 + 1] * angVel[b3 + 1] + angVel[b3 + 2] * angVel[b3 + 2]);
        const sweep = (Math.sqrt(dvx * dvx + dvy * dvy + dvz * dvz) + wa * b.boundRadius[a] + wb * b.boundRadius[bb]) * dt + gravitySweep;
        if (sweep > margin) {
          margin = sweep;
          // Swept pairs also hand the narrow phase their relative motion (a sphere's normal at impact).
          motion[0] = dvx * reach;
          motion[1] = dvy * reach;
          motion[2] = dvz * reach;
        }
      }
      // Sphere-sphere is cheaper to recompute than to check for reuse.
      const multi = (flags & FLAG_MULTI) !== 0;
      const recyclable = !multi && (b.shape[a] !== SPHERE || b.shape[bb] !== SPHERE);
      stats.narrowPairs++;
      // The margin travels in a field: passing computed doubles to calls V8 does not inline boxes them.
      this.manifold.margin = margin;
      // Pairs whose margin CCD stretched beyond the speculative distance are the CCD stage's work.
      const swept = margin > spec;
      const t0 = swept && prof ? now() : 0;
      if (swept) stats.sweptPairs++;
      if (multi) {
        if (pieces.tryRecycle(this.manifold, b, contacts, c, stamp)) stats.recycled++;
        else pieces.collide(this.manifold, b, contacts, c, stamp);
      } else if (recyclable && contacts.tryRecycle(c, b, this.manifold)) {
        stats.recycled++;
      } else {
        collidePair(this.manifold, b, a, bb);
        contacts.storeManifold(c, this.manifold, b);
      }
      if (swept && prof) ctx.ccdMs += now() - t0;
      if ((ca === CAT_SLEEPING || cb === CAT_SLEEPING) && (contacts.flags[c] & FLAG_SENSOR) === 0) {
        const count = multi ? pieces.pieceCount : contacts.pointCount[c];
        if (count === 0) continue;
        // Wake when touching, or when the closing speed covers the gap within this step. The closing
        // speed counts rotation (ω · bounding radius, as the CCD margin does): a toppling domino's top
        // closes twice as fast as its centre, and a sleeping partner is immovable to the solver, so a
        // contact that reaches it before it wakes stops the domino dead.
        const normal = multi ? pieces.minNormal : contacts.normal;
        const n3 = multi ? 0 : c * 3;
        const closing =
          -(dvx * normal[n3] + dvy * normal[n3 + 1] + dvz * normal[n3 + 2]) +
          Math.sqrt(angVel[a3] * angVel[a3] + angVel[a3 + 1] * angVel[a3 + 1] + angVel[a3 + 2] * angVel[a3 + 2]) * b.boundRadius[a] +
          Math.sqrt(angVel[b3] * angVel[b3] + angVel[b3 + 1] * angVel[b3 + 1] + angVel[b3 + 2] * angVel[b3 + 2]) * b.boundRadius[bb];
        const separation = multi ? pieces.minSeparation : contacts.minSeparation(c);
        if (separation - (closing > 0 ? closing * dt : 0) <= ENGINE_CONSTANTS.touchDistance) {
          wakeIsland(b, contacts, ca === CAT_SLEEPING ? a : bb);
        }
      }
    }
    pieces.removeStale(b, contacts, this.world.events, stamp);
  }

  /** Soft sub-steps with relaxation (Box2D v3's soft step), or the classic linear-projection method. */
  private solve(): void {
    const ctx = this.ctx;
    const sb = this.solverBodies;
    const solver = this.solver;
    const b = this.world.bodies;
    const prof = ctx.profiling;
    const joints = this.world.joints;
    const js = this.jointSolver;
    sb.load(b, b.awakeList, b.awakeCount, b.kinematicList, b.kinematicCount);
    js.prepare(joints, b, ctx);
    const jointCount = js.count;
    solver.prepare(this.world.contacts, b, sb, ctx);
    // Joints before contacts in every pass (Box2D v3's order): contacts have the last word on penetration.
    if (ctx.soft) {
      for (let i = 0; i < ctx.iterations; i++) {
        let t = prof ? now() : 0;
        sb.integrateVelocities(b, ctx);
        if (prof) ctx.integrateMs += now() - t;
        if (ctx.warmStarting) {
          if (jointCount > 0) js.warmStart(joints, b, sb);
          solver.warmStart();
        } else {
          if (jointCount > 0) js.resetImpulses(joints);
          solver.resetImpulses();
        }
        if (jointCount > 0) js.solve(joints, b, sb, true);
        // Positions last moved before the previous sub-step's relax passes, which kept the separation
        // terms; without relax passes (or in the first sub-step) this pass computes them.
        solver.solve(true, i === 0 || ctx.relaxIterations === 0);
        t = prof ? now() : 0;
        sb.integratePositions(b);
        if (prof) ctx.integrateMs += now() - t;
        for (let r = 0; r < ctx.relaxIterations; r++) {
          if (jointCount > 0) js.solve(joints, b, sb, false);
          solver.solve(false, r === 0);
        }
        if (jointCount > 0) js.accumulate(joints);
      }
      solver.applyRestitution(sb, b);
    } else {
      let t = prof ? now() : 0;
      sb.integrateVelocities(b, ctx);
      if (prof) ctx.integrateMs += now() - t;
      if (ctx.warmStarting) {
        if (jointCount > 0) js.warmStart(joints, b, sb);
        solver.warmStart();
      }
      // The projection method has no position pass for joints: their rows keep the (soft) bias.
      for (let i = 0; i < ctx.iterations; i++) {
        if (jointCount > 0) js.solve(joints, b, sb, true);
        // Positions move only after these passes.
        solver.solve(false, i === 0);
      }
      if (jointCount > 0) js.accumulate(joints);
      solver.applyRestitution(sb, b);
      t = prof ? now() : 0;
      sb.integratePositions(b);
      if (prof) ctx.integrateMs += now() - t;
      for (let i = 0; i < ctx.projectionIterations; i++) solver.projectPositions(sb, b);
    }
    solver.storeImpulses(this.world.contacts);
    this.world.lastStepStats.constraints = solver.count + jointCount;
    if (jointCount > 0) js.finish(joints, b, sb);
    sb.store(b);
  }

  /**
   * A joint between an awake (or moving kinematic) body and a sleeping one wakes the sleeper's island:
   * joined bodies sleep and wake as one island (Islands links them), but a partner can be woken alone by
   * a contact or a call between steps.
   */
  private wakeJointPartners(): void {
    const joints = this.world.joints;
    const b = this.world.bodies;
    const cat = b.activity;
    for (let k = 0; k < joints.liveCount; k++) {
      const j = joints.order[k];
      const a = joints.bodyA[j];
      const bb = joints.bodyB[j];
      if (bb < 0) continue;
      const ca = cat[a];
      const cb = cat[bb];
      if (ca === CAT_SLEEPING && (cb === CAT_AWAKE || cb === CAT_KINEMATIC_MOVING)) wakeIsland(b, this.world.contacts, a);
      else if (cb === CAT_SLEEPING && (ca === CAT_AWAKE || ca === CAT_KINEMATIC_MOVING)) wakeIsland(b, this.world.contacts, bb);
    }
  }

  /** Removes the joints that broke this step, reporting each with the force (or torque) that broke it. */
  private breakJoints(): void {
    const js = this.jointSolver;
    const joints = this.world.joints;
    for (let k = 0; k < js.brokenCount; k++) {
      const j = js.broken[k];
      const r = j * 6;
      const f = joints.reaction;
      const force = Math.sqrt(f[r] * f[r] + f[r + 1] * f[r + 1] + f[r + 2] * f[r + 2]);
      const torque = Math.sqrt(f[r + 3] * f[r + 3] + f[r + 4] * f[r + 4] + f[r + 5] * f[r + 5]);
      this.world.breakJointInternal(j, force > joints.breakAt[j * 2] ? force : torque);
    }
    js.brokenCount = 0;
  }

  /**
   * Contact and sensor events: a pair that touches now and was not reported begins (enters), one that
   * was reported and no longer touches ends (exits). Contacts that end by being removed (bodies parted,
   * removed, filtered) report from the contact store. Only pairs with an active body can change, so the
   * others are not visited; pairs with no dynamic body have no contact events (a sensor senses any body).
   * Touching: a sensor overlaps (some point at or below zero separation); a solid contact overlaps or
   * took a normal impulse this step (a speculative contact that caught a fast body touched within it).
   */
  private reportContacts(): void {
    const contacts = this.world.contacts;
    const b = this.world.bodies;
    const events = this.world.events;
    const cat = b.activity;
    const awake = contacts.awake;
    for (let i = 0; i < contacts.awakeCount; i++) {
      const c = awake[i];
      const a = contacts.bodyA[c];
      const bb = contacts.bodyB[c];
      const ca = cat[a];
      const cb = cat[bb];
      if (ca !== CAT_AWAKE && cb !== CAT_AWAKE && ca !== CAT_KINEMATIC_MOVING && cb !== CAT_KINEMATIC_MOVING) continue;
      const flags = contacts.flags[c];
      // A pair with pieces reports for all of them.
      if ((flags & FLAG_PIECE) !== 0) continue;
      const sensor = (flags & FLAG_SENSOR) !== 0;
      if (!sensor && b.type[a] !== DYNAMIC && b.type[bb] !== DYNAMIC) continue;
      // Read and cleared here: the solver writes it only for the contacts it solved this step.
      let impulse = contacts.stepImpulse[c];
      contacts.stepImpulse[c] = 0;
      let separation = contacts.minSeparation(c);
      if ((flags & FLAG_MULTI) !== 0) {
        for (let e = contacts.pieceEdges(c); e >= 0; e = contacts.edgeNext[e]) {
          const p = e >> 1;
          if (contacts.key[p] === 0 || contacts.bodyA[p] !== a || contacts.bodyB[p] !== bb) continue;
          impulse += contacts.stepImpulse[p];
          contacts.stepImpulse[p] = 0;
          const s = contacts.minSeparation(p);
          if (s < separation) separation = s;
        }
      }
      const touching = (impulse > 0 && !sensor) || separation <= 0;
      const reported = (flags & FLAG_REPORTED) !== 0;
      if (touching === reported) continue;
      contacts.flags[c] = flags ^ FLAG_REPORTED;
      if (sensor) events.push(b, touching ? SENSOR_ENTER : SENSOR_EXIT, a, bb);
      else {
        const e = events.push(b, touching ? CONTACT_BEGIN : CONTACT_END, a, bb);
        if (touching) events.impulse[e] = impulse;
      }
    }
  }

  /**
   * After integration: kinematic bodies with a target land exactly on it; world inertia follows the new
   * orientations; bodies that became non-finite or left the world bounds are removed and reported.
   */
  private finalize(): void {
    const b = this.world.bodies;
    for (let k = 0; k < b.kinematicCount; k++) {
      const s = b.kinematicList[k];
      if (b.hasTarget[s] === 0) continue;
      const t = s * 7;
      b.pos[s * 3] = b.target[t];
      b.pos[s * 3 + 1] = b.target[t + 1];
      b.pos[s * 3 + 2] = b.target[t + 2];
      for (let i = 0; i < 4; i++) b.rot[s * 4 + i] = b.target[t + 3 + i];
    }
    for (let k = 0; k < b.awakeCount; k++) {
      const s = b.awakeList[k];
      b.updateWorldInertia(s);
      this.guard(s);
    }
    // Kinematic bodies are moved from outside: the same guard applies to them.
    for (let k = 0; k < b.kinematicCount; k++) this.guard(b.kinematicList[k]);
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
  }

  /** Stretches a body's AABB over its motion this step (linear sweep, plus rotation of its bounding sphere). */
  private sweepAabb(s: number): void {
    const b = this.world.bodies;
    const dt = this.ctx.dt;
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
    for (let k = 0; k < b.kinematicCount; k++) {
      const s = b.kinematicList[k];
      if (b.hasTarget[s] === 0 && b.moved[s] === 0) continue;
      b.hasTarget[s] = 0;
      b.moved[s] = 0;
      const s3 = s * 3;
      b.vel[s3] = b.vel[s3 + 1] = b.vel[s3 + 2] = 0;
      b.angVel[s3] = b.angVel[s3 + 1] = b.angVel[s3 + 2] = 0;
      b.updateAabb(s);
      // It may idle from now on, and idle bodies are not re-placed: move it to its new columns now.
      this.broad.touch(s, b);
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
