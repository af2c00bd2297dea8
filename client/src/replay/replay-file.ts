import { ENGINE_VERSION } from "../../../shared/engine/index.ts";
import { type BodyDigest, SIM_VERSION, type SimInput } from "../../../shared/sim/index.ts";
import { REPLAY_FORMAT, type ReplayHeader } from "../../../server/replay/format.ts";

/**
 * A replay file (server/replay/format.ts: newline-delimited JSON) read into memory for the viewer. The
 * checks are structural: what the viewer needs to re-simulate and compare, each failure an error naming
 * the line and the field. The server's full validators (scenario caps, message schemas) run in Node
 * (`npm run replay -- verify`); here a hostile file can at worst keep the user's own tab busy.
 */
export interface ReplayData {
  header: ReplayHeader;
  /** Recorded world hash after tick t, at index t - 1. */
  hashes: string[];
  /** Inputs applied at the start of tick t, at index t - 1 (empty arrays shared: no inputs). */
  inputs: SimInput[][];
  /** File line of tick t, at index t - 1. */
  lines: number[];
  /** Recorded per-body digests by keyframe tick. */
  keyframes: Map<number, BodyDigest[]>;
  /** The end line's reason, or null when the recording has none (a live room, or cut short). */
  endReason: string | null;
  /** A last line cut mid-way (a crash while writing) was dropped. */
  truncatedTail: boolean;
}

export class ReplayParseError extends Error {
  constructor(line: number | null, message: string) {
    super(line === null ? message : `line ${line}: ${message}`);
    this.name = "ReplayParseError";
  }
}

const NO_INPUTS: SimInput[] = [];
/** A tick's hash: the world's, then ":" and 8 hex digits of the game's fields when the game has fields. */
const HASH = /^[0-9a-f]{1,64}(:[0-9a-f]{8})?$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function checkHeader(v: unknown, line: number): ReplayHeader {
  if (!isObject(v) || v.type !== "header") throw new ReplayParseError(line, "type: the first line must be the replay header");
  if (v.format !== REPLAY_FORMAT) throw new ReplayParseError(line, `format: ${JSON.stringify(v.format)}, this viewer reads format ${REPLAY_FORMAT}`);
  if (v.engineVersion !== ENGINE_VERSION) {
    throw new ReplayParseError(line, `engineVersion: recorded with engine ${JSON.stringify(v.engineVersion)}, this page runs ${ENGINE_VERSION}: it cannot re-simulate it`);
  }
  if (v.simVersion !== SIM_VERSION) {
    throw new ReplayParseError(line, `simVersion: recorded with room simulation ${JSON.stringify(v.simVersion)}, this page runs ${SIM_VERSION}`);
  }
  if (!isObject(v.scenario) || !Array.isArray(v.scenario.bodies)) throw new ReplayParseError(line, "scenario: expected a scenario object with a bodies array");
  if (!isObject(v.options)) throw new ReplayParseError(line, "options: expected an object");
  if (!isObject(v.game) || typeof v.game.name !== "string" || typeof v.game.version !== "string") {
    throw new ReplayParseError(line, "game: expected the game the room played, { name, version }");
  }
  if (v.game.module !== undefined && typeof v.game.module !== "string") throw new ReplayParseError(line, "game.module: expected a string");
  if (typeof v.tickRate !== "number" || !(v.tickRate > 0)) throw new ReplayParseError(line, "tickRate: expected a positive number");
  if (!Number.isInteger(v.keyframeInterval) || (v.keyframeInterval as number) < 1) throw new ReplayParseError(line, "keyframeInterval: expected a positive integer");
  return v as unknown as ReplayHeader;
}

function checkInputs(v: unknown, line: number): SimInput[] {
  if (v === undefined) return NO_INPUTS;
  if (!Array.isArray(v)) throw new ReplayParseError(line, "i: expected an array of inputs");
  v.forEach((input, k) => {
    // The room simulation decides what an input does; an input it does not know changes nothing.
    if (!isObject(input) || typeof input.type !== "string") throw new ReplayParseError(line, `i[${k}].type: expected an input object with a type`);
  });
  return v as SimInput[];
}

function checkDigests(v: unknown, line: number): BodyDigest[] {
  if (!Array.isArray(v)) throw new ReplayParseError(line, "bodies: expected an array");
  v.forEach((d, k) => {
    const ok = Array.isArray(d) && d.length === 5 && typeof d[0] === "string" && typeof d[1] === "string" && d.slice(2).every((x) => typeof x === "number");
    if (!ok) throw new ReplayParseError(line, `bodies[${k}]: expected [id, hash, x, y, z]`);
  });
  return v as BodyDigest[];
}

/** One line after the header, into `data`. */
function addLine(data: ReplayData, v: unknown, line: number): void {
  if (!isObject(v)) throw new ReplayParseError(line, "expected a JSON object");
  if (data.endReason !== null) throw new ReplayParseError(line, "a line after the end line");
  const last = data.hashes.length;
  if (v.type === undefined) {
    if (v.t !== last + 1) throw new ReplayParseError(line, `t: expected tick ${last + 1}, got ${JSON.stringify(v.t)}`);
    if (typeof v.h !== "string" || !HASH.test(v.h)) throw new ReplayParseError(line, "h: expected a lowercase hex hash (then \":\" and 8 hex digits for a game with fields)");
    data.hashes.push(v.h);
    data.inputs.push(checkInputs(v.i, line));
    data.lines.push(line);
  } else if (v.type === "keyframe") {
    if (v.t !== last) throw new ReplayParseError(line, `t: a keyframe must follow its tick (${last}), got ${JSON.stringify(v.t)}`);
    data.keyframes.set(last, checkDigests(v.bodies, line));
  } else if (v.type === "end") {
    data.endReason = typeof v.reason === "string" ? v.reason : "end";
  } else {
    throw new ReplayParseError(line, `type: unknown line type ${JSON.stringify(v.type)}`);
  }
}

/** Parses a whole replay file. Throws ReplayParseError naming the line on anything it cannot use. */
export function parseReplay(text: string): ReplayData {
  const rows = text.split("\n");
  let data: ReplayData | null = null;
  for (let k = 0; k < rows.length; k++) {
    const row = rows[k].endsWith("\r") ? rows[k].slice(0, -1) : rows[k];
    if (row.trim() === "") continue;
    const line = k + 1;
    let value: unknown;
    try {
      value = JSON.parse(row);
    } catch (err) {
      // The last line of a recording cut short by a crash: everything before it is usable.
      if (data !== null && k === rows.length - 1) {
        data.truncatedTail = true;
        break;
      }
      throw new ReplayParseError(line, `not JSON (${(err as Error).message.slice(0, 100)})`);
    }
    if (data === null) {
      data = { header: checkHeader(value, line), hashes: [], inputs: [], lines: [], keyframes: new Map(), endReason: null, truncatedTail: false };
    } else {
      addLine(data, value, line);
    }
  }
  if (data === null) throw new ReplayParseError(null, "the file is empty: no header line");
  return data;
}
