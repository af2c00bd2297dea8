import { grow } from "../dynamics/body-store.ts";
import { nextGeneration, packHandle, resolveHandle } from "../handles.ts";

/** Joint type codes (JointTypeCode in types.ts holds the same values for readers). */
export const FIXED = 0;
export const BALL = 1;
export const HINGE = 2;
export const SLIDER = 3;
export const DISTANCE = 4;

/** Flags per joint. */
export const J_LIMITS = 1;
export const J_MOTOR = 2;
export const J_SPRING = 4;
export const J_COLLIDE = 8;

/**
 * Accumulated impulses per joint (stride IMP), kept between steps for warm starting. Each is the
 * impulse of one sub-step (every sub-step re-applies it first), so force = impulse / h.
 * Point joints: the anchor impulse as a world vector (LIN). Sliders: the two perpendicular rows in
 * LIN[0], LIN[1]. Fixed and slider: the angular lock as a world vector (ANG); hinge: its two swing rows
 * in ANG[0], ANG[1]. AXIAL: the motor; LOWER, UPPER: the limits (distance: the rod or spring row is AXIAL).
 */
export const IMP = 9;
export const LIN = 0;
export const ANG = 3;
export const AXIAL = 6;
export const LOWER = 7;
export const UPPER = 8;


/**
 * Structure-of-arrays storage of a world's joints, by slot. `order` lists the live joints in creation
 * order (the solver visits them in it, so results depend only on the sequence of operations); slots are
 * reused LIFO. Each body has a list of its joints (two edges per joint, e = 2·joint + side, side 0 for A),
 * so removing a body, filtering its contacts or waking its partners costs only what it touches.
 *
 * Anchors and frames are kept in each body's centre-of-mass frame (the engine's internal body frame);
 * a joint to the world keeps them in world space.
 */
export class JointStore {
  capacity = 0;
  slotCount = 0;
  liveCount = 0;
  /** Changes on every creation and removal (cheap change detection for readers). */
  version = 0;
  alive = new Uint8Array(0);
  generation = new Uint16Array(0);
  type = new Uint8Array(0);
  flags = new Uint8Array(0);
  /** Body slots; bodyB is -1 for the world. */
  bodyA = new Int32Array(0);
  bodyB = new Int32Array(0);
  /** Anchors in A's and B's frames (3 each). */
  localA = new Float64Array(0);
  localB = new Float64Array(0);
  /** Joint frames in A's and B's frames (quaternions, 4 each): x is the axis; equal in world space at creation. */
  frameA = new Float64Array(0);
  frameB = new Float64Array(0);
  /** lo, hi. */
  limits = new Float64Array(0);
  /** Motor: target velocity, max force. Spring: frequency, damping ratio. */
  motor = new Float64Array(0);
  spring = new Float64Array(0);
  /** Break thresholds: force, torque (Infinity: never). */
  breakAt = new Float64Array(0);
  impulse = new Float64Array(0);
  /** Force (3) and torque (3) on B over the last step. */
  reaction = new Float64Array(0);
  /** Dense list of live slots in creation order. */
  order = new Int32Array(0);
  ids: string[] = [];
  idToSlot = new Map<string, number>();
  private free: number[] = [];
  /** Per body slot: first joint edge (-1: none). */
  bodyHead = new Int32Array(0);
  edgeNext = new Int32Array(0);
  edgePrev = new Int32Array(0);

  private ensure(n: number): void {
    if (n <= this.capacity) return;
    let cap = Math.max(16, this.capacity);
    while (cap < n) cap *= 2;
    this.alive = grow(this.alive, cap);
    this.generation = grow(this.generation, cap);
    this.type = grow(this.type, cap);
    this.flags = grow(this.flags, cap);
    this.bodyA = grow(this.bodyA, cap);
    this.bodyB = grow(this.bodyB, cap);
    this.localA = grow(this.localA, cap * 3);
    this.localB = grow(this.localB, cap * 3);
    this.frameA = grow(this.frameA, cap * 4);
    this.frameB = grow(this.frameB, cap * 4);
    this.limits = grow(this.limits, cap * 2);
    this.motor = grow(this.motor, cap * 2);
    this.spring = grow(this.spring, cap * 2);
    this.breakAt = grow(this.breakAt, cap * 2);
    this.impulse = grow(this.impulse, cap * IMP);
    this.reaction = grow(this.reaction, cap * 6);
    this.order = grow(this.order, cap);
    this.edgeNext = grow(this.edgeNext, cap * 2);
    this.edgePrev = grow(this.edgePrev, cap * 2);
    this.capacity = cap;
  }

  /** Room for body slots [0, n). */
  ensureBodies(n: number): void {
    if (n <= this.bodyHead.length) return;
    let cap = Math.max(64, this.bodyHead.length);
    while (cap < n) cap *= 2;
    const head = new Int32Array(cap).fill(-1);
    head.set(this.bodyHead);
    this.bodyHead = head;
  }

  handleOf(slot: number): number {
    return packHandle(this.generation, slot);
  }

  /** Slot of a live handle, or -1. */
  resolve(handle: number): number {
    return resolveHandle(handle, this.slotCount, this.alive, this.generation);
  }

  /** Takes a slot for a new joint between body slots a and b (-1: the world) and links it. */
  allocate(id: string, type: number, a: number, b: number): number {
    const slot = this.free.length > 0 ? this.free.pop()! : this.slotCount++;
    this.ensure(this.slotCount);
    this.alive[slot] = 1;
    this.type[slot] = type;
    this.flags[slot] = 0;
    this.bodyA[slot] = a;
    this.bodyB[slot] = b;
    this.impulse.fill(0, slot * IMP, slot * IMP + IMP);
    this.reaction.fill(0, slot * 6, slot * 6 + 6);
    this.breakAt[slot * 2] = Number.POSITIVE_INFINITY;
    this.breakAt[slot * 2 + 1] = Number.POSITIVE_INFINITY;
    this.ids[slot] = id;
    this.idToSlot.set(id, slot);
    this.order[this.liveCount++] = slot;
    this.link(slot * 2, a);
    if (b >= 0) this.link(slot * 2 + 1, b);
    this.version++;
    return slot;
  }

  /** Unlinks and frees a joint; the creation order of the others is kept. */
  remove(slot: number): void {
    this.unlink(slot * 2, this.bodyA[slot]);
    if (this.bodyB[slot] >= 0) this.unlink(slot * 2 + 1, this.bodyB[slot]);
    this.alive[slot] = 0;
    this.generation[slot] = nextGeneration(this.generation[slot]);
    this.idToSlot.delete(this.ids[slot]!);
    this.ids[slot] = "";
    let k = 0;
    while (this.order[k] !== slot) k++;
    this.order.copyWithin(k, k + 1, this.liveCount);
    this.liveCount--;
    this.free.push(slot);
    this.version++;
  }

  /** First joint edge of a body (-1: none); `edgeNext[e]` continues; joint e >> 1, side e & 1. */
  firstEdge(bodySlot: number): number {
    return bodySlot < this.bodyHead.length ? this.bodyHead[bodySlot] : -1;
  }

  /** The other body of a joint edge (-1: the world). */
  otherBody(e: number): number {
    const j = e >> 1;
    return (e & 1) === 0 ? this.bodyB[j] : this.bodyA[j];
  }

  /**
   * True when a joint between body slots a and b turns their collision off (collideConnected false).
   * Walks a's joints only: bodies have few.
   */
  filtersPair(a: number, b: number): boolean {
    for (let e = this.firstEdge(a); e >= 0; e = this.edgeNext[e]) {
      if (this.otherBody(e) === b && (this.flags[e >> 1] & J_COLLIDE) === 0) return true;
    }
    return false;
  }

  private link(e: number, body: number): void {
    this.ensureBodies(body + 1);
    const head = this.bodyHead[body];
    this.edgeNext[e] = head;
    this.edgePrev[e] = -1;
    if (head >= 0) this.edgePrev[head] = e;
    this.bodyHead[body] = e;
  }

  private unlink(e: number, body: number): void {
    const prev = this.edgePrev[e];
    const next = this.edgeNext[e];
    if (prev >= 0) this.edgeNext[prev] = next;
    else this.bodyHead[body] = next;
    if (next >= 0) this.edgePrev[next] = prev;
  }
}
