import { ArraySchema, MapSchema } from "@colyseus/schema";
import { type BodyView, BodyTypeCode, type JointInfo, type ReadonlyNumberArray, type World } from "../shared/engine/index.ts";
import {
  AvatarState,
  BodyState,
  coarseOf,
  fineOf,
  type JointState,
  jointStateOf,
  kindOf,
  type PackedRotation,
  shapeDescriptor,
  quantizeMm,
  quantizeRotation,
  type RoomState,
  sizedByHalfExtents,
} from "../shared/net/index.ts";
import type { RoomSim } from "../shared/sim/index.ts";

/** Per-slot cache layout: the last quantized values written into the schema, STRIDE per slot. */
const [CX, CY, CZ, FX, FY, FZ, RH, RL, SLEEP] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
const STRIDE = 9;

const packed: PackedRotation = { hi: 0, lo: 0 };
/** The reference pose of a slot whose centre of mass is elsewhere (px py pz qx qy qz qw), see write(). */
const reference = new Float64Array(7);

/** Assigns the schema fields whose bit (1 << cache index) is set in `fields` from the quantized values `q`. */
function assignFields(body: BodyState, fields: number, q: Int32Array): void {
  if (fields & (1 << CX)) body.cx = q[CX];
  if (fields & (1 << CY)) body.cy = q[CY];
  if (fields & (1 << CZ)) body.cz = q[CZ];
  if (fields & (1 << FX)) body.fx = q[FX];
  if (fields & (1 << FY)) body.fy = q[FY];
  if (fields & (1 << FZ)) body.fz = q[FZ];
  if (fields & (1 << RH)) body.rh = q[RH] >>> 0;
  if (fields & (1 << RL)) body.rl = q[RL];
  if (fields & (1 << SLEEP)) body.sleeping = q[SLEEP] === 1;
}

/**
 * Copies the simulation into the schema, assigning a field only when its quantized value changed. (The
 * v5 setters also ignore equal values; comparing against our own Int32 cache first skips the setter
 * calls, which is most of the cost for a big resting world.) Static bodies are written once; a sleeping
 * body is skipped once its sleeping flag went out. Bodies are found by scanning the engine's slots
 * through the world's read-only view, so bodies the engine removes on its own (bounds) disappear from
 * the state too.
 *
 * Runs right before each patch (not every tick): clients only ever see patched states, so syncing at
 * 20 Hz instead of 60 Hz gives the same bytes for a third of the work.
 */
export class StateSync {
  private readonly state: RoomState;
  private generation = -1;
  /** Handle synced into each slot, or -1. */
  private handles = new Int32Array(0);
  private ids: string[] = [];
  private schemas: (BodyState | undefined)[] = [];
  private cache = new Int32Array(0);
  /** One slot's quantized values (cache layout), before they are compared with the cache. */
  private readonly quantized = new Int32Array(STRIDE);
  /** Avatars synced: session → grounded. */
  private avatarGrounded = new Map<string, boolean>();
  /** The world's jointsVersion the joints map was last synced at (NaN: not yet for this world). */
  private jointsVersion = Number.NaN;
  /** Joints in the state: id → engine handle (a handle changes when an id is removed and created again). */
  private jointHandles = new Map<string, number>();
  /** Bodies whose fields were assigned by the last sync (for benches). */
  lastChanged = 0;

  constructor(state: RoomState) {
    this.state = state;
  }

  sync(sim: RoomSim): void {
    const world = sim.world;
    const b = world.view();
    if (sim.worldGeneration !== this.generation) {
      // A fresh map is one replace op on the wire, simpler and safer than deleting and re-adding the
      // same keys in one patch.
      this.state.bodies = new MapSchema<BodyState>();
      this.handles.fill(-1);
      this.schemas = [];
      this.ids = [];
      this.generation = sim.worldGeneration;
      this.resetJoints();
    }
    const n = b.slotCount;
    this.ensureCapacity(Math.max(n, this.handles.length));
    let changed = 0;
    for (let s = 0; s < this.handles.length; s++) {
      const alive = s < n && b.alive[s] === 1;
      const handle = alive ? b.handleOf(s) : -1;
      if (this.handles[s] !== handle) {
        if (this.handles[s] !== -1) {
          this.state.bodies.delete(this.ids[s]);
          this.schemas[s] = undefined;
        }
        this.handles[s] = handle;
        if (alive) {
          this.add(world, b, s);
          changed++;
        }
        continue;
      }
      if (!alive || b.type[s] === BodyTypeCode.STATIC) continue;
      const sleeping = b.sleeping[s];
      const c = s * STRIDE;
      if (sleeping === 1 && this.cache[c + SLEEP] === 1) continue;
      if (this.write(b, s, false)) changed++;
    }
    this.lastChanged = changed;
    if (world.jointsVersion !== this.jointsVersion) this.syncJoints(world);
    this.syncAvatars(sim);
    this.state.tick = sim.tick;
    this.state.time = Math.round((sim.tick * 1000) / world.settings.tickRate);
    this.state.tickRate = world.settings.tickRate;
    if (this.state.scenario !== sim.scenario.name) this.state.scenario = sim.scenario.name;
    if (this.cameraOf !== sim.scenario) this.syncCamera(sim);
    const counts = sim.sensorCounts();
    if (counts.size > 0) counts.forEach(this.syncSensor);
    if (sim.runtime.hashesFields) this.syncFields(sim);
  }

  /** Each game and player field's JSON as last written, by its key in `fields`. */
  private readonly fieldText = new Map<string, string>();

  /**
   * The game's fields and its players' into `fields` (see RoomState): a key is written when its JSON
   * changed, and a player's keys are deleted once the player has left.
   */
  private syncFields(sim: RoomSim): void {
    let map = this.state.fields;
    if (map === undefined) {
      map = new MapSchema<string>();
      this.state.fields = map;
    }
    const seen = new Set<string>();
    const put = (key: string, value: unknown): void => {
      seen.add(key);
      const text = JSON.stringify(value);
      if (this.fieldText.get(key) === text) return;
      this.fieldText.set(key, text);
      map.set(key, text);
    };
    const game = sim.runtime.state;
    for (const name of Object.keys(game)) put(name, game[name]);
    for (const player of sim.runtime.players) {
      for (const name of Object.keys(player.state)) put(`${player.session}:${name}`, player.state[name]);
    }
    if (seen.size === this.fieldText.size) return;
    for (const key of [...this.fieldText.keys()]) {
      if (seen.has(key)) continue;
      this.fieldText.delete(key);
      map.delete(key);
    }
  }

  /** A sensor's count into its body's `inside`, when it changed (counts.forEach: no iterator per sync). */
  private readonly syncSensor = (count: number, id: string): void => {
    const body = this.state.bodies.get(id);
    if (body !== undefined && body.inside !== count) body.inside = count;
  };

  /** The scenario whose camera hint the state holds. */
  private cameraOf: RoomSim["scenario"] | null = null;

  private syncCamera(sim: RoomSim): void {
    this.cameraOf = sim.scenario;
    const c = sim.scenario.camera;
    this.state.camera = new ArraySchema<number>(...(c ? [...c.position, ...c.target] : []));
  }

  private ensureCapacity(n: number): void {
    if (this.handles.length >= n) return;
    let cap = Math.max(64, this.handles.length);
    while (cap < n) cap *= 2;
    const handles = new Int32Array(cap).fill(-1);
    handles.set(this.handles);
    this.handles = handles;
    const cache = new Int32Array(cap * STRIDE);
    cache.set(this.cache);
    this.cache = cache;
  }

  /**
   * A new body: kind, size and pose. Spheres and boxes are sized by hx/hy/hz, every other shape by its
   * definition (`shape`, JSON): written here, once, and never again.
   */
  private add(world: World, b: BodyView, s: number): void {
    const body = new BodyState();
    body.kind = kindOf(b.type[s], b.shape[s], b.sensor[s]);
    if (sizedByHalfExtents(b.shape[s])) {
      body.hx = b.half[s * 3];
      body.hy = b.half[s * 3 + 1];
      body.hz = b.half[s * 3 + 2];
    } else {
      body.shape = shapeDescriptor(world.getShape(b.handleOf(s)));
    }
    // Assigned even at 0: a sensor shows its count before anything enters it (sync() writes the real one).
    if (b.sensor[s] === 1) body.inside = 0;
    this.schemas[s] = body;
    this.ids[s] = b.idOf(s)!;
    this.write(b, s, true);
    this.state.bodies.set(this.ids[s], body);
  }

  /**
   * Quantizes slot s and assigns the fields that changed (all of them when `all`). The pose on the wire
   * is the body's reference frame (its shape's origin, what a scenario's position means): the view's
   * arrays hold the centre of mass, which a hull or compound may have elsewhere, so such slots go
   * through referencePose (into a module-level array); every other slot reads the arrays directly.
   */
  private write(b: BodyView, s: number, all: boolean): boolean {
    const q = this.quantized;
    let pos: ReadonlyNumberArray = b.pos;
    let rot: ReadonlyNumberArray = b.rot;
    let p = s * 3;
    let r = s * 4;
    if (b.hasOffset[s] === 1) {
      b.referencePose(s, reference, 0);
      pos = rot = reference;
      p = 0;
      r = 3;
    }
    quantizeRotation(rot[r], rot[r + 1], rot[r + 2], rot[r + 3], packed);
    const mx = quantizeMm(pos[p]);
    const my = quantizeMm(pos[p + 1]);
    const mz = quantizeMm(pos[p + 2]);
    q[CX] = coarseOf(mx);
    q[CY] = coarseOf(my);
    q[CZ] = coarseOf(mz);
    q[FX] = fineOf(mx);
    q[FY] = fineOf(my);
    q[FZ] = fineOf(mz);
    // The cache is Int32: the uint32 rotation bit pattern is stored (and compared) as `| 0`.
    q[RH] = packed.hi | 0;
    q[RL] = packed.lo;
    q[SLEEP] = b.sleeping[s];
    const cache = this.cache;
    const c = s * STRIDE;
    let fields = 0;
    for (let k = 0; k < STRIDE; k++) {
      if (all || cache[c + k] !== q[k]) {
        cache[c + k] = q[k];
        fields |= 1 << k;
      }
    }
    if (fields !== 0) assignFields(this.schemas[s]!, fields, q);
    return fields !== 0;
  }

  /**
   * A rebuilt world: the joints map starts over with the bodies (a fresh map, one replace op), or goes
   * on being absent while no world of this room had a joint (see RoomState.joints).
   */
  private resetJoints(): void {
    if (this.state.joints !== undefined) this.state.joints = new MapSchema<JointState>();
    this.jointHandles.clear();
    this.jointsVersion = Number.NaN;
  }

  /**
   * Joints are created and removed far more rarely than bodies move, and never change: the world's
   * jointsVersion says when to look (one compare per sync), and then each joint is added once, when new,
   * and deleted when gone (broken, removed, or taken with one of its bodies).
   */
  private syncJoints(world: World): void {
    this.jointsVersion = world.jointsVersion;
    if (this.state.joints === undefined) {
      if (world.jointCount === 0) return;
      this.state.joints = new MapSchema<JointState>();
    }
    const joints = this.state.joints;
    const handles = this.jointHandles;
    const present = new Set<string>();
    world.forEachJoint((info: JointInfo) => {
      present.add(info.id);
      if (handles.get(info.id) === info.handle) return;
      // New, or another joint under a reused id: its fields are written once, so it is a new entry.
      handles.set(info.id, info.handle);
      joints.set(info.id, jointStateOf(info));
    });
    if (handles.size === present.size) return;
    for (const id of [...handles.keys()]) {
      if (present.has(id)) continue;
      handles.delete(id);
      joints.delete(id);
    }
  }

  private syncAvatars(sim: RoomSim): void {
    const avatars = this.state.avatars;
    const seen = new Set<string>();
    for (const a of sim.avatars) {
      seen.add(a.session);
      let st = avatars.get(a.session);
      if (!st) {
        st = new AvatarState();
        st.bodyId = a.bodyId;
        st.grounded = a.grounded;
        avatars.set(a.session, st);
        this.avatarGrounded.set(a.session, a.grounded);
      } else if (this.avatarGrounded.get(a.session) !== a.grounded) {
        st.grounded = a.grounded;
        this.avatarGrounded.set(a.session, a.grounded);
      }
    }
    if (avatars.size !== seen.size) {
      for (const key of [...avatars.keys()]) {
        if (!seen.has(key)) {
          avatars.delete(key);
          this.avatarGrounded.delete(key);
        }
      }
    }
  }
}
