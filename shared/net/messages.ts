import { z } from "zod";
import type { AvatarSpec } from "../game/define.ts";
import { AVATAR_LIMITS } from "../game/limits.ts";
import { IMPULSE_POINT_SLACK } from "../sim/impulse.ts";
import type { RoomSettings } from "./knobs.ts";

/**
 * Client ↔ server messages of the `physics` room and their validation (zod 4, a Standard Schema).
 * Bounds live here so the browser can clamp its UI to what the server accepts.
 */

/** Room name registered with Colyseus. */
export const ROOM_NAME = "physics";

/** Client → server message types. */
export const MSG_MOVE = "move";
export const MSG_SPAWN = "spawn";
export const MSG_IMPULSE = "impulse";
/** Reload the room's scenario for everyone (at most once per RESTART_INTERVAL_SECONDS per room). */
export const MSG_RESTART = "restart";
/** Shortest time between two accepted restarts of one room, seconds of simulation. */
export const RESTART_INTERVAL_SECONDS = 3;
/** Server → client: an input was not accepted, with the reason. The client stays connected. */
export const MSG_REJECTED = "rejected";
/** Server → client right after joining (and again after a reconnection): ids, rates and the room's settings. */
export const MSG_WELCOME = "welcome";

/**
 * WebSocket close codes of the room, besides Colyseus' own (4000 left on purpose, 4001 server shutting
 * down, 4002 protocol error, 4010 may try to reconnect). The close frame's reason says why.
 */
export const CLOSE_RATE_LIMITED = 4029;
/**
 * The client's unsent backlog exceeded about 2 s of its updates (a stalled link, or a client that does
 * not read): closed, but unlike 4029 its seat and avatar are kept for the reconnection window.
 */
export const CLOSE_BACKLOG = 4030;
/** Close code of every client of a player room closed for staying over its CPU budget (the reason says by how much). */
export const CLOSE_CPU_BUDGET = 4031;
/** Close code of every client of a room whose game's hooks kept throwing (the reason names the hook and the error). */
export const CLOSE_GAME_FAILED = 4032;
/**
 * Close code of every client of a room whose process was cut off from Redis long enough to be declared
 * dead, while another process resumed the room from its checkpoint: this copy closes, and the clients
 * get their seats back in the resumed room through the matchmaker (their reconnection token).
 */
export const CLOSE_TAKEN_OVER = 4033;
/**
 * The session was taken over: a newer connection presented this session's reconnection token while
 * this socket was still open (a half-open connection, another tab). The session, seat and avatar go on
 * over the newer connection; this socket is closed with this code and CLOSE_REPLACED_REASON. Clients
 * should not rejoin on it (that would start a second session). The reconnection token is the
 * credential: the server sends it only to the session's own connection, in the join handshake, and
 * issues a new one on every (re)connection.
 */
export const CLOSE_REPLACED = 4009;
export const CLOSE_REPLACED_REASON = "replaced by a newer connection";
/** Largest WebSocket frame a client may send, bytes (larger frames close the connection with 1009). */
export const MAX_CLIENT_FRAME_BYTES = 4 * 1024;

export const LIMITS = Object.freeze({
  /** Largest |component| of a move message, m/s: the fastest avatar a game may have (the room scales a move down to its game's avatar speed). */
  maxMoveSpeed: AVATAR_LIMITS.maxSpeed,
  /** Spawned sphere radius / box half extent, metres. */
  minSpawnSize: 0.1,
  maxSpawnSize: 1,
  /** Largest |component| of a spawned body's initial velocity, m/s. */
  maxSpawnSpeed: 20,
  /** Largest |component| of an impulse, N·s (a 1 kg box gets at most 30 m/s per axis). */
  maxImpulse: 30,
  /** An impulse's point must lie within the body's bounding radius plus this, metres. */
  impulsePointSlack: IMPULSE_POINT_SLACK,
  /** Largest |coordinate| accepted in a message, metres. */
  maxCoordinate: 1e5,
  /** Longest body id, characters. */
  maxIdLength: 64,
});

const finite = z.number();
const vec3 = (bound: number) => z.tuple([finite.min(-bound).max(bound), finite.min(-bound).max(bound), finite.min(-bound).max(bound)]);

export const MoveMessage = z.strictObject({
  /** Desired planar velocity, m/s (x and z; +y is up). */
  vx: finite.min(-LIMITS.maxMoveSpeed).max(LIMITS.maxMoveSpeed),
  vz: finite.min(-LIMITS.maxMoveSpeed).max(LIMITS.maxMoveSpeed),
  /** Jump once, if standing on something. */
  jump: z.boolean().optional(),
});
export type MoveMessage = z.infer<typeof MoveMessage>;

export const SpawnMessage = z.strictObject({
  shape: z.enum(["sphere", "box"]),
  /** Sphere radius or cube half extent, metres. */
  size: finite.min(LIMITS.minSpawnSize).max(LIMITS.maxSpawnSize),
  /** Initial velocity, m/s. Default 0. */
  velocity: vec3(LIMITS.maxSpawnSpeed).optional(),
});
export type SpawnMessage = z.infer<typeof SpawnMessage>;

export const ImpulseMessage = z.strictObject({
  bodyId: z.string().min(1).max(LIMITS.maxIdLength),
  /** N·s, world space. */
  impulse: vec3(LIMITS.maxImpulse),
  /** World point the impulse acts at (default the centre of mass), metres. */
  point: vec3(LIMITS.maxCoordinate).optional(),
});
export type ImpulseMessage = z.infer<typeof ImpulseMessage>;

/** Restart the room's scenario: no payload (an empty object). */
export const RestartMessage = z.strictObject({});
export type RestartMessage = z.infer<typeof RestartMessage>;

/** Every client → server message type with its schema. */
export const CLIENT_MESSAGES = Object.freeze({
  [MSG_MOVE]: MoveMessage,
  [MSG_SPAWN]: SpawnMessage,
  [MSG_IMPULSE]: ImpulseMessage,
  [MSG_RESTART]: RestartMessage,
});
export type ClientMessageType = keyof typeof CLIENT_MESSAGES;

export interface RejectedMessage {
  /** The message type that was rejected. */
  type: string;
  /** Human-readable reason, e.g. `impulse[0]: Too big: expected number to be <=30`. */
  reason: string;
}

export interface WelcomeMessage {
  sessionId: string;
  /** The game the room plays (GET /games lists its inputs and fields). */
  game: string;
  /** The game's avatar (its size, walking and jumping speeds), or null: the game has none and takes no `move`. */
  avatar: AvatarSpec | null;
  avatarId: string;
  tickRate: number;
  /** Milliseconds between state patches. */
  patchRateMs: number;
  maxSpawnsPerSecond: number;
  /** Messages a client may send per second; more are dropped, and a client that keeps it up is disconnected (4029). */
  maxInputsPerSecond: number;
  /** How long the server keeps a dropped client's seat and avatar, seconds (reconnect with the room's reconnectionToken). */
  reconnectSeconds: number;
  /**
   * The room's knobs as they are now (gravity, solver, materials: GET /rooms/:id `settings`), so that the
   * client's prediction runs under the room's gravity from its first tick, not after its first poll.
   */
  settings: RoomSettings;
}

/** One line per issue: `path: message`, paths like `impulse[0]`. */
export function formatZodIssues(issues: readonly z.core.$ZodIssue[]): string {
  return issues
    .slice(0, 5)
    .map((issue) => {
      let path = "";
      for (const key of issue.path) {
        path += typeof key === "number" ? `[${key}]` : path === "" ? String(key) : `.${String(key)}`;
      }
      return `${path === "" ? "(message)" : path}: ${issue.message}`;
    })
    .join("; ");
}

/**
 * Validates a client message. Returns the parsed value or the reason it was rejected. Kept gentle on
 * purpose: Colyseus' built-in `validate()` closes the client with 4002 on any bad payload; we answer
 * with MSG_REJECTED instead so one buggy UI action does not cost the player their session.
 */
export function parseClientMessage<K extends ClientMessageType>(
  type: K,
  payload: unknown,
): { ok: true; value: z.infer<(typeof CLIENT_MESSAGES)[K]> } | { ok: false; reason: string } {
  const result = CLIENT_MESSAGES[type].safeParse(payload);
  if (result.success) return { ok: true, value: result.data as z.infer<(typeof CLIENT_MESSAGES)[K]> };
  return { ok: false, reason: formatZodIssues(result.error.issues) };
}
