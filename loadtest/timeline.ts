import { cpus } from "node:os";
import { histogram, histogramDelta, histogramQuantile, parsePrometheus, type Scrape } from "./prom.ts";
import { machineCpu } from "./server-process.ts";
import { sumCpu } from "./stage-result.ts";
import { round, summarize } from "./stats.ts";
import type { TimelinePoint } from "./types.ts";

/**
 * A stage's figures second by second: the window is cut into intervals, each between two /metrics
 * scrapes, and every interval becomes one point (its tick times, patch intervals, bandwidth and CPU). A
 * plain run plots them against time (loadtest/plot.ts): one stage has one value per figure, but how it
 * moved during the window (a slow start, a GC pause, a room growing) shows only over time.
 */

/** What the load generator saw during one interval (its own side of a timeline point). */
export interface IntervalView {
  /** End of the interval, seconds from the start of the window. */
  t: number;
  /** Length of the interval, seconds. */
  seconds: number;
  /** Patch intervals the bots recorded in it, ms. */
  patchIntervalsMs: ArrayLike<number>;
  /** Payload bytes all bots received in it. */
  bytes: number;
  /** Bots of the run (the bandwidth is per bot). */
  bots: number;
  connected: number;
  /** The generator's own CPU time in it (user + system), µs. */
  botsCpuMicros: number;
  /** Busy share of the whole machine in it (/proc/stat), 0..1; null off Linux. */
  machineBusyShare: number | null;
  cores: number;
}

/** One timeline point from the scrapes at both ends of an interval (this run's rooms only) and the bots' view of it. */
export function timelinePoint(before: Scrape, after: Scrape, roomIds: readonly string[], view: IntervalView): TimelinePoint {
  const ids = new Set(roomIds);
  const ours = (labels: Record<string, string>) => ids.has(labels.room);
  const delta = (metric: string) => histogramDelta(histogram(after, metric, ours), histogram(before, metric, ours));
  const loop = delta("physics_tick_loop_ms");
  const tick = delta("physics_tick_duration_ms");
  const patches = summarize(view.patchIntervalsMs);
  const seconds = Math.max(view.seconds, 1e-3);
  const serverPercent = ((sumCpu(after) - sumCpu(before)) / seconds) * 100;
  const botsPercent = (view.botsCpuMicros / 1e6 / seconds) * 100;
  const other = view.machineBusyShare === null ? null : Math.max(0, view.machineBusyShare * view.cores * 100 - serverPercent - botsPercent);
  return {
    t: round(view.t),
    tickLoopMs: { p50: round(histogramQuantile(loop, 0.5)), p99: round(histogramQuantile(loop, 0.99)) },
    tickMsP99: round(histogramQuantile(tick, 0.99)),
    patchIntervalMs: { p50: round(patches.p50), p99: round(patches.p99) },
    kBPerSecondPerClient: round(view.bytes / Math.max(1, view.bots) / seconds / 1024),
    serverCpuPercent: round(serverPercent),
    botsCpuPercent: round(botsPercent),
    otherCpuPercent: other === null ? null : round(other),
    connected: view.connected,
  };
}

/** The bots' counters a sampler reads at each end of an interval (the fleet's, in a run). */
export interface BotCounters {
  /** Patch intervals recorded since the window began (the list only grows during a window). */
  patchIntervalsMs(): ArrayLike<number>;
  /** Bytes received since the window began. */
  bytes(): number;
  bots(): number;
  connected(): number;
}

/** Turns the scrapes a window takes (at its start, every second, at its end) into timeline points. */
export class TimelineSampler {
  readonly points: TimelinePoint[] = [];
  private readonly roomIds: readonly string[];
  private readonly bots: BotCounters;
  private readonly t0: number;
  private previous: { scrape: Scrape; at: number; intervals: number; bytes: number; cpu: NodeJS.CpuUsage; machine: { busy: number; total: number } | null };

  /** `before`: the window's first scrape, taken at `t0` (performance.now()). */
  constructor(before: Scrape | string, t0: number, roomIds: readonly string[], bots: BotCounters) {
    this.roomIds = roomIds;
    this.bots = bots;
    this.t0 = t0;
    this.previous = { scrape: parsed(before), at: t0, intervals: 0, bytes: 0, cpu: process.cpuUsage(), machine: machineCpu() };
  }

  /** The interval from the previous scrape to `scrape`, taken at `now`, as a point. */
  sample(scrape: Scrape | string, now: number): TimelinePoint {
    const p = this.previous;
    const current = parsed(scrape);
    const all = this.bots.patchIntervalsMs();
    const intervals = Array.prototype.slice.call(all, p.intervals) as number[];
    const bytes = this.bots.bytes();
    const cpu = process.cpuUsage();
    const machine = machineCpu();
    const point = timelinePoint(p.scrape, current, this.roomIds, {
      t: (now - this.t0) / 1000,
      seconds: (now - p.at) / 1000,
      patchIntervalsMs: intervals,
      bytes: bytes - p.bytes,
      bots: this.bots.bots(),
      connected: this.bots.connected(),
      botsCpuMicros: cpu.user - p.cpu.user + (cpu.system - p.cpu.system),
      machineBusyShare: p.machine && machine && machine.total > p.machine.total ? (machine.busy - p.machine.busy) / (machine.total - p.machine.total) : null,
      cores: cpus().length,
    });
    this.points.push(point);
    this.previous = { scrape: current, at: now, intervals: all.length, bytes, cpu, machine };
    return point;
  }
}

function parsed(s: Scrape | string): Scrape {
  return typeof s === "string" ? parsePrometheus(s) : s;
}
