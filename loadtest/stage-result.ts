import type { RoomListEntry } from "../shared/net/index.ts";
import { histogram, histogramDelta, histogramMaxBound, histogramQuantile, histogramShareAbove, parsePrometheus, type Scrape, sum, value } from "./prom.ts";
import { round, summarize } from "./stats.ts";
import type { Quantiles, StageResult, TimelinePoint } from "./types.ts";

/**
 * A stage's result from what was measured around its window: the server's /metrics text at the start
 * and at the end (differences of its counters and histograms, this run's rooms only) and what the load
 * generator saw itself meanwhile (`StageWindow`). Pure: the same inputs give the same result, so it is
 * tested against recorded scrapes (test/loadtest/fixtures/).
 */

/** Other processes' CPU (% of one core) above which a window counts as contaminated. */
export const CONTAMINATION_CPU_PERCENT = 25;

/** Resolution of monitorEventLoopDelay (server and bots), subtracted from its readings. */
export const LOOP_DELAY_RESOLUTION_MS = 10;

/** Everything about one measurement window that does not come from the server's /metrics. */
export interface StageWindow {
  phase: StageResult["phase"];
  /** This run's rooms; metrics of any other room on the server are ignored. */
  roomIds: string[];
  clientsPerRoom: number;
  /** Wall time from the first scrape to the end of the window, seconds. */
  seconds: number;
  /** GET /rooms at the end of the window (this run's rooms): tick rate, patch rate, bodies, exact tick p99. */
  roomInfos: RoomListEntry[];
  /** The patch interval the rooms were created with (--patch-rate), if any. */
  requestedPatchRateMs?: number;
  bots: {
    /** State patches received in the window, per room (its bots summed). */
    patchesPerRoom: number[];
    /** WebSocket payload bytes received in the window, per bot. */
    bytesPerBot: number[];
    /** Time between consecutive patches at each bot, ms. */
    patchIntervalsMs: number[];
    /** Join latencies since the rooms last changed, ms. */
    joinMs: number[];
    connected: number;
    /** Errors since the rooms last changed (warm-up included), the server's error lines of the window last. */
    errors: string[];
    drops: number;
    unexpectedLeaves: number;
    /** CPU time of the generator's process in the window (user + system), µs. */
    cpuMicros: number;
    eventLoopUtilization: number;
    /** p99 of the generator's event-loop delay, ns (monitorEventLoopDelay, resolution included). */
    eventLoopDelayP99Ns: number;
  };
  machine: {
    cores: number;
    /** Busy share of the whole machine's CPU time in the window (/proc/stat), 0..1; null off Linux. */
    busyShare: number | null;
    /** The noise probe's per-second samples during the window. */
    noise: { max: number; over: number }[];
  };
  /** The window second by second (timeline.ts); none in windows recorded before there was one. */
  timeline?: TimelinePoint[];
}

/** Differences of one pair of scrapes: counters summed over this run's rooms, process gauges as they are. */
class ScrapeDelta {
  readonly before: Scrape;
  readonly after: Scrape;
  private readonly ours: (labels: Record<string, string>) => boolean;

  constructor(before: Scrape, after: Scrape, roomIds: readonly string[]) {
    const ids = new Set(roomIds);
    this.before = before;
    this.after = after;
    this.ours = (l) => ids.has(l.room);
  }

  /** A room counter's increase over the window, summed over this run's rooms. */
  rooms(name: string): number {
    return sum(this.after, name, this.ours) - sum(this.before, name, this.ours);
  }

  /** A process series' increase over the window. */
  process(name: string): number {
    return value(this.after, name) - value(this.before, name);
  }

  /** A room histogram's buckets filled during the window, this run's rooms together. */
  histogram(metric: string): Map<number, number> {
    return histogramDelta(histogram(this.after, metric, this.ours), histogram(this.before, metric, this.ours));
  }

  /** Seconds of CPU the server process used in the window. */
  cpuSeconds(): number {
    return sumCpu(this.after) - sumCpu(this.before);
  }
}

export function sumCpu(s: Scrape): number {
  return value(s, "process_cpu_user_seconds_total") + value(s, "process_cpu_system_seconds_total");
}

/**
 * The stage's result from the two /metrics texts around its window (or their parsed samples) and the
 * generator's own observations; judged (`held`, `reasons`) like every stage.
 */
export function buildStageResult(before: string | Scrape, after: string | Scrape, window: StageWindow): StageResult {
  const delta = new ScrapeDelta(parsed(before), parsed(after), window.roomIds);
  const infos = window.roomInfos;
  const rooms = window.roomIds.length;
  const tickRate = infos[0]?.tickRate ?? 60;
  const budgetMs = 1000 / tickRate;
  const load = cpuLoad(delta, window, budgetMs);
  const stage: StageResult = {
    phase: window.phase,
    rooms,
    clientsPerRoom: window.clientsPerRoom,
    players: rooms * window.clientsPerRoom,
    seconds: round(window.seconds),
    tickRate,
    budgetMs: round(budgetMs),
    patchRateMs: infos[0]?.patchRateMs ?? window.requestedPatchRateMs ?? 50,
    bodiesPerRoom: { min: Math.min(...infos.map((i) => i.bodies ?? 0)), max: Math.max(...infos.map((i) => i.bodies ?? 0)) },
    ...tickTimes(delta, infos, budgetMs),
    ticksPerSecondPerRoom: round(delta.rooms("physics_tick_duration_ms_count") / Math.max(1, rooms) / window.seconds),
    catchUpTicks: delta.rooms("physics_tick_catchup_total"),
    skippedTicks: delta.rooms("physics_tick_skipped_total"),
    eventLoopDelayMs: serverLoopDelay(delta),
    server: serverLoad(delta, window.seconds),
    bots: {
      cpuPercent: round(load.botsPercent),
      eventLoopUtilization: round(window.bots.eventLoopUtilization),
      eventLoopDelayP99Ms: round(Math.max(0, window.bots.eventLoopDelayP99Ns / 1e6 - LOOP_DELAY_RESOLUTION_MS)),
    },
    otherCpuPercent: load.otherPercent === null ? null : round(load.otherPercent),
    machineNoise: { maxLateMs: round(Math.max(0, ...window.machine.noise.map((x) => x.max))), stallsOverBudget: window.machine.noise.reduce((k, x) => k + x.over, 0) },
    ...clientsView(window),
    rejectedInputs: delta.rooms("physics_rejected_inputs_total"),
    held: false,
    reasons: [],
    contaminated: load.contaminated,
    attempts: 1,
    inconclusive: false,
    timeline: window.timeline ?? [],
  };
  judge(stage);
  return stage;
}

function parsed(s: string | Scrape): Scrape {
  return typeof s === "string" ? parsePrometheus(s) : s;
}

/** p50/p95/p99 of a histogram's window (interpolated in the bucket) and its highest non-empty bound. */
function histogramQuantiles(h: Map<number, number>): Quantiles {
  return { p50: round(histogramQuantile(h, 0.5)), p95: round(histogramQuantile(h, 0.95)), p99: round(histogramQuantile(h, 0.99)), max: histogramMaxBound(h) };
}

/** Nearest-rank quantiles and the exact max of samples the bots took, with their count. */
function sampleQuantiles(samples: ArrayLike<number>): Quantiles & { count: number } {
  const s = summarize(samples);
  return { count: s.count, p50: round(s.p50), p95: round(s.p95), p99: round(s.p99), max: round(s.max) };
}

function tickTimes(delta: ScrapeDelta, infos: RoomListEntry[], budgetMs: number): Pick<StageResult, "tickMs" | "tickLoopMs"> {
  const loop = delta.histogram("physics_tick_loop_ms");
  return {
    tickMs: { ...histogramQuantiles(delta.histogram("physics_tick_duration_ms")), roomP99Max: round(Math.max(0, ...infos.map((i) => i.tickMsP99 ?? 0))) },
    // The budget is rounded as the server's bucket bounds are (16.67 for 60 Hz), so the share is exact.
    tickLoopMs: { ...histogramQuantiles(loop), shareOverBudget: round(histogramShareAbove(loop, Math.round(budgetMs * 100) / 100)) },
  };
}

function serverLoopDelay(delta: ScrapeDelta): StageResult["eventLoopDelayMs"] {
  const count = delta.process("nodejs_eventloop_delay_ms_count");
  const lifetime = (v: number) => round(Math.max(0, v - LOOP_DELAY_RESOLUTION_MS));
  return {
    windowMean: round(count > 0 ? Math.max(0, delta.process("nodejs_eventloop_delay_ms_sum") / count - LOOP_DELAY_RESOLUTION_MS) : 0),
    lifetimeP99: lifetime(value(delta.after, "nodejs_eventloop_delay_ms", { quantile: "0.99" })),
    lifetimeMax: lifetime(value(delta.after, "nodejs_eventloop_delay_ms_max")),
  };
}

function serverLoad(delta: ScrapeDelta, seconds: number): StageResult["server"] {
  const active = delta.process("nodejs_eventloop_active_ms_total");
  const idle = delta.process("nodejs_eventloop_idle_ms_total");
  const patchesSent = Math.max(1, delta.rooms("physics_patches_total"));
  const ticks = delta.rooms("physics_tick_duration_ms_sum") / seconds;
  const sync = delta.rooms("physics_patch_sync_ms_total") / seconds;
  const patches = delta.rooms("physics_patch_encode_ms_total") / seconds;
  // Zero without Redis (no failover checkpoints).
  const checkpoints = delta.rooms("physics_checkpoint_ms_total") / seconds;
  // What the event loop was busy with besides ticks, sync, encoding and checkpoints: messages, HTTP, GC, timers.
  const other = Math.max(0, active / seconds - ticks - sync - patches - checkpoints);
  return {
    cpuPercent: round((delta.cpuSeconds() / seconds) * 100),
    eventLoopUtilization: round(active + idle > 0 ? active / (active + idle) : 0),
    rssMB: round(value(delta.after, "process_resident_memory_bytes") / 2 ** 20),
    heapMB: round(value(delta.after, "nodejs_heap_used_bytes") / 2 ** 20),
    busyMsPerSecond: { ticks: round(ticks), sync: round(sync), patches: round(patches), checkpoints: round(checkpoints), other: round(other) },
    checkpointBaseMsPerSecond: round(delta.rooms("physics_checkpoint_base_ms_total") / seconds),
    checkpointBasesPerSecond: round(delta.rooms("physics_checkpoint_bases_total") / seconds),
    checkpointWorkerMsPerSecond: round(delta.rooms("physics_checkpoint_worker_ms_total") / seconds),
    syncMsPerPatch: round(delta.rooms("physics_patch_sync_ms_total") / patchesSent),
    encodeMsPerPatch: round(delta.rooms("physics_patch_encode_ms_total") / patchesSent),
    patchBytes: round(delta.rooms("physics_patch_bytes_total") / patchesSent),
  };
}

/** CPU of the server, the bots and everyone else in the window (% of one core), and whether others interfered. */
function cpuLoad(delta: ScrapeDelta, window: StageWindow, budgetMs: number): { botsPercent: number; otherPercent: number | null; contaminated: boolean } {
  const { seconds, machine } = window;
  const serverPercent = (delta.cpuSeconds() / seconds) * 100;
  const botsPercent = (window.bots.cpuMicros / 1e6 / seconds) * 100;
  const otherPercent = machine.busyShare === null ? null : Math.max(0, machine.busyShare * machine.cores * 100 - serverPercent - botsPercent);
  // Someone else's load, or a stall the idle probe saw too while server and bots left a core free.
  const contaminated =
    (otherPercent !== null && otherPercent > CONTAMINATION_CPU_PERCENT) ||
    (machine.noise.some((x) => x.max > budgetMs) && serverPercent + botsPercent < 100 * (machine.cores - 0.5));
  return { botsPercent, otherPercent, contaminated };
}

/** What the players saw: patches, bandwidth, joins, connectivity and errors. */
function clientsView(
  window: StageWindow,
): Pick<StageResult, "patchIntervalMs" | "patchesPerRoomMin" | "bytesPerSecondPerClient" | "joinMs" | "connected" | "expected" | "errors" | "drops" | "unexpectedLeaves"> {
  const b = window.bots;
  const perBot = b.bytesPerBot.map((bytes) => bytes / window.seconds);
  return {
    patchIntervalMs: sampleQuantiles(b.patchIntervalsMs),
    patchesPerRoomMin: b.patchesPerRoom.length ? Math.min(...b.patchesPerRoom) : 0,
    bytesPerSecondPerClient: {
      mean: round(perBot.reduce((x, y) => x + y, 0) / Math.max(1, perBot.length)),
      min: round(perBot.length ? Math.min(...perBot) : 0),
      max: round(perBot.length ? Math.max(...perBot) : 0),
    },
    joinMs: sampleQuantiles(b.joinMs),
    connected: b.connected,
    expected: window.roomIds.length * window.clientsPerRoom,
    errors: b.errors,
    drops: b.drops,
    unexpectedLeaves: b.unexpectedLeaves,
  };
}

/** A stage holds when ticks kept their budget, patches came on time, and nothing was lost or failed. */
export function judge(stage: StageResult): void {
  const reasons: string[] = [];
  if (stage.tickLoopMs.shareOverBudget > 0.01) {
    reasons.push(`tick-loop p99 over budget (${(stage.tickLoopMs.shareOverBudget * 100).toFixed(1)}% of ticks > ${stage.budgetMs} ms)`);
  }
  if (stage.skippedTicks > 0) reasons.push(`${stage.skippedTicks} ticks skipped`);
  if (stage.patchIntervalMs.p99 > 1.5 * stage.patchRateMs) reasons.push(`late patches (p99 ${stage.patchIntervalMs.p99} ms > 1.5 × ${stage.patchRateMs} ms)`);
  if (stage.patchesPerRoomMin === 0) reasons.push("a room received no patches");
  if (stage.connected < stage.expected) reasons.push(`${stage.expected - stage.connected} bots not connected`);
  if (stage.errors.length > 0) reasons.push(`${stage.errors.length} errors`);
  if (stage.drops > 0 || stage.unexpectedLeaves > 0) reasons.push(`${stage.drops} drops, ${stage.unexpectedLeaves} unexpected leaves`);
  stage.reasons = reasons;
  stage.held = reasons.length === 0;
}
