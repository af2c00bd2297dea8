import type { ScenarioCaps } from "../scenario-input.ts";

/** Ceilings for the per-room limits a creator may ask for (the scenario's body count included). */
export interface RoomCaps {
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
  /** Highest scenario tick rate, steps per second. */
  maxTickRate: number;
  /** Largest scenario JSON, bytes. */
  maxScenarioJsonBytes: number;
}

/**
 * Rooms created over the admin API: the loosest caps any room runs under, so also the bounds the replay
 * verifier holds a recording's scenarios and sim options to (server/replay/validate.ts).
 */
export const ADMIN_ROOM_CAPS: Readonly<RoomCaps> = Object.freeze({
  maxClients: 64,
  maxBodies: 20000,
  maxSpawnsPerSecond: 20,
  maxTickRate: 1000,
  maxScenarioJsonBytes: 3.5 * 1024 * 1024,
});

/** Rooms players create through matchmaking (join options). */
export const PLAYER_ROOM_CAPS: Readonly<RoomCaps> = Object.freeze({
  maxClients: 16,
  maxBodies: 3000,
  maxSpawnsPerSecond: 4,
  maxTickRate: 120,
  maxScenarioJsonBytes: 1024 * 1024,
});

/** The scenario part of a room's caps, as resolveScenario takes it. */
export function scenarioCaps(caps: Readonly<RoomCaps>): ScenarioCaps {
  return { maxBodies: caps.maxBodies, maxTickRate: caps.maxTickRate, maxJsonBytes: caps.maxScenarioJsonBytes };
}
