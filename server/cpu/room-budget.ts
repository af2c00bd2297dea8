import { densePileBodyTickUs, type SolverPasses } from "./cost-model.ts";

/**
 * Per-room CPU budget. Every room shares one event loop, so a room's tick time is every other room's
 * delay. A room is charged its tick time per wall-clock second; a player room that stays over its
 * budget is first slowed (it steps every other timer tick: simulation time runs at half speed, results
 * stay deterministic because ticks are ticks) and, if still over, closed with a reason. Rooms created
 * over the admin API are trusted: their overruns are logged and counted, never acted on.
 */

/**
 * Most bodies a player room may hold within `msPerSecond` of CPU: the bodies that, all of them awake in a
 * dense pile, cost the budget at this tick rate with these solver passes (server/cpu/cost-model.ts; at
 * 60 Hz with the default 4 velocity and 1 relax iterations and 150 ms/s: 258 bodies; with 64 + 1 at
 * 120 Hz: 14; projection with 64 position iterations at 60 Hz: 80). All awake, because whoever writes
 * the scenario decides whether anything sleeps (sleep off, a kinematic paddle stirring the pile): with
 * half of them assumed asleep, 474 never-sleeping spheres piled in a well cost 290 ms/s, in ticks of
 * 5-28 ms that every other room waited behind.
 */
export function bodyCapForBudget(msPerSecond: number, tickRate: number, passes: SolverPasses): number {
  return Math.max(1, Math.floor((msPerSecond * 1000) / (tickRate * densePileBodyTickUs(passes))));
}

/** Seconds over budget before a room is slowed, then before a slowed room is closed. */
export const OVERRUN_SECONDS = 2;
/**
 * A slowed room counts as over while it uses more than this share of its budget: halving a room's rate
 * halves its CPU per second but not the length of its ticks, which every other room waits behind, so a
 * room that only just fits at half speed is still closed.
 */
const SLOWED_SHARE = 0.75;
/** Seconds a slowed room must stay under half its budget before it runs at full speed again. */
const RECOVER_SECONDS = 5;
/**
 * SPIKES_TO_SLOW ticks within one second, each longer than this many per-tick budgets (but at least
 * SPIKE_FLOOR_MS and at most SPIKE_CEILING_MS, whatever the tick rate: at 1 Hz a per-tick budget is
 * 150 ms, and every other room waits behind each such tick), slow an enforced room at once. One alone
 * proves nothing (a GC pause, the OS preempting the process).
 */
const SPIKE_TICK_BUDGETS = 4;
const SPIKE_FLOOR_MS = 8;
const SPIKE_CEILING_MS = 16;
const SPIKES_TO_SLOW = 3;

export type BudgetAction = "none" | "slow" | "close" | "recover";
export type BudgetState = "normal" | "slowed" | "closed";

export class RoomCpuBudget {
  /** CPU the room may use, ms per wall-clock second. */
  readonly msPerSecond: number;
  /** Slow and close the room (player rooms), or only report (admin rooms). */
  readonly enforce: boolean;
  state: BudgetState = "normal";
  /** CPU used in the last whole second, ms. */
  lastSecondMs = 0;
  /** Seconds that went over budget since the room started (for /metrics and GET /rooms). */
  overrunSeconds = 0;
  private readonly spikeMs: number;
  private windowStart = -1;
  private windowMs = 0;
  private spikes = 0;
  private over = 0;
  private under = 0;
  private skipNext = false;

  constructor(msPerSecond: number, tickRate: number, enforce: boolean) {
    this.msPerSecond = msPerSecond;
    this.enforce = enforce;
    this.spikeMs = Math.min(SPIKE_CEILING_MS, Math.max(SPIKE_FLOOR_MS, (SPIKE_TICK_BUDGETS * msPerSecond) / tickRate));
  }

  /** Whether this timer tick should step the simulation (a slowed room skips every other one). */
  shouldStep(): boolean {
    if (this.state !== "slowed") return true;
    this.skipNext = !this.skipNext;
    return !this.skipNext;
  }

  /** Charges one tick of `ms` at wall time `now` (ms); returns what the room must do now. */
  charge(ms: number, now: number): BudgetAction {
    if (this.windowStart < 0) this.windowStart = now;
    this.windowMs += ms;
    if (ms > this.spikeMs && ++this.spikes >= SPIKES_TO_SLOW) {
      if (this.enforce && this.state === "normal") {
        this.state = "slowed";
        this.over = 0;
        return "slow";
      }
    }
    const elapsed = now - this.windowStart;
    if (elapsed < 1000) return "none";
    // Normalised to one second, so a late window does not look cheaper or dearer than it was.
    this.lastSecondMs = (this.windowMs * 1000) / elapsed;
    const limit = this.state === "slowed" ? SLOWED_SHARE * this.msPerSecond : this.msPerSecond;
    const overBudget = this.spikes >= SPIKES_TO_SLOW || this.lastSecondMs > limit;
    this.windowStart = now;
    this.windowMs = 0;
    this.spikes = 0;
    if (overBudget) {
      this.overrunSeconds++;
      this.over++;
      this.under = 0;
    } else {
      this.over = 0;
      this.under = this.lastSecondMs < this.msPerSecond / 2 ? this.under + 1 : 0;
    }
    if (!this.enforce || this.state === "closed") return "none";
    if (this.state === "normal" && this.over >= OVERRUN_SECONDS) {
      this.state = "slowed";
      this.over = 0;
      return "slow";
    }
    if (this.state === "slowed" && this.over >= OVERRUN_SECONDS) {
      this.state = "closed";
      return "close";
    }
    if (this.state === "slowed" && this.under >= RECOVER_SECONDS) {
      this.state = "normal";
      this.under = 0;
      return "recover";
    }
    return "none";
  }

  /** The process is overloaded: slow this room now, or close it if it already runs slowed. */
  shed(): BudgetAction {
    if (!this.enforce || this.state === "closed") return "none";
    this.over = 0;
    this.under = 0;
    if (this.state === "normal") {
      this.state = "slowed";
      return "slow";
    }
    this.state = "closed";
    return "close";
  }

  /** True while the room runs slowed or its last second used more than three quarters of its budget (spawns then pause). */
  nearLimit(): boolean {
    return this.state !== "normal" || this.lastSecondMs > 0.75 * this.msPerSecond;
  }
}
