import { createReadStream, statSync } from "node:fs";
import { createInterface } from "node:readline";
import type { ReplayHeader, ReplayLine } from "./format.ts";

/** A line that did not parse as the last line of the file: the recording was cut short (a crash). */
export interface TruncatedTail {
  line: number;
  bytes: number;
}

export class ReplayFileError extends Error {}

/**
 * Streams a replay file: the header, then every later line, parsed. A malformed *last* line is
 * tolerated (reported through `truncated()`); a malformed line anywhere else is an error.
 */
export async function* readReplay(
  path: string,
  onBytes?: (bytesRead: number, totalBytes: number) => void,
): AsyncGenerator<{ header: ReplayHeader } | { line: ReplayLine; lineNumber: number }, TruncatedTail | null> {
  const total = statSync(path).size;
  const stream = createReadStream(path, { encoding: "utf8" });
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY });
  let lineNumber = 0;
  let bytes = 0;
  let pendingBad: TruncatedTail | null = null;
  let sawHeader = false;
  for await (const text of lines) {
    lineNumber++;
    bytes += Buffer.byteLength(text) + 1;
    if (pendingBad) throw new ReplayFileError(`line ${pendingBad.line} is not valid JSON (and is not the last line)`);
    if (text.trim() === "") continue;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      pendingBad = { line: lineNumber, bytes: Buffer.byteLength(text) };
      continue;
    }
    if (!sawHeader) {
      if ((value as { type?: string })?.type !== "header") throw new ReplayFileError("line 1 is not a replay header");
      sawHeader = true;
      yield { header: value as ReplayHeader };
    } else {
      yield { line: value as ReplayLine, lineNumber };
    }
    if (onBytes && lineNumber % 2000 === 0) onBytes(bytes, total);
  }
  if (!sawHeader) throw new ReplayFileError("empty file or unreadable header");
  return pendingBad;
}
