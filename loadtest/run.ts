import { cpus, setPriority } from "node:os";
import { type ELDHistogram, monitorEventLoopDelay, performance } from "node:perf_hooks";
import { Admin } from "./admin-client.ts";
import { Fleet } from "./fleet.ts";
import { newestProfile, type ProfileSummary, summarizeProfile } from "./profile-summary.ts";
import { machineCpu, type ServerProcess, startProbe, startServerProcess } from "./server-process.ts";
import { buildStageResult, CONTAMINATION_CPU_PERCENT, LOOP_DELAY_RESOLUTION_MS, type StageWindow, sumCpu } from "./stage-result.ts";
import { type BotCounters, TimelineSampler } from "./timeline.ts";
import type { LoadReport, LoadTestOptions, StageResult } from "./types.ts";

export type { LoadReport, LoadTestOptions, Quantiles, StageResult } from "./types.ts";
export { CONTAMINATION_CPU_PERCENT, judge } from "./stage-result.ts";

/**
 * The load run: a server (a child process, or `--url`), rooms created over the admin API, bots joined
 * with the SDK, then measurement windows. A plain run is one stage; `findCapacity` ramps the room count
 * stage by stage until a stage does not hold, goes `overloadSteps` further to watch it degrade, then
 * ramps back down to the last load that held and checks that the server recovers.
 *
 * Each stage is: connect (`fleet.setRooms`, the ramp), warm-up, measurement window (two /metrics scrapes
 * and the generator's own counters, turned into a result by `buildStageResult`), and at the end teardown.
 */

const sleep = (ms: number) => new Promise((r) => setTimeout(r, Math.max(0, ms)));
/** Interval between the /metrics scrapes of a window (one timeline point each), ms. */
const SAMPLE_MS = 1000;

/** The two /metrics texts around a measurement window and what the generator saw during it. */
export interface MeasuredWindow {
  before: string;
  after: string;
  window: StageWindow;
}

export async function runLoadTest(options: LoadTestOptions): Promise<LoadReport> {
  const run = await LoadRun.start(options);
  try {
    if (options.findCapacity) await run.findCapacity();
    else {
      await run.fleet.setRooms(options.rooms);
      await run.measureStage("run");
    }
  } finally {
    await run.teardown();
  }
  return run.finish();
}

export class LoadRun {
  readonly options: LoadTestOptions;
  readonly server: ServerProcess | null;
  readonly url: string;
  readonly admin: Admin;
  readonly fleet: Fleet;
  readonly stages: StageResult[] = [];
  private readonly log: (line: string) => void;
  private readonly startedAt: string;
  private readonly probe: ReturnType<typeof startProbe>;
  private readonly botLoop: ELDHistogram;
  private capacity: StageResult | null = null;
  private capacityIsLowerBound = false;
  private degradation: LoadReport["degradation"] = null;

  /** Starts the server (unless `options.url`), sets priorities, and the noise probe. */
  static async start(options: LoadTestOptions): Promise<LoadRun> {
    const log = options.progress ?? (() => {});
    const startedAt = new Date().toISOString();
    let server: ServerProcess | null = null;
    if (!options.url) {
      const nodeArgs = options.profileDir ? ["--cpu-prof", `--cpu-prof-dir=${options.profileDir}`] : [];
      server = await startServerProcess({ nodeArgs, redisUrl: options.redisUrl });
      log(`server: pid ${server.pid} at ${server.url}${options.profileDir ? ` (CPU profile → ${options.profileDir})` : ""}`);
    }
    if (options.nice !== undefined) {
      for (const [who, pid] of [["server", server?.pid], ["bots", 0]] as const) {
        if (pid === undefined) continue;
        try {
          setPriority(pid, options.nice);
        } catch (err) {
          log(`could not set the ${who}' priority to ${options.nice}: ${(err as Error).message}`);
        }
      }
    }
    return new LoadRun(options, server, startedAt);
  }

  private constructor(options: LoadTestOptions, server: ServerProcess | null, startedAt: string) {
    this.options = options;
    this.server = server;
    this.startedAt = startedAt;
    this.log = options.progress ?? (() => {});
    this.url = options.url ?? server!.url;
    this.admin = new Admin(this.url, options.adminToken ?? server?.adminToken ?? "");
    const { scenario, clients, inputHz, patchRateMs, seed } = options;
    this.fleet = new Fleet({ url: this.url, scenario, clients, inputHz, patchRateMs, seed }, this.admin, this.log);
    this.probe = startProbe(options.nice, this.log);
    this.botLoop = monitorEventLoopDelay({ resolution: LOOP_DELAY_RESOLUTION_MS });
    this.botLoop.enable();
  }

  private serverAlive(): boolean {
    return !this.server || this.server.exitCode() === null;
  }

  // ---------------------------------------------------------------- stages

  /** Measures a stage; a failure while other processes were busy is measured again (options.retries). */
  async measureStage(phase: StageResult["phase"]): Promise<StageResult> {
    let stage = await this.measure(phase);
    let attempts = 1;
    while (!stage.held && stage.contaminated && attempts <= this.options.retries && this.serverAlive()) {
      this.log(`[${this.fleet.size} rooms] did not hold while other processes were busy: measuring again (${attempts}/${this.options.retries})`);
      stage = await this.measure(phase);
      attempts++;
    }
    stage.attempts = attempts;
    this.stages.push(stage);
    this.fleet.clearCarried();
    return stage;
  }

  /** Warm-up, then one measurement window turned into a result. */
  private async measure(phase: StageResult["phase"]): Promise<StageResult> {
    await this.warmUp();
    const { before, after, window } = await this.measureWindow(phase);
    const stage = buildStageResult(before, after, window);
    this.log(
      `[${stage.rooms} rooms × ${this.options.clients}] ${stage.held ? "HELD" : "DID NOT HOLD"}: tick-loop p99 ${stage.tickLoopMs.p99} ms (budget ${stage.budgetMs}), ` +
        `tick p99 ${stage.tickMs.p99} ms, patch interval p99 ${stage.patchIntervalMs.p99} ms, server CPU ${stage.server.cpuPercent}%, bots CPU ${stage.bots.cpuPercent}%` +
        (stage.reasons.length ? ` — ${stage.reasons.join("; ")}` : "") +
        (stage.contaminated ? ` [other processes used ${stage.otherCpuPercent}% of a core]` : ""),
    );
    return stage;
  }

  /** Lets the joined bots settle (and, when failures get retried, waits for a quiet machine). */
  async warmUp(): Promise<void> {
    this.log(`[${this.fleet.size} rooms × ${this.options.clients}] warming up ${this.options.warmupSeconds} s`);
    await sleep(this.options.warmupSeconds * 1000);
    if (this.options.retries > 0) await this.waitForQuiet();
  }

  /**
   * One measurement window of `options.seconds`: a /metrics scrape at each end, the bots' counters,
   * the generator's CPU and event loop, the machine's CPU and the noise probe in between.
   */
  async measureWindow(phase: StageResult["phase"]): Promise<MeasuredWindow> {
    const { fleet, server } = this;
    const carried = fleet.sinceRoomsChanged();
    const roomIds = fleet.roomIds();
    const serverErrorsBefore = server?.errorLines().length ?? 0;
    const before = await this.admin.metricsText();
    fleet.window.reset();
    this.botLoop.reset();
    const marks = fleet.mark();
    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const machine0 = machineCpu();
    const t0 = performance.now();
    const sampler = new TimelineSampler(before, t0, roomIds, this.botCounters());
    const probeFrom = this.probe.samples.length;
    await this.sampleThroughWindow(t0, sampler, roomIds.length);
    const after = await this.admin.metricsText();
    const seconds = (performance.now() - t0) / 1000;
    sampler.sample(after, performance.now());
    const cpu = process.cpuUsage(cpu0);
    const elu = performance.eventLoopUtilization(elu0);
    const machine1 = machineCpu();
    const noise = this.probe.samples.slice(probeFrom);
    const ids = new Set(roomIds);
    const roomInfos = (await this.admin.rooms()).filter((r) => ids.has(r.roomId));
    const connected = fleet.bots().filter((b) => b.connected).length;
    const serverErrors = server ? server.errorLines().slice(serverErrorsBefore) : [];
    const window: StageWindow = {
      phase,
      roomIds,
      clientsPerRoom: this.options.clients,
      seconds,
      roomInfos,
      requestedPatchRateMs: this.options.patchRateMs,
      bots: {
        patchesPerRoom: fleet.patchesPerRoom(marks),
        bytesPerBot: fleet.bytesPerBot(marks),
        patchIntervalsMs: Array.from(fleet.window.patchIntervals.view()),
        joinMs: carried.joins,
        connected,
        errors: [...carried.errors, ...fleet.window.errors, ...serverErrors.map((l) => `server: ${l.slice(0, 300)}`)],
        drops: carried.drops + fleet.window.drops,
        unexpectedLeaves: carried.leaves + fleet.window.unexpectedLeaves,
        cpuMicros: cpu.user + cpu.system,
        eventLoopUtilization: elu.utilization,
        eventLoopDelayP99Ns: this.botLoop.percentile(99),
      },
      machine: {
        cores: cpus().length,
        busyShare: machine0 && machine1 && machine1.total > machine0.total ? (machine1.busy - machine0.busy) / (machine1.total - machine0.total) : null,
        noise,
      },
      timeline: sampler.points,
    };
    return { before, after, window };
  }

  /** The fleet's counters as the timeline sampler reads them. */
  private botCounters(): BotCounters {
    const { fleet } = this;
    return {
      patchIntervalsMs: () => fleet.window.patchIntervals.view(),
      bytes: () => fleet.window.bytes,
      bots: () => fleet.bots().length,
      connected: () => fleet.connected(),
    };
  }

  /**
   * Sleeps through the window, scraping /metrics every second for the timeline (the window's end is its
   * last point, taken by measureWindow) and printing a progress line every 2 s (windows of 4 s or more).
   */
  private async sampleThroughWindow(t0: number, sampler: TimelineSampler, rooms: number): Promise<void> {
    const { seconds, clients } = this.options;
    const end = t0 + seconds * 1000;
    for (let k = 1; t0 + k * SAMPLE_MS <= end - SAMPLE_MS / 2; k++) {
      await sleep(t0 + k * SAMPLE_MS - performance.now());
      const text = await this.admin.metricsText().catch(() => null);
      if (text === null) continue;
      const now = performance.now();
      const point = sampler.sample(text, now);
      if (seconds < 4 || k % 2 !== 0) continue;
      this.log(
        `[${rooms} rooms × ${clients}] ${point.t.toFixed(0)}/${seconds} s  bots ${this.fleet.connected()}/${rooms * clients}  ` +
          `tick-loop p99 ${point.tickLoopMs.p99.toFixed(1)} ms  patches ${(this.fleet.window.patches / ((now - t0) / 1000)).toFixed(0)}/s  server CPU ${point.serverCpuPercent.toFixed(0)}%`,
      );
    }
    await sleep(end - performance.now());
  }

  /**
   * Waits (up to 60 s) for a second in which other processes used less than the contamination
   * threshold, so a window does not start in the middle of someone else's build.
   */
  private async waitForQuiet(): Promise<void> {
    const t0 = performance.now();
    let announced = false;
    while (performance.now() - t0 < 60_000) {
      const s0 = await this.admin.scrape();
      const c0 = process.cpuUsage();
      const m0 = machineCpu();
      const w0 = performance.now();
      await sleep(1000);
      const s1 = await this.admin.scrape();
      const m1 = machineCpu();
      if (!m0 || !m1 || m1.total <= m0.total) return;
      const seconds = (performance.now() - w0) / 1000;
      const c = process.cpuUsage(c0);
      const other =
        ((m1.busy - m0.busy) / (m1.total - m0.total)) * cpus().length * 100 - ((sumCpu(s1) - sumCpu(s0)) / seconds) * 100 - ((c.user + c.system) / 1e6 / seconds) * 100;
      if (other < CONTAMINATION_CPU_PERCENT) return;
      if (!announced) this.log(`other processes are using ${other.toFixed(0)}% of a core: waiting for a quieter moment (≤ 60 s)`);
      announced = true;
    }
  }

  // ---------------------------------------------------------------- capacity ramp

  /** Ramps `options.steps` until a stage does not hold, `overloadSteps` further, then back down. */
  async findCapacity(): Promise<void> {
    const { steps, overloadSteps } = this.options;
    let failedAt = -1;
    for (let i = 0; i < steps.length; i++) {
      if (!this.serverAlive()) break;
      await this.fleet.setRooms(steps[i]);
      const stage = await this.measureStage(failedAt >= 0 ? "overload" : "ramp");
      if (failedAt < 0 && !this.passedRampStage(stage)) failedAt = i;
      if (failedAt >= 0 && i - failedAt >= overloadSteps) break;
    }
    if (failedAt < 0) this.capacityIsLowerBound = true;
    else this.degradation = await this.degradationPastCapacity();
  }

  /** A ramp stage that held is the capacity so far; one that failed only under others' load does not stop the ramp. */
  private passedRampStage(stage: StageResult): boolean {
    if (stage.held) {
      this.capacity = stage;
      return true;
    }
    if (!stage.contaminated || stage.phase !== "ramp") return false;
    // A failure only under someone else's load says nothing about this server: go on ramping.
    stage.inconclusive = true;
    this.log(`[${stage.rooms} rooms] inconclusive (other processes used ${stage.otherCpuPercent}% of a core); continuing the ramp`);
    return true;
  }

  /** Past capacity: did the server survive, keep every bot, and hold again after ramping down? */
  private async degradationPastCapacity(): Promise<NonNullable<LoadReport["degradation"]>> {
    const overload = this.stages.filter((s) => s.phase === "overload" || (!s.held && !s.inconclusive && s.phase === "ramp"));
    const alive = this.serverAlive();
    const noLost = overload.every((s) => s.connected === s.expected && s.unexpectedLeaves === 0);
    let recovered: boolean | null = null;
    if (alive) {
      const down = this.recoveryRooms();
      this.log(`ramping down to ${down} rooms to check recovery`);
      await this.fleet.setRooms(down);
      recovered = (await this.measureStage("recovery")).held;
    }
    return { overloadStages: overload.length, noCrash: alive, noLostClients: noLost, recovered };
  }

  /**
   * Back to a load that held with margin: the largest held step ≤ 60% of the capacity. Not the
   * capacity itself: by now its rooms are older (spawned and scattered bodies) and each tick
   * costs up to ~1.5× what it did when they were fresh, so the same room count is a heavier load.
   */
  private recoveryRooms(): number {
    const held = this.stages.filter((s) => s.phase === "ramp" && s.held).map((s) => s.rooms);
    const margin = held.filter((n) => n <= 0.6 * (this.capacity?.rooms ?? 0));
    return margin.length ? margin[margin.length - 1] : held.length ? held[0] : Math.max(1, Math.floor(this.options.steps[0] / 2));
  }

  // ---------------------------------------------------------------- teardown and report

  /** Stops measuring; every bot leaves and every room of the run is deleted. */
  async teardown(): Promise<void> {
    this.botLoop.disable();
    this.probe.stop();
    await this.fleet.dispose();
  }

  /** Stops the spawned server, reads its CPU profile (--profile) and assembles the report. */
  async finish(): Promise<LoadReport> {
    const { options, server } = this;
    const aliveAtEnd = this.serverAlive();
    const exitCode = server ? await server.stop() : null;
    const profile = this.profile();
    const report: LoadReport = {
      kind: options.findCapacity ? "capacity" : "run",
      startedAt: this.startedAt,
      finishedAt: new Date().toISOString(),
      options: reportedOptions(options),
      machine: { cpus: cpus().length, model: cpus()[0]?.model ?? "", node: process.version },
      server: { url: this.url, spawned: server !== null, pid: server?.pid ?? null, exitCode, alive: aliveAtEnd, errorLines: server?.errorLines() ?? [] },
      stages: this.stages,
      capacity: this.capacity,
      capacityIsLowerBound: this.capacityIsLowerBound,
      degradation: this.degradation,
      profile,
      verdict: "",
    };
    report.verdict = verdict(report);
    return report;
  }

  private profile(): ProfileSummary | null {
    const dir = this.options.profileDir;
    if (!dir) return null;
    const file = newestProfile(dir, Date.parse(this.startedAt));
    if (file) return summarizeProfile(file);
    this.log(`no CPU profile found in ${dir}`);
    return null;
  }
}

/** The options as the report records them (no token, no callback), in a fixed order. */
function reportedOptions(o: LoadTestOptions): LoadReport["options"] {
  return {
    url: o.url,
    rooms: o.rooms,
    clients: o.clients,
    scenario: o.scenario,
    seconds: o.seconds,
    warmupSeconds: o.warmupSeconds,
    inputHz: o.inputHz,
    patchRateMs: o.patchRateMs,
    findCapacity: o.findCapacity,
    steps: o.steps,
    overloadSteps: o.overloadSteps,
    profileDir: o.profileDir,
    nice: o.nice,
    retries: o.retries,
    seed: o.seed,
  };
}

function verdict(r: LoadReport): string {
  if (r.kind === "run") {
    const s = r.stages[0];
    if (!s) return "no stage ran";
    return s.held ? `held: ${s.rooms} rooms × ${s.clientsPerRoom} clients` : `did not hold: ${s.reasons.join("; ")}`;
  }
  if (!r.capacity) return "no stage held";
  const c = r.capacity;
  const head = `${r.capacityIsLowerBound ? "≥ " : ""}${c.rooms} rooms × ${c.clientsPerRoom} clients (${c.players} players): tick-loop p99 ${c.tickLoopMs.p99} ms, tick p99 ${c.tickMs.p99} ms, patch interval p99 ${c.patchIntervalMs.p99} ms`;
  const d = r.degradation;
  const inconclusive = r.stages.filter((s) => s.inconclusive).map((s) => s.rooms);
  const note = inconclusive.length ? ` (inconclusive under other processes' load: ${inconclusive.join(", ")} rooms)` : "";
  if (!d) return head + note;
  return `${head}${note}; past capacity: ${d.noCrash ? "no crash" : "CRASHED"}, ${d.noLostClients ? "no lost clients" : "clients lost"}, ${d.recovered === null ? "recovery not checked" : d.recovered ? "recovered after ramping down" : "did NOT recover after ramping down"}`;
}
