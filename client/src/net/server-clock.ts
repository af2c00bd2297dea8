/**
 * Estimates the server's simulation time on the client and drives the render clock of snapshot
 * interpolation. DOM-free: every method takes the client time (ms, e.g. performance.now()) explicitly.
 *
 * Server time comes from the state itself: each patch carries `tick` (and `time` = tick * 1000 /
 * tickRate), so a snapshot's server time is exact; only its arrival is noisy. For every snapshot
 *   offset_i = serverTime_i - arrival_i
 * and the largest offset in a sliding window is the least delayed packet: serverNow(t) = t + max offset.
 * How much later than that the other packets came (their lateness) is the jitter the interpolation
 * delay must absorb:
 *   delay = patch interval (the newest snapshot is up to one interval old) + p95(lateness) + one tick.
 * Until the window has enough samples the delay stays at its start value, 3 patch intervals.
 *
 * The render time never jumps and never runs backwards: each frame it advances by the real elapsed
 * time times a rate in [1 - slew, 1 + slew] that steers it toward serverNow - delay (a clock slew, not
 * a smoothing of positions). Only when it is more than `resyncMs` off (start, a long stall) does it
 * jump forward. It is also held at most `maxExtrapolationMs` past the newest snapshot, so a stalled
 * stream freezes motion instead of inventing it.
 */
export interface ServerClockOptions {
  /** Nominal time between patches, ms (the room's patchRateMs). */
  patchIntervalMs: number;
  /** Simulation step, ms (1000 / tickRate). */
  tickMs: number;
  /** Snapshots in the jitter window. Default 60 (3 s at 20 Hz). */
  window?: number;
  /** Samples needed before the delay adapts. Default 10. */
  minSamples?: number;
  /** Bounds of the adaptive delay, ms. Defaults: patch interval + one tick, and 1000. */
  minDelayMs?: number;
  maxDelayMs?: number;
  /** Largest relative change of the render clock's rate. Default 0.2 (0.8x..1.2x real time). */
  slew?: number;
  /** Render-time error (ms) above which the clock jumps instead of slewing. Default 1000. */
  resyncMs?: number;
  /** How far the render time may run past the newest snapshot, ms. Default one patch interval. */
  maxExtrapolationMs?: number;
}

/** Quantile of the lateness used for the delay. */
const LATENESS_QUANTILE = 0.95;
/** Rate correction per ms of render-time error: 25 ms off gives the full slew at 0.2. */
const GAIN_PER_MS = 0.008;

export class ServerClock {
  patchIntervalMs: number;
  tickMs: number;
  readonly window: number;
  readonly minSamples: number;
  minDelayMs: number;
  maxDelayMs: number;
  readonly slew: number;
  readonly resyncMs: number;
  maxExtrapolationMs: number;

  /** Ring of offsets (server time - arrival), ms. */
  private readonly offsets: Float64Array;
  private readonly scratch: Float64Array;
  private count = 0;
  private head = 0;
  private maxOffset = Number.NEGATIVE_INFINITY;
  /** Newest snapshot's server time, ms. */
  newestServerTime = Number.NEGATIVE_INFINITY;
  /** Current interpolation delay, ms (what the render clock steers toward). */
  delayMs: number;
  /** p95 lateness of the window, ms (0 until measured). */
  jitterMs = 0;
  /** Render time of the last update(), server ms; NaN before the first snapshot. */
  renderTime = Number.NaN;
  private lastUpdate = Number.NaN;
  /** Times the clock jumped (start and resyncs). */
  resyncs = 0;

  constructor(options: ServerClockOptions) {
    this.patchIntervalMs = options.patchIntervalMs;
    this.tickMs = options.tickMs;
    this.window = options.window ?? 60;
    this.minSamples = options.minSamples ?? 10;
    this.minDelayMs = options.minDelayMs ?? options.patchIntervalMs + options.tickMs;
    this.maxDelayMs = options.maxDelayMs ?? 1000;
    this.slew = options.slew ?? 0.2;
    this.resyncMs = options.resyncMs ?? 1000;
    this.maxExtrapolationMs = options.maxExtrapolationMs ?? options.patchIntervalMs;
    this.offsets = new Float64Array(this.window);
    this.scratch = new Float64Array(this.window);
    this.delayMs = 3 * options.patchIntervalMs;
  }

  /** Rates announced by the server (welcome message); the start delay follows until measured. */
  setRates(patchIntervalMs: number, tickMs: number): void {
    this.patchIntervalMs = patchIntervalMs;
    this.tickMs = tickMs;
    this.minDelayMs = patchIntervalMs + tickMs;
    this.maxExtrapolationMs = patchIntervalMs;
    if (this.count < this.minSamples) this.delayMs = 3 * patchIntervalMs;
  }

  /** Records a snapshot of server time `serverTimeMs` that arrived at client time `arrivalMs`. */
  onSnapshot(serverTimeMs: number, arrivalMs: number): void {
    if (serverTimeMs < this.newestServerTime - this.resyncMs) {
      // The server's clock went back (a new room under the same client, a restarted server): start over.
      this.reset();
    }
    if (serverTimeMs > this.newestServerTime) this.newestServerTime = serverTimeMs;
    const offset = serverTimeMs - arrivalMs;
    this.offsets[this.head] = offset;
    this.head = (this.head + 1) % this.window;
    if (this.count < this.window) this.count++;
    let max = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < this.count; i++) if (this.offsets[i] > max) max = this.offsets[i];
    this.maxOffset = max;
    if (this.count >= this.minSamples) {
      for (let i = 0; i < this.count; i++) this.scratch[i] = max - this.offsets[i];
      const lateness = this.scratch.subarray(0, this.count).sort();
      this.jitterMs = lateness[Math.min(this.count - 1, Math.floor(LATENESS_QUANTILE * this.count))];
      const target = this.patchIntervalMs + this.jitterMs + this.tickMs;
      this.delayMs = Math.min(this.maxDelayMs, Math.max(this.minDelayMs, target));
    }
  }

  /** Estimated server simulation time at client time `nowMs`; NaN before the first snapshot. */
  serverNow(nowMs: number): number {
    return this.count === 0 ? Number.NaN : nowMs + this.maxOffset;
  }

  /** Advances and returns the render time (server ms) for a frame at client time `nowMs`. */
  update(nowMs: number): number {
    if (this.count === 0) return Number.NaN;
    const target = this.serverNow(nowMs) - this.delayMs;
    const limit = this.newestServerTime + this.maxExtrapolationMs;
    if (Number.isNaN(this.renderTime) || Math.abs(target - this.renderTime) > this.resyncMs) {
      // Start, or hopelessly off: jump, but never backwards past what was already shown.
      const jumped = Math.min(target, limit);
      this.renderTime = Number.isNaN(this.renderTime) ? jumped : Math.max(this.renderTime, jumped);
      this.resyncs++;
    } else {
      const dt = Math.max(0, nowMs - this.lastUpdate);
      const error = target - (this.renderTime + dt);
      let rate = 1 + GAIN_PER_MS * error;
      if (rate > 1 + this.slew) rate = 1 + this.slew;
      if (rate < 1 - this.slew) rate = 1 - this.slew;
      const next = this.renderTime + dt * rate;
      // Hold at the extrapolation limit; the limit only grows, so time still never runs backwards.
      this.renderTime = Math.max(this.renderTime, Math.min(next, limit));
    }
    this.lastUpdate = nowMs;
    return this.renderTime;
  }

  /** Forgets every measurement (the next snapshot restarts the clock). */
  reset(): void {
    this.count = 0;
    this.head = 0;
    this.maxOffset = Number.NEGATIVE_INFINITY;
    this.newestServerTime = Number.NEGATIVE_INFINITY;
    this.renderTime = Number.NaN;
    this.lastUpdate = Number.NaN;
    this.jitterMs = 0;
    this.delayMs = 3 * this.patchIntervalMs;
  }
}
