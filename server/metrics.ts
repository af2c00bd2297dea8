import { type ELDHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import type { BudgetAction, RoomCpuBudget } from "./cpu/room-budget.ts";

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
  /** Non-cumulative bucket counts (index = TICK_BUCKETS_MS index; last = +Inf); /metrics sums them up. */
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
  /** The room's failover checkpoints (server/failover/checkpointer.ts): CPU spent, ms; the bases' share; bases written. */
  checkpoint: { readonly cpuMs: number; readonly baseMs: number; readonly bases: number; readonly workerMs: number } | null = null;
  rejectedInputs = 0;
  /** Bodies the engine removed (left world.bounds or became non-finite). */
  removedBodies = 0;
  /** Game hooks that threw (logged with the game's name and tick). */
  hookErrors = 0;
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

type BudgetCounts = Record<"slow" | "close" | "recover", number>;

function label(v: string): string {
  return v.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");
}

/** `# HELP` and `# TYPE` lines of one series. */
function describe(out: string[], name: string, type: "gauge" | "counter" | "histogram" | "summary", help: string): void {
  out.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
}

/** One series with a value per room. */
function perRoom(out: string[], rooms: readonly RoomMetrics[], name: string, type: "gauge" | "counter", help: string, value: (m: RoomMetrics) => number): void {
  describe(out, name, type, help);
  for (const m of rooms) out.push(`${name}{room="${label(m.roomId)}"} ${value(m)}`);
}

/** A histogram per room from non-cumulative bucket counts (index = bounds index; last = +Inf). */
function perRoomHistogram(
  out: string[],
  rooms: readonly RoomMetrics[],
  name: string,
  help: string,
  bounds: readonly number[],
  histogram: (m: RoomMetrics) => { buckets: Float64Array; sumMs: number; count: number },
): void {
  describe(out, name, "histogram", help);
  for (const m of rooms) {
    const room = label(m.roomId);
    const h = histogram(m);
    let cumulative = 0;
    for (let i = 0; i < bounds.length; i++) {
      cumulative += h.buckets[i];
      out.push(`${name}_bucket{room="${room}",le="${bounds[i]}"} ${cumulative}`);
    }
    cumulative += h.buckets[bounds.length];
    out.push(`${name}_bucket{room="${room}",le="+Inf"} ${cumulative}`, `${name}_sum{room="${room}"} ${h.sumMs}`, `${name}_count{room="${room}"} ${h.count}`);
  }
}

/** Room counts, clients, bodies and the tick-duration histogram. */
function roomSeries(out: string[], rooms: readonly RoomMetrics[]): void {
  describe(out, "physics_rooms", "gauge", "Rooms hosted by this process.");
  out.push(`physics_rooms ${rooms.length}`);
  perRoom(out, rooms, "physics_room_clients", "gauge", "Connected clients per room.", (m) => m.clients);
  describe(out, "physics_clients", "gauge", "Connected clients in all rooms.");
  out.push(`physics_clients ${rooms.reduce((n, m) => n + m.clients, 0)}`);
  perRoom(out, rooms, "physics_room_bodies", "gauge", "Bodies per room.", (m) => m.bodies);
  perRoom(out, rooms, "physics_room_awake_bodies", "gauge", "Awake dynamic bodies per room.", (m) => m.awake);
  perRoomHistogram(out, rooms, "physics_tick_duration_ms", "Server time per simulation tick (inputs + step + recording), milliseconds.", TICK_BUCKETS_MS, (m) => ({
    buckets: m.tickBuckets,
    sumMs: m.tickSumMs,
    count: m.tickCount,
  }));
}

/** Patches, inputs, removals, the tick schedule and the CPU budget, per room. */
function trafficAndScheduleSeries(out: string[], rooms: readonly RoomMetrics[], backlogCloses: number): void {
  perRoom(out, rooms, "physics_patch_bytes_total", "counter", "Encoded state patch bytes (once per patch; each client receives them).", (m) => m.patchBytes);
  perRoom(out, rooms, "physics_patch_bytes_sent_total", "counter", "Patch bytes sent to clients (patch bytes x recipients).", (m) => m.patchBytesPerClient);
  perRoom(out, rooms, "physics_patches_total", "counter", "State patches broadcast.", (m) => m.patches);
  perRoom(out, rooms, "physics_rejected_inputs_total", "counter", "Client inputs rejected (invalid or over a limit).", (m) => m.rejectedInputs);
  describe(out, "physics_backlog_closes_total", "counter", "Clients closed because their unsent backlog exceeded about 2 s of their traffic (close code 4030).");
  out.push(`physics_backlog_closes_total ${backlogCloses}`);
  perRoom(out, rooms, "physics_removed_bodies_total", "counter", "Bodies the engine removed (left world.bounds or became non-finite).", (m) => m.removedBodies);
  perRoom(out, rooms, "physics_game_hook_errors_total", "counter", "Game hooks that threw (the input or event was dropped; the room went on).", (m) => m.hookErrors);
  perRoomHistogram(
    out,
    rooms,
    "physics_tick_loop_ms",
    "Time from when a tick's timer callback was due to the end of the tick (timer delay + catch-up + tick), milliseconds.",
    LOOP_BUCKETS_MS,
    (m) => m.loop,
  );
  perRoom(out, rooms, "physics_tick_catchup_total", "counter", "Ticks run as a catch-up step (2nd or later in one timer callback).", (m) => m.loop.catchUp);
  perRoom(out, rooms, "physics_tick_skipped_total", "counter", "Ticks dropped by the fixed-timestep accumulator (simulation fell behind).", (m) => m.loop.skipped);
  perRoom(out, rooms, "physics_patch_sync_ms_total", "counter", "Time copying simulation state into the schema, milliseconds.", (m) => m.syncMs);
  perRoom(out, rooms, "physics_patch_encode_ms_total", "counter", "Time encoding and sending patches, milliseconds.", (m) => m.patchMs);
  perRoom(out, rooms, "physics_checkpoint_ms_total", "counter", "CPU spent writing failover checkpoints (room snapshots and logs), milliseconds.", (m) => m.checkpoint?.cpuMs ?? 0);
  perRoom(out, rooms, "physics_checkpoint_base_ms_total", "counter", "Of physics_checkpoint_ms_total, the bases (room snapshots encoded), milliseconds.", (m) => m.checkpoint?.baseMs ?? 0);
  perRoom(out, rooms, "physics_checkpoint_bases_total", "counter", "Failover checkpoint bases written.", (m) => m.checkpoint?.bases ?? 0);
  perRoom(out, rooms, "physics_checkpoint_worker_ms_total", "counter", "Time the checkpoint encoder's worker thread spent encoding this room's bases, milliseconds.", (m) => m.checkpoint?.workerMs ?? 0);
  perRoom(out, rooms, "physics_room_cpu_ms_per_second", "gauge", "CPU the room's ticks used in the last second, milliseconds per second.", (m) => m.cpu?.lastSecondMs ?? 0);
  perRoom(out, rooms, "physics_room_cpu_budget_ms_per_second", "gauge", "The room's CPU budget, milliseconds per second.", (m) => m.cpu?.msPerSecond ?? 0);
  perRoom(out, rooms, "physics_room_cpu_overrun_seconds_total", "counter", "Seconds the room spent over its CPU budget.", (m) => m.cpu?.overrunSeconds ?? 0);
}

/** CPU, memory and event-loop series of the process. */
function processSeries(out: string[], loopDelay: ELDHistogram | null): void {
  const cpu = process.cpuUsage();
  const mem = process.memoryUsage();
  const elu = performance.eventLoopUtilization();
  describe(out, "process_cpu_user_seconds_total", "counter", "User CPU time of this process.");
  out.push(`process_cpu_user_seconds_total ${cpu.user / 1e6}`);
  describe(out, "process_cpu_system_seconds_total", "counter", "System CPU time of this process.");
  out.push(`process_cpu_system_seconds_total ${cpu.system / 1e6}`);
  describe(out, "process_resident_memory_bytes", "gauge", "Resident set size.");
  out.push(`process_resident_memory_bytes ${mem.rss}`);
  describe(out, "nodejs_heap_used_bytes", "gauge", "V8 heap in use.");
  out.push(`nodejs_heap_used_bytes ${mem.heapUsed}`);
  describe(out, "nodejs_eventloop_active_ms_total", "counter", "Time the event loop was busy (eventLoopUtilization), milliseconds.");
  out.push(`nodejs_eventloop_active_ms_total ${elu.active}`);
  describe(out, "nodejs_eventloop_idle_ms_total", "counter", "Time the event loop was idle, milliseconds.");
  out.push(`nodejs_eventloop_idle_ms_total ${elu.idle}`);
  if (!loopDelay) return;
  const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
  describe(out, "nodejs_eventloop_delay_ms", "summary", "Event-loop delay since the process started, milliseconds.");
  out.push(`nodejs_eventloop_delay_ms{quantile="0.5"} ${ms(loopDelay.percentile(50))}`);
  out.push(`nodejs_eventloop_delay_ms{quantile="0.99"} ${ms(loopDelay.percentile(99))}`);
  out.push(`nodejs_eventloop_delay_ms_max ${ms(loopDelay.max)}`);
  out.push(`nodejs_eventloop_delay_ms_mean ${ms(loopDelay.mean)}`);
  out.push(`nodejs_eventloop_delay_ms_count ${loopDelay.count}`);
  out.push(`nodejs_eventloop_delay_ms_sum ${ms(loopDelay.mean) * loopDelay.count}`);
}

/**
 * The /metrics registry of one server: its rooms' metrics (each room registers its own), process-level
 * counters, extra series the app adds (admission, the scenario probe), the event-loop delay monitor.
 */
export class ServerMetrics {
  private readonly rooms = new Map<string, RoomMetrics>();
  /** Player rooms slowed, closed and recovered for their CPU budget, since the server started. */
  private readonly budgetActions: BudgetCounts = { slow: 0, close: 0, recover: 0 };
  /** Clients closed because their unsent backlog exceeded ~2 s of their traffic (close code 4030; server/net/transport.ts). */
  backlogCloses = 0;
  private extraSeries: (() => string[]) | null = null;
  private loopDelay: ELDHistogram | null = null;

  register(m: RoomMetrics): void {
    this.rooms.set(m.roomId, m);
  }

  unregister(roomId: string): void {
    this.rooms.delete(roomId);
  }

  room(roomId: string): RoomMetrics | undefined {
    return this.rooms.get(roomId);
  }

  countBudgetAction(action: BudgetAction): void {
    if (action !== "none") this.budgetActions[action]++;
  }

  /** Extra series rendered after the room series (admission refusals, the scenario probe). */
  setExtraSeries(source: (() => string[]) | null): void {
    this.extraSeries = source;
  }

  /** Starts sampling event-loop delay (idempotent). */
  startEventLoopMonitor(): void {
    if (this.loopDelay) return;
    this.loopDelay = monitorEventLoopDelay({ resolution: 10 });
    this.loopDelay.enable();
  }

  stopEventLoopMonitor(): void {
    this.loopDelay?.disable();
    this.loopDelay = null;
  }

  /** The whole exposition text (named for CPU profiles: loadtest/profile-summary.ts reports it as an entry point). */
  renderMetrics(): string {
    const out: string[] = [];
    const rooms = [...this.rooms.values()];
    roomSeries(out, rooms);
    trafficAndScheduleSeries(out, rooms, this.backlogCloses);
    describe(out, "physics_rooms_over_budget_total", "counter", "Player rooms slowed, closed or recovered for their CPU budget.");
    for (const [action, n] of Object.entries(this.budgetActions)) out.push(`physics_rooms_over_budget_total{action="${action}"} ${n}`);
    if (this.extraSeries) out.push(...this.extraSeries());
    processSeries(out, this.loopDelay);
    return `${out.join("\n")}\n`;
  }
}
