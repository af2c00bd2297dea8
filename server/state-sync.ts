import { MapSchema } from "@colyseus/schema";
import {
  AvatarState,
  BodyState,
  coarseOf,
  fineOf,
  KIND_BOX,
  type PackedRotation,
  quantizeMm,
  quantizeRotation,
  type RoomState,
} from "../shared/net/index.ts";
import type { RoomSim } from "../shared/sim/index.ts";

/** Per-slot cache layout: the last quantized values written into the schema. */
const CX = 0;
const CY = 1;
const CZ = 2;
const FX = 3;
const FY = 4;
const FZ = 5;
const RH = 6;
const RL = 7;
const SLEEP = 8;
const STRIDE = 9;

const STATIC = 0;

const packed: PackedRotation = { hi: 0, lo: 0 };

/**
 * Copies the simulation into the schema, assigning a field only when its quantized value changed. (The
 * v5 setters also ignore equal values; comparing against our own Int32 cache first skips the setter
 * calls, which is most of the cost for a big resting world.) Static bodies are written once; a sleeping
 * body is skipped once its sleeping flag went out. Bodies are found by scanning the engine's slots, so
 * bodies the engine removes on its own (bounds) disappear from the state too.
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
  /** Avatars synced: session → grounded. */
  private avatarGrounded = new Map<string, boolean>();
  /** Bodies whose fields were assigned by the last sync (for benches). */
  lastChanged = 0;

  constructor(state: RoomState) {
    this.state = state;
  }

  sync(sim: RoomSim): void {
    const world = sim.world;
    const b = world.bodies;
    if (sim.worldGeneration !== this.generation) {
      // A fresh map is one replace op on the wire, simpler and safer than deleting and re-adding the
      // same keys in one patch.
      this.state.bodies = new MapSchema<BodyState>();
      this.handles.fill(-1);
      this.schemas = [];
      this.ids = [];
      this.generation = sim.worldGeneration;
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
          this.add(sim, s);
          changed++;
        }
        continue;
      }
      if (!alive || b.type[s] === STATIC) continue;
      const sleeping = b.sleeping[s];
      const c = s * STRIDE;
      if (sleeping === 1 && this.cache[c + SLEEP] === 1) continue;
      if (this.write(sim, s, false)) changed++;
    }
    this.lastChanged = changed;
    this.syncAvatars(sim);
    this.state.tick = sim.tick;
    this.state.time = Math.round((sim.tick * 1000) / world.settings.tickRate);
    this.state.tickRate = world.settings.tickRate;
    if (this.state.scenario !== sim.scenario.name) this.state.scenario = sim.scenario.name;
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

  private add(sim: RoomSim, s: number): void {
    const b = sim.world.bodies;
    const body = new BodyState();
    body.kind = b.type[s] | (b.shape[s] === 1 ? KIND_BOX : 0);
    body.hx = b.half[s * 3];
    body.hy = b.half[s * 3 + 1];
    body.hz = b.half[s * 3 + 2];
    this.schemas[s] = body;
    this.ids[s] = b.ids[s]!;
    this.write(sim, s, true);
    this.state.bodies.set(this.ids[s], body);
  }

  /** Quantizes slot s and assigns the fields that changed (all of them when `all`). */
  private write(sim: RoomSim, s: number, all: boolean): boolean {
    const b = sim.world.bodies;
    const body = this.schemas[s]!;
    const cache = this.cache;
    const c = s * STRIDE;
    const p = s * 3;
    const r = s * 4;
    quantizeRotation(b.rot[r], b.rot[r + 1], b.rot[r + 2], b.rot[r + 3], packed);
    const mx = quantizeMm(b.pos[p]);
    const my = quantizeMm(b.pos[p + 1]);
    const mz = quantizeMm(b.pos[p + 2]);
    let changed = false;
    let v = coarseOf(mx);
    if (all || cache[c + CX] !== v) {
      body.cx = cache[c + CX] = v;
      changed = true;
    }
    v = coarseOf(my);
    if (all || cache[c + CY] !== v) {
      body.cy = cache[c + CY] = v;
      changed = true;
    }
    v = coarseOf(mz);
    if (all || cache[c + CZ] !== v) {
      body.cz = cache[c + CZ] = v;
      changed = true;
    }
    v = fineOf(mx);
    if (all || cache[c + FX] !== v) {
      body.fx = cache[c + FX] = v;
      changed = true;
    }
    v = fineOf(my);
    if (all || cache[c + FY] !== v) {
      body.fy = cache[c + FY] = v;
      changed = true;
    }
    v = fineOf(mz);
    if (all || cache[c + FZ] !== v) {
      body.fz = cache[c + FZ] = v;
      changed = true;
    }
    // The cache is Int32: store the uint32 rotation bit pattern (| 0) and compare the same way.
    v = packed.hi | 0;
    if (all || cache[c + RH] !== v) {
      cache[c + RH] = v;
      body.rh = packed.hi;
      changed = true;
    }
    v = packed.lo;
    if (all || cache[c + RL] !== v) {
      body.rl = cache[c + RL] = v;
      changed = true;
    }
    v = b.sleeping[s];
    if (all || cache[c + SLEEP] !== v) {
      cache[c + SLEEP] = v;
      body.sleeping = v === 1;
      changed = true;
    }
    return changed;
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
