import type { Vec3Tuple } from "../../../shared/engine/index.ts";
import { type AvatarSpec, avatarShapeDef, DEFAULT_AVATAR } from "../../../shared/game/define.ts";
import { type Avatar, clampPlanar, updateAvatar } from "../../../shared/sim/index.ts";
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
 * - error below `deadband`: nothing to do (once a correction runs, it goes on until the error is below a
 *   quarter of that, so it does not stop just under the deadband and leave that much for good);
 * - error above `snapDistance` (respawn, teleport, scenario reload): the avatar jumps to the server;
 * - otherwise the error is worked off over the next ticks (a fraction `correctionRate` per tick), and
 *   every correction applied also shifts the stored history, so the next comparison sees only what is
 *   left and the same error is never corrected twice.
 *
 * Velocity. A position-only correction cannot fix a wrong vertical velocity (the controller's own `vy`,
 * e.g. after falling under a gravity the room does not have): the avatar keeps drifting and the
 * correction only balances the drift, leaving a standing offset. So each server sample is also compared
 * with the previous one: the server's vertical motion over that span against the prediction's over the
 * same stamps (only where neither side took off or landed lately: see correctVelocity). A difference
 * above the deadband is added to `vy`, and the stored history is bent as if
 * `vy` had been right since the newer sample (then shifted so its newest entry stays where the avatar
 * is), so the next comparison does not see the same velocity error again; the position error this
 * uncovers is worked off like any other. The deadband is `velocityDeadband` plus what a stamp off by
 * `timingSlackTicks` makes a ballistic arc differ by (|g| × slack / tick rate: 0.49 m/s at 9.81 m/s²
 * and 3 ticks), so a jump whose prediction runs a tick or two early or late is left alone (the avatar
 * lands soon anyway, and landing zeroes `vy`), while in zero gravity, where nothing else ever resets a
 * wrong `vy`, 5 cm/s is corrected.
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
  /** Vertical velocity errors below this are left to the position correction, m/s. Default 0.05 (above 1 mm quantization over a patch). */
  velocityDeadband?: number;
  /** Stamps may be off by this many ticks (RTT estimate) without a velocity correction under gravity. Default 3. */
  timingSlackTicks?: number;
}

/** Server samples further apart than this many ticks are not used to compare velocities. */
const MAX_VELOCITY_SPAN = 30;
/**
 * How much more than gravity a velocity may change between two patch intervals and still count as a
 * ballistic stretch, m/s (a take-off changes it by 5.5, a landing by the fall speed; a room whose gravity
 * the mirror does not have yet, by up to 9.81 × 0.05 s ≈ 0.5 at 20 patches a second).
 */
const BALLISTIC_TOLERANCE = 1;

const STRIDE = 4;

export class AvatarPredictor {
  readonly mirror: WorldMirror;
  avatar: Avatar | null = null;
  /** The room's game's avatar (its welcome): the shape predicted, its speed and jump. The standard one until told. */
  spec: Readonly<AvatarSpec> = DEFAULT_AVATAR;
  /** Mirror generation the avatar's handle belongs to. */
  private generation = -1;
  readonly deadband: number;
  readonly snapDistance: number;
  readonly correctionRate: number;
  readonly velocityDeadband: number;
  readonly timingSlackTicks: number;
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
  /** A position correction is under way (it ends below a quarter of the deadband). */
  private correcting = false;
  /** Last vertical velocity correction applied, m/s (0 when none was needed). */
  lastVelocityError = 0;
  snaps = 0;
  /** The two previous server samples (ticks, heights; older first) the velocity is compared over; NaN after attach or a snap. */
  private readonly serverTicks = [Number.NaN, Number.NaN];
  private readonly serverYs = [0, 0];
  /** The prediction at those two ticks and the newest (scratch). */
  private readonly at: Vec3Tuple[] = [
    [0, 0, 0],
    [0, 0, 0],
    [0, 0, 0],
  ];
  private readonly scratch: Vec3Tuple = [0, 0, 0];

  constructor(mirror: WorldMirror, options: PredictorOptions = {}) {
    this.mirror = mirror;
    this.deadband = options.deadband ?? 0.01;
    this.snapDistance = options.snapDistance ?? 2;
    this.correctionRate = options.correctionRate ?? 0.15;
    this.velocityDeadband = options.velocityDeadband ?? 0.05;
    this.timingSlackTicks = options.timingSlackTicks ?? 3;
    this.history = new Float64Array((options.historySize ?? 240) * STRIDE);
  }

  /** Predicting, in the mirror's current world, with the avatar body still there. */
  get attached(): boolean {
    return this.avatar !== null && this.generation === this.mirror.generation && this.mirror.world.has(this.avatar.handle);
  }

  /**
   * The room's game's avatar. An avatar already predicted with another shape or size is rebuilt where it
   * is (the state arrives before the welcome, so the first attach may have used the standard box).
   */
  setSpec(spec: Readonly<AvatarSpec>): void {
    const old = this.spec;
    this.spec = spec;
    const a = this.avatar;
    if (a === null || !this.attached || (old.shape === spec.shape && old.halfExtents.every((h, k) => h === spec.halfExtents[k]))) return;
    const at: Vec3Tuple = [this.current[0], this.current[1], this.current[2]];
    this.attach(a.session, a.bodyId, at);
  }

  /** Starts predicting the avatar `bodyId` from the server's position (join, reconnect, reload). */
  attach(session: string, bodyId: string, position: Vec3Tuple): void {
    const handle = this.mirror.own(bodyId, avatarShapeDef(this.spec), position);
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
    this.serverTicks[0] = this.serverTicks[1] = Number.NaN;
    this.correcting = false;
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
    const [cx, cz] = clampPlanar(vx, vz, this.spec.maxSpeed);
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
    updateAvatar(world, a, this.spec);
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
    if (this.correctVelocity(tick, y)) this.predictedAt(tick, h);
    const ex = x - h[0];
    const ey = y - h[1];
    const ez = z - h[2];
    const error = Math.sqrt(ex * ex + ey * ey + ez * ez);
    this.lastError = error;
    if (error > this.snapDistance) {
      this.shift(ex, ey, ez);
      a.vy = 0;
      this.serverTicks[0] = this.serverTicks[1] = Number.NaN;
      this.pending[0] = this.pending[1] = this.pending[2] = 0;
      this.correcting = false;
      this.snaps++;
      return;
    }
    if (error < (this.correcting ? this.deadband / 4 : this.deadband)) {
      this.pending[0] = this.pending[1] = this.pending[2] = 0;
      this.correcting = false;
      return;
    }
    this.correcting = true;
    this.pending[0] = ex;
    this.pending[1] = ey;
    this.pending[2] = ez;
  }

  /** Render position between the last two ticks (alpha in [0, 1]). */
  renderPosition(alpha: number, out: Vec3Tuple): Vec3Tuple {
    for (let k = 0; k < 3; k++) out[k] = this.previous[k] + (this.current[k] - this.previous[k]) * alpha;
    return out;
  }

  /**
   * Compares the server's vertical motion since its previous sample with the prediction's over the same
   * stamps; corrects `vy` by the difference and bends the history (see the class comment). Returns
   * whether it corrected anything. Only over ballistic stretches: if either side's velocity changed over
   * its last two intervals by more than gravity explains (a take-off, a landing, a bump), a stamp a tick
   * off would make that step look like a velocity error.
   */
  private correctVelocity(tick: number, y: number): boolean {
    const ticks = this.serverTicks;
    const ys = this.serverYs;
    const [ta, tb] = ticks;
    const [ya, yb] = ys;
    ticks[0] = tb;
    ys[0] = yb;
    ticks[1] = tick;
    ys[1] = y;
    this.lastVelocityError = 0;
    // Standing, the controller zeroes a falling `vy` itself; a correction there would only lift the avatar
    // off the ground and start an oscillation out of small timing differences.
    if (this.avatar!.grounded || !(ta < tb && tb < tick) || tick - ta > MAX_VELOCITY_SPAN || !this.covers(ta)) return false;
    const [pa, pb, pc] = this.at;
    this.predictedAt(ta, pa);
    this.predictedAt(tb, pb);
    this.predictedAt(tick, pc);
    const { tickRate, gravity } = this.mirror.world.settings;
    const s1 = (tb - ta) / tickRate;
    const s2 = (tick - tb) / tickRate;
    // Gravity's share of the change between the two intervals' mean velocities (their middles are (s1 + s2) / 2 apart).
    const expected = (gravity[1] * (s1 + s2)) / 2;
    const ballistic = (v1: number, v2: number) => Math.abs(v2 - v1 - expected) < BALLISTIC_TOLERANCE;
    if (!ballistic((yb - ya) / s1, (y - yb) / s2) || !ballistic((pb[1] - pa[1]) / s1, (pc[1] - pb[1]) / s2)) return false;
    const dv = (y - yb - (pc[1] - pb[1])) / s2;
    const deadband = this.velocityDeadband + (Math.abs(gravity[1]) * this.timingSlackTicks) / tickRate;
    if (Math.abs(dv) < deadband) return false;
    this.avatar!.vy += dv;
    this.lastVelocityError = dv;
    this.bend(dv / tickRate, tick);
    return true;
  }

  /**
   * The history as if the vertical velocity had been `perTick` (m per tick) higher since stamp `from`,
   * shifted so that its newest entry (where the avatar is) does not move: entries at or before `from`
   * (and the attach origin) go down by `perTick × (newest − from)`, later ones by `perTick × (newest − stamp)`.
   */
  private bend(perTick: number, from: number): void {
    const h = this.history;
    const newest = h[this.head * STRIDE];
    const cap = this.history.length / STRIDE;
    for (let i = 0; i < Math.min(this.count, cap); i++) {
      const o = i * STRIDE;
      h[o + 2] -= perTick * Math.max(0, newest - Math.max(h[o], from));
    }
    this.origin[1] -= perTick * Math.max(0, newest - from);
  }

  /** Whether the history reaches back to stamp `tick` (not the attach-origin fallback or a wrapped-off past). */
  private covers(tick: number): boolean {
    if (this.count === 0) return false;
    const cap = this.history.length / STRIDE;
    const oldest = this.wrapped ? (this.head + 1) % cap : 0;
    return this.history[oldest * STRIDE] <= tick;
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
