import type { ProfileSummary } from "./profile-summary.ts";

/** The load run's options and its report (JSON as written to loadtest/reports/runs/, and published to loadtest/reports/). */

export interface LoadTestOptions {
  /** Target an existing server instead of starting one (then `adminToken` is needed). */
  url?: string;
  adminToken?: string;
  rooms: number;
  clients: number;
  scenario: string;
  /** Length of each measurement window, seconds. */
  seconds: number;
  /** Wait after the bots joined, before measuring, seconds. */
  warmupSeconds: number;
  /** Move messages per bot per second. */
  inputHz: number;
  /** Room patch interval, ms (server default 50). */
  patchRateMs?: number;
  findCapacity: boolean;
  /** Room counts of the ramp. */
  steps: number[];
  /** Stages to run past the first one that did not hold. */
  overloadSteps: number;
  /** Directory for a CPU profile of the spawned server (node --cpu-prof). */
  profileDir?: string;
  /**
   * Scheduling priority (nice, -20..19) for the spawned server and the bots, e.g. -10 on a machine
   * shared with other work, so the measurement is of this server rather than of its neighbours
   * (needs root for negative values). Unset: unchanged.
   */
  nice?: number;
  /**
   * REDIS_URL for the spawned server: it then runs as one process of a cluster, with the Redis presence
   * and driver and its rooms' failover checkpoints (their CPU is a column of the report). Loopback only.
   */
  redisUrl?: string;
  /** Times a failing stage is measured again when other processes used > 25% of a core meanwhile. */
  retries: number;
  seed: number;
  /** Progress lines (stderr in the CLI). */
  progress?: (line: string) => void;
}

export interface Quantiles {
  p50: number;
  p95: number;
  p99: number;
  /** Exact max for client-side samples; the upper bound of the highest non-empty bucket for server histograms. */
  max: number;
}

export interface StageResult {
  phase: "ramp" | "overload" | "recovery" | "run";
  rooms: number;
  clientsPerRoom: number;
  players: number;
  seconds: number;
  tickRate: number;
  budgetMs: number;
  patchRateMs: number;
  bodiesPerRoom: { min: number; max: number };
  /** Server time per tick: inputs + step + replay line (physics_tick_duration_ms). */
  tickMs: Quantiles & { roomP99Max: number };
  /** Timer due → tick done (physics_tick_loop_ms): what the budget applies to. */
  tickLoopMs: Quantiles & { shareOverBudget: number };
  ticksPerSecondPerRoom: number;
  catchUpTicks: number;
  skippedTicks: number;
  /** Event-loop delay of the server (monitorEventLoopDelay, its 10 ms resolution subtracted). */
  eventLoopDelayMs: { windowMean: number; lifetimeP99: number; lifetimeMax: number };
  server: {
    cpuPercent: number;
    eventLoopUtilization: number;
    rssMB: number;
    heapMB: number;
    /** Thread time per wall second, ms: ticks, state sync, patch encode+send, the rest (messages, HTTP, GC…). */
    busyMsPerSecond: { ticks: number; sync: number; patches: number; checkpoints: number; other: number };
    /** Of busyMsPerSecond.checkpoints, the bases (room snapshots encoded), and bases written per second (0 without --redis). */
    checkpointBaseMsPerSecond?: number;
    checkpointBasesPerSecond?: number;
    /** Encoding the bases on the checkpoint encoder's worker thread (off the rooms' thread), ms per second. */
    checkpointWorkerMsPerSecond?: number;
    syncMsPerPatch: number;
    encodeMsPerPatch: number;
    patchBytes: number;
  };
  bots: { cpuPercent: number; eventLoopUtilization: number; eventLoopDelayP99Ms: number };
  /** CPU of everything else on the machine (other processes), % of one core; null off Linux. */
  otherCpuPercent: number | null;
  /** An idle probe process's 5 ms timer (noise-probe.ts): largest lateness and wake-ups later than 16.7 ms. */
  machineNoise: { maxLateMs: number; stallsOverBudget: number };
  patchIntervalMs: Quantiles & { count: number };
  patchesPerRoomMin: number;
  bytesPerSecondPerClient: { mean: number; min: number; max: number };
  joinMs: Quantiles & { count: number };
  connected: number;
  expected: number;
  errors: string[];
  drops: number;
  unexpectedLeaves: number;
  rejectedInputs: number;
  held: boolean;
  reasons: string[];
  /** Other processes used more than 25% of a core during the window: a failure may not be the server's. */
  contaminated: boolean;
  /** Measurements of this stage (> 1 when a contaminated failure was measured again). */
  attempts: number;
  /** Did not hold, but only while other processes were busy (even after the retries): not counted as the limit. */
  inconclusive: boolean;
  /** The window second by second (one point per interval between /metrics scrapes): what a plain run plots. */
  timeline: TimelinePoint[];
}

/** One interval of a measurement window (about a second), this run's rooms together. */
export interface TimelinePoint {
  /** End of the interval, seconds from the start of the window. */
  t: number;
  tickLoopMs: { p50: number; p99: number };
  tickMsP99: number;
  /** Patch intervals the bots saw in the interval (0 when none). */
  patchIntervalMs: { p50: number; p99: number };
  kBPerSecondPerClient: number;
  serverCpuPercent: number;
  botsCpuPercent: number;
  otherCpuPercent: number | null;
  /** Bots connected at the end of the interval. */
  connected: number;
}

export interface LoadReport {
  kind: "run" | "capacity";
  startedAt: string;
  finishedAt: string;
  options: Omit<LoadTestOptions, "progress" | "adminToken">;
  machine: { cpus: number; model: string; node: string };
  server: { url: string; spawned: boolean; pid: number | null; exitCode: number | null; alive: boolean; errorLines: string[] };
  stages: StageResult[];
  /** Largest stage that held (capacity runs), or null if none did. */
  capacity: StageResult | null;
  /** True when the ramp ended without any stage failing (capacity is at least the last step). */
  capacityIsLowerBound: boolean;
  /** Past capacity: no crash and no lost bots; after ramping down the stage held again. */
  degradation: { overloadStages: number; noCrash: boolean; noLostClients: boolean; recovered: boolean | null } | null;
  /** Summary of the spawned server's CPU profile (whole run), with --profile. */
  profile: ProfileSummary | null;
  verdict: string;
}
