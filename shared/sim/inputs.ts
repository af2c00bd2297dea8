import type { Vec3Tuple } from "../engine/index.ts";
import type { Scenario } from "../scenarios/index.ts";

/**
 * Everything that can change a room's simulation from outside, as plain JSON. A room's history is its
 * scenario plus the ordered list of these with the tick each was applied on; replays store exactly that.
 * Inputs are trusted here: the server validates them at the boundary (shared/net/messages.ts, the admin
 * routes' JSON schemas) before queueing.
 */
export type SimInput =
  | { type: "join"; session: string }
  | { type: "leave"; session: string }
  | { type: "move"; session: string; vx: number; vz: number; jump?: boolean }
  | { type: "spawn"; session: string; shape: "sphere" | "box"; size: number; velocity?: Vec3Tuple }
  | { type: "impulse"; session: string; bodyId: string; impulse: Vec3Tuple; point?: Vec3Tuple }
  | { type: "settings"; patch: RoomSettingsPatch }
  | { type: "load"; scenario: Scenario };

/**
 * The live knobs of a room (the admin API's PATCH /rooms/:id/settings and the client's panel).
 * `friction` / `restitution` are a room-level material override: a number sets that coefficient on
 * every body, existing and future (contacts combine sqrt(μa·μb) and max(ea, eb), so an override of μ
 * gives exactly μ between any two bodies); `null` restores each body's own value from its definition.
 * Engine settings not listed here stay as the scenario set them.
 */
export interface RoomSettingsPatch {
  velocityIterations?: number;
  gravity?: Vec3Tuple;
  friction?: number | null;
  restitution?: number | null;
  /** positionCorrection.slop, metres. */
  slop?: number;
  /** positionCorrection.percent (projection only), 0..1. */
  percent?: number;
  /** positionCorrection.method. */
  method?: "soft" | "projection";
  ccd?: boolean;
  sleep?: boolean;
  warmStarting?: boolean;
}

/** The effective value of every knob. */
export interface RoomSettings {
  velocityIterations: number;
  gravity: Vec3Tuple;
  friction: number | null;
  restitution: number | null;
  slop: number;
  percent: number;
  method: "soft" | "projection";
  ccd: boolean;
  sleep: boolean;
  warmStarting: boolean;
}

export const ROOM_SETTING_KEYS = [
  "velocityIterations",
  "gravity",
  "friction",
  "restitution",
  "slop",
  "percent",
  "method",
  "ccd",
  "sleep",
  "warmStarting",
] as const;
