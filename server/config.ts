import { gamePaths } from "./game-paths.ts";
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
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
  /**
   * CHECKPOINT_BASE_SECONDS: longest time between two failover bases of a room (Redis only; a base is
   * written sooner when re-running the log since the last one would take more than 0.6 s). Default 60.
   */
  checkpointBaseSeconds: number;
  /** REPLAY_DIR_MAX_FILES: at most this many replay files (each keeps a `replay-host` key in Redis); oldest closed ones deleted first. Default 10000. */
  replayDirMaxFiles: number;
  /** REPLAY_FILE_MAX_BYTES: a recording that reaches this size is closed (end line "size-limit"); the room runs on. Default 256 MiB. */
  replayFileMaxBytes: number;
  /** PROCESS_CHECK_INTERVAL_MS: how often this process looks for dead peers (Redis only), drops their listings and resumes their rooms. Default 1500 (a dead peer is gone within the interval plus a 2 s ping, and its rooms are resumed right after: under the 5 s a resumed room must be listed again in). */
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
  replayDirMaxFiles: 10_000,
  checkpointBaseSeconds: 60,
  replayFileMaxBytes: 256 * 1024 * 1024,
  processCheckIntervalMs: 1500,
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
  replayDirMaxFiles: ["REPLAY_DIR_MAX_FILES", 1, 1e9],
  checkpointBaseSeconds: ["CHECKPOINT_BASE_SECONDS", 1, 3600],
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

/** Log levels LOG_LEVEL accepts (pino's). */
export const LOG_LEVELS = ["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** LOG_FORMAT: "pretty" (human-readable lines) or "json" (one JSON object a line); unset picks by the terminal. */
export const LOG_FORMATS = ["pretty", "json"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

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
  logLevel: LogLevel;
  /** LOG_FORMAT; undefined: pretty when stdout is a terminal, JSON otherwise (server/logging.ts). */
  logFormat: LogFormat | undefined;
  /** TRUST_PROXY: a hop count or a comma-separated address/CIDR list of proxies whose X-Forwarded-For is believed. */
  trustProxy: string | number | undefined;
  /** GAMES: comma-separated paths of game modules (relative to the working directory), served beside the built-in games. */
  games: string[];
  limits: ServerLimits;
}

/** What `npm run dev` reads besides the server's configuration. */
export interface DevConfig {
  /** VITE_PORT: Vite's dev server, default 5173. */
  vitePort: number;
}

/**
 * One or more malformed environment variables: one line per variable, each naming it, the value it
 * had and what is allowed. Not a crash: `readConfigOrExit` prints the lines (no stack) and exits 2.
 */
export class ConfigError extends Error {
  readonly problems: readonly string[];

  constructor(problems: readonly string[]) {
    super(problems.join("\n"));
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** Exit code of a start stopped by its configuration (as for bad command-line arguments). */
export const CONFIG_EXIT_CODE = 2;

/** A value as quoted in a problem line: at most 40 characters, quotes and control characters escaped. */
function shown(raw: string): string {
  return JSON.stringify(raw.length > 40 ? `${raw.slice(0, 40)}…` : raw);
}

/**
 * Reads variables one by one and collects every problem, so one start names all the malformed
 * variables instead of the first. An unset or blank variable takes its default.
 */
class EnvReader {
  readonly problems: string[] = [];
  private readonly env: NodeJS.ProcessEnv;

  constructor(env: NodeJS.ProcessEnv) {
    this.env = env;
  }

  /** The trimmed value, or undefined when unset or blank. */
  raw(name: string): string | undefined {
    const v = this.env[name]?.trim();
    return v ? v : undefined;
  }

  problem(name: string, allowed: string, raw: string): void {
    this.problems.push(`${name} must be ${allowed}, got ${shown(raw)}`);
  }

  number(name: string, fallback: number, min: number, max: number, integer = false): number {
    const raw = this.raw(name);
    if (raw === undefined) return fallback;
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min || value > max || (integer && !Number.isInteger(value))) {
      this.problem(name, `${integer ? "an integer" : "a number"} in ${min}..${max}`, raw);
      return fallback;
    }
    return value;
  }

  oneOf<T extends string>(name: string, allowed: readonly T[]): T | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const value = raw.toLowerCase() as T;
    if (allowed.includes(value)) return value;
    this.problem(name, `one of ${allowed.join(", ")}`, raw);
    return undefined;
  }

  /** A value `check` accepts (it returns the problem's "must be …" text otherwise). */
  checked(name: string, check: (raw: string) => string | null): string | undefined {
    const raw = this.raw(name);
    if (raw === undefined) return undefined;
    const allowed = check(raw);
    if (allowed === null) return raw;
    this.problem(name, allowed, raw);
    return undefined;
  }

  /** Throws the collected problems, if any. */
  done(): void {
    if (this.problems.length > 0) throw new ConfigError(this.problems);
  }
}

export function generateAdminToken(): string {
  return randomBytes(24).toString("base64url");
}

function readLimitsInto(reader: EnvReader): ServerLimits {
  const limits: ServerLimits = { ...DEFAULT_LIMITS };
  for (const key of Object.keys(LIMIT_ENV) as (keyof ServerLimits)[]) {
    const [name, min, max] = LIMIT_ENV[key];
    limits[key] = reader.number(name, DEFAULT_LIMITS[key], min, max);
  }
  return limits;
}

/** Reads the limits; malformed values are a ConfigError naming each variable (the process does not start). */
export function readLimits(env: NodeJS.ProcessEnv = process.env): ServerLimits {
  const reader = new EnvReader(env);
  const limits = readLimitsInto(reader);
  reader.done();
  return limits;
}

/** Every variable the server reads, in one place; a ConfigError lists every malformed one. */
export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const reader = new EnvReader(env);
  const port = reader.number("PORT", 2567, 0, 65535, true);
  const host = reader.checked("HOST", (v) => (isIP(v) !== 0 || HOST_NAME.test(v) ? null : "an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, localhost)"));
  const token = reader.raw("ADMIN_TOKEN");
  const publicAddress = reader.checked("PUBLIC_ADDRESS", (v) =>
    /^[a-z][a-z0-9+.-]*:\/\//i.test(v) ? "host[:port][/path] without a scheme (the SDK adds ws:// or wss://)" : null,
  );
  const redisUrl = reader.checked("REDIS_URL", redisUrlProblem);
  const config: ServerConfig = {
    port,
    host: host ?? "127.0.0.1",
    adminToken: token ?? generateAdminToken(),
    adminTokenGenerated: token === undefined,
    replayDir: reader.raw("REPLAY_DIR") ?? DEFAULT_REPLAY_DIR,
    redisUrl,
    // Not trimmed: a prefix is taken as written.
    redisKeyPrefix: env.REDIS_KEY_PREFIX ?? "",
    publicAddress,
    logLevel: reader.oneOf("LOG_LEVEL", LOG_LEVELS) ?? "info",
    logFormat: reader.oneOf("LOG_FORMAT", LOG_FORMATS),
    trustProxy: readTrustProxy(reader),
    games: gamePaths(reader.raw("GAMES")),
    limits: readLimitsInto(reader),
  };
  reader.done();
  return config;
}

/** `npm run dev`'s own variables (the server's come from readConfig). */
export function readDevConfig(env: NodeJS.ProcessEnv = process.env): DevConfig {
  const reader = new EnvReader(env);
  const vitePort = reader.number("VITE_PORT", 5173, 1, 65535, true);
  reader.done();
  return { vitePort };
}

/**
 * The configuration, or, when a variable is malformed, its problem lines on stderr and exit code 2:
 * a message for the operator, not a crash (no stack trace).
 */
export function readConfigOrExit<T>(read: (env: NodeJS.ProcessEnv) => T, env: NodeJS.ProcessEnv = process.env): T {
  try {
    return read(env);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    const n = err.problems.length;
    process.stderr.write(`cannot start: ${n === 1 ? "an environment variable is" : `${n} environment variables are`} malformed\n`);
    for (const line of err.problems) process.stderr.write(`  ${line}\n`);
    process.exit(CONFIG_EXIT_CODE);
  }
}

/** A host name as HOST may give it (letters, digits, dots and hyphens). */
const HOST_NAME = /^[A-Za-z0-9]([A-Za-z0-9.-]{0,252})$/;

/** What is wrong with a REDIS_URL (the "must be" text), or null. */
function redisUrlProblem(raw: string): string | null {
  const allowed = "a redis:// or rediss:// URL (redis://[user:pass@]host:port[/db])";
  if (!URL.canParse(raw)) return allowed;
  const u = new URL(raw);
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") return allowed;
  const db = u.pathname.length > 1 ? u.pathname.slice(1) : "0";
  return /^\d+$/.test(db) ? null : `${allowed}, its database a non-negative integer`;
}

/** TRUST_PROXY: unset (nobody), a hop count ("1"), or addresses/CIDRs ("127.0.0.1,10.0.0.0/8"). */
function readTrustProxy(reader: EnvReader): string | number | undefined {
  const value = reader.checked("TRUST_PROXY", (v) => (/^\d+$/.test(v) || /^[0-9a-fA-F:.,/ ]+$/.test(v) ? null : "a hop count or a comma-separated address/CIDR list"));
  if (value === undefined) return undefined;
  return /^\d+$/.test(value) ? Number(value) : value;
}

/** What `npm start` / `npm run dev` check before building anything: the server's variables and, with --dev, Vite's. */
export function readStartConfig(env: NodeJS.ProcessEnv, dev: boolean): { server: ServerConfig; dev: DevConfig | null } {
  const problems: string[] = [];
  const attempt = <T>(read: (e: NodeJS.ProcessEnv) => T): T | null => {
    try {
      return read(env);
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      problems.push(...err.problems);
      return null;
    }
  };
  const server = attempt(readConfig);
  const devConfig = dev ? attempt(readDevConfig) : null;
  if (problems.length > 0 || server === null) throw new ConfigError(problems);
  return { server, dev: devConfig };
}
