import { enableCompileCache } from "node:module";
import { parentPort, workerData } from "node:worker_threads";
import { PROGRESS_SLOTS, type WorkerInput, type WorkerOutput } from "./bounded.ts";
import { ReplayFileError } from "./errors.ts";
import type { VerifyProgress } from "./verify.ts";

/**
 * Worker thread of bounded.ts: runs one verification (or the validating scan of `info`) and posts the
 * result. Where it is goes into a shared Float64Array (PROGRESS_SLOTS), written before every line and
 * every tick, so the parent can say where it stopped after terminating it mid-tick.
 *
 * The engine, the sim and the validators are imported only after Node's compile cache is on (the
 * type-stripped sources are cached in the OS temp directory, or where NODE_COMPILE_CACHE says;
 * NODE_DISABLE_COMPILE_CACHE=1 turns it off): most of a short verification is otherwise spent loading them.
 */
enableCompileCache();
const { scanReplay } = await import("./read.ts");
const { verifyReplay } = await import("./verify.ts");

const input = workerData as WorkerInput;
const shared = new Float64Array(input.progress);
// The budget counts from here: loading the code above takes what the machine's load makes it take.
shared[PROGRESS_SLOTS.loaded] = 1;

function record(p: VerifyProgress): void {
  shared[PROGRESS_SLOTS.phase] = p.phase === "validating" ? 0 : 1;
  shared[PROGRESS_SLOTS.line] = p.line;
  shared[PROGRESS_SLOTS.tick] = p.tick;
  shared[PROGRESS_SLOTS.ticks] = p.ticks;
  shared[PROGRESS_SLOTS.fraction] = p.fraction;
  shared[PROGRESS_SLOTS.divergedAt] = p.divergedAt ?? -1;
}

let output: WorkerOutput;
try {
  const maxBytes = input.maxBytes !== undefined ? { maxBytes: input.maxBytes } : {};
  const result =
    input.command === "verify"
      ? await verifyReplay(input.path, { ...maxBytes, onStep: record })
      : await scanReplay(input.path, {
          ...maxBytes,
          onLine: (line, tick) => record({ phase: "validating", line, tick, ticks: 0, fraction: 0, divergedAt: null }),
        });
  output = { ok: true, result };
} catch (err) {
  output =
    err instanceof ReplayFileError
      ? { ok: false, fileError: true, line: err.line, detail: err.detail }
      : { ok: false, fileError: false, line: null, detail: err instanceof Error ? err.message : String(err) };
}
parentPort?.postMessage(output);
