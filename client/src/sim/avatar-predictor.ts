import type { Vec3Tuple } from "../../../shared/engine/index.ts";
import { KIND_BOX, KIND_KINEMATIC } from "../../../shared/net/index.ts";
import { AVATAR, type Avatar, clampPlanar, updateAvatar } from "../../../shared/sim/index.ts";
import type { WorldMirror } from "./world-mirror.ts";

/**
 * Client-side prediction of the player's own avatar. The avatar does not wait for the interpolation
 * delay: every local tick runs the server's own controller (`updateAvatar` from shared/sim, i.e.
 * `world.moveCharacter` with the same options) against the world mirror, with the input the player is
 * giving right now.
 *
 * Reconciliation. The wire carries no input sequence numbers, so instead of rewind-and-replay each
 * predicted tick is stamped with the server tick it should correspond to (estimated server tick now +
 * RTT in ticks + 1: the input rides half a round trip up, and the server's state comes back half a
 * round trip later). When the server's position for tick T arrives it is compared with the prediction
 * stamped T:
 * - error below `deadband`: nothing to do;
 * - error above `snapDistance` (respawn, teleport, scenario reload): the avatar jumps to the server;
 * - otherwise the error is worked off over the next ticks (a fraction `correctionRate` per tick), and
 *   every correction applied also shifts the stored history, so the next comparison sees only what is
 *   left and the same error is never corrected twice.
 */
export interface PredictorOptions {
  /** Errors below this are ignored, metres. Default 0.01. */
  deadband?: number;
  /** Errors above this snap, metres. Default 2. */
  snapDistance?: number;
  /** Share of the remaining error corrected per tick. Default 0.15 (≈ 90 % in 14 ticks). */
  correctionRate?: number;
  /** Predicted ticks remembered. Default 240 (4 s at 60 Hz). */
  historySize?: number;
}

const STRIDE = 4;

export class AvatarPredictor {
  readonly mirror: WorldMirror;
  avatar: Avatar | null = null;
  /** Mirror generation the avatar's handle belongs to. */
  private generation = -1;
  readonly deadband: number;
  readonly snapDistance: number;
  readonly correctionRate: number;
  private readonly history: Float64Array;
  private head = -1;
  private count = 0;
  /** Where the avatar was attached, before its first predicted tick (while the history has not wrapped). */
  private readonly origin: Vec3Tuple = [0, 0, 0];
  private wrapped = false;
  private readonly pending: Vec3Tuple = [0, 0, 0];
  /** Positions after the previous and the latest tick (for rendering between ticks). */
  readonly previous: Vec3Tuple = [0, 0, 0];
  readonly current: Vec3Tuple = [0, 0, 0];
  /** Last measured error, metres (HUD). */
  lastError = 0;
  snaps = 0;
  private readonly scratch: Vec3Tuple = [0, 0, 0];

  constructor(mirror: WorldMirror, options: PredictorOptions = {}) {
    this.mirror = mirror;
    this.deadband = options.deadband ?? 0.01;
    this.snapDistance = options.snapDistance ?? 2;
    this.correctionRate = options.correctionRate ?? 0.15;
    this.history = new Float64Array((options.historySize ?? 240) * STRIDE);
  }

  /** Predicting, in the mirror's current world, with the avatar body still there. */
  get attached(): boolean {
    return this.avatar !== null && this.generation === this.mirror.generation && this.mirror.world.has(this.avatar.handle);
  }

  /** Starts predicting the avatar `bodyId` from the server's position (join, reconnect, reload). */
  attach(session: string, bodyId: string, position: Vec3Tuple): void {
    const [hx, hy, hz] = AVATAR.halfExtents;
    const handle = this.mirror.own(bodyId, KIND_KINEMATIC | KIND_BOX, hx, hy, hz, position);
    const old = this.avatar;
    this.avatar = {
      session,
      bodyId,
      handle,
      vx: old?.vx ?? 0,
      vz: old?.vz ?? 0,
      vy: 0,
      jumpRequested: false,
      grounded: false,
      facingX: old?.facingX ?? 1,
      facingZ: old?.facingZ ?? 0,
    };
    this.generation = this.mirror.generation;
    this.count = 0;
    this.head = -1;
    this.wrapped = false;
    this.pending[0] = this.pending[1] = this.pending[2] = 0;
    for (let k = 0; k < 3; k++) this.previous[k] = this.current[k] = this.origin[k] = position[k];
  }

  detach(): void {
    this.avatar = null;
  }

  /** Desired planar velocity (m/s, clamped like the server does) and an optional jump. */
  setInput(vx: number, vz: number, jump: boolean): void {
    const a = this.avatar;
    if (!a) return;
    const [cx, cz] = clampPlanar(vx, vz);
    a.vx = cx;
    a.vz = cz;
    const speed = Math.sqrt(cx * cx + cz * cz);
    if (speed > 1e-6) {
      a.facingX = cx / speed;
      a.facingZ = cz / speed;
    }
    if (jump) a.jumpRequested = true;
  }

  /** One local tick stamped with the server tick it is expected to match. */
  step(stamp: number): void {
    const a = this.avatar;
    if (!a || !this.attached) return;
    const world = this.mirror.world;
    const p = world.getPosition(a.handle, this.scratch);
    this.previous[0] = p[0];
    this.previous[1] = p[1];
    this.previous[2] = p[2];
    this.applyCorrection();
    updateAvatar(world, a);
    world.getPosition(a.handle, this.current);
    // Stamps must increase for the history search; a clock hiccup must not reorder them.
    if (this.count > 0 && stamp <= this.history[this.head * STRIDE]) stamp = this.history[this.head * STRIDE] + 1e-3;
    const cap = this.history.length / STRIDE;
    this.head = (this.head + 1) % cap;
    if (this.count < cap) this.count++;
    else this.wrapped = true;
    const o = this.head * STRIDE;
    this.history[o] = stamp;
    this.history[o + 1] = this.current[0];
    this.history[o + 2] = this.current[1];
    this.history[o + 3] = this.current[2];
  }

  /** The server's authoritative position of the avatar at server tick `tick`. */
  reconcile(tick: number, x: number, y: number, z: number): void {
    const a = this.avatar;
    if (!a || !this.attached) return;
    const h = this.scratch;
    if (!this.predictedAt(tick, h)) {
      // Nothing predicted yet: take the server's word.
      this.snapTo(x, y, z);
      return;
    }
    const ex = x - h[0];
    const ey = y - h[1];
    const ez = z - h[2];
    const error = Math.sqrt(ex * ex + ey * ey + ez * ez);
    this.lastError = error;
    if (error > this.snapDistance) {
      this.shift(ex, ey, ez);
      a.vy = 0;
      this.pending[0] = this.pending[1] = this.pending[2] = 0;
      this.snaps++;
      return;
    }
    if (error < this.deadband) {
      this.pending[0] = this.pending[1] = this.pending[2] = 0;
      return;
    }
    this.pending[0] = ex;
    this.pending[1] = ey;
    this.pending[2] = ez;
  }

  /** Render position between the last two ticks (alpha in [0, 1]). */
  renderPosition(alpha: number, out: Vec3Tuple): Vec3Tuple {
    for (let k = 0; k < 3; k++) out[k] = this.previous[k] + (this.current[k] - this.previous[k]) * alpha;
    return out;
  }

  private snapTo(x: number, y: number, z: number): void {
    const p = this.mirror.world.getPosition(this.avatar!.handle, this.scratch);
    this.shift(x - p[0], y - p[1], z - p[2]);
    this.snaps++;
  }

  private applyCorrection(): void {
    const k = this.correctionRate;
    const dx = this.pending[0] * k;
    const dy = this.pending[1] * k;
    const dz = this.pending[2] * k;
    if (dx === 0 && dy === 0 && dz === 0) return;
    this.pending[0] -= dx;
    this.pending[1] -= dy;
    this.pending[2] -= dz;
    this.shift(dx, dy, dz);
  }

  /** Moves the avatar and its whole predicted history by (dx, dy, dz). */
  private shift(dx: number, dy: number, dz: number): void {
    const a = this.avatar!;
    const world = this.mirror.world;
    const p = world.getPosition(a.handle, this.scratch);
    p[0] += dx;
    p[1] += dy;
    p[2] += dz;
    world.setTransform(a.handle, p);
    const cap = this.history.length / STRIDE;
    for (let i = 0; i < Math.min(this.count, cap); i++) {
      const o = i * STRIDE;
      this.history[o + 1] += dx;
      this.history[o + 2] += dy;
      this.history[o + 3] += dz;
    }
    this.origin[0] += dx;
    this.origin[1] += dy;
    this.origin[2] += dz;
    this.current[0] += dx;
    this.current[1] += dy;
    this.current[2] += dz;
    this.previous[0] += dx;
    this.previous[1] += dy;
    this.previous[2] += dz;
  }

  /** Predicted position for server tick `tick` (interpolated between stamps); false if no history. */
  private predictedAt(tick: number, out: Vec3Tuple): boolean {
    if (this.count === 0) return false;
    const cap = this.history.length / STRIDE;
    const h = this.history;
    let newer = this.head;
    for (let k = 0; k < this.count; k++) {
      const i = (((this.head - k) % cap) + cap) % cap;
      const o = i * STRIDE;
      if (h[o] <= tick) {
        if (k === 0) {
          out[0] = h[o + 1];
          out[1] = h[o + 2];
          out[2] = h[o + 3];
          return true;
        }
        const n = newer * STRIDE;
        const t = (tick - h[o]) / (h[n] - h[o]);
        for (let c = 0; c < 3; c++) out[c] = h[o + 1 + c] + (h[n + 1 + c] - h[o + 1 + c]) * t;
        return true;
      }
      newer = i;
    }
    // Older than the history: before the first predicted tick the avatar stood where it was attached;
    // once the history has wrapped, the oldest prediction is the best guess.
    if (!this.wrapped) {
      out[0] = this.origin[0];
      out[1] = this.origin[1];
      out[2] = this.origin[2];
      return true;
    }
    const o = newer * STRIDE;
    out[0] = h[o + 1];
    out[1] = h[o + 2];
    out[2] = h[o + 3];
    return true;
  }
}
