/**
 * Per-client input rate limiting, in one-second windows (wall clock, ms).
 *
 * Every WebSocket frame a client sends counts, valid or not. Up to `maxPerSecond` frames per window
 * are accepted; the rest of the window is dropped before decoding ("throttle": cheap, so a flood costs
 * the server little). A client that is still over the rate after `floodSeconds` consecutive windows, or
 * that sends more than FLOOD_FACTOR times the rate within one window, is to be disconnected.
 *
 * Notices (the `rejected` messages a client gets back) have their own budget, so invalid input cannot
 * make the server send more than NOTICES_PER_SECOND replies per second to one client.
 */

export type InputVerdict = "accept" | "throttle" | "disconnect";

/** More than this multiple of the rate within one window disconnects at once. */
export const FLOOD_FACTOR = 4;
/** Rejection notices sent to one client per second at most. */
export const NOTICES_PER_SECOND = 10;

export class InputLimiter {
  readonly maxPerSecond: number;
  readonly floodSeconds: number;
  private windowStart = Number.NEGATIVE_INFINITY;
  /** Frames in the current window. */
  count = 0;
  /** Consecutive earlier windows that went over the rate. */
  private overStreak = 0;
  private notices = 0;
  /** Frames dropped so far (all windows). */
  dropped = 0;
  /** Set once the limiter said "disconnect" (it keeps saying so). */
  disconnected = false;
  /** Set by the room once it closed the connection (so it does so once). */
  kicked = false;

  constructor(maxPerSecond: number, floodSeconds: number) {
    this.maxPerSecond = maxPerSecond;
    this.floodSeconds = floodSeconds;
  }

  private roll(now: number): void {
    if (now - this.windowStart < 1000) return;
    const consecutive = now - this.windowStart < 2000;
    this.overStreak = consecutive && this.count > this.maxPerSecond ? this.overStreak + 1 : 0;
    this.windowStart = now;
    this.count = 0;
    this.notices = 0;
  }

  /** Accounts one incoming frame. */
  check(now: number): InputVerdict {
    if (this.disconnected) return "disconnect";
    this.roll(now);
    this.count++;
    if (this.count <= this.maxPerSecond) return "accept";
    this.dropped++;
    if (this.count > FLOOD_FACTOR * this.maxPerSecond || this.overStreak + 1 >= this.floodSeconds) {
      this.disconnected = true;
      return "disconnect";
    }
    return "throttle";
  }

  /** True if a rejection notice may be sent now (and counts it). */
  allowNotice(now: number): boolean {
    this.roll(now);
    if (this.notices >= NOTICES_PER_SECOND) return false;
    this.notices++;
    return true;
  }

  /** True for the first dropped frame of a window (the moment to tell the client it is throttled). */
  get firstDropInWindow(): boolean {
    return this.count === this.maxPerSecond + 1;
  }

  /** Why the client is disconnected, for the close frame (at most 123 bytes). */
  reason(): string {
    return `rate limit: over ${this.maxPerSecond} messages per second for ${this.overStreak + 1} s (${this.count} in the last second)`;
  }
}
