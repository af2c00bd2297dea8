import { monitorEventLoopDelay } from "node:perf_hooks";

/**
 * Process-local metrics in Prometheus text format, written by hand (a handful of series does not need
 * a client library). Every process exposes its own rooms; Prometheus sums across processes.
 */

/** Upper bounds of the tick-duration histogram buckets, milliseconds. */
export const TICK_BUCKETS_MS = [0.25, 0.5, 1, 2, 4, 8, 16, 33, 66] as const;
/** Tick durations kept per room for the p50/p99 shown by GET /rooms. */
const RECENT_TICKS = 600;

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

const rooms = new Map<string, RoomMetrics>();
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
  if (loopDelay) {
    const ms = (ns: number) => (Number.isFinite(ns) ? ns / 1e6 : 0);
    out.push("# HELP nodejs_eventloop_delay_ms Event-loop delay since the process started, milliseconds.", "# TYPE nodejs_eventloop_delay_ms summary");
    out.push(`nodejs_eventloop_delay_ms{quantile="0.5"} ${ms(loopDelay.percentile(50))}`);
    out.push(`nodejs_eventloop_delay_ms{quantile="0.99"} ${ms(loopDelay.percentile(99))}`);
    out.push(`nodejs_eventloop_delay_ms_max ${ms(loopDelay.max)}`);
    out.push(`nodejs_eventloop_delay_ms_mean ${ms(loopDelay.mean)}`);
  }
  return `${out.join("\n")}\n`;
}
