import { type BodyStore, DYNAMIC } from "../dynamics/body-store.ts";
import { atan2Exact } from "../math/angle.ts";
import { inverseRotateVec, multiplyQuat, rotateVec } from "../math/quat.ts";
import type { JointDef, JointInfo, JointType, Vec3Tuple } from "../types.ts";
import { BALL, DISTANCE, FIXED, HINGE, J_COLLIDE, J_LIMITS, J_MOTOR, J_SPRING, type JointStore, SLIDER } from "./joint-store.ts";

export const JOINT_TYPES: readonly JointType[] = ["fixed", "ball", "hinge", "slider", "distance"];
const CODES: Record<JointType, number> = { fixed: FIXED, ball: BALL, hinge: HINGE, slider: SLIDER, distance: DISTANCE };

/** Creation and reading only (allocates): the step never calls into this module. */
const v = new Float64Array(3);
const q = new Float64Array(4);

function fail(def: JointDef, what: string): never {
  throw new Error(`joint "${def.id}": ${what}`);
}

function finiteVec(def: JointDef, name: string, x: readonly number[] | undefined): void {
  if (x === undefined) return;
  if (!Array.isArray(x) || x.length !== 3 || !x.every(Number.isFinite)) fail(def, `${name} must be three finite numbers`);
}

/**
 * Checks a definition against the world (scenario validation reports the same problems with paths
 * first) and stores the joint: anchors and frames in each body's centre-of-mass frame. Returns its slot.
 */
export function createJointSlot(store: JointStore, bodies: BodyStore, def: JointDef): number {
  const code = CODES[def.type];
  if (code === undefined) fail(def, `unknown type "${def.type}"`);
  if (typeof def.id !== "string" || def.id.length === 0) throw new Error("joint id must be a non-empty string");
  if (store.idToSlot.has(def.id)) fail(def, "duplicate joint id");
  const a = bodies.slotOfId(def.bodyA);
  if (a < 0) fail(def, `no body "${def.bodyA}"`);
  const b = def.bodyB === null ? -1 : bodies.slotOfId(def.bodyB);
  if (def.bodyB !== null && b < 0) fail(def, `no body "${def.bodyB}"`);
  if (a === b) fail(def, "bodyA and bodyB are the same body");
  if (bodies.type[a] !== DYNAMIC && (b < 0 || bodies.type[b] !== DYNAMIC)) fail(def, "at least one body must be dynamic");
  finiteVec(def, "anchor", def.anchor);
  finiteVec(def, "anchorB", def.anchorB);
  finiteVec(def, "axis", def.axis);
  if (def.anchorB !== undefined && code !== DISTANCE) fail(def, "only distance joints have anchorB");
  if (code === DISTANCE && b < 0 && def.anchorB === undefined) fail(def, "a distance joint to the world needs anchorB");
  const hasAxis = code === HINGE || code === SLIDER;
  if (hasAxis !== (def.axis !== undefined)) fail(def, hasAxis ? "axis is required" : "only hinge and slider joints have an axis");
  let ax = 1;
  let ay = 0;
  let az = 0;
  if (def.axis !== undefined) {
    const len = Math.sqrt(def.axis[0] * def.axis[0] + def.axis[1] * def.axis[1] + def.axis[2] * def.axis[2]);
    if (!(len > 1e-6)) fail(def, "axis must not be zero");
    ax = def.axis[0] / len;
    ay = def.axis[1] / len;
    az = def.axis[2] / len;
  }
  const limits = def.limits;
  if (limits !== undefined) {
    if (code === FIXED || code === BALL) fail(def, `${def.type} joints have no limits`);
    if (!Array.isArray(limits) || limits.length !== 2 || !limits.every(Number.isFinite) || limits[0] > limits[1]) {
      fail(def, "limits must be [lo, hi] with lo <= hi");
    }
    if (code === HINGE && (limits[0] < -Math.PI || limits[1] > Math.PI)) fail(def, "hinge limits must lie within [-π, π]");
    if (code === DISTANCE && limits[0] < 0) fail(def, "distance limits must be >= 0");
  }
  const motor = def.motor;
  if (motor !== undefined) {
    if (code !== HINGE && code !== SLIDER) fail(def, "only hinge and slider joints have a motor");
    if (!Number.isFinite(motor.targetVelocity) || !Number.isFinite(motor.maxForce) || motor.maxForce < 0) fail(def, "motor needs a finite targetVelocity and maxForce >= 0");
  }
  const spring = def.spring;
  if (spring !== undefined) {
    if (code !== DISTANCE) fail(def, "only distance joints have a spring");
    if (!(Number.isFinite(spring.frequency) && spring.frequency > 0) || !(Number.isFinite(spring.dampingRatio) && spring.dampingRatio >= 0)) {
      fail(def, "spring needs frequency > 0 and dampingRatio >= 0");
    }
  }
  for (const [name, x] of [["breakForce", def.breakForce], ["breakTorque", def.breakTorque]] as const) {
    if (x !== undefined && !(Number.isFinite(x) && x > 0)) fail(def, `${name} must be > 0`);
  }

  const slot = store.allocate(def.id, code, a, b);
  let flags = def.collideConnected === true ? J_COLLIDE : 0;
  if (limits !== undefined) flags |= J_LIMITS;
  if (motor !== undefined) flags |= J_MOTOR;
  if (spring !== undefined) flags |= J_SPRING;
  store.flags[slot] = flags;
  if (motor !== undefined) {
    store.motor[slot * 2] = -motor.targetVelocity;
    store.motor[slot * 2 + 1] = motor.maxForce;
  }
  if (spring !== undefined) {
    store.spring[slot * 2] = spring.frequency;
    store.spring[slot * 2 + 1] = spring.dampingRatio;
  }
  if (def.breakForce !== undefined) store.breakAt[slot * 2] = def.breakForce;
  if (def.breakTorque !== undefined) store.breakAt[slot * 2 + 1] = def.breakTorque;

  // The joint frame in world space: x along the axis (the shortest turn from +x; half a turn about y for -x).
  const world = new Float64Array(4);
  if (1 + ax < 1e-9) world.set([0, 1, 0, 0]);
  else {
    world.set([0, -az, ay, 1 + ax]);
    const n = Math.sqrt(az * az + ay * ay + (1 + ax) * (1 + ax));
    for (let i = 0; i < 4; i++) world[i] /= n;
  }
  toBodyFrame(store.localA, slot * 3, bodies, a, def.anchor);
  frameIn(store.frameA, slot * 4, bodies, a, world);
  const anchorB = code === DISTANCE ? (def.anchorB ?? bodyPosition(bodies, b)) : def.anchor;
  toBodyFrame(store.localB, slot * 3, bodies, b, anchorB);
  frameIn(store.frameB, slot * 4, bodies, b, world);
  if (code === DISTANCE && limits === undefined) {
    const dx = anchorB[0] - def.anchor[0];
    const dy = anchorB[1] - def.anchor[1];
    const dz = anchorB[2] - def.anchor[2];
    const d = Math.sqrt(dx * dx + dy * dy + dz * dz);
    store.limits[slot * 2] = d;
    store.limits[slot * 2 + 1] = d;
    store.flags[slot] |= J_LIMITS;
  } else if (limits !== undefined) {
    // The solver measures B relative to A; the definition, A relative to B (B is the base: the world, a
    // door frame, a chassis). Hinge and slider limits and motors are mirrored once here.
    const mirrored = code !== DISTANCE;
    store.limits[slot * 2] = mirrored ? -limits[1] : limits[0];
    store.limits[slot * 2 + 1] = mirrored ? -limits[0] : limits[1];
  }
  return slot;
}

/** A body's reference position (for the default anchorB): its centre of mass plus the frame offset. */
function bodyPosition(bodies: BodyStore, slot: number): Vec3Tuple {
  const out = new Float64Array(7);
  bodies.referencePose(slot, out, 0);
  return [out[0], out[1], out[2]];
}

/** out[o..] = the world point p in body slot's centre-of-mass frame (world space for -1). */
function toBodyFrame(out: Float64Array, o: number, bodies: BodyStore, slot: number, p: readonly number[]): void {
  if (slot < 0) {
    out[o] = p[0];
    out[o + 1] = p[1];
    out[o + 2] = p[2];
    return;
  }
  for (let i = 0; i < 3; i++) v[i] = p[i] - bodies.pos[slot * 3 + i];
  inverseRotateVec(out, o, bodies.rot, slot * 4, v, 0);
}

function frameIn(out: Float64Array, o: number, bodies: BodyStore, slot: number, world: Float64Array): void {
  if (slot < 0) out.set(world, o);
  else multiplyQuat(out, o, bodies.rot, slot * 4, world, 0, true);
}

/** World position of a joint anchor (side 0: A, 1: B) from the bodies' current poses. */
export function anchorWorld(store: JointStore, bodies: BodyStore, j: number, side: number, out: Float64Array, o: number): void {
  const slot = side === 0 ? store.bodyA[j] : store.bodyB[j];
  const local = side === 0 ? store.localA : store.localB;
  if (slot < 0) {
    out.set(local.subarray(j * 3, j * 3 + 3), o);
    return;
  }
  rotateVec(out, o, bodies.rot, slot * 4, local, j * 3);
  for (let i = 0; i < 3; i++) out[o + i] += bodies.pos[slot * 3 + i];
}

/**
 * Hinge angle (rad: A's turn relative to B about the axis), slider travel (m: A's anchor relative to B's
 * along the axis) or distance (m); 0 otherwise.
 */
export function jointCoordinate(store: JointStore, bodies: BodyStore, j: number): number {
  const type = store.type[j];
  if (type === HINGE) {
    const qa = new Float64Array(4);
    const qb = new Float64Array(4);
    const rel = new Float64Array(4);
    worldFrame(store, bodies, j, 0, qa);
    worldFrame(store, bodies, j, 1, qb);
    multiplyQuat(rel, 0, qa, 0, qb, 0, true);
    const s = rel[3] < 0 ? -1 : 1;
    return -2 * atan2Exact(s * rel[0], s * rel[3]);
  }
  if (type !== SLIDER && type !== DISTANCE) return 0;
  const pa = new Float64Array(3);
  const pb = new Float64Array(3);
  anchorWorld(store, bodies, j, 0, pa, 0);
  anchorWorld(store, bodies, j, 1, pb, 0);
  const d = [pb[0] - pa[0], pb[1] - pa[1], pb[2] - pa[2]];
  if (type === DISTANCE) return Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
  const fa = new Float64Array(4);
  worldFrame(store, bodies, j, 0, fa);
  const axis = new Float64Array(3);
  rotateVec(axis, 0, fa, 0, new Float64Array([1, 0, 0]), 0);
  return -(d[0] * axis[0] + d[1] * axis[1] + d[2] * axis[2]);
}

/** The joint frame of one side in world space. */
function worldFrame(store: JointStore, bodies: BodyStore, j: number, side: number, out: Float64Array): void {
  const slot = side === 0 ? store.bodyA[j] : store.bodyB[j];
  const frames = side === 0 ? store.frameA : store.frameB;
  if (slot < 0) out.set(frames.subarray(j * 4, j * 4 + 4));
  else multiplyQuat(out, 0, bodies.rot, slot * 4, frames, j * 4, false);
}

/**
 * A joint as readers see it: anchors and A's axis in each body's reference frame. Read from the stored
 * frames alone, never through the bodies' current poses, so that the same joint reads the same numbers
 * at every tick (a viewer compares them to tell a recreated joint from an unchanged one).
 */
export function jointInfo(store: JointStore, bodies: BodyStore, j: number): JointInfo {
  const a = store.bodyA[j];
  const b = store.bodyB[j];
  const type = JOINT_TYPES[store.type[j]]!;
  const axis = new Float64Array(3);
  rotateVec(axis, 0, store.frameA, j * 4, new Float64Array([1, 0, 0]), 0);
  return {
    handle: store.handleOf(j),
    id: store.ids[j]!,
    type,
    bodyA: bodies.ids[a]!,
    bodyB: b < 0 ? null : bodies.ids[b]!,
    localAnchorA: toReference(bodies, a, store.localA.subarray(j * 3, j * 3 + 3), true),
    localAnchorB: toReference(bodies, b, store.localB.subarray(j * 3, j * 3 + 3), true),
    localAxisA: type === "hinge" || type === "slider" ? toReference(bodies, a, axis, false) : [1, 0, 0],
  };
}

/**
 * A point (or direction) stored in a body's mass frame, in its reference frame: the reference pose is
 * the mass pose times the body's constant frame offset, so the body's current pose drops out. For the
 * world (-1) the stored value already is in world space.
 */
function toReference(bodies: BodyStore, slot: number, local: Float64Array, point: boolean): Vec3Tuple {
  if (slot < 0 || bodies.hasOffset[slot] === 0) return [local[0], local[1], local[2]];
  const f = slot * 7;
  const offset = bodies.frameOffset;
  for (let i = 0; i < 3; i++) v[i] = point ? local[i] - offset[f + i] : local[i];
  q.set(offset.subarray(f + 3, f + 7));
  const out = new Float64Array(3);
  inverseRotateVec(out, 0, q, 0, v, 0);
  return [out[0], out[1], out[2]];
}
