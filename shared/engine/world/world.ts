import { MATERIAL_LIMITS, resolveSettings } from "../config.ts";
import type { BroadPhase } from "../collision/broad-phase.ts";
import { BodyStore, DYNAMIC, KINEMATIC, packGroups, STATIC } from "../dynamics/body-store.ts";
import { type ContactEvent, ContactEventLog } from "../dynamics/contact-events.ts";
import { ContactStore } from "../dynamics/contact-store.ts";
import { wakeIsland } from "../dynamics/islands.ts";
import { normalizeQuatAt } from "../math/quat.ts";
import { createJointSlot, jointCoordinate, jointInfo } from "../joints/joint-setup.ts";
import { J_COLLIDE, J_MOTOR, JointStore } from "../joints/joint-store.ts";
import type {
  Aabb,
  BodyDef,
  CollisionGroups,
  ConvexShapeDef,
  JointDef,
  JointInfo,
  JointMotorDef,
  JointReaction,
  QuatTuple,
  Vec3Tuple,
  WorldSettings,
  WorldSettingsPatch,
} from "../types.ts";
import { type BodyView, StoreView } from "./body-view.ts";
import { type OverlapOptions, queryGroups, type RaycastHit, type ShapeCastHit, type ShapeCastOptions, type ShapePose, SpatialQueries } from "./queries.ts";
import { type CharacterMoveOptions, type CharacterMoveResult, moveCharacterBody } from "./character.ts";
import { emptyProfile, type StepProfile } from "./profile.ts";
import { type ContactInfo, kineticEnergyOf, visitContacts } from "./readers.ts";
import { setKinematicTarget } from "./body-motion.ts";
import { emptyStats, type PipelineHost, type RemovalReason, type RemovedBody, StepPipeline, type StepStats } from "./step-pipeline.ts";

export type { ContactInfo, RaycastHit, RemovalReason, RemovedBody, StepStats };
export type { OverlapOptions, ShapeCastHit, ShapeCastOptions, ShapePose } from "./queries.ts";
import { hashBodies } from "./state-hash.ts";
import { captureWorld, restoreWorld, type WorldParts, type WorldSnapshot } from "./snapshot.ts";

export type { WorldSnapshot } from "./snapshot.ts";
export type { ContactEvent, ContactEventType } from "../dynamics/contact-events.ts";

/**
 * Changes whenever a code change alters simulation results. Replays record it and refuse to verify
 * against a different engine version.
 */
/** Scratch for reference-frame poses (position xyz, rotation xyzw). */
const poseScratch = new Float64Array(7);

export const ENGINE_VERSION = "1.4.0";
// 1.4.0: joints. Scenes without joints step exactly as in 1.3.0 (same golden hashes); a replay with
// joints does not verify on an engine that has none.
// 1.3.0: awake sets (solver order follows the awake body and contact sets, not slots), exact anchor
// rotation in the soft step, lever-arm-true manifold recycling, restitution at the time of impact,
// sphere-box contacts along the motion, contact damping ratio 8.




/**
 * The engine's stores behind a world, for engine tests and tools only (see internal.ts); not part of the
 * public API: writing them bypasses wake-ups, AABB upkeep and validation.
 */
export interface WorldInternals {
  readonly bodies: BodyStore;
  readonly contacts: ContactStore;
  readonly joints: JointStore;
  readonly broad: BroadPhase;
}

let internalsOf: (world: World) => WorldInternals;

/** @internal Use `worldInternals` from internal.ts. */
export function worldInternals(world: World): WorldInternals {
  return internalsOf(world);
}

/**
 * A rigid-body world. Bodies are created from plain definitions and addressed by numeric handles
 * (slot + generation) that are valid only in this world; string ids map to handles.
 *
 * `step()` runs the pipeline: classify bodies → broad phase → pair update → narrow phase → solve
 * (soft sub-steps or projection) → finalize (kinematic targets, guards, bounds) → islands/sleep.
 * Everything outside `step()` (creating, removing, impulses, moves) happens between steps.
 *
 * The stores are private: bodies are read and changed through handles (get*, set*, queries), and
 * readers that walk every body each tick use the read-only `view()`.
 */
export class World {
  static {
    internalsOf = (w) => ({ bodies: w.bodies, contacts: w.contacts, joints: w.joints, broad: w.pipeline.broad });
  }

  private readonly bodies = new BodyStore();
  private readonly contacts = new ContactStore();
  private readonly joints = new JointStore();
  private readonly events = new ContactEventLog();
  /**
   * The current settings. Change them only through `updateSettings`, which replaces the object (the step
   * re-resolves its scalars when the object changes, not when a field of it is written).
   */
  settings: Readonly<WorldSettings>;
  /** Steps completed. */
  tick = 0;
  /** Per-stage timings of the last step when `profiling` is true. */
  readonly profile: StepProfile = emptyProfile();
  profiling = false;
  /** Bodies the engine removed during the last step (left the bounds, or became non-finite). */
  readonly removedLastStep: RemovedBody[] = [];

  /** Counters of the last step (pairs, recycled manifolds, constraints, awake bodies). */
  readonly lastStepStats: StepStats = emptyStats();
  private readonly pipeline = new StepPipeline(this.pipelineHost());
  private readonly storeView = new StoreView(this.bodies);
  private readonly queries = new SpatialQueries(this.bodies, this.pipeline.broad);

  constructor(settings: WorldSettingsPatch = {}) {
    this.settings = resolveSettings(settings);
  }

  // ---------------------------------------------------------------- bodies

  /** Creates a body; the definition must be valid (see validateScenario). Returns its handle. */
  createBody(def: BodyDef): number {
    const slot = this.bodies.add(def);
    this.contacts.ensureBodies(this.bodies.slotCount);
    this.joints.ensureBodies(this.bodies.slotCount);
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
    const contacts = this.contacts;
    wakeIsland(this.bodies, contacts, slot);
    // Its joints go with it (their partners wake: they lose a support).
    for (let e = this.joints.firstEdge(slot); e >= 0; e = this.joints.firstEdge(slot)) this.removeJointSlot(e >> 1);
    // Only the body's own contacts: removing a contact unlinks it, so the list head moves on.
    for (let e = contacts.firstEdge(slot); e >= 0; e = contacts.firstEdge(slot)) {
      wakeIsland(this.bodies, contacts, contacts.otherBody(e));
      contacts.removeAt(e >> 1, this.events, this.bodies);
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

  /** The body's shape definition as created (a copy: changing it changes nothing). */
  getShape(handle: number): BodyDef["shape"] {
    return structuredClone(this.bodies.shapeDefs[this.slot(handle)]!);
  }

  /**
   * World position of the body's reference point (its shape's origin, what BodyDef.position describes).
   * For every shape but a dynamic hull or compound this is the centre of mass (see getCenterOfMass).
   */
  getPosition(handle: number, out: Vec3Tuple = [0, 0, 0]): Vec3Tuple {
    const pose = poseScratch;
    this.bodies.referencePose(this.slot(handle), pose, 0);
    out[0] = pose[0];
    out[1] = pose[1];
    out[2] = pose[2];
    return out;
  }

  /** Orientation of the body's reference frame (what BodyDef.rotation describes). */
  getRotation(handle: number, out: QuatTuple = [0, 0, 0, 1]): QuatTuple {
    const pose = poseScratch;
    this.bodies.referencePose(this.slot(handle), pose, 0);
    out[0] = pose[3];
    out[1] = pose[4];
    out[2] = pose[5];
    out[3] = pose[6];
    return out;
  }

  /** World position of the body's centre of mass (where impulses without a point apply). */
  getCenterOfMass(handle: number, out: Vec3Tuple = [0, 0, 0]): Vec3Tuple {
    const s3 = this.slot(handle) * 3;
    out[0] = this.bodies.pos[s3];
    out[1] = this.bodies.pos[s3 + 1];
    out[2] = this.bodies.pos[s3 + 2];
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
    wakeIsland(this.bodies, this.contacts, this.slot(handle));
  }

  setLinearVelocity(handle: number, v: readonly number[]): void {
    const slot = this.slot(handle);
    this.finite("setLinearVelocity", v, 3);
    if (this.bodies.type[slot] === STATIC) return;
    wakeIsland(this.bodies, this.contacts, slot);
    const s3 = slot * 3;
    this.bodies.vel[s3] = v[0];
    this.bodies.vel[s3 + 1] = v[1];
    this.bodies.vel[s3 + 2] = v[2];
  }

  setAngularVelocity(handle: number, w: readonly number[]): void {
    const slot = this.slot(handle);
    this.finite("setAngularVelocity", w, 3);
    if (this.bodies.type[slot] === STATIC) return;
    wakeIsland(this.bodies, this.contacts, slot);
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
    if (this.bodies.hasOffset[slot] === 0) {
      const s3 = slot * 3;
      this.bodies.pos[s3] = position[0];
      this.bodies.pos[s3 + 1] = position[1];
      this.bodies.pos[s3 + 2] = position[2];
      if (rotation) {
        const s4 = slot * 4;
        for (let k = 0; k < 4; k++) this.bodies.rot[s4 + k] = rotation[k];
        normalizeQuatAt(this.bodies.rot, s4);
      }
    } else {
      // Position and rotation describe the reference frame; the body frame follows from both.
      const pose = poseScratch;
      this.bodies.referencePose(slot, pose, 0);
      for (let k = 0; k < 3; k++) pose[k] = position[k];
      if (rotation) for (let k = 0; k < 4; k++) pose[3 + k] = rotation[k];
      this.bodies.setReferencePose(slot, pose, 0);
    }
    if (rotation) this.bodies.updateWorldInertia(slot);
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
    wakeIsland(b, this.contacts, slot);
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
    setKinematicTarget(b, slot, position, rotation, this.settings.tickRate);
  }

  /**
   * Moves a kinematic character by `delta` right away and resolves its overlaps with static and
   * kinematic bodies (accumulated correction over the contacts; see character.ts). For the next step its
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
    this.queries.notInRaycast("moveCharacter");
    moveCharacterBody(b, this.pipeline.broad, slot, delta[0], delta[1], delta[2], options, result);
    const s3 = slot * 3;
    const inv = this.settings.tickRate;
    b.vel[s3] = result.moved[0] * inv;
    b.vel[s3 + 1] = result.moved[1] * inv;
    b.vel[s3 + 2] = result.moved[2] * inv;
    b.angVel[s3] = b.angVel[s3 + 1] = b.angVel[s3 + 2] = 0;
    b.moved[slot] = 1;
    b.updateAabb(slot);
    this.pipeline.broad.touch(slot, b);
    return result;
  }

  private wakeTouching(slot: number): void {
    const contacts = this.contacts;
    wakeIsland(this.bodies, contacts, slot);
    for (let e = contacts.firstEdge(slot); e >= 0; e = contacts.edgeNext[e]) wakeIsland(this.bodies, contacts, contacts.otherBody(e));
  }

  // ---------------------------------------------------------------- materials

  /**
   * Material setters take effect from the next step (contacts read the values as they are prepared).
   * They do not wake the body: call `wake` (or `wakeAll`) when a resting body should react.
   */
  setFriction(handle: number, friction: number): void {
    const slot = this.slot(handle);
    this.material("setFriction", friction, MATERIAL_LIMITS.maxFriction);
    this.bodies.friction[slot] = friction;
  }

  /** Coulomb friction coefficient; a contact uses sqrt(μA·μB). */
  getFriction(handle: number): number {
    return this.bodies.friction[this.slot(handle)];
  }

  /** See `setFriction` for when it applies. */
  setRestitution(handle: number, restitution: number): void {
    const slot = this.slot(handle);
    this.material("setRestitution", restitution, MATERIAL_LIMITS.maxRestitution);
    this.bodies.restitution[slot] = restitution;
  }

  /** Coefficient of restitution; a contact uses max(eA, eB). */
  getRestitution(handle: number): number {
    return this.bodies.restitution[this.slot(handle)];
  }

  /** Linear damping per second (v *= 1 / (1 + h·c)); see `setFriction` for when it applies. */
  setLinearDamping(handle: number, damping: number): void {
    const slot = this.slot(handle);
    this.material("setLinearDamping", damping, MATERIAL_LIMITS.maxDamping);
    this.bodies.linearDamping[slot] = damping;
  }

  getLinearDamping(handle: number): number {
    return this.bodies.linearDamping[this.slot(handle)];
  }

  /** Angular damping per second; see `setFriction` for when it applies. */
  setAngularDamping(handle: number, damping: number): void {
    const slot = this.slot(handle);
    this.material("setAngularDamping", damping, MATERIAL_LIMITS.maxDamping);
    this.bodies.angularDamping[slot] = damping;
  }

  getAngularDamping(handle: number): number {
    return this.bodies.angularDamping[this.slot(handle)];
  }

  /** The ranges scenario validation applies to body definitions (MATERIAL_LIMITS), NaN and ±∞ excluded. */
  private material(what: string, v: number, max: number): void {
    if (!(Number.isFinite(v) && v >= 0 && v <= max)) throw new RangeError(`${what}: expected a finite number in [0, ${max}], got ${v}`);
  }

  // ---------------------------------------------------------------- collision groups, sensors, events

  /**
   * Sets a body's collision groups (16-bit masks; Rapier's rule, see BodyDef). Contacts the new groups
   * filter out are removed at once (reporting their end), and the body and its partners wake.
   */
  setCollisionGroups(handle: number, groups: CollisionGroups): void {
    const slot = this.slot(handle);
    for (const [what, v] of [["memberships", groups.memberships], ["filter", groups.filter]] as const) {
      if (!(Number.isInteger(v) && v >= 0 && v <= 0xffff)) throw new RangeError(`${what}: expected an integer in [0, 65535], got ${v}`);
    }
    const b = this.bodies;
    b.groups[slot] = packGroups(groups.memberships, groups.filter);
    this.wakeTouching(slot);
    this.contacts.removeFiltered(slot, b, this.events);
  }

  getCollisionGroups(handle: number): CollisionGroups {
    const g = this.bodies.groups[this.slot(handle)];
    return { memberships: g >>> 16, filter: g & 0xffff };
  }

  /** Whether the body is a sensor (set at creation). */
  isSensor(handle: number): boolean {
    return this.bodies.sensor[this.slot(handle)] === 1;
  }

  /**
   * Contact and sensor events, oldest first: those caused since the last step returned (a body removed
   * while touching) and those of the last step. `contactBegin`/`contactEnd`: two bodies started or stopped
   * touching (begin carries the step's largest normal impulse); `sensorEnter`/`sensorExit`: `a` is the
   * sensor, `b` the body. The order follows the contacts' order, which depends only on the sequence of
   * operations (deterministic). Valid until the next step.
   */
  forEachEvent(fn: (event: ContactEvent) => void): void {
    this.events.forEach(fn);
  }

  /** How many events `forEachEvent` would visit. */
  get eventCount(): number {
    return this.events.count;
  }

  // ---------------------------------------------------------------- joints

  /**
   * Creates a joint (JointDef in types.ts: bodies by id, anchors and axis in world space now). Wakes both
   * bodies; unless `collideConnected`, their contact (if any) goes and they no longer collide. Throws on a
   * definition the world cannot take (scenario validation reports the same with paths). Returns its handle.
   */
  createJoint(def: JointDef): number {
    const j = createJointSlot(this.joints, this.bodies, def);
    const a = this.joints.bodyA[j];
    const b = this.joints.bodyB[j];
    wakeIsland(this.bodies, this.contacts, a);
    if (b >= 0) {
      wakeIsland(this.bodies, this.contacts, b);
      if ((this.joints.flags[j] & J_COLLIDE) === 0) {
        const c = this.contacts.find(Math.min(a, b), Math.max(a, b));
        if (c >= 0) this.contacts.removeAt(c, this.events, this.bodies);
      }
    }
    return this.joints.handleOf(j);
  }

  /** Removes a joint; its bodies wake. Unknown handles are ignored (returns false). */
  removeJoint(handle: number): boolean {
    const j = this.joints.resolve(handle);
    if (j < 0) return false;
    this.removeJointSlot(j);
    return true;
  }

  private removeJointSlot(j: number): void {
    wakeIsland(this.bodies, this.contacts, this.joints.bodyA[j]);
    if (this.joints.bodyB[j] >= 0) wakeIsland(this.bodies, this.contacts, this.joints.bodyB[j]);
    this.joints.remove(j);
  }

  private joint(handle: number): number {
    const j = this.joints.resolve(handle);
    if (j < 0) throw new Error(`unknown joint handle ${handle}`);
    return j;
  }

  /** Handle of the joint with this id, or -1. */
  jointHandleOf(id: string): number {
    const j = this.joints.idToSlot.get(id);
    return j === undefined ? -1 : this.joints.handleOf(j);
  }

  hasJoint(handle: number): boolean {
    return this.joints.resolve(handle) >= 0;
  }

  get jointCount(): number {
    return this.joints.liveCount;
  }

  /** Changes whenever a joint is created or removed (a break, its body's removal): cheap change detection. */
  get jointsVersion(): number {
    return this.joints.version;
  }

  /** A joint's identity, anchors and axis in its bodies' reference frames (allocates). */
  getJoint(handle: number): JointInfo {
    return jointInfo(this.joints, this.bodies, this.joint(handle));
  }

  /** Visits every joint in creation order (allocates one object per joint: for readers, not per tick). */
  forEachJoint(fn: (joint: JointInfo) => void): void {
    for (let k = 0; k < this.joints.liveCount; k++) fn(jointInfo(this.joints, this.bodies, this.joints.order[k]));
  }

  /**
   * The force (N) and torque (N·m) the joint applied on body A during the last step it was solved, in
   * world space (B received the opposite). What a breakForce / breakTorque is compared with.
   */
  jointReaction(handle: number): JointReaction {
    const r = this.joint(handle) * 6;
    const f = this.joints.reaction;
    // The store keeps what B received.
    return { force: [-f[r], -f[r + 1], -f[r + 2]], torque: [-f[r + 3], -f[r + 4], -f[r + 5]] };
  }

  /**
   * Hinge angle (rad: A's turn relative to B about the axis, from the creation pose), slider travel (m: A
   * relative to B along the axis), distance between the anchors (m); 0 for fixed and ball joints.
   */
  getJointCoordinate(handle: number): number {
    return jointCoordinate(this.joints, this.bodies, this.joint(handle));
  }

  /** Sets (or with null removes) a hinge's or slider's motor; wakes the joint's bodies. */
  setJointMotor(handle: number, motor: JointMotorDef | null): void {
    const j = this.joint(handle);
    const type = this.joints.type[j];
    if (type !== 2 && type !== 3) throw new Error(`joint "${this.joints.ids[j]}": only hinge and slider joints have a motor`);
    if (motor === null) this.joints.flags[j] &= ~J_MOTOR;
    else {
      if (!Number.isFinite(motor.targetVelocity) || !Number.isFinite(motor.maxForce) || motor.maxForce < 0) {
        throw new Error("motor needs a finite targetVelocity and maxForce >= 0");
      }
      this.joints.flags[j] |= J_MOTOR;
      // Stored mirrored, as at creation (joint-setup.ts).
      this.joints.motor[j * 2] = -motor.targetVelocity;
      this.joints.motor[j * 2 + 1] = motor.maxForce;
    }
    wakeIsland(this.bodies, this.contacts, this.joints.bodyA[j]);
    if (this.joints.bodyB[j] >= 0) wakeIsland(this.bodies, this.contacts, this.joints.bodyB[j]);
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
    for (let s = 0; s < this.bodies.slotCount; s++) if (this.bodies.alive[s]) wakeIsland(this.bodies, this.contacts, s);
  }

  // ---------------------------------------------------------------- queries

  /**
   * First body hit by the ray, or null, for every shape (meshes and height fields are two-sided; a ray
   * starting inside a convex shape hits at distance 0 with the normal facing back along it). `direction`
   * need not be unit length. A finite ray tests only the bodies the broad phase finds around it; an
   * infinite one tests every body. Equal distances go to the lower slot. `skip` is called for the bodies
   * tested and must not query the world. With `groups`, only bodies whose collision groups collide with
   * them (Rapier's rule, see BodyDef.collisionGroups) are tested; without, every body.
   */
  raycast(
    origin: readonly number[],
    direction: readonly number[],
    maxDistance = Number.POSITIVE_INFINITY,
    skip?: (handle: number) => boolean,
    groups?: CollisionGroups,
  ): RaycastHit | null {
    return this.queries.raycast(this.tick, origin, direction, maxDistance, skip, queryGroups("raycast", groups));
  }

  /**
   * The first body the convex `shape`, placed at `pose` and swept along `direction` (any length but
   * zero; normalised) for up to `maxDistance` metres (finite), touches: its handle, id, the distance
   * travelled, a contact point on the body and the unit normal from the body towards the shape; or null.
   * A shape overlapping a body at the start hits it at distance 0 with the minimum-translation normal.
   * Compounds, meshes and height fields are tested piece by piece. The candidates come from the broad
   * phase (the swept box), equal distances go to the lower slot; `options.groups` filters bodies as in
   * `raycast`, and `options.skip` (which must not query the world) leaves bodies out.
   */
  castShape(
    shape: ConvexShapeDef,
    pose: ShapePose,
    direction: readonly number[],
    maxDistance: number,
    options: ShapeCastOptions = {},
  ): ShapeCastHit | null {
    return this.queries.castShape(this.tick, shape, pose, direction, maxDistance, queryGroups("castShape", options.groups), options.skip);
  }

  /**
   * The bodies whose geometry overlaps (touching counts) the convex `shape` placed at `pose`, in
   * ascending slot order, found through the broad phase; `options.groups` filters them as in `raycast`.
   * With an array, replaces its contents with the handles and returns it; with a function, calls it for
   * each handle (collected first, so it may query or change the world); returning false stops.
   */
  overlap(shape: ConvexShapeDef, pose: ShapePose, out?: number[], options?: OverlapOptions): number[];
  overlap(shape: ConvexShapeDef, pose: ShapePose, visit: (handle: number) => unknown, options?: OverlapOptions): void;
  overlap(
    shape: ConvexShapeDef,
    pose: ShapePose,
    target: number[] | ((handle: number) => unknown) = [],
    options: OverlapOptions = {},
  ): number[] | undefined {
    const groups = queryGroups("overlap", options.groups);
    if (typeof target !== "function") return this.queries.overlap(this.tick, shape, pose, groups, target);
    const handles = this.queries.overlap(this.tick, shape, pose, groups, []);
    for (const h of handles) if (target(h) === false) break;
    return undefined;
  }

  /**
   * The body's broad-phase box: the AABB of its shape grown by ENGINE_CONSTANTS.aabbMargin (and, with
   * CCD, stretched over the motion expected in the step), as of its last refresh. The engine refreshes
   * it at creation, setTransform and moveCharacter, and at the start of each step for the bodies that
   * move in it; a body at rest lies inside its box, one that moved in the last step may lie outside by up
   * to that motion. This is the box `queryAabb` tests.
   */
  getAabb(handle: number, out: Aabb = { min: [0, 0, 0], max: [0, 0, 0] }): Aabb {
    const s6 = this.slot(handle) * 6;
    const a = this.bodies.aabb;
    out.min[0] = a[s6];
    out.min[1] = a[s6 + 1];
    out.min[2] = a[s6 + 2];
    out.max[0] = a[s6 + 3];
    out.max[1] = a[s6 + 4];
    out.max[2] = a[s6 + 5];
    return out;
  }

  /** Radius of the sphere around the body's centre that holds its shape, metres. */
  getBoundingRadius(handle: number): number {
    return this.bodies.boundRadius[this.slot(handle)];
  }

  /**
   * The bodies whose broad-phase box (getAabb) overlaps the box [min, max] (closed: touching counts), in
   * ascending slot order, found through the broad phase's grid rather than a scan of every body. Bounds
   * may be infinite, not NaN. The boxes are conservative for bodies at rest and may lag bodies that moved
   * in the last step (see getAabb): treat the result as candidates and test exact geometry when it
   * matters, as `raycast` does.
   *
   * With an array, replaces its contents with the handles and returns it (no allocation once it is big
   * enough). With a function, calls it for each handle; returning false stops the query. The handles are
   * collected before the first call, so the function may query or change the world. With `groups`, only
   * bodies whose collision groups collide with them are reported (as in `raycast`).
   */
  queryAabb(min: readonly number[], max: readonly number[], out?: number[], groups?: CollisionGroups): number[];
  queryAabb(min: readonly number[], max: readonly number[], visit: (handle: number) => unknown, groups?: CollisionGroups): void;
  queryAabb(
    min: readonly number[],
    max: readonly number[],
    target: number[] | ((handle: number) => unknown) = [],
    groups?: CollisionGroups,
  ): number[] | undefined {
    const packed = queryGroups("queryAabb", groups);
    const box = this.queries.queryBox;
    for (let k = 0; k < 3; k++) {
      const lo = min[k];
      const hi = max[k];
      if (typeof lo !== "number" || typeof hi !== "number" || Number.isNaN(lo) || Number.isNaN(hi)) {
        throw new Error("queryAabb: expected min and max as 3 numbers each (not NaN)");
      }
      box[k] = lo;
      box[3 + k] = hi;
    }
    const b = this.bodies;
    const n = this.queries.queryBoxSlots(packed);
    const slots = this.pipeline.broad.queryResult;
    if (typeof target === "function") {
      const handles: number[] = new Array(n);
      for (let k = 0; k < n; k++) handles[k] = b.handleOf(slots[k]);
      for (let k = 0; k < n; k++) if (target(handles[k]) === false) break;
      return undefined;
    }
    target.length = n;
    for (let k = 0; k < n; k++) target[k] = b.handleOf(slots[k]);
    return target;
  }

  /**
   * Read-only, zero-copy view of every body's state by slot (see BodyView): for readers that walk all
   * bodies each tick. Valid until the next createBody or removeBody, which may reallocate the arrays;
   * call `view()` again after either. Returns the same object each time (no allocation).
   */
  view(): BodyView {
    return this.storeView.refresh();
  }

  /** Calls `fn` for every contact that has points (allocates; for tools and tests, not the hot path). */
  forEachContact(fn: (contact: ContactInfo) => void): void {
    visitContacts(this.bodies, this.contacts, fn);
  }

  /** Dynamic bodies that are not sleeping. */
  get awakeBodyCount(): number {
    return this.bodies.awakeCount;
  }

  /** Σ ½ m v² + ½ ωᵀ I ω over dynamic bodies, joules. */
  kineticEnergy(): number {
    return kineticEnergyOf(this.bodies);
  }

  /** Hash of the exact bits of every body's state (16 hex chars). */
  stateHash(): string {
    return hashBodies(this.bodies);
  }

  // ---------------------------------------------------------------- snapshots

  /**
   * An exact copy of the world's state (snapshot.ts): a world restored from it steps on bit for bit like
   * this one from here. Allocates (a copy of every store); plain data and typed arrays only.
   */
  snapshot(): WorldSnapshot {
    return captureWorld(this, this.snapshotParts());
  }

  /**
   * Replaces this world's state with a snapshot's (taken from any world); the snapshot is copied, not
   * kept. Handles and body views taken before are invalid afterwards: call `view()` again.
   */
  restore(snapshot: WorldSnapshot): void {
    restoreWorld(this, this.snapshotParts(), snapshot);
  }

  /** A new world in a snapshot's state. */
  static fromSnapshot(snapshot: WorldSnapshot): World {
    const world = new World();
    world.restore(snapshot);
    return world;
  }

  private snapshotParts(): WorldParts {
    return { broad: this.pipeline.broad, pipeline: this.pipeline, queries: this.queries };
  }

  // ---------------------------------------------------------------- step

  /** Advances the world by one fixed step of 1 / tickRate seconds. */
  step(): void {
    this.pipeline.step();
    this.tick++;
  }

  /** What the step pipeline works on: the stores and the step's outputs, live settings. */
  private pipelineHost(): PipelineHost {
    const world = this;
    return {
      bodies: this.bodies,
      contacts: this.contacts,
      joints: this.joints,
      events: this.events,
      get settings() {
        return world.settings;
      },
      get profiling() {
        return world.profiling;
      },
      profile: this.profile,
      lastStepStats: this.lastStepStats,
      removedLastStep: this.removedLastStep,
      // The pipeline removes the bodies it rejects (bounds, non-finite).
      removeSlotInternal: (slot: number) => this.removeSlot(slot),
      // A joint over its break threshold goes, reported with the force that broke it.
      breakJointInternal: (joint: number, force: number) => {
        const e = this.events.pushJointBreak(this.bodies, this.joints.ids[joint]!, this.joints.bodyA[joint], this.joints.bodyB[joint]);
        this.events.impulse[e] = force;
        this.joints.remove(joint);
      },
    };
  }
}
