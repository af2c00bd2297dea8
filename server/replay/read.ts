import type { GameDefinition } from "../../shared/game/define.ts";
import type { GameRegistry } from "../../shared/game/registry.ts";
import { gamesFromEnvironment } from "../games.ts";
import { createReadStream, statSync } from "node:fs";
import type { SimInput } from "../../shared/sim/index.ts";
import { readLimits } from "../config.ts";
import { CLOSING_LINES_MAX_BYTES, type EndLine, isTickLine, MAX_LINE_BYTES, type ReplayHeader, type ReplayLine } from "./format.ts";
import { ReplayFileError } from "./errors.ts";
import { checkHeader, checkLine, type LineState, MAX_HEADER_LINE_BYTES } from "./validate.ts";

export { ReplayFileError } from "./errors.ts";

/** A line that did not parse as the last line of the file: the recording was cut short (a crash). */
export interface TruncatedTail {
  line: number;
  bytes: number;
}

export interface ReadOptions {
  /** Files larger than this are refused unread. Default: defaultMaxReplayBytes(). */
  maxBytes?: number;
  /**
   * Called before each line is parsed, with its number and the last tick read: where the reader is, for a
   * caller that enforces a time budget from outside (bounded.ts).
   */
  onLine?: (lineNumber: number, tick: number) => void;
  /** Called now and then with the bytes read and the file's size. */
  onBytes?: (bytesRead: number, totalBytes: number) => void;
  /** The games a recording may name. Default: the built-ins plus GAMES' modules (server/games.ts). */
  games?: GameRegistry;
}

/**
 * The largest replay the verifier reads by default: the server's REPLAY_FILE_MAX_BYTES (the environment's,
 * parsed as the server parses it, else its default) plus room for the closing lines. Only that variable
 * is read: another malformed limit in the environment does not concern the verifier.
 */
export function defaultMaxReplayBytes(env: NodeJS.ProcessEnv = process.env): number {
  return readLimits({ REPLAY_FILE_MAX_BYTES: env.REPLAY_FILE_MAX_BYTES }).replayFileMaxBytes + CLOSING_LINES_MAX_BYTES;
}

interface RawLine {
  text: string;
  lineNumber: number;
  bytes: number;
  /** The file ends inside this line (no newline after it). */
  unterminated: boolean;
}

/** The longest line accepted next, and what to say about a longer one. */
interface LineLimit {
  bytes: number;
  what: string;
}

/** Splits the file into lines without ever holding one longer than its limit (the rest is not read). */
async function* rawLines(path: string, total: number, maxBytes: number, limit: () => LineLimit): AsyncGenerator<RawLine> {
  const stream = createReadStream(path, { highWaterMark: 1024 * 1024 });
  let parts: Buffer[] = [];
  let partBytes = 0;
  let lineNumber = 0;
  let read = 0;
  let max = limit();
  const tooLong = (): never => {
    throw new ReplayFileError(lineNumber + 1, `longer than ${max.bytes} bytes: ${max.what}`);
  };
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      read += chunk.length;
      if (read > maxBytes) throw new ReplayFileError(lineNumber + 1, `the file grew past the ${maxBytes}-byte limit while being read (it was ${total} bytes)`);
      let start = 0;
      for (;;) {
        const nl = chunk.indexOf(10, start);
        if (nl < 0) {
          if (start < chunk.length) {
            partBytes += chunk.length - start;
            if (partBytes > max.bytes) tooLong();
            parts.push(chunk.subarray(start));
          }
          break;
        }
        const piece = chunk.subarray(start, nl);
        if (partBytes + piece.length > max.bytes) tooLong();
        const buf = parts.length > 0 ? Buffer.concat([...parts, piece]) : piece;
        parts = [];
        partBytes = 0;
        lineNumber++;
        yield { text: decode(buf), lineNumber, bytes: buf.length + 1, unterminated: false };
        max = limit();
        start = nl + 1;
      }
    }
  } finally {
    stream.destroy();
  }
  if (partBytes > 0) {
    const buf = Buffer.concat(parts);
    yield { text: decode(buf), lineNumber: lineNumber + 1, bytes: buf.length, unterminated: true };
  }
}

function decode(buf: Buffer): string {
  const text = buf.toString("utf8");
  return text.endsWith("\r") ? text.slice(0, -1) : text;
}

/** The first characters of a line, for messages. */
function excerpt(text: string): string {
  const cut = text.length > 40 ? `${text.slice(0, 40)}…` : text;
  return JSON.stringify(cut);
}

/**
 * Streams a replay file: the header, then every later line, each parsed and validated (validate.ts)
 * before it is yielded, so a consumer only ever sees lines the server could have written. The file is
 * refused unread when larger than `maxBytes`. An unparseable *last* line without a newline is tolerated
 * (a recording cut short by a crash; reported through the generator's return value); anything else
 * wrong is a ReplayFileError naming the line.
 */
export async function* readReplay(
  path: string,
  options: ReadOptions = {},
): AsyncGenerator<{ header: ReplayHeader; game: GameDefinition; lineNumber: number } | { line: ReplayLine; lineNumber: number }, TruncatedTail | null> {
  let stats: ReturnType<typeof statSync>;
  try {
    stats = statSync(path);
  } catch (err) {
    throw new ReplayFileError(null, `cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (!stats.isFile()) throw new ReplayFileError(null, "not a regular file");
  const total = stats.size;
  const maxBytes = options.maxBytes ?? defaultMaxReplayBytes();
  if (total > maxBytes) {
    throw new ReplayFileError(null, `the file is ${total} bytes, over the ${maxBytes}-byte limit: refused unread (--max-bytes raises the limit)`);
  }
  const games = options.games ?? (await gamesFromEnvironment());
  const state: LineState = { tick: 0, ended: false, players: new Set(), game: null };
  let sawHeader = false;
  let bytes = 0;
  let lastLine = 0;
  const limit = (): { bytes: number; what: string } =>
    sawHeader
      ? { bytes: MAX_LINE_BYTES, what: "not a replay line" }
      : { bytes: MAX_HEADER_LINE_BYTES, what: "larger than any replay header (its scenario would be over the admin rooms' JSON size cap)" };
  for await (const raw of rawLines(path, total, maxBytes, limit)) {
    lastLine = raw.lineNumber;
    bytes += raw.bytes;
    options.onLine?.(raw.lineNumber, state.tick);
    if (raw.text.trim() === "") continue;
    if (state.ended) throw new ReplayFileError(raw.lineNumber, "a line after the end line");
    let value: unknown;
    try {
      value = JSON.parse(raw.text);
    } catch (err) {
      if (raw.unterminated) {
        if (!sawHeader) throw new ReplayFileError(raw.lineNumber, "the file ends inside the header line");
        return { line: raw.lineNumber, bytes: raw.bytes };
      }
      const detail = (err as Error).message.slice(0, 120);
      throw new ReplayFileError(raw.lineNumber, `not JSON (${detail}): ${excerpt(raw.text)}`);
    }
    if (!sawHeader) {
      const { header, game } = checkHeader(value, raw.lineNumber, games);
      state.game = game;
      sawHeader = true;
      yield { header, game, lineNumber: raw.lineNumber };
    } else {
      yield { line: checkLine(value, raw.lineNumber, state), lineNumber: raw.lineNumber };
    }
    if (options.onBytes && raw.lineNumber % 2000 === 0) options.onBytes(bytes, total);
  }
  if (!sawHeader) throw new ReplayFileError(lastLine + 1, total === 0 ? "missing header: the file is empty" : "missing header: the file holds only blank lines");
  return null;
}

/** What pass one of a verification learns about a file (and what `info` prints). */
export interface ReplaySummary {
  header: ReplayHeader;
  /** File size, bytes. */
  bytes: number;
  /** Last tick (tick lines 1..ticks, or resumedAt + 1..ticks in a resumed segment). */
  ticks: number;
  keyframes: number;
  /** Tick of the last keyframe, or -1. */
  lastKeyframeTick: number;
  inputs: number;
  inputsByType: Map<SimInput["type"], number>;
  /** Distinct player sessions that joined. */
  players: number;
  end: EndLine | null;
  truncated: TruncatedTail | null;
  /** A resumed segment: the tick of the snapshot it starts from (server/failover/); null for a first segment. */
  resumedAt: number | null;
}

/** Reads and validates the whole file without simulating anything. */
export async function scanReplay(path: string, options: ReadOptions = {}): Promise<ReplaySummary> {
  const reader = readReplay(path, options);
  const first = await reader.next();
  if (first.done || !("header" in first.value)) throw new ReplayFileError(1, "missing header");
  const summary: ReplaySummary = {
    header: first.value.header,
    bytes: statSync(path).size,
    ticks: 0,
    keyframes: 0,
    lastKeyframeTick: -1,
    inputs: 0,
    inputsByType: new Map(),
    players: 0,
    end: null,
    truncated: null,
    resumedAt: null,
  };
  const sessions = new Set<string>();
  for (;;) {
    const next = await reader.next();
    if (next.done) {
      summary.truncated = next.value;
      break;
    }
    if ("header" in next.value) continue;
    const line = next.value.line;
    if (isTickLine(line)) {
      summary.ticks = line.t;
      for (const input of line.i ?? []) {
        summary.inputs++;
        summary.inputsByType.set(input.type, (summary.inputsByType.get(input.type) ?? 0) + 1);
        if (input.type === "join") sessions.add(input.session);
      }
    } else if (line.type === "keyframe") {
      summary.keyframes++;
      summary.lastKeyframeTick = line.t;
    } else if (line.type === "resume") {
      summary.resumedAt = line.t;
      summary.ticks = line.t;
    } else {
      summary.end = line;
    }
  }
  summary.players = sessions.size;
  return summary;
}
