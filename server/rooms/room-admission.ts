import { createHash } from "node:crypto";
import { matchMaker, ServerError } from "@colyseus/core";
import { resolveSettings, type WorldSettings } from "../../shared/engine/index.ts";
import type { GameDefinition } from "../../shared/game/define.ts";
import { DEFAULT_GAME } from "../../shared/game/registry.ts";
import { type CreateRoomBody, PATCH_RATE_MS } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { solverPasses } from "../cpu/cost-model.ts";
import { bodyCapForBudget } from "../cpu/room-budget.ts";
import { resolveScenario } from "../scenario-input.ts";
import { type RoomCaps, scenarioCaps } from "./room-caps.ts";
import type { RoomConfig } from "./room-config.ts";

/**
 * Whether a room may be created, and with what: the checks a PhysicsRoom's onCreate makes before the
 * room takes its place (none of them yields), the scenario probe of a player room, and the per-room
 * limits its creator asked for, clamped to its caps.
 */

/**
 * Options a room is created with: POST /rooms' body (the admin API's contract), or the join options of
 * a creating player, which nothing has validated yet (onCreate checks and clamps every field).
 */
export interface PhysicsRoomOptions extends Partial<CreateRoomBody> {
  /** Set by the admin API only (see RoomConfig.trustKey). */
  trust?: string;
  /** Set by the matchmaking route only (see CREATOR_OPTION). */
  creator?: CreatorInfo;
  /** The server's RoomConfig, from the room definition's options (they override client options). */
  config?: RoomConfig;
}

/** Option key the admin API uses to mark its room creations. */
export const TRUST_OPTION = "trust";
/**
 * Option key the matchmaking route sets to the requesting client's address (never taken from a client):
 * `{ address, charged }`, where `charged` says the route already took this creation from the address's
 * allowance.
 */
export const CREATOR_OPTION = "creator";

export interface CreatorInfo {
  address: string;
  charged: boolean;
}

/**
 * A refusal the client should read: a room creation (invalid scenario, rate, CPU budget) or an admin
 * change over the room's caps. A ServerError, so Colyseus does not print it as a crash; its code is the
 * HTTP status of the refusal (Colyseus re-wraps a creation's with the same code and message for the
 * matchmaking route; adminCall answers an admin method's).
 */
export class RoomRefusal extends ServerError {
  constructor(status: 400 | 429 | 503, message: string) {
    super(status, message);
  }
}

/** A room creation that passed the checks made before the room takes its place. */
export interface Admitted {
  /** Created over the admin API (admin caps, reported CPU overruns, longer idle timeout). */
  trusted: boolean;
  caps: RoomCaps;
  /** The creator's address (admission key), "local" for the admin API and the server itself. */
  address: string;
  game: GameDefinition;
  scenario: Scenario;
  settings: WorldSettings;
  /** Most bodies the room may hold (a player room's follows from its CPU budget). */
  bodyCap: number;
  /** The scenario's key in the probe's verdict cache. */
  probeKey: string;
}

/** The per-room limits a creator may ask for (POST /rooms, or a creating player's join options). */
export interface RoomLimits {
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
  patchRateMs: number;
}

/** The cache key of a scenario for the probe: a built-in's name, or a digest of the JSON. */
function scenarioKey(input: unknown): string {
  if (typeof input === "string") return `builtin:${input}`;
  return `json:${createHash("sha256").update(JSON.stringify(input)).digest("base64url")}`;
}

function bounded(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : fallback;
}

/** Refuses the creation: the admission counts and logs it for `address`; the creator reads `message`. */
function refuse(config: RoomConfig, address: string, status: 400 | 503, reason: string, message: string): never {
  config.admission.refuseFor(address, reason, message);
  throw new RoomRefusal(status, message);
}

/**
 * The checks made before the room takes its place, none of which yields: the process's room count,
 * the admission's verdict for the creator, the scenario within the room's caps, and for a player room
 * its CPU-derived body cap and the process's CPU share. Throws a RoomRefusal.
 */
export function admitRoom(config: RoomConfig, options: PhysicsRoomOptions): Admitted {
  const { admission, defaults, limits } = config;
  const trusted = config.trustKey !== "" && options.trust === config.trustKey;
  const caps = trusted ? config.adminCaps : config.playerCaps;
  const creator = options[CREATOR_OPTION];
  const address = creator?.address ?? "local";
  // Counted before this room: Colyseus adds it to stats.local once onCreate returns.
  if (matchMaker.stats.local.roomCount >= limits.maxRooms) {
    throw new RoomRefusal(503, `server full: this process already hosts ${limits.maxRooms} rooms`);
  }
  const verdict = trusted ? admission.createAdminRoom(limits.maxRooms) : admission.createPlayerRoom(address, limits.maxRooms, Date.now(), !creator?.charged);
  if (!verdict.ok) throw new RoomRefusal(verdict.status, verdict.message);
  const gameName = options.game ?? DEFAULT_GAME;
  const game = typeof gameName === "string" ? config.games.get(gameName) : undefined;
  if (!game) {
    return refuse(config, address, 400, "invalid-game", `invalid game: game: no game "${String(gameName).slice(0, 64)}" (known: ${config.games.names().join(", ")})`);
  }
  if (options.scenario !== undefined && !game.anyScenario) {
    return refuse(config, address, 400, "invalid-scenario", `invalid scenario: scenario: game "${game.name}" plays its own scenario`);
  }
  // The sandbox starts from the server's default scenario; any other game from its own.
  const input = options.scenario ?? (game.name === DEFAULT_GAME ? defaults.scenario : game.scenario);
  const resolved = resolveScenario(input, "scenario", scenarioCaps(caps));
  if (!resolved.ok) return refuse(config, address, 400, "invalid-scenario", `invalid scenario: ${resolved.message}`);
  const settings = resolveSettings(resolved.scenario.world);
  const bodyCap = trusted ? caps.maxBodies : playerBodyCap(config, caps, address, resolved.scenario, settings);
  return { trusted, caps, address, game, scenario: resolved.scenario, settings, bodyCap, probeKey: scenarioKey(input) };
}

/**
 * A player room's body cap: its size follows from its CPU budget (more steps per second and more
 * solver iterations per step leave room for fewer bodies). Refuses a scenario over it, and a new
 * player room the process's CPU share has no room for.
 */
function playerBodyCap(config: RoomConfig, caps: RoomCaps, address: string, scenario: Scenario, settings: WorldSettings): number {
  const { limits, rooms } = config;
  const bodyCap = Math.min(caps.maxBodies, bodyCapForBudget(limits.playerRoomCpuMs, settings.tickRate, solverPasses(settings)));
  const count = scenario.bodies.length;
  if (count > bodyCap) {
    refuse(
      config,
      address,
      400,
      "cpu-budget",
      `invalid scenario: scenario.bodies: ${count} bodies, but a player room at ${settings.tickRate} Hz with these solver iterations holds at most ${bodyCap} within its CPU budget (${limits.playerRoomCpuMs} ms/s)`,
    );
  }
  const load = rooms.admissionLoadMs(Date.now());
  if (load + limits.playerRoomCpuMs > limits.playerRoomsCpuMs) {
    refuse(
      config,
      address,
      503,
      "process-cpu",
      `server busy: its rooms use or have reserved ${Math.round(load)} ms of CPU per second, and a new player room reserves ${limits.playerRoomCpuMs} of the ${limits.playerRoomsCpuMs} player rooms may share`,
    );
  }
  return bodyCap;
}

/** Runs a player scenario's first ticks in the sandbox (cpu/probe.ts); refuses one too expensive for the room's budget. */
export async function probePlayerScenario(config: RoomConfig, admitted: Admitted): Promise<void> {
  const { limits, probe } = config;
  const tickRate = admitted.settings.tickRate;
  const verdict = await probe.probe(admitted.probeKey, admitted.scenario, tickRate, limits.playerRoomCpuMs / tickRate, admitted.bodyCap);
  if (verdict.ok) return;
  if (verdict.busy) refuse(config, admitted.address, 503, "probe-busy", verdict.reason);
  refuse(config, admitted.address, 400, "probe", `invalid scenario: scenario: ${verdict.reason}`);
}

/** The per-room limits the creator asked for, within the room's caps (defaults when not asked). */
export function roomLimits(defaults: RoomLimits, caps: RoomCaps, options: PhysicsRoomOptions, bodyCap: number): RoomLimits {
  return {
    maxClients: bounded(options.maxClients, Math.min(defaults.maxClients, caps.maxClients), 1, caps.maxClients),
    maxBodies: bounded(options.maxBodies, Math.min(defaults.maxBodies, bodyCap), 1, bodyCap),
    maxSpawnsPerSecond: bounded(options.maxSpawnsPerSecond, Math.min(defaults.maxSpawnsPerSecond, caps.maxSpawnsPerSecond), 0, caps.maxSpawnsPerSecond),
    patchRateMs: bounded(options.patchRateMs, defaults.patchRateMs, PATCH_RATE_MS.min, PATCH_RATE_MS.max),
  };
}
