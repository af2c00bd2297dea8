import type { GameRegistry } from "../../shared/game/registry.ts";
import { type BodyDifference, bodyDigests, decodeRoomSnapshot, diffBodies, RoomSim, type SimInput } from "../../shared/sim/index.ts";

export { type BodyDifference, diffBodies };
import { isTickLine, type KeyframeLine, type ReplayHeader, type TickLine } from "./format.ts";
import { ReplayFileError, readReplay, type ReplaySummary, scanReplay, type TruncatedTail } from "./read.ts";


export interface Divergence {
  /** First tick whose hash differs. */
  tick: number;
  /** Line of that tick in the file. */
  line: number;
  recordedHash: string;
  replayedHash: string;
  /** Inputs applied at the start of that tick (the usual suspects). */
  inputs: SimInput[];
  /** Tick of the keyframe the bodies were compared at (the first one at or after `tick`), if any. */
  keyframeTick: number | null;
  /** Line of that keyframe, if any. */
  keyframeLine: number | null;
  /** Bodies that differ at that keyframe (at most MAX_LISTED_BODIES). */
  bodies: BodyDifference[];
  /** How many bodies differ in total at that keyframe. */
  differingBodies: number;
}

export interface VerifyReport {
  header: ReplayHeader;
  /** Ticks re-simulated and compared. */
  ticks: number;
  keyframesChecked: number;
  inputs: number;
  /** The file ended with an `end` line (the room closed cleanly). */
  ended: boolean;
  truncated: TruncatedTail | null;
  divergence: Divergence | null;
  /** What the validating first pass found (the whole file). */
  summary: ReplaySummary;
}

const MAX_LISTED_BODIES = 20;

/** Where a verification is: validating (pass one) or simulating (pass two), at which line and tick. */
export interface VerifyProgress {
  phase: "validating" | "simulating";
  line: number;
  /** Last tick read (validating) or simulated (simulating). */
  tick: number;
  /** Ticks in the file (known once pass one is done, else 0). */
  ticks: number;
  /** Share of the file read in this pass (0..1), updated every 2000 lines. */
  fraction: number;
  /** First diverging tick so far, or null. */
  divergedAt: number | null;
}

export interface VerifyOptions {
  /** Called now and then (every 3600 simulated ticks) with the tick reached and the share of the file read (0..1). */
  onProgress?: (tick: number, fraction: number) => void;
  /** Called before every line and every tick: cheap observers only (bounded.ts forwards it, throttled). */
  onStep?: (progress: VerifyProgress) => void;
  /** Files larger than this are refused unread. Default: defaultMaxReplayBytes() (read.ts). */
  maxBytes?: number;
  /** The games a recording may name. Default: the built-ins plus GAMES' modules. */
  games?: GameRegistry;
}

/**
 * Verifies a replay in two passes. Pass one reads and validates every line (header, scenario, every
 * input, tick order, keyframes, end) with the server's own validators and simulates nothing; a file that
 * fails is a ReplayFileError naming the line. Pass two re-simulates from the header and the inputs,
 * compares every tick's hash, and stops at the number of ticks pass one counted (the tick budget: a file
 * still being written cannot make it run on). On the first mismatch it keeps simulating to the next
 * keyframe, if the file has one, and compares per-body hashes there to name the bodies that differ.
 *
 * No time limit here: one tick of a valid but hostile scenario (a few hundred bodies in one spot) can take
 * minutes, and only a thread can be stopped in the middle of one. The CLI runs this in a worker with a
 * wall-clock budget (bounded.ts).
 */
export async function verifyReplay(path: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const progress: VerifyProgress = { phase: "validating", line: 0, tick: 0, ticks: 0, fraction: 0, divergedAt: null };
  const summary = await validatingPass(path, options, progress);
  progress.phase = "simulating";
  progress.ticks = summary.ticks;
  progress.tick = 0;
  progress.fraction = 0;
  const reader = readReplay(path, {
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.games ? { games: options.games } : {}),
    onLine: (line) => {
      progress.line = line;
    },
    onBytes: (read, total) => {
      progress.fraction = total > 0 ? read / total : 1;
    },
  });
  const first = await reader.next();
  if (first.done || !("header" in first.value)) throw new ReplayFileError(1, "missing header");
  const header = first.value.header;
  const sim = new RoomSim(header.scenario, header.options, first.value.game);
  const report: VerifyReport = { header, ticks: 0, keyframesChecked: 0, inputs: 0, ended: summary.end !== null, truncated: summary.truncated, divergence: null, summary };
  for (;;) {
    const next = await reader.next();
    if (next.done) break;
    if ("header" in next.value) throw new ReplayFileError(next.value.lineNumber, "a second header");
    const { line, lineNumber } = next.value;
    if (!isTickLine(line) && line.type === "resume") {
      // A resumed segment: the room as it was at the snapshot, its queued inputs dropped (the tick lines hold what each tick applied).
      const snapshot = decodeRoomSnapshot(new Uint8Array(Buffer.from(line.snapshot, "base64")));
      snapshot.pending = [];
      sim.restore(snapshot);
      continue;
    }
    if (isTickLine(line)) {
      // Pass one counted the ticks (the tick budget); more now means the file grew meanwhile (a live recording).
      if (line.t > summary.ticks) break;
      options.onStep?.(progress);
      if (!replayTick(sim, line, lineNumber, report, progress, summary)) break;
      if (options.onProgress && report.ticks % 3600 === 0) options.onProgress(sim.tick, progress.fraction);
    } else if (line.type === "keyframe" && !checkKeyframe(sim, line, lineNumber, report)) {
      break;
    }
  }
  await reader.return(null);
  return report;
}

/** Pass one: reads and validates every line with the server's validators, simulating nothing. */
function validatingPass(path: string, options: VerifyOptions, progress: VerifyProgress): Promise<ReplaySummary> {
  return scanReplay(path, {
    ...(options.maxBytes !== undefined ? { maxBytes: options.maxBytes } : {}),
    ...(options.games ? { games: options.games } : {}),
    onLine: (line, tick) => {
      progress.line = line;
      progress.tick = tick;
      options.onStep?.(progress);
    },
    onBytes: (read, total) => {
      progress.fraction = total > 0 ? read / total : 1;
    },
  });
}

/** A divergence found at `tick` (line `line`), its bodies not compared yet. */
function divergenceAt(tick: number, line: number, recordedHash: string, replayedHash: string, inputs: SimInput[]): Divergence {
  return { tick, line, recordedHash, replayedHash, inputs, keyframeTick: null, keyframeLine: null, bodies: [], differingBodies: 0 };
}

/**
 * Pass two, one tick line: applies its inputs, steps, compares the hash; the first mismatch is the
 * divergence. False when there is nothing more to learn by simulating on (no keyframe ahead of it).
 */
function replayTick(sim: RoomSim, line: TickLine, lineNumber: number, report: VerifyReport, progress: VerifyProgress, summary: ReplaySummary): boolean {
  const inputs = line.i ?? [];
  for (const input of inputs) sim.enqueue(input);
  report.inputs += inputs.length;
  const result = sim.step();
  report.ticks++;
  progress.tick = sim.tick;
  if (result.hash === line.h || report.divergence !== null) return true;
  report.divergence = divergenceAt(line.t, lineNumber, line.h, result.hash, inputs);
  progress.divergedAt = line.t;
  return summary.lastKeyframeTick >= line.t;
}

/**
 * Pass two, one keyframe: compares every body's hash. After a divergence it names the bodies that differ
 * and ends the run; before one, bodies that differ while the hashes agreed (the world hash missed
 * something) are a divergence too. False when the run is over.
 */
function checkKeyframe(sim: RoomSim, line: KeyframeLine, lineNumber: number, report: VerifyReport): boolean {
  const diff = diffBodies(line.bodies, bodyDigests(sim.world));
  report.keyframesChecked++;
  if (report.divergence === null && diff.length === 0) return true;
  report.divergence ??= divergenceAt(line.t, lineNumber, "", "", []);
  report.divergence.keyframeTick = line.t;
  report.divergence.keyframeLine = lineNumber;
  report.divergence.bodies = diff.slice(0, MAX_LISTED_BODIES);
  report.divergence.differingBodies = diff.length;
  return false;
}

export { ReplayFileError };

