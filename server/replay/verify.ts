import { ENGINE_VERSION } from "../../shared/engine/index.ts";
import { type BodyDigest, bodyDigests, RoomSim, SIM_VERSION, type SimInput } from "../../shared/sim/index.ts";
import { isTickLine, REPLAY_FORMAT, type ReplayHeader } from "./format.ts";
import { ReplayFileError, readReplay, type TruncatedTail } from "./read.ts";

export interface BodyDifference {
  id: string;
  /** Recorded [x, y, z] (0.1 mm), or null if the body did not exist in the recording. */
  recorded: [number, number, number] | null;
  /** Re-simulated [x, y, z], or null if it does not exist in the re-run. */
  replayed: [number, number, number] | null;
}

export interface Divergence {
  /** First tick whose hash differs. */
  tick: number;
  recordedHash: string;
  replayedHash: string;
  /** Inputs applied at the start of that tick (the usual suspects). */
  inputs: SimInput[];
  /** Tick of the keyframe the bodies were compared at (the first one at or after `tick`), if any. */
  keyframeTick: number | null;
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
}

const MAX_LISTED_BODIES = 20;

export interface VerifyOptions {
  /** Called now and then with the tick reached and the share of the file read (0..1). */
  onProgress?: (tick: number, fraction: number) => void;
}

/**
 * Re-simulates a replay from its header and inputs and compares every tick's hash. On the first
 * mismatch it keeps simulating to the next keyframe and compares per-body hashes there to name the
 * bodies that differ. Throws ReplayFileError for files it cannot check (format or version mismatch,
 * missing ticks, malformed lines before the end).
 */
export async function verifyReplay(path: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  let fraction = 0;
  const reader = readReplay(path, (read, total) => {
    fraction = total > 0 ? read / total : 1;
  });
  const first = await reader.next();
  if (first.done || !("header" in first.value)) throw new ReplayFileError("missing header");
  const header = first.value.header;
  checkHeader(header);
  const sim = new RoomSim(header.scenario, header.options);
  const report: VerifyReport = {
    header,
    ticks: 0,
    keyframesChecked: 0,
    inputs: 0,
    ended: false,
    truncated: null,
    divergence: null,
  };
  for (;;) {
    const next = await reader.next();
    if (next.done) {
      report.truncated = next.value;
      break;
    }
    if ("header" in next.value) throw new ReplayFileError("second header");
    const { line, lineNumber } = next.value;
    if (isTickLine(line)) {
      if (line.t !== sim.tick + 1) {
        throw new ReplayFileError(`line ${lineNumber}: expected tick ${sim.tick + 1}, found ${line.t}`);
      }
      const inputs = line.i ?? [];
      for (const input of inputs) sim.enqueue(input);
      report.inputs += inputs.length;
      const result = sim.step();
      report.ticks++;
      if (result.hash !== line.h && report.divergence === null) {
        report.divergence = {
          tick: line.t,
          recordedHash: line.h,
          replayedHash: result.hash,
          inputs,
          keyframeTick: null,
          bodies: [],
          differingBodies: 0,
        };
      }
      if (options.onProgress && report.ticks % 3600 === 0) options.onProgress(sim.tick, fraction);
    } else if (line.type === "keyframe") {
      if (line.t !== sim.tick) throw new ReplayFileError(`line ${lineNumber}: keyframe for tick ${line.t} at tick ${sim.tick}`);
      const diff = diffBodies(line.bodies, bodyDigests(sim.world));
      report.keyframesChecked++;
      if (report.divergence !== null) {
        report.divergence.keyframeTick = line.t;
        report.divergence.bodies = diff.slice(0, MAX_LISTED_BODIES);
        report.divergence.differingBodies = diff.length;
        break;
      }
      if (diff.length > 0) {
        // Hashes agreed but bodies differ: the world hash missed something. Report it as a divergence.
        report.divergence = {
          tick: line.t,
          recordedHash: "",
          replayedHash: "",
          inputs: [],
          keyframeTick: line.t,
          bodies: diff.slice(0, MAX_LISTED_BODIES),
          differingBodies: diff.length,
        };
        break;
      }
    } else if (line.type === "end") {
      report.ended = true;
    }
  }
  return report;
}

function checkHeader(header: ReplayHeader): void {
  if (header.format !== REPLAY_FORMAT) {
    throw new ReplayFileError(`replay format ${header.format}, this verifier reads format ${REPLAY_FORMAT}`);
  }
  if (header.engineVersion !== ENGINE_VERSION) {
    throw new ReplayFileError(`recorded with engine ${header.engineVersion}, this build is engine ${ENGINE_VERSION}`);
  }
  if (header.simVersion !== SIM_VERSION) {
    throw new ReplayFileError(`recorded with room sim ${header.simVersion}, this build is room sim ${SIM_VERSION}`);
  }
}

/** Bodies whose hash differs or that exist on one side only, in recorded order then new ones. */
export function diffBodies(recorded: BodyDigest[], replayed: BodyDigest[]): BodyDifference[] {
  const mine = new Map(replayed.map((d) => [d[0], d]));
  const out: BodyDifference[] = [];
  const seen = new Set<string>();
  for (const r of recorded) {
    seen.add(r[0]);
    const m = mine.get(r[0]);
    if (m && m[1] === r[1]) continue;
    out.push({ id: r[0], recorded: [r[2], r[3], r[4]], replayed: m ? [m[2], m[3], m[4]] : null });
  }
  for (const m of replayed) {
    if (!seen.has(m[0])) out.push({ id: m[0], recorded: null, replayed: [m[2], m[3], m[4]] });
  }
  return out;
}
