import type { Vec3Tuple } from "../../../shared/engine/index.ts";
import { type BodyState, dequantizeAxis, dequantizeRotation, type RoomState, type WelcomeMessage } from "../../../shared/net/index.ts";
import { WorldMirror } from "../sim/world-mirror.ts";
import { JointBuffer } from "./joint-buffer.ts";
import { ServerClock } from "./server-clock.ts";
import { SnapshotBuffer } from "./snapshot-buffer.ts";

/**
 * Every decoded patch as a snapshot, stamped with its exact server time (tick × 1000 / tickRate): into
 * the snapshot buffer (what rendering interpolates), the joint buffer (the joints drawn between the
 * bodies), the server clock (when snapshots arrive against when they were made) and the world mirror
 * (the newest poses as a World, for prediction and raycasts).
 * Also remembers where the server last had the own avatar.
 */
export class SnapshotFeed {
  readonly buffer = new SnapshotBuffer();
  readonly joints = new JointBuffer();
  readonly clock = new ServerClock({ patchIntervalMs: 50, tickMs: 1000 / 60 });
  readonly mirror = new WorldMirror();
  /** The room's tick length (from its welcome), ms. */
  tickMs = 1000 / 60;
  /** Bodies in the newest snapshot. */
  bodyCount = 0;
  /** The own avatar's position in the newest snapshot (NaN until one had it). */
  readonly avatarServer: Vec3Tuple = [Number.NaN, Number.NaN, Number.NaN];
  /** Whether the newest snapshot had the own avatar. */
  avatarSeen = false;
  /** Server tick of the newest snapshot (NaN before the first). */
  newestTick = Number.NaN;
  /**
   * The room's settings reached the world mirror (its welcome, for this seat): until then the mirror's
   * gravity may be another room's or Earth's, and nothing is predicted with it.
   */
  settingsKnown = false;
  private avatarId = "";
  private lastBodies: unknown = null;
  private readonly q = [0, 0, 0, 1];

  /** A different seat: every snapshot so far belongs to the old one. */
  reset(): void {
    this.buffer.clear();
    this.joints.clear();
    this.clock.reset();
    this.mirror.rebuild(1000 / this.tickMs);
    this.lastBodies = null;
    this.avatarSeen = false;
    this.newestTick = Number.NaN;
    this.settingsKnown = false;
  }

  /** The room's tick and patch rates and its gravity, from its welcome message. */
  setRates(w: WelcomeMessage): void {
    this.tickMs = 1000 / w.tickRate;
    this.clock.setRates(w.patchRateMs, this.tickMs);
    this.buffer.maxExtrapolationMs = w.patchRateMs;
    this.mirror.setTickRate(w.tickRate);
    this.mirror.setGravity(w.settings.gravity);
    this.settingsKnown = true;
  }

  /** One decoded patch: the state as it is now is the newest snapshot. */
  ingest(state: RoomState, avatarId: string, now: number): void {
    const tickRate = state.tickRate || 60;
    const time = (state.tick * 1000) / tickRate;
    // A new bodies collection (scenario reload) may reuse ids: the mirror starts over, the buffer marks a cut.
    const cut = this.lastBodies !== null && state.bodies !== this.lastBodies;
    if (cut) this.mirror.rebuild(tickRate);
    this.lastBodies = state.bodies;
    this.mirror.setTickRate(tickRate);
    this.newestTick = state.tick;
    this.clock.onSnapshot(time, now);
    this.buffer.begin(time, cut);
    this.mirror.begin();
    this.avatarId = avatarId;
    this.avatarSeen = false;
    state.bodies.forEach(this.ingestBody);
    this.buffer.end();
    this.joints.ingest(state.joints, time);
    this.mirror.end();
    this.bodyCount = state.bodies.size;
  }

  private readonly ingestBody = (b: BodyState, id: string): void => {
    const x = dequantizeAxis(b.cx, b.fx);
    const y = dequantizeAxis(b.cy, b.fy);
    const z = dequantizeAxis(b.cz, b.fz);
    const q = this.q;
    dequantizeRotation(b.rh, b.rl, q);
    const track = this.buffer.push(id, b.kind, b.hx, b.hy, b.hz, x, y, z, q[0], q[1], q[2], q[3], b.sleeping);
    // Written once by the server, with the body: a string compare, no copy, on every later patch.
    const shape = b.shape ?? "";
    if (track.shape !== shape) track.shape = shape;
    this.mirror.upsert(id, b.kind, b.hx, b.hy, b.hz, x, y, z, q[0], q[1], q[2], q[3], shape);
    if (id === this.avatarId) {
      this.avatarServer[0] = x;
      this.avatarServer[1] = y;
      this.avatarServer[2] = z;
      this.avatarSeen = true;
    }
  };
}
