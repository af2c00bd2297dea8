import { monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { RoomCpuBudget } from "./cpu/room-budget.ts";

/**
 * Process-local metrics in Prometheus text format, written by hand (a handful of series does not need
 * a client library). Every process exposes its own rooms; Prometheus sums across processes.
 */

/** Upper bounds of the tick-duration histogram buckets, milliseconds. */
export const TICK_BUCKETS_MS = [0.25, 0.5, 1, 2, 4, 8, 16, 33, 66] as const;
/** Tick durations kept per room for the p50/p99 shown by GET /rooms. */
const RECENT_TICKS = 600;

/**
 * Upper bounds of the tick-loop histogram, milliseconds. 16.67 and 33.33 are the budgets (one step) at
 * 60 and 30 Hz, so the share of ticks over budget is exact there.
 */
export const LOOP_BUCKETS_MS = [1, 2, 4, 8, 12, 16.67, 20, 25, 33.33, 50, 100, 250] as const;
/** Colyseus 0.18's setFixedTimestep runs at most this many steps per timer callback, then drops the backlog. */
const MAX_CATCHUP_STEPS = 5;

/** The parts of a room's Colyseus clock that setFixedTimestep's accumulator reads (Date.now based). */
export interface LoopClock {
  readonly currentTime: number;
  readonly elapsedTime: number;
  readonly deltaTime: number;
}

/**
 * Where each tick lands against its schedule. Colyseus' fixed timestep is a `setInterval(stepMs)` whose
 * callback adds the measured delta to an accumulator and runs whole steps (at most 5, then it drops the
 * backlog). Node re-arms an interval from the moment its callback starts, so a callback is due one step
 * after the previous one started; whatever else the process runs then (other rooms' ticks, patches,
 * messages, GC) makes it late.
 *
 * - tick-loop time: from when the timer callback that ran the tick was due to when the tick finished
 *   (timer delay + the ticks run before it in that callback + its own duration). Over one step (the
 *   budget) means the room could not keep its tick rate at that moment.
 * - catch-up ticks: ticks that ran as the 2nd..5th step of one callback (the room had fallen behind by a
 *   step; Node's whole-millisecond timers alone cause a few per thousand at 60 Hz).
 * - skipped ticks: whole steps the accumulator dropped after 5 catch-up steps (simulation time lost).
 */
export class TickLoop {
  /** Step length, ms (1000 / tickRate); set by the room with its fixed timestep. */
  stepMs = 1000 / 60;
  /** Non-cumulative bucket counts (index = LOOP_BUCKETS_MS index; last = +Inf). */
  readonly buckets = new Float64Array(LOOP_BUCKETS_MS.length + 1);
  sumMs = 0;
  count = 0;
  catchUp = 0;
  skipped = 0;
  private callbackClock = Number.NaN;
  private callbackElapsed = Number.NaN;
  private callbackStart = 0;
  private dueAt = 0;
  private ran = 0;
  private base = Number.NaN;
  private dropped = 0;

  /** Called at the end of every tick with the room clock and the tick's performance.now() start and end. */
  observe(clock: LoopClock, start: number, end: number): void {
    if (clock.currentTime !== this.callbackClock) {
      // First tick of a timer callback. The previous callback started at callbackStart, unless one ran
      // in between without a tick (then fall back to the clock's whole-millisecond delta).
      const previousIsLast = Math.abs(clock.elapsedTime - clock.deltaTime - this.callbackElapsed) < 0.5;
      if (Number.isNaN(this.base)) {
        this.base = clock.elapsedTime - clock.deltaTime;
        this.dueAt = start;
      } else {
        this.dueAt = (previousIsLast ? this.callbackStart : start - clock.deltaTime) + this.stepMs;
      }
      this.callbackClock = clock.currentTime;
      this.callbackElapsed = clock.elapsedTime;
      this.callbackStart = start;
      this.ran = 0;
    } else {
      this.catchUp++;
    }
    this.count++;
    this.ran++;
    if (this.ran === MAX_CATCHUP_STEPS) {
      // Mirror of the accumulator: what is left after 5 steps is dropped.
      const backlog = clock.elapsedTime - this.base - this.dropped - this.count * this.stepMs;
      if (backlog > 0) {
        this.skipped += Math.floor(backlog / this.stepMs);
        this.dropped += backlog;
      }
    }
    const ms = Math.max(0, end - this.dueAt);
    let i = 0;
    while (i < LOOP_BUCKETS_MS.length && ms > LOOP_BUCKETS_MS[i]) i++;
    this.buckets[i]++;
    this.sumMs += ms;
  }
}

export class RoomMetrics {
  readonly roomId: string;
  scenario = "";
  clients = 0;
  bodies = 0;
  awake = 0;
  tick = 0;
  /** Cumulative bucket counts (index = TICK_BUCKETS_MS index; last = +Inf). */
  readonly tickBuckets = new Float64Array(TICK_BUCKETS_MS.length + 1);
  tickSumMs = 0;
  tickCount = 0;
  private readonly recent = new Float64Array(RECENT_TICKS);
  private recentCount = 0;
  private recentNext = 0;
  /** Wire bytes of encoded patches (counted once per patch, not per client) and patches sent. */
  patchBytes = 0;
  patchBytesPerClient = 0;
  patches = 0;
  /** Time spent copying simulation state into the schema and encoding/sending patches, ms. */
  syncMs = 0;
  patchMs = 0;
  rejectedInputs = 0;
  /** Bodies the engine removed (left world.bounds or became non-finite). */
  removedBodies = 0;
  /** Tick schedule: tick-loop time, catch-up and skipped ticks (the room sets loop.stepMs). */
  readonly loop = new TickLoop();
  /** The room's CPU budget: its use in the last whole second and its overrun seconds (set once the room ticks). */
  cpu: Pick<RoomCpuBudget, "lastSecondMs" | "msPerSecond" | "overrunSeconds"> | null = null;

  constructor(roomId: string) {
    this.roomId = roomId;
  }

  observeTick(ms: number): void {
    let i = 0;
    while (i < TICK_BUCKETS_MS.length && ms > TICK_BUCKETS_MS[i]) i++;
    this.tickBuckets[i]++;
    this.tickSumMs += ms;
    this.tickCount++;
    this.recent[this.recentNext] = ms;
    this.recentNext = (this.recentNext + 1) % RECENT_TICKS;
    if (this.recentCount < RECENT_TICKS) this.recentCount++;
  }

  /** Quantile of the recent tick durations (nearest rank), ms; 0 before the first tick. */
  tickQuantile(q: number): number {
    if (this.recentCount === 0) return 0;
    const sorted = Array.from(this.recent.subarray(0, this.recentCount)).sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
  }
}

/** Process-wide connection counters (server/net/transport.ts). */
export const connectionCounters = {
  /** Clients closed because their unsent backlog exceeded ~2 s of their traffic (close code 4030). */
  backlogCloses: 0,
};

const rooms = new Map<string, RoomMetrics>();
/** Player rooms slowed, closed and recovered for their CPU budget, since the process started. */
const budgetActions = { slow: 0, close: 0, recover: 0 };
/** Extra process-level series (admission refusals, the scenario probe), set by the app. */
let extraSeries: (() => string[]) | null = null;

export function countBudgetAction(action: "none" | "slow" | "close" | "recover"): void {
  if (action !== "none") budgetActions[action]++;
}

export function setExtraMetrics(source: (() => string[]) | null): void {
  extraSeries = source;
}

let loopDelay: ReturnType<typeof monitorEventLoopDelay> | null = null;

export function registerRoomMetrics(m: RoomMetrics): void {
  rooms.set(m.roomId, m);
}

export function unregisterRoomMetrics(roomId: string): void {
  rooms.delete(roomId);
}

export function roomMetrics(roomId: string): RoomMetrics | undefined {
  return rooms.get(roomId);
}

/** Starts sampling event-loop delay (idempotent). */
export function startEventLoopMonitor(): void {
  if (loopDelay) return;
  loopDelay = monitorEventLoopDelay({ resolution: 10 });
  loopDelay.enable();
}

export function stopEventLoopMonitor(): void {
  loopDelay?.disable();
  loopDelay = null;
}

function label(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** The whole exposition text. */
export function renderMetrics(): string {
  const out: string[] = [];
  const all = [...rooms.values()];
  out.push("# HELP physics_rooms Rooms hosted by this process.", "# TYPE physics_rooms gauge", `physics_rooms ${all.length}`);
  out.push("# HELP physics_room_clients Connected clients per room.", "# TYPE physics_room_clients gauge");
  for (const m of all) out.push(`physics_room_clients{room="${label(m.roomId)}"} ${m.clients}`);
  out.push("# HELP physics_clients Connected clients in all rooms.", "# TYPE physics_clients gauge");
  out.push(`physics_clients ${all.reduce((n, m) => n + m.clients, 0)}`);
  out.push("# HELP physics_room_bodies Bodies per room.", "# TYPE physics_room_bodies gauge");
  for (const m of all) out.push(`physics_room_bodies{room="${label(m.roomId)}"} ${m.bodies}`);
  out.push("# HELP physics_room_awake_bodies Awake dynamic bodies per room.", "# TYPE physics_room_awake_bodies gauge");
  for (const m of all) out.push(`physics_room_awake_bodies{room="${label(m.roomId)}"} ${m.awake}`);
  out.push(
    "# HELP physics_tick_duration_ms Server time per simulation tick (inputs + step + recording), milliseconds.",
    "# TYPE physics_tick_duration_ms histogram",
  );
  for (const m of all) {
    const room = label(m.roomId);
    let cumulative = 0;
    for (let i = 0; i < TICK_BUCKETS_MS.length; i++) {
      cumulative += m.tickBuckets[i];
      out.push(`physics_tick_duration_ms_bucket{room="${room}",le="${TICK_BUCKETS_MS[i]}"} ${cumulative}`);
    }
    cumulative += m.tickBuckets[TICK_BUCKETS_MS.length];
    out.push(`physics_tick_duration_ms_bucket{room="${room}",le="+Inf"} ${cumulative}`);
    out.push(`physics_tick_duration_ms_sum{room="${room}"} ${m.tickSumMs}`);
    out.push(`physics_tick_duration_ms_count{room="${room}"} ${m.tickCount}`);
  }
  out.push("# HELP physics_patch_bytes_total Encoded state patch bytes (once per patch; each client receives them).", "# TYPE physics_patch_bytes_total counter");
  for (const m of all) out.push(`physics_patch_bytes_total{room="${label(m.roomId)}"} ${m.patchBytes}`);
  out.push("# HELP physics_patch_bytes_sent_total Patch bytes sent to clients (patch bytes x recipients).", "# TYPE physics_patch_bytes_sent_total counter");
  for (const m of all) out.push(`physics_patch_bytes_sent_total{room="${label(m.roomId)}"} ${m.patchBytesPerClient}`);
  out.push("# HELP physics_patches_total State patches broadcast.", "# TYPE physics_patches_total counter");
  for (const m of all) out.push(`physics_patches_total{room="${label(m.roomId)}"} ${m.patches}`);
  out.push("# HELP physics_rejected_inputs_total Client inputs rejected (invalid or over a limit).", "# TYPE physics_rejected_inputs_total counter");
  for (const m of all) out.push(`physics_rejected_inputs_total{room="${label(m.roomId)}"} ${m.rejectedInputs}`);
  out.push(
    "# HELP physics_backlog_closes_total Clients closed because their unsent backlog exceeded about 2 s of their traffic (close code 4030).",
    "# TYPE physics_backlog_closes_total counter",
    `physics_backlog_closes_total ${connectionCounters.backlogCloses}`,
  );
  out.push("# HELP physics_removed_bodies_total Bodies the engine removed (left world.bounds or became non-finite).", "# TYPE physics_removed_bodies_total counter");
  for (const m of all) out.push(`physics_removed_bodies_total{room="${label(m.roomId)}"} ${m.removedBodies}`);
  out.push(
    "# HELP physics_tick_loop_ms Time from when a tick's timer callback was due to the end of the tick (timer delay + catch-up + tick), milliseconds.",
    "# TYPE physics_tick_loop_ms histogram",
  );
  for (const m of all) {
    const room = label(m.roomId);
    let cumulative = 0;
    for (let i = 0; i < LOOP_BUCKETS_MS.length; i++) {
      cumulative += m.loop.buckets[i];
      out.push(`physics_tick_loop_ms_bucket{room="${room}",le="${LOOP_BUCKETS_MS[i]}"} ${cumulative}`);
    }
    cumulative += m.loop.buckets[LOOP_BUCKETS_MS.length];
    out.push(`physics_tick_loop_ms_bucket{room="${room}",le="+Inf"} ${cumulative}`);
    out.push(`physics_tick_loop_ms_sum{room="${room}"} ${m.loop.sumMs}`);
    out.push(`physics_tick_loop_ms_count{room="${room}"} ${m.loop.count}`);
  }
  out.push("# HELP physics_tick_catchup_total Ticks run as a catch-up step (2nd or later in one timer callback).", "# TYPE physics_tick_catchup_total counter");
  for (const m of all) out.push(`physics_tick_catchup_total{room="${label(m.roomId)}"} ${m.loop.catchUp}`);
  out.push("# HELP physics_tick_skipped_total Ticks dropped by the fixed-timestep accumulator (simulation fell behind).", "# TYPE physics_tick_skipped_total counter");
  for (const m of all) out.push(`physics_tick_skipped_total{room="${label(m.roomId)}"} ${m.loop.skipped}`);
  out.push("# HELP physics_patch_sync_ms_total Time copying simulation state into the schema, milliseconds.", "# TYPE physics_patch_sync_ms_total counter");
  for (const m of all) out.push(`physics_patch_sync_ms_total{room="${label(m.roomId)}"} ${m.syncMs}`);
  out.push("# HELP physics_patch_encode_ms_total Time encoding and sending patches, milliseconds.", "# TYPE physics_patch_encode_ms_total counter");
  for (const m of all) out.push(`physics_patch_encode_ms_total{room="${label(m.roomId)}"} ${m.patchMs}`);
  out.push("# HELP physics_room_cpu_ms_per_second CPU the room's ticks used in the last second, milliseconds per second.", "# TYPE physics_room_cpu_ms_per_second gauge");
  for (const m of all) out.push(`physics_room_cpu_ms_per_second{room="${label(m.roomId)}"} ${m.cpu?.lastSecondMs ?? 0}`);
  out.push("# HELP physics_room_cpu_budget_ms_per_second The room's CPU budget, milliseconds per second.", "# TYPE physics_room_cpu_budget_ms_per_second gauge");
  for (const m of all) out.push(`physics_room_cpu_budget_ms_per_second{room="${label(m.roomId)}"} ${m.cpu?.msPerSecond ?? 0}`);
  out.push("# HELP physics_room_cpu_overrun_seconds_total Seconds the room spent over its CPU budget.", "# TYPE physics_room_cpu_overrun_seconds_total counter");
  for (const m of all) out.push(`physics_room_cpu_overrun_seconds_total{room="${label(m.roomId)}"} ${m.cpu?.overrunSeconds ?? 0}`);
  out.push("# HELP physics_rooms_over_budget_total Player rooms slowed, closed or recovered for their CPU budget.", "# TYPE physics_rooms_over_budget_total counter");
  for (const [action, n] of Object.entries(budgetActions)) out.push(`physics_rooms_over_budget_total{action="${action}"} ${n}`);
  if (extraSeries) out.push(...extraSeries());
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  const elu = performance.eventLoopUtilization();
  out.push("# HELP process_cpu_user_seconds_total User CPU time of this process.", "# TYPE process_cpu_user_seconds_total counter");
  out.push(`process_cpu_user_seconds_total ${cpu.user / 1e6}`);
  out.push("# HELP process_cpu_system_seconds_total System CPU time of this process.", "# TYPE process_cpu_system_seconds_total counter");
  out.push(`process_cpu_system_seconds_total ${cpu.system / 1e6}`);
  out.push("# HELP process_resident_memory_bytes Resident set size.", "# TYPE process_resident_memory_bytes gauge");
  out.push(`process_resident_memory_bytes ${mem.rss}`);
  out.push("# HELP nodejs_heap_used_bytes V8 heap in use.", "# TYPE nodejs_heap_used_bytes gauge");
  out.push(`nodejs_heap_used_bytes ${mem.heapUsed}`);
  out.push("# HELP nodejs_eventloop_active_ms_total Time the event loop was busy (eventLoopUtilization), milliseconds.", "# TYPE nodejs_eventloop_active_ms_total counter");
  out.push(`nodejs_eventloop_active_ms_total ${elu.active}`);
  out.push("# HELP nodejs_eventloop_idle_ms_total Time the event loop was idle, milliseconds.", "# TYPE nodejs_eventloop_idle_ms_total counter");
  out.push(`nodejs_eventloop_idle_ms_total ${elu.idle}`);
  if (loopDelay) {
    const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
    out.push("# HELP nodejs_eventloop_delay_ms Event-loop delay since the process started, milliseconds.", "# TYPE nodejs_eventloop_delay_ms summary");
    out.push(`nodejs_eventloop_delay_ms{quantile="0.5"} ${ms(loopDelay.percentile(50))}`);
    out.push(`nodejs_eventloop_delay_ms{quantile="0.99"} ${ms(loopDelay.percentile(99))}`);
    out.push(`nodejs_eventloop_delay_ms_max ${ms(loopDelay.max)}`);
    out.push(`nodejs_eventloop_delay_ms_mean ${ms(loopDelay.mean)}`);
    out.push(`nodejs_eventloop_delay_ms_count ${loopDelay.count}`);
    out.push(`nodejs_eventloop_delay_ms_sum ${ms(loopDelay.mean) * loopDelay.count}`);
  }
  return `${out.join("\n")}\n`;
}
