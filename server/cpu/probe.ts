import { Worker } from "node:worker_threads";
import type { Scenario } from "../../shared/scenarios/index.ts";
import type { ProbeReply, ProbeRequest } from "./probe-worker.ts";

/** How the admission probe judges a scenario (defaults in DEFAULT_PROBE_OPTIONS). */
export interface ProbeOptions {
  /** Simulated seconds run in the sandbox at most (less once every body sleeps). */
  seconds: number;
  /** Probes waiting at most; more are refused as "busy" (the sandbox is one thread). */
  queueLimit: number;
  /** Verdicts remembered (by scenario key), so a scenario sent again costs nothing. */
  cacheSize: number;
  /** Heap of the sandbox, MB: a scenario cannot exhaust the process's memory through it. */
  heapMb: number;
}

export const DEFAULT_PROBE_OPTIONS: Readonly<ProbeOptions> = Object.freeze({ seconds: 4, queueLimit: 8, cacheSize: 256, heapMb: 256 });

/**
 * Allowed estimated cost: every simulated second must fit the per-second budget, and no single tick may
 * cost more than this many per-tick budgets (every other room waits behind a long tick), within a floor
 * (a legitimate scene's first ticks settle its contacts: pyramid20's cost about 2 ms) and a ceiling
 * that holds at any tick rate (at 1 Hz a per-tick budget is 150 ms).
 */
const WORST_TICK_BUDGETS = 2;
const WORST_TICK_FLOOR_MS = 4;
const WORST_TICK_CEILING_MS = 8;
/** Wall-clock allowance per tick in the sandbox, as a multiple of the worst-tick limit (the sandbox may share its core). */
const WALL_CLOCK_SLACK = 4;
/** Time to build the world in the sandbox, on top of the ticks, ms. */
const PROBE_OVERHEAD_MS = 1000;

/**
 * `judged`: the verdict comes from the estimate (deterministic, cached); otherwise it comes from the wall
 * clock or the sandbox's fate (timed out, lost, busy), depends on the moment, and is not cached.
 */
export type ProbeVerdict = { ok: true; worstSecondMs: number; worstTickMs: number } | { ok: false; reason: string; busy?: boolean; judged?: boolean };

function worstTickLimitMs(tickBudgetMs: number): number {
  return Math.min(WORST_TICK_CEILING_MS, Math.max(WORST_TICK_BUDGETS * tickBudgetMs, WORST_TICK_FLOOR_MS));
}

interface Pending {
  request: ProbeRequest;
  tickRate: number;
  tickBudgetMs: number;
  resolve: (verdict: ProbeVerdict) => void;
}

/** The most expensive run of `window` consecutive ticks, ms. */
function worstWindow(tickMs: number[], window: number): number {
  let sum = 0;
  let worst = 0;
  for (let i = 0; i < tickMs.length; i++) {
    sum += tickMs[i];
    if (i >= window) sum -= tickMs[i - window];
    worst = Math.max(worst, sum);
  }
  return worst;
}

/**
 * Admission probe: before a player room starts, its scenario's first ticks run in a worker thread under
 * a time limit. A scenario whose ticks would not fit the room's CPU budget is refused before it ever
 * runs on the main thread (where every room shares one event loop); one that takes too long is stopped
 * by terminating the worker. Ticks are judged by their estimated cost (server/cpu/cost-model.ts), so a
 * verdict does not depend on the machine's load; the wall clock only bounds the sandbox. Probes run
 * one at a time, so the sandbox uses at most one core.
 */
export class ScenarioProbe {
  private readonly options: ProbeOptions;
  private worker: Worker | null = null;
  private ready = false;
  private readonly queue: Pending[] = [];
  private running: Pending | null = null;
  private timer: NodeJS.Timeout | null = null;
  private nextId = 1;
  private readonly cache = new Map<string, ProbeVerdict>();
  /** Probes running or queued, by cache key: the same scenario asked for again shares the one answer. */
  private readonly inflight = new Map<string, Promise<ProbeVerdict>>();
  private closed = false;
  /** Scenarios refused (too slow, timed out or broken), for /metrics. */
  refused = 0;
  timedOut = 0;

  constructor(options: Partial<ProbeOptions> = {}) {
    this.options = { ...DEFAULT_PROBE_OPTIONS, ...options };
  }

  /**
   * Runs `scenario` in the sandbox and judges it against `tickBudgetMs` (one tick's share of the room's
   * CPU budget). `key` identifies the scenario for the verdict cache (a built-in's name, or a digest).
   */
  probe(key: string, scenario: Scenario, tickRate: number, tickBudgetMs: number, maxBodies: number): Promise<ProbeVerdict> {
    const cacheKey = `${key}@${tickBudgetMs.toFixed(3)}`;
    const cached = this.cache.get(cacheKey);
    if (cached) {
      // Refresh its place in the LRU order.
      this.cache.delete(cacheKey);
      this.cache.set(cacheKey, cached);
      return Promise.resolve(cached);
    }
    const running = this.inflight.get(cacheKey);
    if (running) return running;
    if (this.closed) return Promise.resolve({ ok: false, reason: "server is shutting down", busy: true });
    if (this.queue.length >= this.options.queueLimit) {
      return Promise.resolve({ ok: false, reason: "the scenario sandbox is busy; try again shortly", busy: true });
    }
    const answer = new Promise<ProbeVerdict>((resolve) => {
      const ticks = Math.max(1, Math.ceil(this.options.seconds * tickRate));
      const request: ProbeRequest = {
        id: this.nextId++,
        scenario,
        ticks,
        windowTicks: Math.max(1, Math.round(tickRate)),
        maxBodies,
        // Past this some second is over budget for sure: stop early.
        stopAboveUs: 1000 * (tickRate * tickBudgetMs + worstTickLimitMs(tickBudgetMs)),
      };
      this.queue.push({
        request,
        tickRate,
        tickBudgetMs,
        resolve: (verdict) => {
          this.inflight.delete(cacheKey);
          if (verdict.ok || verdict.judged) this.remember(cacheKey, verdict);
          resolve(verdict);
        },
      });
      this.pump();
    });
    this.inflight.set(cacheKey, answer);
    return answer;
  }

  /** Stops the sandbox; queued probes are answered "shutting down". */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.resolve({ ok: false, reason: "server is shutting down", busy: true });
    this.finish({ ok: false, reason: "server is shutting down", busy: true });
    const worker = this.worker;
    this.worker = null;
    if (worker) await worker.terminate();
  }

  private remember(key: string, verdict: ProbeVerdict): void {
    this.cache.set(key, verdict);
    if (this.cache.size > this.options.cacheSize) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
  }

  private ensureWorker(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(new URL("./probe-worker.ts", import.meta.url), {
      resourceLimits: { maxOldGenerationSizeMb: this.options.heapMb },
    });
    worker.unref();
    this.ready = false;
    // Events of a worker that was replaced (timed out and terminated) are ignored.
    worker.on("message", (reply: ProbeReply) => {
      if (this.worker !== worker) return;
      if (reply.type === "ready") {
        this.ready = true;
        this.pump();
      } else this.onResult(reply);
    });
    worker.on("error", (err) => {
      if (this.worker === worker) this.onWorkerLost(`the sandbox failed: ${err.message.slice(0, 120)}`);
    });
    worker.on("exit", () => {
      if (this.worker === worker) this.onWorkerLost("the sandbox exited");
    });
    this.worker = worker;
    return worker;
  }

  /** Starts the sandbox ahead of the first probe (it warms up in the background). */
  warm(): void {
    if (!this.closed) this.ensureWorker();
  }

  private pump(): void {
    if (this.running || this.closed) return;
    const worker = this.ensureWorker();
    if (!this.ready) return;
    const next = this.queue.shift();
    if (!next) return;
    this.running = next;
    // The sandbox may take its time on a busy machine, but a run that needs more than a few times the
    // room's whole budget for the simulated span is refused however its estimate came out.
    const limitMs = PROBE_OVERHEAD_MS + WALL_CLOCK_SLACK * next.request.ticks * next.tickBudgetMs;
    this.timer = setTimeout(() => {
      this.timedOut++;
      this.refused++;
      const stuck = this.worker;
      this.worker = null;
      this.finish({ ok: false, reason: `its first ticks did not finish within ${Math.round(limitMs)} ms` });
      void stuck?.terminate();
    }, limitMs);
    this.timer.unref();
    worker.postMessage(next.request);
  }

  private onResult(reply: Extract<ProbeReply, { type: "result" }>): void {
    const running = this.running;
    if (!running || running.request.id !== reply.id) return;
    if (reply.error !== undefined) {
      this.refused++;
      this.finish({ ok: false, judged: true, reason: `the world could not be built or stepped: ${reply.error}` });
      return;
    }
    const budget = running.tickBudgetMs;
    const tickMs = reply.tickUs.map((us) => us / 1000);
    const worstTick = Math.max(0, ...tickMs);
    const secondMs = worstWindow(tickMs, running.tickRate);
    const secondBudget = budget * running.tickRate;
    const tickLimit = worstTickLimitMs(budget);
    if (worstTick > tickLimit || secondMs > secondBudget) {
      this.refused++;
      const what =
        worstTick > tickLimit
          ? `a tick costs ${worstTick.toFixed(1)} ms (limit ${tickLimit.toFixed(1)} ms)`
          : `a second of it costs ${secondMs.toFixed(0)} ms of CPU (budget ${secondBudget.toFixed(0)} ms)`;
      this.finish({ ok: false, judged: true, reason: `too expensive for this room's CPU budget: ${what}` });
      return;
    }
    this.finish({ ok: true, worstSecondMs: secondMs, worstTickMs: worstTick });
  }

  private onWorkerLost(reason: string): void {
    this.worker = null;
    if (this.running) {
      this.refused++;
      this.finish({ ok: false, reason });
    }
  }

  /** Answers the running probe and starts the next queued one. */
  private finish(verdict: ProbeVerdict): void {
    const running = this.running;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    this.running = null;
    running?.resolve(verdict);
    this.pump();
  }
}

let shared: ScenarioProbe | null = null;

/** The process's sandbox (created on first use). */
export function sharedScenarioProbe(): ScenarioProbe {
  shared ??= new ScenarioProbe();
  return shared;
}
