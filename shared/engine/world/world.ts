import { ENGINE_CONSTANTS, resolveSettings } from "../config.ts";
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
import { raycastBody } from "../collision/raycast.ts";
import { BodyStore, DYNAMIC, KINEMATIC, SPHERE, STATIC } from "../dynamics/body-store.ts";
import { ContactSolver } from "../dynamics/contact-solver.ts";
import { CONTACT_POINT_STRIDE, ContactStore, FLAG_TOUCHING, P_IMPULSE, P_MID, P_SEPARATION, POINT_STRIDE } from "../dynamics/contact-store.ts";
import { Islands, wakeIsland } from "../dynamics/islands.ts";
import { SolverBodies } from "../dynamics/solver-bodies.ts";
import { inverseRotateInto, normalizeQuatAt } from "../math/quat.ts";
import type { BodyDef, QuatTuple, Vec3Tuple, WorldSettings, WorldSettingsPatch } from "../types.ts";
import { type CharacterMoveOptions, type CharacterMoveResult, moveCharacterBody } from "./character.ts";
import { emptyProfile, now, type StepProfile } from "./profile.ts";
import { hashBodies } from "./state-hash.ts";

/**
 * Changes whenever a code change alters simulation results. Replays record it and refuse to verify
 * against a different engine version.
 */
export const ENGINE_VERSION = "1.0.0";

/** Why the engine removed a body on its own. */
export type RemovalReason = "bounds" | "non-finite";

export interface RemovedBody {
  id: string;
  handle: number;
  reason: RemovalReason;
}

export interface RaycastHit {
  handle: number;
  id: string;
  /** Distance along the (normalised) ray, metres. */
  distance: number;
  point: Vec3Tuple;
  normal: Vec3Tuple;
}

export interface ContactInfo {
  a: number;
  b: number;
  /** From a to b. */
  normal: Vec3Tuple;
  points: { position: Vec3Tuple; separation: number; normalImpulse: number }[];
  touching: boolean;
}

/** Contacts count as touching (island links, wake-ups) at or below this separation, metres. */
const TOUCH_DISTANCE = 0.005;

const scratch4 = new Float64Array(4);
const scratch3 = new Float64Array(3);

/**
 * A rigid-body world. Bodies are created from plain definitions and addressed by numeric handles
 * (slot + generation) that are valid only in this world; string ids map to handles.
 *
 * `step()` runs the pipeline: classify bodies → broad phase → pair update → narrow phase → solve
 * (soft sub-steps or projection) → finalize (kinematic targets, guards, bounds) → islands/sleep.
 * Everything outside `step()` (creating, removing, impulses, moves) happens between steps.
 */
export class World {
  readonly bodies = new BodyStore();
  readonly contacts = new ContactStore();
  settings: WorldSettings;
  /** Steps completed. */
  tick = 0;
  /** Per-stage timings of the last step when `profiling` is true. */
  readonly profile: StepProfile = emptyProfile();
  profiling = false;
  /** Bodies the engine removed during the last step (left the bounds, or became non-finite). */
  readonly removedLastStep: RemovedBody[] = [];

  private readonly broad = new BroadPhase();
  private readonly solverBodies = new SolverBodies();
  private readonly solver = new ContactSolver();
  private readonly islands = new Islands();
  private readonly manifold = new ManifoldOut();
  private category = new Uint8Array(64);
  private awake = new Int32Array(64);
  private awakeCount = 0;
  private kinematic = new Int32Array(64);
  private kinematicCount = 0;
  private pairStamp = 0;

  constructor(settings: WorldSettingsPatch = {}) {
    this.settings = resolveSettings(settings);
  }

  // ---------------------------------------------------------------- bodies

  /** Creates a body; the definition must be valid (see validateScenario). Returns its handle. */
  createBody(def: BodyDef): number {
    const slot = this.bodies.add(def);
    this.broad.add(slot);
    this.bodies.updateAabb(slot, ENGINE_CONSTANTS.aabbMargin);
    return this.bodies.handleOf(slot);
  }

  /** Removes a body. Bodies resting on it wake up. Unknown handles are ignored (returns false). */
  removeBody(handle: number): boolean {
    const slot = this.bodies.resolve(handle);
    if (slot < 0) return false;
    this.removeSlot(slot);
    return true;
  }

  private removeSlot(slot: number): void {
    wakeIsland(this.bodies, slot);
    const contacts = this.contacts;
    for (let c = contacts.count - 1; c >= 0; c--) {
      const a = contacts.bodyA[c];
      const b = contacts.bodyB[c];
      if (a !== slot && b !== slot) continue;
      wakeIsland(this.bodies, a === slot ? b : a);
      contacts.removeAt(c);
    }
    this.broad.remove(slot);
    this.bodies.remove(slot);
  }

  /** Handle of the body with this id, or -1. */
  handleOf(id: string): number {
    const slot = this.bodies.slotOfId(id);
    return slot < 0 ? -1 : this.bodies.handleOf(slot);
  }

  /** Id of a live body, or undefined. */
  idOf(handle: number): string | undefined {
    const slot = this.bodies.resolve(handle);
    return slot < 0 ? undefined : this.bodies.ids[slot];
  }

  has(handle: number): boolean {
    return this.bodies.resolve(handle) >= 0;
  }

  get bodyCount(): number {
    return this.bodies.liveCount;
  }

  /** Handles of all live bodies in slot order. */
  handles(): number[] {
    const out: number[] = [];
    for (let s = 0; s < this.bodies.slotCount; s++) if (this.bodies.alive[s]) out.push(this.bodies.handleOf(s));
    return out;
  }

  private slot(handle: number): number {
    const slot = this.bodies.resolve(handle);
    if (slot < 0) throw new Error(`unknown body handle ${handle}`);
    return slot;
  }

  getType(handle: number): BodyDef["type"] {
    const t = this.bodies.type[this.slot(handle)];
    return t === STATIC ? "static" : t === KINEMATIC ? "kinematic" : "dynamic";
  }

  getShape(handle: number): BodyDef["shape"] {
    const slot = this.slot(handle);
    const h = this.bodies.half;
    return this.bodies.shape[slot] === SPHERE
      ? { type: "sphere", radius: h[slot * 3] }
      : { type: "box", halfExtents: [h[slot * 3], h[slot * 3 + 1], h[slot * 3 + 2]] };
  }

  getPosition(handle: number, out: Vec3Tuple = [0, 0, 0]): Vec3Tuple {
    const s3 = this.slot(handle) * 3;
    out[0] = this.bodies.pos[s3];
    out[1] = this.bodies.pos[s3 + 1];
    out[2] = this.bodies.pos[s3 + 2];
    return out;
  }

  getRotation(handle: number, out: QuatTuple = [0, 0, 0, 1]): QuatTuple {
    const s4 = this.slot(handle) * 4;
    out[0] = this.bodies.rot[s4];
    out[1] = this.bodies.rot[s4 + 1];
    out[2] = this.bodies.rot[s4 + 2];
    out[3] = this.bodies.rot[s4 + 3];
    return out;
  }

  getLinearVelocity(handle: number, out: Vec3Tuple = [0, 0, 0]): Vec3Tuple {
    const s3 = this.slot(handle) * 3;
    out[0] = this.bodies.vel[s3];
    out[1] = this.bodies.vel[s3 + 1];
    out[2] = this.bodies.vel[s3 + 2];
    return out;
  }

  getAngularVelocity(handle: number, out: Vec3Tuple = [0, 0, 0]): Vec3Tuple {
    const s3 = this.slot(handle) * 3;
    out[0] = this.bodies.angVel[s3];
    out[1] = this.bodies.angVel[s3 + 1];
    out[2] = this.bodies.angVel[s3 + 2];
    return out;
  }

  getMass(handle: number): number {
    const m = this.bodies.invMass[this.slot(handle)];
    return m === 0 ? Number.POSITIVE_INFINITY : 1 / m;
  }

  isSleeping(handle: number): boolean {
    return this.bodies.sleeping[this.slot(handle)] === 1;
  }

  /** Wakes the body's island (no-op for awake or non-dynamic bodies). */
  wake(handle: number): void {
    wakeIsland(this.bodies, this.slot(handle));
  }

  setLinearVelocity(handle: number, v: readonly number[]): void {
    const slot = this.slot(handle);
    if (this.bodies.type[slot] === STATIC) return;
    wakeIsland(this.bodies, slot);
    const s3 = slot * 3;
    this.bodies.vel[s3] = v[0];
    this.bodies.vel[s3 + 1] = v[1];
    this.bodies.vel[s3 + 2] = v[2];
  }

  setAngularVelocity(handle: number, w: readonly number[]): void {
    const slot = this.slot(handle);
    if (this.bodies.type[slot] === STATIC) return;
    wakeIsland(this.bodies, slot);
    const s3 = slot * 3;
    this.bodies.angVel[s3] = w[0];
    this.bodies.angVel[s3 + 1] = w[1];
    this.bodies.angVel[s3 + 2] = w[2];
  }

  /**
   * Teleports a body (any type). Its island and everything touching it wakes up. Prefer
   * `moveKinematic` for kinematic bodies so the solver sees their velocity.
   */
  setTransform(handle: number, position: readonly number[], rotation?: readonly number[]): void {
    const slot = this.slot(handle);
    this.wakeTouching(slot);
    const s3 = slot * 3;
    this.bodies.pos[s3] = position[0];
    this.bodies.pos[s3 + 1] = position[1];
    this.bodies.pos[s3 + 2] = position[2];
    if (rotation) {
      const s4 = slot * 4;
      for (let k = 0; k < 4; k++) this.bodies.rot[s4 + k] = rotation[k];
      normalizeQuatAt(this.bodies.rot, s4);
      this.bodies.updateWorldInertia(slot);
    }
    this.bodies.updateAabb(slot, ENGINE_CONSTANTS.aabbMargin);
  }

  /**
   * Applies an impulse (N·s) at a world point (default: the centre of mass) to a dynamic body and wakes
   * it. Δv = J / m, Δω = I⁻¹ (r × J).
   */
  applyImpulse(handle: number, impulse: readonly number[], point?: readonly number[]): void {
    const slot = this.slot(handle);
    const b = this.bodies;
    if (b.type[slot] !== DYNAMIC) return;
    wakeIsland(b, slot);
    const s3 = slot * 3;
    const m = b.invMass[slot];
    b.vel[s3] += impulse[0] * m;
    b.vel[s3 + 1] += impulse[1] * m;
    b.vel[s3 + 2] += impulse[2] * m;
    if (point) {
      const rx = point[0] - b.pos[s3];
      const ry = point[1] - b.pos[s3 + 1];
      const rz = point[2] - b.pos[s3 + 2];
      const tx = ry * impulse[2] - rz * impulse[1];
      const ty = rz * impulse[0] - rx * impulse[2];
      const tz = rx * impulse[1] - ry * impulse[0];
      const i = b.invInertiaWorld;
      const s6 = slot * 6;
      b.angVel[s3] += i[s6] * tx + i[s6 + 1] * ty + i[s6 + 2] * tz;
      b.angVel[s3 + 1] += i[s6 + 1] * tx + i[s6 + 3] * ty + i[s6 + 4] * tz;
      b.angVel[s3 + 2] += i[s6 + 2] * tx + i[s6 + 4] * ty + i[s6 + 5] * tz;
    }
  }

  /**
   * Sets a kinematic body's target pose for the next step. Its velocity is set so that it reaches the
   * target in one step (the solver pushes what it meets with that velocity); after the step the pose is
   * exactly the target and the velocity is cleared.
   */
  moveKinematic(handle: number, position: readonly number[], rotation?: readonly number[]): void {
    const slot = this.slot(handle);
    const b = this.bodies;
    if (b.type[slot] !== KINEMATIC) throw new Error("moveKinematic needs a kinematic body");
    const s3 = slot * 3;
    const s4 = slot * 4;
    const t = slot * 7;
    const inv = this.settings.tickRate;
    b.target[t] = position[0];
    b.target[t + 1] = position[1];
    b.target[t + 2] = position[2];
    b.vel[s3] = (position[0] - b.pos[s3]) * inv;
    b.vel[s3 + 1] = (position[1] - b.pos[s3 + 1]) * inv;
    b.vel[s3 + 2] = (position[2] - b.pos[s3 + 2]) * inv;
    const q = rotation ?? [b.rot[s4], b.rot[s4 + 1], b.rot[s4 + 2], b.rot[s4 + 3]];
    scratch4[0] = q[0];
    scratch4[1] = q[1];
    scratch4[2] = q[2];
    scratch4[3] = q[3];
    normalizeQuatAt(scratch4, 0);
    for (let k = 0; k < 4; k++) b.target[t + 3 + k] = scratch4[k];
    // ω from the quaternion difference dq = target ⊗ current*, small-angle: ω ≈ 2 dq.xyz / dt.
    const cx = -b.rot[s4];
    const cy = -b.rot[s4 + 1];
    const cz = -b.rot[s4 + 2];
    const cw = b.rot[s4 + 3];
    const tx = scratch4[0];
    const ty = scratch4[1];
    const tz = scratch4[2];
    const tw = scratch4[3];
    let dx = tw * cx + tx * cw + ty * cz - tz * cy;
    let dy = tw * cy - tx * cz + ty * cw + tz * cx;
    let dz = tw * cz + tx * cy - ty * cx + tz * cw;
    const dw = tw * cw - tx * cx - ty * cy - tz * cz;
    if (dw < 0) {
      dx = -dx;
      dy = -dy;
      dz = -dz;
    }
    b.angVel[s3] = 2 * dx * inv;
    b.angVel[s3 + 1] = 2 * dy * inv;
    b.angVel[s3 + 2] = 2 * dz * inv;
    b.hasTarget[slot] = 1;
  }

  /**
   * Moves a kinematic character by `delta` right away and resolves its overlaps with static and
   * kinematic bodies (seed 004's accumulated correction; see character.ts). For the next step its
   * velocity is the movement made divided by dt, so the solver shoves the dynamic bodies it touches.
   */
  moveCharacter(
    handle: number,
    delta: readonly number[],
    options: CharacterMoveOptions = {},
    result: CharacterMoveResult = { moved: [0, 0, 0], grounded: false, hits: 0 },
  ): CharacterMoveResult {
    const slot = this.slot(handle);
    const b = this.bodies;
    if (b.type[slot] !== KINEMATIC) throw new Error("moveCharacter needs a kinematic body");
    moveCharacterBody(b, slot, delta[0], delta[1], delta[2], options, result);
    const s3 = slot * 3;
    const inv = this.settings.tickRate;
    b.vel[s3] = result.moved[0] * inv;
    b.vel[s3 + 1] = result.moved[1] * inv;
    b.vel[s3 + 2] = result.moved[2] * inv;
    b.angVel[s3] = b.angVel[s3 + 1] = b.angVel[s3 + 2] = 0;
    b.moved[slot] = 1;
    b.updateAabb(slot, ENGINE_CONSTANTS.aabbMargin);
    return result;
  }

  private wakeTouching(slot: number): void {
    wakeIsland(this.bodies, slot);
    const contacts = this.contacts;
    for (let c = 0; c < contacts.count; c++) {
      if (contacts.bodyA[c] === slot) wakeIsland(this.bodies, contacts.bodyB[c]);
      else if (contacts.bodyB[c] === slot) wakeIsland(this.bodies, contacts.bodyA[c]);
    }
  }

  // ---------------------------------------------------------------- settings

  /** Changes settings between steps. Gravity changes and turning sleep off wake every body. */
  updateSettings(patch: WorldSettingsPatch): void {
    const before = this.settings;
    this.settings = resolveSettings(patch, before);
    const g0 = before.gravity;
    const g1 = this.settings.gravity;
    if (g0[0] !== g1[0] || g0[1] !== g1[1] || g0[2] !== g1[2] || !this.settings.sleep) this.wakeAll();
  }

  wakeAll(): void {
    for (let s = 0; s < this.bodies.slotCount; s++) if (this.bodies.alive[s]) wakeIsland(this.bodies, s);
  }

  // ---------------------------------------------------------------- queries

  /** First body hit by the ray, or null. `direction` need not be unit length. */
  raycast(
    origin: readonly number[],
    direction: readonly number[],
    maxDistance = Number.POSITIVE_INFINITY,
    skip?: (handle: number) => boolean,
  ): RaycastHit | null {
    const len = Math.sqrt(direction[0] * direction[0] + direction[1] * direction[1] + direction[2] * direction[2]);
    if (!(len > 0)) return null;
    const dx = direction[0] / len;
    const dy = direction[1] / len;
    const dz = direction[2] / len;
    let best = maxDistance;
    let bestSlot = -1;
    let nx = 0;
    let ny = 0;
    let nz = 0;
    const b = this.bodies;
    for (let s = 0; s < b.slotCount; s++) {
      if (b.alive[s] === 0) continue;
      if (skip?.(b.handleOf(s))) continue;
      if (raycastBody(b, s, origin[0], origin[1], origin[2], dx, dy, dz, best, scratch4) && scratch4[0] <= best) {
        if (bestSlot >= 0 && scratch4[0] === best) continue;
        best = scratch4[0];
        bestSlot = s;
        nx = scratch4[1];
        ny = scratch4[2];
        nz = scratch4[3];
      }
    }
    if (bestSlot < 0) return null;
    return {
      handle: b.handleOf(bestSlot),
      id: b.ids[bestSlot]!,
      distance: best,
      point: [origin[0] + dx * best, origin[1] + dy * best, origin[2] + dz * best],
      normal: [nx, ny, nz],
    };
  }

  /** Calls `fn` for every contact that has points (allocates; for tools and tests, not the hot path). */
  forEachContact(fn: (contact: ContactInfo) => void): void {
    const c3 = this.contacts;
    for (let c = 0; c < c3.count; c++) {
      const count = c3.pointCount[c];
      if (count === 0) continue;
      const points: ContactInfo["points"] = [];
      const base = c * CONTACT_POINT_STRIDE;
      for (let k = 0; k < count; k++) {
        const o = base + k * POINT_STRIDE;
        points.push({
          position: [c3.points[o + P_MID], c3.points[o + P_MID + 1], c3.points[o + P_MID + 2]],
          separation: c3.points[o + P_SEPARATION],
          normalImpulse: c3.points[o + P_IMPULSE],
        });
      }
      fn({
        a: this.bodies.handleOf(c3.bodyA[c]),
        b: this.bodies.handleOf(c3.bodyB[c]),
        normal: [c3.normal[c * 3], c3.normal[c * 3 + 1], c3.normal[c * 3 + 2]],
        points,
        touching: (c3.flags[c] & FLAG_TOUCHING) !== 0,
      });
    }
  }

  /** Dynamic bodies that are not sleeping. */
  get awakeBodyCount(): number {
    let n = 0;
    const b = this.bodies;
    for (let s = 0; s < b.slotCount; s++) if (b.alive[s] && b.type[s] === DYNAMIC && b.sleeping[s] === 0) n++;
    return n;
  }

  /** Σ ½ m v² + ½ ωᵀ I ω over dynamic bodies, joules. */
  kineticEnergy(): number {
    const b = this.bodies;
    let e = 0;
    for (let s = 0; s < b.slotCount; s++) {
      if (b.alive[s] === 0 || b.type[s] !== DYNAMIC) continue;
      const s3 = s * 3;
      const m = 1 / b.invMass[s];
      const vx = b.vel[s3];
      const vy = b.vel[s3 + 1];
      const vz = b.vel[s3 + 2];
      e += 0.5 * m * (vx * vx + vy * vy + vz * vz);
      inverseRotateInto(scratch3, 0, b.rot, s * 4, b.angVel[s3], b.angVel[s3 + 1], b.angVel[s3 + 2]);
      e +=
        0.5 *
        (b.inertia[s3] * scratch3[0] * scratch3[0] +
          b.inertia[s3 + 1] * scratch3[1] * scratch3[1] +
          b.inertia[s3 + 2] * scratch3[2] * scratch3[2]);
    }
    return e;
  }

  /** Hash of the exact bits of every body's state (16 hex chars). */
  stateHash(): string {
    return hashBodies(this.bodies);
  }

  // ---------------------------------------------------------------- step

  /** Advances the world by one fixed step of 1 / tickRate seconds. */
  step(): void {
    const prof = this.profiling;
    const p = this.profile;
    const t0 = prof ? now() : 0;
    const dt = 1 / this.settings.tickRate;
    if (this.removedLastStep.length > 0) this.removedLastStep.length = 0;

    this.classify(dt, true);
    this.broad.findPairs(this.bodies, this.category);
    const t1 = prof ? now() : 0;

    this.updatePairs();
    const woke = this.collide(dt);
    if (woke) this.classify(dt, false);
    const t2 = prof ? now() : 0;

    const tIntegrate = this.solve(dt);
    const t3 = prof ? now() : 0;

    this.finalize();
    let t4 = t3;
    if (this.settings.sleep) {
      this.islands.update(
        this.bodies,
        this.contacts,
        this.awake,
        this.awakeCount,
        dt,
        this.settings.sleepTime,
        this.settings.sleepLinearThreshold,
        this.settings.sleepAngularThreshold,
      );
      t4 = prof ? now() : 0;
    }
    this.clearKinematicMoves();
    this.tick++;
    if (prof) {
      const t5 = now();
      p.broad = t1 - t0;
      p.narrow = t2 - t1;
      p.integrate = tIntegrate;
      p.solve = t3 - t2 - tIntegrate;
      p.islands = t4 - t3;
      p.ccd = 0;
      p.total = t5 - t0;
    }
  }

  /**
   * Sorts bodies into activity categories, builds the awake and kinematic lists (slot order) and
   * refreshes AABBs of moving bodies. With CCD on, AABBs are stretched over the distance swept this step.
   */
  private classify(dt: number, refreshAabbs: boolean): void {
    const b = this.bodies;
    const n = b.slotCount;
    if (this.category.length < n) {
      let cap = this.category.length;
      while (cap < n) cap *= 2;
      this.category = new Uint8Array(cap);
      this.awake = new Int32Array(cap);
      this.kinematic = new Int32Array(cap);
    }
    const ccd = this.settings.ccd;
    const margin = ENGINE_CONSTANTS.aabbMargin;
    let na = 0;
    let nk = 0;
    for (let s = 0; s < n; s++) {
      if (b.alive[s] === 0) continue;
      const type = b.type[s];
      let cat: number;
      if (type === STATIC) {
        cat = CAT_STATIC;
      } else if (type === KINEMATIC) {
        this.kinematic[nk++] = s;
        cat = isKinematicMoving(b, s) ? CAT_KINEMATIC_MOVING : CAT_KINEMATIC_IDLE;
      } else if (b.sleeping[s] === 1) {
        cat = CAT_SLEEPING;
      } else {
        this.awake[na++] = s;
        cat = CAT_AWAKE;
      }
      this.category[s] = cat;
      if (refreshAabbs && (cat === CAT_AWAKE || cat === CAT_KINEMATIC_MOVING)) {
        b.updateAabb(s, margin);
        if (ccd) sweepAabb(b, s, dt);
      }
    }
    this.awakeCount = na;
    this.kinematicCount = nk;
  }

  /** Stamps the broad-phase pairs, creates contacts for new ones and drops contacts whose AABBs parted. */
  private updatePairs(): void {
    const stamp = ++this.pairStamp;
    const contacts = this.contacts;
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
    const b = this.bodies;
    const contacts = this.contacts;
    const cat = this.category;
    const ccd = this.settings.ccd;
    const spec = ENGINE_CONSTANTS.speculativeDistance;
    const vel = b.vel;
    const angVel = b.angVel;
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
      const recyclable = b.shape[a] !== SPHERE || b.shape[bb] !== SPHERE;
      if (
        !recyclable ||
        !contacts.tryRecycle(c, b, ENGINE_CONSTANTS.recycleDistance, ENGINE_CONSTANTS.recycleRotation, margin, TOUCH_DISTANCE)
      ) {
        collidePair(this.manifold, b, a, bb, margin);
        contacts.storeManifold(c, this.manifold, b, TOUCH_DISTANCE, recyclable, margin);
      }
      if (ca === CAT_SLEEPING || cb === CAT_SLEEPING) {
        const count = contacts.pointCount[c];
        if (count === 0) continue;
        // Wake when touching, or when the closing speed covers the gap within this step.
        const n3 = c * 3;
        const closing = -(dvx * contacts.normal[n3] + dvy * contacts.normal[n3 + 1] + dvz * contacts.normal[n3 + 2]);
        if (contacts.minSeparation(c) - (closing > 0 ? closing * dt : 0) <= TOUCH_DISTANCE) {
          wakeIsland(b, ca === CAT_SLEEPING ? a : bb);
          woke = true;
        }
      }
    }
    return woke;
  }

  /** Returns the milliseconds spent integrating (profiling only). */
  private solve(dt: number): number {
    const s = this.settings;
    const pc = s.positionCorrection;
    const sb = this.solverBodies;
    const solver = this.solver;
    const b = this.bodies;
    const prof = this.profiling;
    let tInt = 0;
    sb.load(b, this.awake, this.awakeCount, this.kinematic, this.kinematicCount);
    const [gx, gy, gz] = s.gravity;
    const iterations = s.velocityIterations;
    if (pc.method === "soft") {
      const h = dt / iterations;
      solver.prepare(this.contacts, b, sb, {
        h,
        contactHertz: pc.contactHertz,
        dampingRatio: pc.dampingRatio,
        maxPushVelocity: pc.maxPushVelocity,
        slop: pc.slop,
        warmStarting: s.warmStarting,
        restitutionThreshold: s.restitutionThreshold,
      });
      for (let i = 0; i < iterations; i++) {
        let t = prof ? now() : 0;
        sb.integrateVelocities(b, gx, gy, gz, h);
        if (prof) tInt += now() - t;
        if (s.warmStarting) solver.warmStart(sb);
        else solver.resetImpulses();
        solver.solve(sb, h, true);
        t = prof ? now() : 0;
        sb.integratePositions(b, h);
        if (prof) tInt += now() - t;
        for (let r = 0; r < s.relaxIterations; r++) solver.solve(sb, h, false);
      }
      solver.applyRestitution(sb, s.restitutionThreshold);
    } else {
      solver.prepare(this.contacts, b, sb, {
        h: dt,
        contactHertz: 0,
        dampingRatio: 0,
        maxPushVelocity: pc.maxPushVelocity,
        slop: pc.slop,
        warmStarting: s.warmStarting,
        restitutionThreshold: s.restitutionThreshold,
      });
      let t = prof ? now() : 0;
      sb.integrateVelocities(b, gx, gy, gz, dt);
      if (prof) tInt += now() - t;
      if (s.warmStarting) solver.warmStart(sb);
      for (let i = 0; i < iterations; i++) solver.solve(sb, dt, false);
      solver.applyRestitution(sb, s.restitutionThreshold);
      t = prof ? now() : 0;
      sb.integratePositions(b, dt);
      if (prof) tInt += now() - t;
      for (let i = 0; i < pc.iterations; i++) solver.projectPositions(sb, b, pc.slop, pc.percent);
    }
    solver.storeImpulses(this.contacts);
    sb.store(b);
    return tInt;
  }

  /**
   * After integration: kinematic bodies with a target land exactly on it; world inertia follows the new
   * orientations; bodies that became non-finite or left the world bounds are removed and reported.
   */
  private finalize(): void {
    const b = this.bodies;
    for (let k = 0; k < this.kinematicCount; k++) {
      const s = this.kinematic[k];
      if (b.hasTarget[s] === 0) continue;
      const t = s * 7;
      b.pos[s * 3] = b.target[t];
      b.pos[s * 3 + 1] = b.target[t + 1];
      b.pos[s * 3 + 2] = b.target[t + 2];
      for (let i = 0; i < 4; i++) b.rot[s * 4 + i] = b.target[t + 3 + i];
    }
    const bounds = this.settings.bounds;
    for (let k = 0; k < this.awakeCount; k++) {
      const s = this.awake[k];
      b.updateWorldInertia(s);
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
      if (reason !== null) {
        this.removedLastStep.push({ id: b.ids[s]!, handle: b.handleOf(s), reason });
      }
    }
    if (this.removedLastStep.length > 0) this.removeReported();
  }

  private removeReported(): void {
    for (const r of this.removedLastStep) {
      const slot = this.bodies.resolve(r.handle);
      if (slot >= 0) this.removeSlot(slot);
    }
    // The removed bodies are gone from the awake list's view; rebuild it for the island pass.
    this.classify(1 / this.settings.tickRate, false);
  }

  private clearKinematicMoves(): void {
    const b = this.bodies;
    for (let k = 0; k < this.kinematicCount; k++) {
      const s = this.kinematic[k];
      if (b.hasTarget[s] === 0 && b.moved[s] === 0) continue;
      b.hasTarget[s] = 0;
      b.moved[s] = 0;
      const s3 = s * 3;
      b.vel[s3] = b.vel[s3 + 1] = b.vel[s3 + 2] = 0;
      b.angVel[s3] = b.angVel[s3 + 1] = b.angVel[s3 + 2] = 0;
      b.updateAabb(s, ENGINE_CONSTANTS.aabbMargin);
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

/** Stretches a body's AABB over its motion this step (linear sweep, plus rotation of its bounding sphere). */
function sweepAabb(b: BodyStore, s: number, dt: number): void {
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
