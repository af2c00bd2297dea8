import { BODY_DEFAULTS, ENGINE_CONSTANTS } from "../config.ts";
import { matrixFromQuat, normalizeQuatAt, rotateVec } from "../math/quat.ts";
import { shapeInertia, shapeVolume } from "./mass.ts";
import { type PreparedShape, prepareShape, type ShapeGeometry } from "./shape-setup.ts";
import { type BodyDef, BodyTypeCode, type ShapeDef, ShapeTypeCode } from "../types.ts";
import { nextGeneration, packHandle, resolveHandle, SLOT_MASK } from "../handles.ts";

// The stored codes are the public ones (types.ts), so the view and the network schema read them as is.
export const STATIC = BodyTypeCode.STATIC;
export const KINEMATIC = BodyTypeCode.KINEMATIC;
export const DYNAMIC = BodyTypeCode.DYNAMIC;

export const SPHERE = ShapeTypeCode.SPHERE;
export const BOX = ShapeTypeCode.BOX;
export const CAPSULE = ShapeTypeCode.CAPSULE;
export const CYLINDER = ShapeTypeCode.CYLINDER;
export const HULL = ShapeTypeCode.HULL;
export const COMPOUND = ShapeTypeCode.COMPOUND;
export const MESH = ShapeTypeCode.MESH;
export const HEIGHTFIELD = ShapeTypeCode.HEIGHTFIELD;

/**
 * What a body is doing, for the step and the broad phase. Kept current by add/remove and by the sleep
 * and wake transitions (and, for kinematic bodies, once per step), so nothing has to classify every slot.
 */
export const CAT_STATIC = 0;
export const CAT_SLEEPING = 1;
export const CAT_KINEMATIC_IDLE = 2;
export const CAT_KINEMATIC_MOVING = 3;
export const CAT_AWAKE = 4;
/** A static sensor: static in every respect, but a moving kinematic body (a character) pairs with it. */
export const CAT_STATIC_SENSOR = 5;

export const MAX_BODIES = SLOT_MASK;

export function slotOf(handle: number): number {
  return handle & SLOT_MASK;
}

const scratchMatrix = new Float64Array(9);
const offsetScratch = new Float64Array(3);

/** Every membership bit and every filter bit: collides with everything (the default). */
export const ALL_GROUPS = -1;

/** Memberships (high 16 bits) and filter (low 16 bits) in one int32. */
export function packGroups(memberships: number, filter: number): number {
  return ((memberships & 0xffff) << 16) | (filter & 0xffff);
}

/** Rapier's rule: A and B collide when (mA & fB) != 0 and (mB & fA) != 0. */
export function groupsCollide(ga: number, gb: number): boolean {
  return ((ga >>> 16) & gb & 0xffff) !== 0 && ((gb >>> 16) & ga & 0xffff) !== 0;
}

/** A copy of a typed array in a new one of `size` elements (the rest zero). */
export function grow<T extends Float64Array | Int32Array | Uint8Array | Uint16Array>(arr: T, size: number): T {
  const next = new (arr.constructor as { new (n: number): T })(size);
  next.set(arr);
  return next;
}

/**
 * Structure-of-arrays storage for every body of one world, indexed by slot. Slots are reused LIFO after
 * removal; iteration is always in slot order, so results depend only on the sequence of operations.
 * Hot fields are typed arrays (one per field); string ids are cold data.
 */
export class BodyStore {
  capacity = 0;
  /** One past the highest slot ever used. */
  slotCount = 0;
  liveCount = 0;

  alive = new Uint8Array(0);
  generation = new Uint16Array(0);
  type = new Uint8Array(0);
  shape = new Uint8Array(0);
  /**
   * Sphere: radius in all three; box: half extents; capsule and cylinder: radius, half height, radius;
   * hull, compound, mesh and height field: half extents of the local bounds (centred on boundsCenter).
   */
  half = new Float64Array(0);
  /** Centre of the local bounds in the body frame (0 for spheres, boxes, capsules, cylinders). */
  boundsCenter = new Float64Array(0);
  /**
   * Where the shape's reference frame (the one a definition's position and rotation describe) sits in the
   * body frame the engine integrates (centre of mass, principal axes): position xyz, rotation xyzw. Only
   * a dynamic hull or compound can differ; `hasOffset` is 1 for those.
   */
  frameOffset = new Float64Array(0);
  hasOffset = new Uint8Array(0);
  /**
   * Hull, compound, mesh and height-field data (null for the other shapes). Derived from `shapeDefs` and
   * shared, never written: snapshots keep the definitions and rebuild this.
   */
  geometry: (ShapeGeometry | null)[] = [];
  /** Each body's shape definition as created (getShape, snapshots). */
  shapeDefs: (ShapeDef | undefined)[] = [];
  /** Radius of the bounding sphere around the centre. */
  boundRadius = new Float64Array(0);

  pos = new Float64Array(0);
  rot = new Float64Array(0);
  vel = new Float64Array(0);
  angVel = new Float64Array(0);

  invMass = new Float64Array(0);
  /** Body-space inertia diagonal (kg m²). */
  inertia = new Float64Array(0);
  /** Body-space inverse inertia diagonal. */
  invInertia = new Float64Array(0);
  /** World inverse inertia R I⁻¹ Rᵀ, symmetric: xx, xy, xz, yy, yz, zz. */
  invInertiaWorld = new Float64Array(0);

  friction = new Float64Array(0);
  restitution = new Float64Array(0);
  linearDamping = new Float64Array(0);
  angularDamping = new Float64Array(0);
  /**
   * Collision groups: memberships in the high 16 bits, filter in the low 16 (Rapier's layout). Two bodies
   * collide when each one's memberships meet the other's filter.
   */
  groups = new Int32Array(0);
  /** 1: a sensor (reports overlaps as events, never pushes nor is pushed). */
  sensor = new Uint8Array(0);

  sleeping = new Uint8Array(0);
  sleepTimer = new Float64Array(0);
  /** Next body of the same sleeping island (-1 ends the list); islandHead names the list. */
  sleepNext = new Int32Array(0);
  islandHead = new Int32Array(0);

  /** Broad-phase margin added around every AABB, metres. */
  aabbMargin: number = ENGINE_CONSTANTS.aabbMargin;
  /** World AABB min xyz, max xyz (with margins, see broad phase). */
  aabb = new Float64Array(0);
  /** Kinematic body already moved this tick by moveCharacter/moveKinematic (skip its integration). */
  moved = new Uint8Array(0);
  /** Kinematic target pose active for this tick. */
  hasTarget = new Uint8Array(0);
  target = new Float64Array(0);
  /** Index in the solver's body arrays for this step; 0 is the shared immovable body. */
  solverIndex = new Int32Array(0);

  /** CAT_* per slot. */
  activity = new Uint8Array(0);
  /**
   * The awake set (Box2D v3's awake solver set): every awake dynamic body, contiguous, so a step touches
   * only these and never a sleeping or static slot. Order follows the sequence of adds, wakes and sleeps
   * (swap-remove), so it is deterministic. `awakeIndex[slot]` is the body's position, or -1.
   */
  awakeList = new Int32Array(16);
  awakeCount = 0;
  awakeIndex = new Int32Array(0);
  /** Every kinematic body, contiguous (same scheme). */
  kinematicList = new Int32Array(16);
  kinematicCount = 0;
  kinematicIndex = new Int32Array(0);

  ids: (string | undefined)[] = [];
  private idToSlot = new Map<string, number>();
  private freeSlots: number[] = [];

  constructor(initialCapacity = 64) {
    this.ensureCapacity(initialCapacity);
  }

  ensureCapacity(n: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(16, this.capacity);
    while (cap < n) cap *= 2;
    this.alive = grow(this.alive, cap);
    this.generation = grow(this.generation, cap);
    this.type = grow(this.type, cap);
    this.shape = grow(this.shape, cap);
    this.half = grow(this.half, cap * 3);
    this.boundsCenter = grow(this.boundsCenter, cap * 3);
    this.frameOffset = grow(this.frameOffset, cap * 7);
    this.hasOffset = grow(this.hasOffset, cap);
    this.boundRadius = grow(this.boundRadius, cap);
    this.pos = grow(this.pos, cap * 3);
    this.rot = grow(this.rot, cap * 4);
    this.vel = grow(this.vel, cap * 3);
    this.angVel = grow(this.angVel, cap * 3);
    this.invMass = grow(this.invMass, cap);
    this.inertia = grow(this.inertia, cap * 3);
    this.invInertia = grow(this.invInertia, cap * 3);
    this.invInertiaWorld = grow(this.invInertiaWorld, cap * 6);
    this.friction = grow(this.friction, cap);
    this.restitution = grow(this.restitution, cap);
    this.linearDamping = grow(this.linearDamping, cap);
    this.angularDamping = grow(this.angularDamping, cap);
    this.groups = grow(this.groups, cap);
    this.sensor = grow(this.sensor, cap);
    this.sleeping = grow(this.sleeping, cap);
    this.sleepTimer = grow(this.sleepTimer, cap);
    this.sleepNext = grow(this.sleepNext, cap);
    this.islandHead = grow(this.islandHead, cap);
    this.aabb = grow(this.aabb, cap * 6);
    this.moved = grow(this.moved, cap);
    this.hasTarget = grow(this.hasTarget, cap);
    this.target = grow(this.target, cap * 7);
    this.solverIndex = grow(this.solverIndex, cap);
    this.activity = grow(this.activity, cap);
    this.awakeIndex = grow(this.awakeIndex, cap);
    this.kinematicIndex = grow(this.kinematicIndex, cap);
    this.capacity = cap;
  }

  handleOf(slot: number): number {
    return packHandle(this.generation, slot);
  }

  /** Slot of a live handle, or -1 if the handle is stale or unknown. */
  resolve(handle: number): number {
    return resolveHandle(handle, this.slotCount, this.alive, this.generation);
  }

  slotOfId(id: string): number {
    return this.idToSlot.get(id) ?? -1;
  }

  /** Adds a body; the definition must already be valid (see scenario validation). Returns its slot. */
  add(def: BodyDef): number {
    if (this.idToSlot.has(def.id)) throw new Error(`duplicate body id "${def.id}"`);
    for (const v of [def.position, def.rotation ?? [], def.linearVelocity ?? [], def.angularVelocity ?? []]) {
      for (const x of v) if (!Number.isFinite(x)) throw new Error(`body "${def.id}": non-finite pose or velocity`);
    }
    let slot: number;
    if (this.freeSlots.length > 0) {
      slot = this.freeSlots.pop()!;
    } else {
      if (this.slotCount >= MAX_BODIES) throw new Error(`too many bodies (max ${MAX_BODIES})`);
      slot = this.slotCount++;
      this.ensureCapacity(this.slotCount);
    }
    this.alive[slot] = 1;
    this.liveCount++;
    // Before anything can fail: a failed add removes the slot, and removal reads these.
    this.awakeIndex[slot] = -1;
    this.kinematicIndex[slot] = -1;
    this.ids[slot] = def.id;
    this.idToSlot.set(def.id, slot);

    const kind = def.type === "static" ? STATIC : def.type === "kinematic" ? KINEMATIC : DYNAMIC;
    this.type[slot] = kind;
    const s3 = slot * 3;
    const s4 = slot * 4;
    this.shapeDefs[slot] = def.shape;
    this.geometry[slot] = null;
    this.hasOffset[slot] = 0;
    this.boundsCenter[s3] = this.boundsCenter[s3 + 1] = this.boundsCenter[s3 + 2] = 0;
    let prepared: PreparedShape | null = null;
    if (def.shape.type === "sphere") {
      this.shape[slot] = SPHERE;
      this.half[s3] = this.half[s3 + 1] = this.half[s3 + 2] = def.shape.radius;
      this.boundRadius[slot] = def.shape.radius;
    } else if (def.shape.type === "box") {
      this.shape[slot] = BOX;
      const [hx, hy, hz] = def.shape.halfExtents;
      this.half[s3] = hx;
      this.half[s3 + 1] = hy;
      this.half[s3 + 2] = hz;
      this.boundRadius[slot] = Math.sqrt(hx * hx + hy * hy + hz * hz);
    } else {
      try {
        prepared = prepareShape(def.shape, kind === DYNAMIC);
      } catch (err) {
        this.remove(slot);
        throw new Error(`body "${def.id}": ${(err as Error).message}`);
      }
      this.usePrepared(slot, prepared);
    }
    this.pos[s3] = def.position[0];
    this.pos[s3 + 1] = def.position[1];
    this.pos[s3 + 2] = def.position[2];
    const q = def.rotation ?? [0, 0, 0, 1];
    this.rot[s4] = q[0];
    this.rot[s4 + 1] = q[1];
    this.rot[s4 + 2] = q[2];
    this.rot[s4 + 3] = q[3];
    normalizeQuatAt(this.rot, s4);
    // The body frame is the centre-of-mass frame: move from the reference frame the definition gave.
    if (this.hasOffset[slot] === 1) this.referenceToBody(slot);
    const moving = kind !== STATIC;
    const v = moving ? (def.linearVelocity ?? [0, 0, 0]) : [0, 0, 0];
    const w = moving ? (def.angularVelocity ?? [0, 0, 0]) : [0, 0, 0];
    this.vel[s3] = v[0];
    this.vel[s3 + 1] = v[1];
    this.vel[s3 + 2] = v[2];
    this.angVel[s3] = w[0];
    this.angVel[s3 + 1] = w[1];
    this.angVel[s3 + 2] = w[2];

    try {
      this.setMassProperties(slot, def, prepared);
    } catch (err) {
      this.remove(slot);
      throw err;
    }
    this.friction[slot] = def.friction ?? BODY_DEFAULTS.friction;
    this.restitution[slot] = def.restitution ?? BODY_DEFAULTS.restitution;
    this.linearDamping[slot] = def.linearDamping ?? BODY_DEFAULTS.linearDamping;
    this.angularDamping[slot] = def.angularDamping ?? BODY_DEFAULTS.angularDamping;
    const g = def.collisionGroups;
    this.groups[slot] = g === undefined ? ALL_GROUPS : packGroups(g.memberships, g.filter);
    this.sensor[slot] = def.sensor === true ? 1 : 0;
    this.sleeping[slot] = 0;
    this.sleepTimer[slot] = 0;
    this.sleepNext[slot] = -1;
    this.islandHead[slot] = -1;
    this.moved[slot] = 0;
    this.hasTarget[slot] = 0;
    this.solverIndex[slot] = 0;
    this.awakeIndex[slot] = -1;
    this.kinematicIndex[slot] = -1;
    if (kind === DYNAMIC) this.setAwake(slot);
    else if (kind === KINEMATIC) {
      this.activity[slot] = CAT_KINEMATIC_IDLE;
      if (this.kinematicCount === this.kinematicList.length) this.kinematicList = grow(this.kinematicList, this.kinematicCount * 2);
      this.kinematicIndex[slot] = this.kinematicCount;
      this.kinematicList[this.kinematicCount++] = slot;
    } else this.activity[slot] = def.sensor === true ? CAT_STATIC_SENSOR : CAT_STATIC;
    this.updateWorldInertia(slot);
    return slot;
  }

  /** A dynamic body joins the awake set (no-op when it is already in). Its sleep timer restarts. */
  setAwake(slot: number): void {
    this.activity[slot] = CAT_AWAKE;
    this.sleeping[slot] = 0;
    this.sleepTimer[slot] = 0;
    this.islandHead[slot] = -1;
    this.sleepNext[slot] = -1;
    if (this.awakeIndex[slot] >= 0) return;
    if (this.awakeCount === this.awakeList.length) this.awakeList = grow(this.awakeList, this.awakeCount * 2);
    this.awakeIndex[slot] = this.awakeCount;
    this.awakeList[this.awakeCount++] = slot;
  }

  /** A dynamic body leaves the awake set and stops (its island list is linked by the caller). */
  setSleeping(slot: number): void {
    this.activity[slot] = CAT_SLEEPING;
    this.sleeping[slot] = 1;
    const s3 = slot * 3;
    this.vel[s3] = this.vel[s3 + 1] = this.vel[s3 + 2] = 0;
    this.angVel[s3] = this.angVel[s3 + 1] = this.angVel[s3 + 2] = 0;
    this.leaveAwakeSet(slot);
  }

  private leaveAwakeSet(slot: number): void {
    const i = this.awakeIndex[slot];
    if (i < 0) return;
    const last = this.awakeList[--this.awakeCount];
    this.awakeList[i] = last;
    this.awakeIndex[last] = i;
    this.awakeIndex[slot] = -1;
  }

  remove(slot: number): void {
    this.leaveAwakeSet(slot);
    const k = this.kinematicIndex[slot];
    if (k >= 0) {
      const last = this.kinematicList[--this.kinematicCount];
      this.kinematicList[k] = last;
      this.kinematicIndex[last] = k;
      this.kinematicIndex[slot] = -1;
    }
    const id = this.ids[slot];
    if (id !== undefined) this.idToSlot.delete(id);
    this.ids[slot] = undefined;
    this.geometry[slot] = null;
    this.shapeDefs[slot] = undefined;
    this.alive[slot] = 0;
    this.generation[slot] = nextGeneration(this.generation[slot]);
    this.liveCount--;
    this.freeSlots.push(slot);
  }

  /** Stores a prepared shape's data in the slot (shape code, half, bounds, geometry, frame offset). */
  private usePrepared(slot: number, prepared: PreparedShape): void {
    const s3 = slot * 3;
    this.shape[slot] = prepared.code;
    this.half.set(prepared.half, s3);
    this.boundsCenter.set(prepared.boundsCenter, s3);
    this.boundRadius[slot] = prepared.boundRadius;
    this.geometry[slot] = prepared.geometry;
    const frame = prepared.frame;
    this.hasOffset[slot] = frame === null ? 0 : 1;
    if (frame !== null) {
      this.frameOffset.set(frame.position, slot * 7);
      this.frameOffset.set(frame.rotation, slot * 7 + 3);
    }
  }

  /**
   * Rebuilds the derived shape data of every live body from its definition (after a snapshot restore,
   * which keeps definitions only). Deterministic, so the rebuilt data is bit-identical.
   */
  rebuildGeometry(): void {
    this.geometry.length = this.slotCount;
    for (let s = 0; s < this.slotCount; s++) {
      const def = this.shapeDefs[s];
      this.geometry[s] = def === undefined || def.type === "sphere" || def.type === "box" ? null : prepareShape(def, this.type[s] === DYNAMIC).geometry;
    }
  }

  /**
   * pos/rot hold the reference frame's pose; turn them into the body (centre-of-mass) frame's:
   * q_body = q_ref ⊗ u*, p_body = p_ref - q_body · o for the offset (o, u).
   */
  private referenceToBody(slot: number): void {
    const f = slot * 7;
    const o = this.frameOffset;
    const s4 = slot * 4;
    const r = this.rot;
    const ax = r[s4];
    const ay = r[s4 + 1];
    const az = r[s4 + 2];
    const aw = r[s4 + 3];
    const bx = -o[f + 3];
    const by = -o[f + 4];
    const bz = -o[f + 5];
    const bw = o[f + 6];
    r[s4] = aw * bx + ax * bw + ay * bz - az * by;
    r[s4 + 1] = aw * by - ax * bz + ay * bw + az * bx;
    r[s4 + 2] = aw * bz + ax * by - ay * bx + az * bw;
    r[s4 + 3] = aw * bw - ax * bx - ay * by - az * bz;
    normalizeQuatAt(r, s4);
    rotateVec(offsetScratch, 0, r, s4, o, f);
    const s3 = slot * 3;
    this.pos[s3] -= offsetScratch[0];
    this.pos[s3 + 1] -= offsetScratch[1];
    this.pos[s3 + 2] -= offsetScratch[2];
  }

  /**
   * The reference frame's world pose of a slot into out[o..o+6] (position xyz, rotation xyzw): what
   * definitions, getPosition/getRotation and the network use. p_ref = p + q · o, q_ref = q ⊗ u.
   */
  referencePose(slot: number, out: Float64Array, o: number): void {
    const s3 = slot * 3;
    const s4 = slot * 4;
    const p = this.pos;
    const r = this.rot;
    if (this.hasOffset[slot] === 0) {
      out[o] = p[s3];
      out[o + 1] = p[s3 + 1];
      out[o + 2] = p[s3 + 2];
      out[o + 3] = r[s4];
      out[o + 4] = r[s4 + 1];
      out[o + 5] = r[s4 + 2];
      out[o + 6] = r[s4 + 3];
      return;
    }
    const f = slot * 7;
    const fo = this.frameOffset;
    rotateVec(offsetScratch, 0, r, s4, fo, f);
    out[o] = p[s3] + offsetScratch[0];
    out[o + 1] = p[s3 + 1] + offsetScratch[1];
    out[o + 2] = p[s3 + 2] + offsetScratch[2];
    const ax = r[s4];
    const ay = r[s4 + 1];
    const az = r[s4 + 2];
    const aw = r[s4 + 3];
    const bx = fo[f + 3];
    const by = fo[f + 4];
    const bz = fo[f + 5];
    const bw = fo[f + 6];
    out[o + 3] = aw * bx + ax * bw + ay * bz - az * by;
    out[o + 4] = aw * by - ax * bz + ay * bw + az * bx;
    out[o + 5] = aw * bz + ax * by - ay * bx + az * bw;
    out[o + 6] = aw * bw - ax * bx - ay * by - az * bz;
  }

  /** Sets a slot's pose from a reference-frame pose (position xyz, rotation xyzw at pose[o..o+6]). */
  setReferencePose(slot: number, pose: ArrayLike<number>, o: number): void {
    const s3 = slot * 3;
    const s4 = slot * 4;
    for (let k = 0; k < 3; k++) this.pos[s3 + k] = pose[o + k];
    for (let k = 0; k < 4; k++) this.rot[s4 + k] = pose[o + 3 + k];
    normalizeQuatAt(this.rot, s4);
    if (this.hasOffset[slot] === 1) this.referenceToBody(slot);
  }

  private setMassProperties(slot: number, def: BodyDef, prepared: PreparedShape | null): void {
    const s3 = slot * 3;
    if (this.type[slot] !== DYNAMIC) {
      this.invMass[slot] = 0;
      this.inertia[s3] = this.inertia[s3 + 1] = this.inertia[s3 + 2] = 0;
      this.invInertia[s3] = this.invInertia[s3 + 1] = this.invInertia[s3 + 2] = 0;
      return;
    }
    let mass: number;
    if (prepared === null) {
      const hx = this.half[s3];
      const hy = this.half[s3 + 1];
      const hz = this.half[s3 + 2];
      const box = this.shape[slot] === BOX;
      mass = def.mass ?? (def.density ?? BODY_DEFAULTS.density) * shapeVolume(box, hx, hy, hz);
      shapeInertia(this.inertia, s3, box, hx, hy, hz, mass);
    } else {
      mass = def.mass ?? (def.density ?? BODY_DEFAULTS.density) * prepared.volume;
      const density = mass / prepared.volume;
      for (let k = 0; k < 3; k++) this.inertia[s3 + k] = prepared.moments[k] * density;
    }
    this.invMass[slot] = 1 / mass;
    const ix = this.inertia[s3];
    const iy = this.inertia[s3 + 1];
    const iz = this.inertia[s3 + 2];
    this.invInertia[s3] = 1 / ix;
    this.invInertia[s3 + 1] = 1 / iy;
    this.invInertia[s3 + 2] = 1 / iz;
    // An infinite inverse (subnormal mass, a sub-atomic shape) would turn the first contact into NaN.
    // validateScenario refuses such bodies; this catches callers that skipped it.
    const inv = this.invMass[slot] + this.invInertia[s3] + this.invInertia[s3 + 1] + this.invInertia[s3 + 2];
    if (!Number.isFinite(inv) || !(mass > 0)) {
      throw new Error(`body "${def.id}": mass ${mass} and shape give a non-finite inverse mass or inertia`);
    }
  }

  /** invInertiaWorld = R diag(I⁻¹) Rᵀ from the current orientation. */
  updateWorldInertia(slot: number): void {
    const s3 = slot * 3;
    const s6 = slot * 6;
    const dx = this.invInertia[s3];
    const dy = this.invInertia[s3 + 1];
    const dz = this.invInertia[s3 + 2];
    const out = this.invInertiaWorld;
    if (dx === dy && dy === dz) {
      // Isotropic (spheres, cubes, non-dynamic): rotation does not matter.
      out[s6] = dx;
      out[s6 + 1] = 0;
      out[s6 + 2] = 0;
      out[s6 + 3] = dx;
      out[s6 + 4] = 0;
      out[s6 + 5] = dx;
      return;
    }
    const m = scratchMatrix;
    matrixFromQuat(m, 0, this.rot, slot * 4);
    // (R D Rᵀ)_ij = Σ_k R_ik d_k R_jk
    out[s6] = m[0] * m[0] * dx + m[1] * m[1] * dy + m[2] * m[2] * dz;
    out[s6 + 1] = m[0] * m[3] * dx + m[1] * m[4] * dy + m[2] * m[5] * dz;
    out[s6 + 2] = m[0] * m[6] * dx + m[1] * m[7] * dy + m[2] * m[8] * dz;
    out[s6 + 3] = m[3] * m[3] * dx + m[4] * m[4] * dy + m[5] * m[5] * dz;
    out[s6 + 4] = m[3] * m[6] * dx + m[4] * m[7] * dy + m[5] * m[8] * dz;
    out[s6 + 5] = m[6] * m[6] * dx + m[7] * m[7] * dy + m[8] * m[8] * dz;
  }

  /** Recomputes the world AABB of a body from its pose, expanded by `margin` on every side. */
  updateAabbWithMargin(slot: number, margin: number): void {
    const keep = this.aabbMargin;
    this.aabbMargin = margin;
    this.updateAabb(slot);
    this.aabbMargin = keep;
  }

  /**
   * Recomputes the world AABB of a body from its pose, expanded by `aabbMargin` on every side. The
   * margin is a field, not an argument: V8 boxes doubles passed to calls it does not inline.
   */
  updateAabb(slot: number): void {
    const margin = this.aabbMargin;
    const s3 = slot * 3;
    const s6 = slot * 6;
    const px = this.pos[s3];
    const py = this.pos[s3 + 1];
    const pz = this.pos[s3 + 2];
    let ex: number;
    let ey: number;
    let ez: number;
    const hx = this.half[s3];
    const shape = this.shape[slot];
    if (shape === SPHERE) {
      ex = ey = ez = hx;
    } else {
      const hy = this.half[s3 + 1];
      const hz = this.half[s3 + 2];
      const m = scratchMatrix;
      matrixFromQuat(m, 0, this.rot, slot * 4);
      if (shape === CAPSULE) {
        // The segment along the body's y axis, grown by the radius.
        ex = Math.abs(m[1]) * hy + hx;
        ey = Math.abs(m[4]) * hy + hx;
        ez = Math.abs(m[7]) * hy + hx;
      } else if (shape === CYLINDER) {
        // Axis a = R ey: the caps' discs reach r·sqrt(1 - a_k²) along world axis k.
        ex = Math.abs(m[1]) * hy + hx * Math.sqrt(Math.max(0, 1 - m[1] * m[1]));
        ey = Math.abs(m[4]) * hy + hx * Math.sqrt(Math.max(0, 1 - m[4] * m[4]));
        ez = Math.abs(m[7]) * hy + hx * Math.sqrt(Math.max(0, 1 - m[7] * m[7]));
      } else {
        // World extent of a rotated box: e_world = |R ex| hx + |R ey| hy + |R ez| hz (a box's own extents,
        // or the local bounds of the other shapes, whose centre may be off the body's origin).
        ex = Math.abs(m[0]) * hx + Math.abs(m[1]) * hy + Math.abs(m[2]) * hz;
        ey = Math.abs(m[3]) * hx + Math.abs(m[4]) * hy + Math.abs(m[5]) * hz;
        ez = Math.abs(m[6]) * hx + Math.abs(m[7]) * hy + Math.abs(m[8]) * hz;
        if (shape !== BOX) {
          const c = this.boundsCenter;
          const cx = c[s3];
          const cy = c[s3 + 1];
          const cz = c[s3 + 2];
          const a = this.aabb;
          const s6 = slot * 6;
          const wx = px + m[0] * cx + m[1] * cy + m[2] * cz;
          const wy = py + m[3] * cx + m[4] * cy + m[5] * cz;
          const wz = pz + m[6] * cx + m[7] * cy + m[8] * cz;
          a[s6] = wx - ex - margin;
          a[s6 + 1] = wy - ey - margin;
          a[s6 + 2] = wz - ez - margin;
          a[s6 + 3] = wx + ex + margin;
          a[s6 + 4] = wy + ey + margin;
          a[s6 + 5] = wz + ez + margin;
          return;
        }
      }
    }
    const a = this.aabb;
    a[s6] = px - ex - margin;
    a[s6 + 1] = py - ey - margin;
    a[s6 + 2] = pz - ez - margin;
    a[s6 + 3] = px + ex + margin;
    a[s6 + 4] = py + ey + margin;
    a[s6 + 5] = pz + ez + margin;
  }
}
