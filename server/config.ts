import { randomBytes } from "node:crypto";
import type { AdmissionLimits } from "./admission.ts";
import { DEFAULT_REPLAY_DIR } from "./replay/recorder.ts";

/**
 * Limits and timeouts of one process, each from an environment variable with a safe default. Tests pass
 * their own (short timeouts, high rate limits for fuzzing) through `AppOptions.limits`.
 */
export interface ServerLimits extends AdmissionLimits {
  /** RECONNECT_SECONDS: how long a dropped client's seat and avatar are kept. 0 disables. Default 10. */
  reconnectSeconds: number;
  /** ROOM_IDLE_SECONDS: a player-created room with nobody in it (and no seat pending) is disposed after this long. Default 30. */
  roomIdleSeconds: number;
  /** ADMIN_ROOM_IDLE_SECONDS: the same for rooms created over the admin API. Default 600. */
  adminRoomIdleSeconds: number;
  /** MAX_INPUTS_PER_SECOND: WebSocket messages a client may send per second; more are dropped (throttled). Default 120. */
  maxInputsPerSecond: number;
  /**
   * FLOOD_DISCONNECT_SECONDS: a client still over its input rate after this many consecutive throttled
   * seconds is disconnected (close code 4029 with the reason). A client sending 4x its rate in one second
   * is disconnected at once. Default 3.
   */
  floodDisconnectSeconds: number;
  /** MAX_ROOMS: rooms this process hosts at most; creating one more fails with a clear error. Default 500. */
  maxRooms: number;
  /** REPLAY_DIR_MAX_BYTES: the replay directory is kept under this size by deleting the oldest closed replays. Default 1 GiB. */
  replayDirMaxBytes: number;
  /** REPLAY_FILE_MAX_BYTES: a recording that reaches this size is closed (end line "size-limit"); the room runs on. Default 256 MiB. */
  replayFileMaxBytes: number;
  /** PROCESS_CHECK_INTERVAL_MS: how often this process looks for dead peers (Redis only) and drops their rooms. Default 5000. */
  processCheckIntervalMs: number;
  /** SHUTDOWN_TIMEOUT_MS: SIGTERM/SIGINT exit 1 if the graceful shutdown has not finished by then. Default 4500. */
  shutdownTimeoutMs: number;
  /**
   * PLAYER_ROOM_CPU_MS: CPU one player-created room may use, milliseconds per second (its ticks' time).
   * Its body cap is derived from it, its scenario's first ticks must fit it (the sandbox probe), and a room
   * over it for 2 s runs at half speed, then is closed. Default 150 (15% of a core).
   */
  playerRoomCpuMs: number;
  /**
   * PLAYER_ROOMS_CPU_MS: CPU all rooms together may use, ms per second, before player rooms are refused
   * (admin rooms are still created). Default 600, leaving the rest of the event loop for patches,
   * messages and the admin API.
   */
  playerRoomsCpuMs: number;
}

export const DEFAULT_LIMITS: Readonly<ServerLimits> = Object.freeze({
  reconnectSeconds: 10,
  roomIdleSeconds: 30,
  adminRoomIdleSeconds: 600,
  maxInputsPerSecond: 120,
  floodDisconnectSeconds: 3,
  maxRooms: 500,
  replayDirMaxBytes: 1024 * 1024 * 1024,
  replayFileMaxBytes: 256 * 1024 * 1024,
  processCheckIntervalMs: 5000,
  shutdownTimeoutMs: 4500,
  playerRoomCpuMs: 150,
  playerRoomsCpuMs: 600,
  roomCreationsPerMinute: 10,
  seatReservationsPerMinute: 60,
  pendingSeatsPerAddress: 4,
  seatReservationSeconds: 8,
  adminRoomReserve: 50,
  refusalLogSeconds: 60,
});

const LIMIT_ENV: Record<keyof ServerLimits, [env: string, min: number, max: number]> = {
  reconnectSeconds: ["RECONNECT_SECONDS", 0, 3600],
  roomIdleSeconds: ["ROOM_IDLE_SECONDS", 0.1, 86400],
  adminRoomIdleSeconds: ["ADMIN_ROOM_IDLE_SECONDS", 0.1, 30 * 86400],
  maxInputsPerSecond: ["MAX_INPUTS_PER_SECOND", 1, 1e6],
  floodDisconnectSeconds: ["FLOOD_DISCONNECT_SECONDS", 1, 3600],
  maxRooms: ["MAX_ROOMS", 1, 1e6],
  replayDirMaxBytes: ["REPLAY_DIR_MAX_BYTES", 1024, Number.MAX_SAFE_INTEGER],
  replayFileMaxBytes: ["REPLAY_FILE_MAX_BYTES", 1024, Number.MAX_SAFE_INTEGER],
  processCheckIntervalMs: ["PROCESS_CHECK_INTERVAL_MS", 100, 3600_000],
  shutdownTimeoutMs: ["SHUTDOWN_TIMEOUT_MS", 100, 600_000],
  playerRoomCpuMs: ["PLAYER_ROOM_CPU_MS", 1, 1000],
  playerRoomsCpuMs: ["PLAYER_ROOMS_CPU_MS", 1, 100_000],
  roomCreationsPerMinute: ["ROOM_CREATIONS_PER_MINUTE", 1, 1e6],
  seatReservationsPerMinute: ["SEAT_RESERVATIONS_PER_MINUTE", 1, 1e6],
  pendingSeatsPerAddress: ["PENDING_SEATS_PER_ADDRESS", 1, 1e6],
  seatReservationSeconds: ["SEAT_RESERVATION_SECONDS", 1, 600],
  adminRoomReserve: ["ADMIN_ROOM_RESERVE", 0, 1e6],
  refusalLogSeconds: ["REFUSAL_LOG_SECONDS", 0, 86400],
};

/** Process configuration from the environment. Everything has a safe local default. */
export interface ServerConfig {
  /** PORT, default 2567. */
  port: number;
  /** HOST, default 127.0.0.1 (set 0.0.0.0 deliberately to expose the server). */
  host: string;
  /** ADMIN_TOKEN; when unset a random one is generated at start and printed once. */
  adminToken: string;
  adminTokenGenerated: boolean;
  /** REPLAY_DIR, default data/replays. */
  replayDir: string;
  /** REDIS_URL: when set, Colyseus presence and matchmaking driver use Redis (multi-process). */
  redisUrl: string | undefined;
  /** REDIS_KEY_PREFIX: prefix of every Redis key (not pub/sub channels), so deployments can share one Redis. */
  redisKeyPrefix: string;
  /** PUBLIC_ADDRESS: host[:port][/path] clients reach this process at (needed with several processes). */
  publicAddress: string | undefined;
  /** LOG_LEVEL, default info. */
  logLevel: string;
  /** TRUST_PROXY: a hop count or a comma-separated address/CIDR list of proxies whose X-Forwarded-For is believed. */
  trustProxy: string | number | undefined;
  limits: ServerLimits;
}

export function generateAdminToken(): string {
  return randomBytes(24).toString("base64url");
}

/** Reads the limits; a malformed value is an error naming the variable (the process does not start). */
export function readLimits(env: NodeJS.ProcessEnv = process.env): ServerLimits {
  const limits: ServerLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(LIMIT_ENV) as (keyof ServerLimits)[]) {
    const [name, min, max] = LIMIT_ENV[key];
    const raw = env[name];
    if (raw === undefined || raw.trim() === "") continue;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max) {
      throw new Error(`${name} must be a number in ${min}..${max}, got "${raw.slice(0, 40)}"`);
    }
    limits[key] = value;
  }
  return limits;
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = env.PORT === undefined || env.PORT === "" ? 2567 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0..65535, got "${env.PORT}"`);
  const token = env.ADMIN_TOKEN?.trim();
  const publicAddress = env.PUBLIC_ADDRESS?.trim() || undefined;
  if (publicAddress !== undefined && /^[a-z]+:\/\//i.test(publicAddress)) {
    throw new Error(`PUBLIC_ADDRESS is host[:port][/path] without a scheme (the SDK adds ws:// or wss://), got "${publicAddress}"`);
  }
  return {
    port,
    host: env.HOST || "127.0.0.1",
    adminToken: token || generateAdminToken(),
    adminTokenGenerated: !token,
    replayDir: env.REPLAY_DIR || DEFAULT_REPLAY_DIR,
    redisUrl: env.REDIS_URL || undefined,
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? "",
    publicAddress,
    logLevel: env.LOG_LEVEL || "info",
    trustProxy: readTrustProxy(env.TRUST_PROXY),
    limits: readLimits(env),
  };
}

/** TRUST_PROXY: unset (nobody), a hop count ("1"), or addresses/CIDRs ("127.0.0.1,10.0.0.0/8"). */
function readTrustProxy(raw: string | undefined): string | number | undefined {
  const value = raw?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  if (!/^[0-9a-fA-F:.,/ ]+$/.test(value)) throw new Error(`TRUST_PROXY must be a hop count or a comma-separated address/CIDR list, got "${value.slice(0, 40)}"`);
  return value;
}
