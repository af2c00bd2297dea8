import type { RoomSettingsPatch } from "../net/knobs.ts";
import type { Scenario } from "../scenarios/index.ts";

/**
 * Everything that can change a room's simulation from outside, as plain JSON. A room's history is its
 * scenario plus the ordered list of these with the tick each was applied on; replays store exactly that.
 * Inputs are trusted here: the server validates them at the boundary (shared/net/messages.ts, the game's
 * input schemas, the admin API's JSON schemas, shared/net/admin.ts and knobs.ts) before queueing. A `settings` patch holds the room
 * knobs of the knob table (shared/net/knobs.ts).
 */
export type SimInput =
  | { type: "join"; session: string }
  | { type: "leave"; session: string }
  | { type: "move"; session: string; vx: number; vz: number; jump?: boolean }
  /** One of the game's own inputs (its `inputs`), its message as the game's schema parsed it. */
  | { type: "input"; session: string; name: string; message: unknown }
  | { type: "settings"; patch: RoomSettingsPatch }
  | { type: "load"; scenario: Scenario };
