import type { BodyStore } from "../dynamics/body-store.ts";

/**
 * A typed array seen through a read-only lens: indexing, length and iteration only. TypeScript has no
 * ReadonlyFloat64Array, and the typed arrays' other methods (set, fill, sort, subarray...) would write or
 * hand out writable views. The engine's Float64Array/Uint8Array are assignable to this, not the reverse.
 */
export interface ReadonlyNumberArray {
  readonly [index: number]: number;
  readonly length: number;
  [Symbol.iterator](): IterableIterator<number>;
}

/**
 * Zero-copy, read-only access to every body's state, indexed by slot (the engine's structure of arrays).
 * For readers that walk all bodies every tick: state sync, hashing, mirrors, benches.
 *
 * Layout: `pos`, `vel`, `angVel` and `half` hold 3 numbers per slot (at slot * 3), `rot` 4 (x, y, z, w at
 * slot * 4); the rest one per slot. Only slots below `slotCount` with `alive[slot] === 1` hold a body;
 * iterate in slot order for deterministic results.
 *
 * Validity: the arrays are the engine's own, so values change as the world steps, and they are
 * replaced by larger ones when the world grows. A view (and any array taken from it) is valid until the
 * next `createBody` or `removeBody`; call `world.view()` again after either. Never write through a view
 * (the types forbid it; a cast that does would bypass wake-ups, AABBs and validation).
 */
export interface BodyView {
  /** One past the highest slot ever used. */
  readonly slotCount: number;
  /** 1 if the slot holds a body. */
  readonly alive: ReadonlyNumberArray;
  /** BodyTypeCode per slot. */
  readonly type: ReadonlyNumberArray;
  /** ShapeTypeCode per slot. */
  readonly shape: ReadonlyNumberArray;
  /**
   * Metres, 3 per slot: box half extents; the sphere radius three times; capsule and cylinder radius,
   * half height, radius; for hulls, compounds, meshes and height fields the half extents of the local
   * bounds. The full shape of any body is `world.getShape(handle)`.
   */
  readonly half: ReadonlyNumberArray;
  /** Centre of mass, metres (3 per slot). */
  readonly pos: ReadonlyNumberArray;
  /** Orientation of the centre-of-mass frame (principal axes), quaternion x, y, z, w (4 per slot). */
  readonly rot: ReadonlyNumberArray;
  /**
   * 1 when the body's reference frame (its shape's origin and axes, what BodyDef.position/rotation and
   * getPosition/getRotation describe) differs from the centre-of-mass frame in pos/rot: only a dynamic
   * hull or compound. For the others pos/rot are the reference pose.
   */
  readonly hasOffset: ReadonlyNumberArray;
  /** The reference pose of a slot into out[o..o+6]: position xyz, rotation xyzw (no allocation). */
  referencePose(slot: number, out: Float64Array, o: number): void;
  /** Linear velocity, m/s (3 per slot). */
  readonly vel: ReadonlyNumberArray;
  /** Angular velocity, rad/s, world space (3 per slot). */
  readonly angVel: ReadonlyNumberArray;
  /** 1 if the body sleeps. */
  readonly sleeping: ReadonlyNumberArray;
  /** 1 if the body is a sensor. */
  readonly sensor: ReadonlyNumberArray;
  /** Handle of the body in a live slot. */
  handleOf(slot: number): number;
  /** Id of the body in a slot, or undefined for a free slot. */
  idOf(slot: number): string | undefined;
  /** Slot of a live handle, or -1. */
  slotOf(handle: number): number;
}

/** The view object of one body store; `refresh` re-reads the arrays after growth. */
export class StoreView implements BodyView {
  slotCount = 0;
  alive!: ReadonlyNumberArray;
  type!: ReadonlyNumberArray;
  shape!: ReadonlyNumberArray;
  half!: ReadonlyNumberArray;
  pos!: ReadonlyNumberArray;
  rot!: ReadonlyNumberArray;
  vel!: ReadonlyNumberArray;
  angVel!: ReadonlyNumberArray;
  sleeping!: ReadonlyNumberArray;
  sensor!: ReadonlyNumberArray;
  hasOffset!: ReadonlyNumberArray;
  private readonly store: BodyStore;

  constructor(store: BodyStore) {
    this.store = store;
    this.refresh();
  }

  /** Plain fields rather than getters: readers hoist them once and index them in tight loops. */
  refresh(): this {
    const s = this.store;
    this.slotCount = s.slotCount;
    this.alive = s.alive;
    this.type = s.type;
    this.shape = s.shape;
    this.half = s.half;
    this.pos = s.pos;
    this.rot = s.rot;
    this.vel = s.vel;
    this.angVel = s.angVel;
    this.sleeping = s.sleeping;
    this.sensor = s.sensor;
    this.hasOffset = s.hasOffset;
    return this;
  }

  handleOf(slot: number): number {
    return this.store.handleOf(slot);
  }

  referencePose(slot: number, out: Float64Array, o: number): void {
    this.store.referencePose(slot, out, o);
  }

  idOf(slot: number): string | undefined {
    return this.store.ids[slot];
  }

  slotOf(handle: number): number {
    return this.store.resolve(handle);
  }
}
