import type { WorldSettings } from "../../shared/engine/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import type { BodyDigest, SimInput, SimOptions } from "../../shared/sim/index.ts";

/**
 * Replay files: newline-delimited JSON, one object per line, appended while the room runs.
 *
 *   {"type":"header", format, engineVersion, simVersion, node, roomId, createdAt, tickRate,
 *    keyframeInterval, options, scenario, settings}
 *   {"t":1,"h":"<16 hex>"}                              one line per tick: tick and world hash after it,
 *   {"t":2,"h":"…","i":[{"type":"join","session":"…"}]}  plus the inputs applied at its start, in order
 *   {"type":"keyframe","t":600,"bodies":[[id, hash8, x, y, z], …]}   every keyframeInterval ticks
 *   {"type":"end","t":1234,"reason":"dispose"}           when the room closes cleanly
 *
 * The header's scenario + options and the per-tick inputs are all the simulation needs; hashes check
 * the re-run tick by tick, and keyframes (a 32-bit hash per body) let a verifier name the bodies that
 * differ after a divergence. `settings` is informational (the resolved engine settings at creation).
 * JSON numbers round-trip doubles exactly, so inputs replay bit for bit.
 */
export const REPLAY_FORMAT = 1;
/** Ticks between keyframes (10 s at 60 Hz). */
export const DEFAULT_KEYFRAME_INTERVAL = 600;

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
  scenario: Scenario;
  settings: WorldSettings;
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

export type ReplayLine = TickLine | KeyframeLine | EndLine;

export function isTickLine(line: ReplayLine | ReplayHeader): line is TickLine {
  return (line as { type?: string }).type === undefined;
}
