import { resolveSettings } from "../config.ts";
import { raycastBody } from "../collision/raycast.ts";
import { BodyStore, DYNAMIC, KINEMATIC, SPHERE, STATIC } from "../dynamics/body-store.ts";
import { CONTACT_POINT_STRIDE, ContactStore, FLAG_TOUCHING, P_IMPULSE, P_MID, P_SEPARATION, POINT_STRIDE } from "../dynamics/contact-store.ts";
import { wakeIsland } from "../dynamics/islands.ts";
import { inverseRotateVec, normalizeQuatAt } from "../math/quat.ts";
import type { BodyDef, QuatTuple, Vec3Tuple, WorldSettings, WorldSettingsPatch } from "../types.ts";
import { type CharacterMoveOptions, type CharacterMoveResult, moveCharacterBody } from "./character.ts";
import { emptyProfile, type StepProfile } from "./profile.ts";
import { emptyStats, type RemovalReason, type RemovedBody, StepPipeline, type StepStats } from "./step-pipeline.ts";

export type { RemovalReason, RemovedBody, StepStats };
import { hashBodies } from "./state-hash.ts";

/**
 * Changes whenever a code change alters simulation results. Replays record it and refuse to verify
 * against a different engine version.
 */
export const ENGINE_VERSION = "1.2.0";


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

  /** Counters of the last step (pairs, recycled manifolds, constraints, awake bodies). */
  readonly lastStepStats: StepStats = emptyStats();
  private readonly pipeline = new StepPipeline(this);

  constructor(settings: WorldSettingsPatch = {}) {
    this.settings = resolveSettings(settings);
  }

  // ---------------------------------------------------------------- bodies

  /** Creates a body; the definition must be valid (see validateScenario). Returns its handle. */
  createBody(def: BodyDef): number {
    const slot = this.bodies.add(def);
    this.pipeline.broad.add(slot);
    this.bodies.updateAabb(slot);
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
    this.pipeline.broad.remove(slot);
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

  /** Inputs from outside must be finite: one NaN would spread through every contact of its island. */
  private finite(what: string, v: readonly number[], n: number): void {
    for (let k = 0; k < n; k++) if (!Number.isFinite(v[k])) throw new Error(`${what}: expected ${n} finite numbers`);
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
    this.finite("setLinearVelocity", v, 3);
    if (this.bodies.type[slot] === STATIC) return;
    wakeIsland(this.bodies, slot);
    const s3 = slot * 3;
    this.bodies.vel[s3] = v[0];
    this.bodies.vel[s3 + 1] = v[1];
    this.bodies.vel[s3 + 2] = v[2];
  }

  setAngularVelocity(handle: number, w: readonly number[]): void {
    const slot = this.slot(handle);
    this.finite("setAngularVelocity", w, 3);
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
    this.finite("setTransform position", position, 3);
    if (rotation) this.finite("setTransform rotation", rotation, 4);
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
    this.bodies.updateAabb(slot);
    this.pipeline.broad.touch(slot, this.bodies);
  }

  /**
   * Applies an impulse (N·s) at a world point (default: the centre of mass) to a dynamic body and wakes
   * it. Δv = J / m, Δω = I⁻¹ (r × J).
   */
  applyImpulse(handle: number, impulse: readonly number[], point?: readonly number[]): void {
    const slot = this.slot(handle);
    this.finite("applyImpulse impulse", impulse, 3);
    if (point) this.finite("applyImpulse point", point, 3);
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
    this.finite("moveKinematic position", position, 3);
    if (rotation) this.finite("moveKinematic rotation", rotation, 4);
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
    this.finite("moveCharacter delta", delta, 3);
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
    b.updateAabb(slot);
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
      inverseRotateVec(scratch3, 0, b.rot, s * 4, b.angVel, s3);
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
    this.pipeline.step();
    this.tick++;
  }

  /** @internal Used by the pipeline to remove bodies it rejects (bounds, non-finite). */
  removeSlotInternal(slot: number): void {
    this.removeSlot(slot);
  }
}
