import { randomBytes } from "node:crypto";
import { DEFAULT_REPLAY_DIR } from "./replay/recorder.ts";

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
  /** PUBLIC_ADDRESS: host:port clients can reach this process at (needed with several processes). */
  publicAddress: string | undefined;
  /** LOG_LEVEL, default info. */
  logLevel: string;
}

export function generateAdminToken(): string {
  return randomBytes(24).toString("base64url");
}

export function readConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = env.PORT === undefined || env.PORT === "" ? 2567 : Number(env.PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`PORT must be an integer 0..65535, got "${env.PORT}"`);
  const token = env.ADMIN_TOKEN?.trim();
  return {
    port,
    host: env.HOST || "127.0.0.1",
    adminToken: token || generateAdminToken(),
    adminTokenGenerated: !token,
    replayDir: env.REPLAY_DIR || DEFAULT_REPLAY_DIR,
    redisUrl: env.REDIS_URL || undefined,
    publicAddress: env.PUBLIC_ADDRESS || undefined,
    logLevel: env.LOG_LEVEL || "info",
  };
}
