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
  /**
   * Most hull points in a scenario, all hulls (compound children too) together. Building a hull is the
   * dearest part of creating a body (a 256-point hull takes milliseconds, twice: validation and creation),
   * and a room is created on the event loop every room shares.
   */
  maxHullPoints: number;
  /** Most mesh triangles in a scenario, all meshes together (building one indexes its edges and a tree). */
  maxMeshTriangles: number;
  /**
   * Most joints in a scenario. Each joint is solved every sub-step whether or not anything touches, like
   * a contact that never goes away, so joints are capped like bodies are.
   */
  maxJoints: number;
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
  maxHullPoints: 16384,
  maxMeshTriangles: 131072,
  maxJoints: 16384,
});

/** Rooms players create through matchmaking (join options). */
export const PLAYER_ROOM_CAPS: Readonly<RoomCaps> = Object.freeze({
  maxClients: 16,
  maxBodies: 3000,
  maxSpawnsPerSecond: 4,
  maxTickRate: 120,
  maxScenarioJsonBytes: 1024 * 1024,
  // 8 hulls of 256 points: ~0.15 s of validation and creation on a loaded 2-core machine (1 MiB of such
  // hulls took 3.1 s); shapes1000 (2500 points in 10-point hulls) is a built-in, named, not sent.
  maxHullPoints: 2048,
  // A 31250-triangle mesh (0.75 MB) took 0.58 s to validate and create; 8192 take about 0.15 s.
  maxMeshTriangles: 8192,
  // Four times the CPU-derived body cap at 60 Hz (258): ragdolls and chains hold about one joint per body.
  maxJoints: 1024,
});

/** The scenario part of a room's caps, as resolveScenario takes it. */
export function scenarioCaps(caps: Readonly<RoomCaps>): ScenarioCaps {
  return {
    maxBodies: caps.maxBodies,
    maxTickRate: caps.maxTickRate,
    maxJsonBytes: caps.maxScenarioJsonBytes,
    maxHullPoints: caps.maxHullPoints,
    maxMeshTriangles: caps.maxMeshTriangles,
    maxJoints: caps.maxJoints,
  };
}
