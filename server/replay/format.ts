import type { WorldSettings } from "../../shared/engine/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import type { BodyDigest, SimInput, SimOptions } from "../../shared/sim/index.ts";

/**
 * Replay files: newline-delimited JSON, one object per line, appended while the room runs.
 *
 *   {"type":"header", format, engineVersion, simVersion, node, roomId, createdAt, tickRate,
 *    keyframeInterval, options, game, scenario, settings}
 *   {"t":1,"h":"<16 hex>"}                              one line per tick: tick and world hash after it
 *                                                        (then ":<8 hex>" of the game's fields, if it has any),
 *   {"t":2,"h":"…","i":[{"type":"join","session":"…"}]}  plus the inputs applied at its start, in order
 *   {"type":"keyframe","t":600,"bodies":[[id, hash8, x, y, z], …]}   every keyframeInterval ticks
 *   {"type":"end","t":1234,"reason":"dispose"}           when the room closes cleanly, or the recording
 *                                                        stops early ("size-limit", "dir-limit")
 *
 * A room resumed on another process after its own died (server/failover/) records its next segment in a
 * new file: the header, then {"type":"resume","t":T,"segment":2,"snapshot":"<base64>"} (the room
 * snapshot at tick T, shared/sim/room-snapshot-bytes.ts, from which the segment's ticks T+1… re-run), then
 * tick lines as above. Concatenated, the segments are the room's whole game: the first segment's ticks up
 * to T and the resumed segment's from T+1 hash exactly as one uninterrupted run.
 *
 * The header's scenario + options and the per-tick inputs are all the simulation needs; hashes check
 * the re-run tick by tick, and keyframes (a 32-bit hash per body) let a verifier name the bodies that
 * differ after a divergence. `settings` is informational (the resolved engine settings at creation).
 * JSON numbers round-trip doubles exactly, so inputs replay bit for bit.
 */
export const REPLAY_FORMAT = 1;
/** Ticks between keyframes (10 s at 60 Hz). */
export const DEFAULT_KEYFRAME_INTERVAL = 600;

/**
 * Bytes a recording may hold past REPLAY_FILE_MAX_BYTES: the recorder stops after the tick line that
 * crossed the limit (its inputs may carry whole scenarios) and adds a final keyframe and the end line.
 * The verifier refuses files larger than the limit plus this.
 */
export const CLOSING_LINES_MAX_BYTES = 16 * 1024 * 1024;
/** Longest line the verifier reads (room for several `load` inputs of the largest scenario in one tick). */
export const MAX_LINE_BYTES = 64 * 1024 * 1024;
/**
 * Default wall-clock budget of `npm run replay -- verify` (unless --max-seconds sets a hard total): this
 * many seconds, plus DEFAULT_VERIFY_SECONDS_PER_TICK for every tick the file holds (known once it is
 * validated), so a long real recording is verified to the end; and no single tick may take longer than
 * MAX_SECONDS_PER_TICK (a crafted scenario can make one tick take minutes).
 */
export const DEFAULT_VERIFY_SECONDS = 3;
export const DEFAULT_VERIFY_SECONDS_PER_TICK = 0.01;
export const MAX_SECONDS_PER_TICK = 1;

export interface ReplayHeader {
  type: "header";
  format: number;
  engineVersion: string;
  simVersion: string;
  node: string;
  roomId: string;
  /** Wall-clock creation time, informational only. */
  createdAt: string;
  tickRate: number;
  keyframeInterval: number;
  options: SimOptions;
  /**
   * The game the room played: its name and version (verified against the same), and for a game loaded
   * from GAMES the module's path at record time (the verifier never loads it on its own: GAMES must name it).
   */
  game: ReplayGame;
  scenario: Scenario;
  settings: WorldSettings;
}

export interface ReplayGame {
  name: string;
  version: string;
  module?: string;
}

export interface TickLine {
  t: number;
  h: string;
  i?: SimInput[];
}

export interface KeyframeLine {
  type: "keyframe";
  t: number;
  bodies: BodyDigest[];
}

export interface EndLine {
  type: "end";
  t: number;
  reason: string;
}

/** First line after the header of a resumed room's segment (see above); `snapshot` is base64 of the room snapshot's bytes. */
export interface ResumeLine {
  type: "resume";
  t: number;
  segment: number;
  snapshot: string;
}

export type ReplayLine = TickLine | KeyframeLine | EndLine | ResumeLine;

export function isTickLine(line: ReplayLine | ReplayHeader): line is TickLine {
  return (line as { type?: string }).type === undefined;
}
