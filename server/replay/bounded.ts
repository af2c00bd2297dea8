import { Worker } from "node:worker_threads";
import { ReplayFileError } from "./errors.ts";
import type { ReplaySummary } from "./read.ts";
import type { VerifyReport } from "./verify.ts";

/**
 * Verification with a wall-clock budget. The work runs in a worker thread (worker.ts) and is terminated
 * when the budget is spent: a budget checked between ticks would not do, since a single tick of a valid
 * but hostile scenario (a few hundred bodies in one spot) can take minutes, and memory that runs out in
 * the worker ends the worker, not the process. The budget starts once the worker has loaded its code (how
 * long that takes depends on the machine's load, never on the file) and covers both passes.
 */

export interface WorkerInput {
  command: "verify" | "info";
  path: string;
  maxBytes: number | undefined;
  /** PROGRESS_SLOTS Float64 values, written by the worker before every line and every tick. */
  progress: SharedArrayBuffer;
}

export type WorkerOutput = { ok: true; result: unknown } | { ok: false; fileError: boolean; line: number | null; detail: string };

/** Layout of the shared progress array (phase: 0 validating, 1 simulating; divergedAt: -1 none; loaded: 1 once the worker's code is loaded). */
export const PROGRESS_SLOTS = { phase: 0, line: 1, tick: 2, ticks: 3, fraction: 4, divergedAt: 5, loaded: 6, length: 7 } as const;

/** The time budget ran out: the file was not checked to the end. */
export class ReplayBudgetError extends ReplayFileError {}

export interface BoundedOptions {
  /** Wall-clock budget, seconds; 0: none. */
  maxSeconds: number;
  /** Added to the budget per tick of the file once it is validated, seconds (0: maxSeconds is the whole budget). */
  secondsPerTick?: number;
  /** A single tick taking longer than this stops the check, seconds (0: no per-tick limit). */
  maxTickSeconds?: number;
  /** Files larger than this are refused unread (read.ts default otherwise). */
  maxBytes?: number;
  /** Called about once a second while simulating: tick reached, ticks in the file, share of the file read. */
  onProgress?: (tick: number, ticks: number, fraction: number) => void;
}

export function verifyBounded(path: string, options: BoundedOptions): Promise<VerifyReport> {
  return run("verify", path, options) as Promise<VerifyReport>;
}

/** The validating scan of `info` (no simulation), under the same budget. */
export function scanBounded(path: string, options: BoundedOptions): Promise<ReplaySummary> {
  return run("info", path, options) as Promise<ReplaySummary>;
}

function run(command: WorkerInput["command"], path: string, options: BoundedOptions): Promise<unknown> {
  let started = performance.now();
  const progress = new SharedArrayBuffer(PROGRESS_SLOTS.length * Float64Array.BYTES_PER_ELEMENT);
  const shared = new Float64Array(progress);
  const workerData: WorkerInput = { command, path, maxBytes: options.maxBytes, progress };
  const worker = new Worker(new URL("./worker.ts", import.meta.url), { workerData });
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (settle: () => void) => {
      if (done) return;
      done = true;
      clearInterval(timer);
      clearInterval(ticker);
      settle();
    };
    // Checked ten times a second: the whole budget (which grows with the ticks once the file is validated)
    // and the time spent on the current tick.
    let watchedTick = -1;
    let watchedSince = started;
    const timer = setInterval(() => {
      const now = performance.now();
      if (shared[PROGRESS_SLOTS.loaded] === 0) {
        started = now;
        return;
      }
      const simulating = shared[PROGRESS_SLOTS.phase] === 1;
      const budget = options.maxSeconds + (simulating ? (options.secondsPerTick ?? 0) * shared[PROGRESS_SLOTS.ticks] : 0);
      if (options.maxSeconds > 0 && now - started > budget * 1000) {
        return finish(() => {
          void worker.terminate();
          reject(budgetSpent(shared, budget, (now - started) / 1000));
        });
      }
      if (!simulating || !options.maxTickSeconds) return;
      const tick = shared[PROGRESS_SLOTS.tick];
      if (tick !== watchedTick) {
        watchedTick = tick;
        watchedSince = now;
      } else if (now - watchedSince > options.maxTickSeconds * 1000) {
        finish(() => {
          void worker.terminate();
          reject(new ReplayBudgetError(lineOf(shared), `one tick took longer than ${options.maxTickSeconds} s ${where(shared)}`));
        });
      }
    }, 100);
    timer.unref();
    let lastTick = -1;
    const ticker = setInterval(() => {
      const tick = shared[PROGRESS_SLOTS.tick];
      if (shared[PROGRESS_SLOTS.phase] !== 1 || tick === lastTick) return;
      lastTick = tick;
      options.onProgress?.(tick, shared[PROGRESS_SLOTS.ticks], shared[PROGRESS_SLOTS.fraction]);
    }, 1000);
    ticker.unref();
    worker.on("message", (out: WorkerOutput) =>
      finish(() => {
        if (out.ok) resolve(out.result);
        else reject(out.fileError ? new ReplayFileError(out.line, out.detail) : new Error(out.detail));
      }),
    );
    worker.on("error", (err: Error & { code?: string }) =>
      finish(() => {
        if (err.code === "ERR_WORKER_OUT_OF_MEMORY") reject(new ReplayFileError(lineOf(shared), `ran out of memory ${where(shared)}`));
        else reject(err);
      }),
    );
    worker.on("exit", (code) => finish(() => reject(new Error(`the verifier stopped unexpectedly (exit code ${code}) ${where(shared)}`))));
  });
}

function lineOf(shared: Float64Array): number | null {
  const line = shared[PROGRESS_SLOTS.line];
  return line > 0 ? line : null;
}

function where(shared: Float64Array): string {
  const line = shared[PROGRESS_SLOTS.line];
  if (line === 0) return "while starting (no line read yet)";
  if (shared[PROGRESS_SLOTS.phase] === 0) return `while validating (line ${line}, nothing simulated yet)`;
  const tick = shared[PROGRESS_SLOTS.tick];
  const diverged = shared[PROGRESS_SLOTS.divergedAt];
  const state = diverged >= 0 ? `diverged at tick ${diverged}` : "every hash matching so far";
  return `while simulating tick ${tick + 1} of ${shared[PROGRESS_SLOTS.ticks]} (${state})`;
}

function budgetSpent(shared: Float64Array, seconds: number, elapsed: number): ReplayBudgetError {
  seconds = Math.round(seconds * 10) / 10;
  let estimate = "";
  const tick = shared[PROGRESS_SLOTS.tick];
  const ticks = shared[PROGRESS_SLOTS.ticks];
  if (shared[PROGRESS_SLOTS.phase] === 1 && tick >= 10 && ticks > tick) {
    estimate = `; at this pace about ${Math.ceil((elapsed * ticks) / tick)} s would cover the file`;
  }
  return new ReplayBudgetError(lineOf(shared), `time budget of ${seconds} s spent ${where(shared)}${estimate}`);
}
