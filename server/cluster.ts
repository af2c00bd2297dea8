import type { EventEmitter } from "node:events";
import type { matchMaker, Presence } from "@colyseus/core";
import { ProcessWatch } from "./process-watch.ts";
import type { RedisHealth } from "./redis-health.ts";

/**
 * Several processes behind one address: Colyseus' own Redis presence (pub/sub IPC between processes,
 * shared keys) and Redis driver (the room listing cache every process matchmakes from), with three
 * repairs: failed listing requests are forgotten (below), dead and paused peers are told apart
 * (server/process-watch.ts), and rooms are placed by live counts (server/placement.ts).
 */

/** ioredis options from a redis:// or rediss:// URL, plus a key prefix (keys only; pub/sub channels are global). */
export function redisOptions(url: string, keyPrefix: string) {
  const u = new URL(url);
  if (u.protocol !== "redis:" && u.protocol !== "rediss:") throw new Error(`REDIS_URL must start with redis:// or rediss://, got "${u.protocol}"`);
  const db = u.pathname.length > 1 ? Number(u.pathname.slice(1)) : 0;
  if (!Number.isInteger(db) || db < 0) throw new Error(`REDIS_URL database must be a non-negative integer, got "${u.pathname.slice(1)}"`);
  return {
    host: u.hostname || "127.0.0.1",
    port: u.port ? Number(u.port) : 6379,
    db,
    ...(u.username ? { username: decodeURIComponent(u.username) } : {}),
    ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.protocol === "rediss:" ? { tls: {} } : {}),
    ...(keyPrefix ? { keyPrefix } : {}),
    // A command waits for at most 3 reconnection attempts (~0.3 s) before it fails: during an outage a
    // join fails at once instead of after ioredis' default 20 attempts (~10 s), and /ready says why.
    maxRetriesPerRequest: 3,
  };
}

/**
 * Presence and matchmaking driver: embedded by default (one process, nothing to run). With a Redis URL
 * the Redis implementations are loaded, which is all Colyseus needs to spread rooms over processes
 * (each process must then also have a PUBLIC_ADDRESS: a seat reservation names the process by it, and the
 * SDK connects there directly; Colyseus 0.18 does not proxy a socket to another process).
 */
export async function presenceAndDriver(
  redisUrl: string | undefined,
  keyPrefix: string,
  health: RedisHealth,
): Promise<{ presence?: Presence; driver?: matchMaker.MatchMakerDriver; watch?: ProcessWatch }> {
  if (!redisUrl) return {};
  const [{ RedisPresence }, { RedisDriver }] = await Promise.all([import("@colyseus/redis-presence"), import("@colyseus/redis-driver")]);
  const options = redisOptions(redisUrl, keyPrefix);
  const presence = new RedisPresence({ ...options });
  const driver = new RedisDriver({ ...options });
  // Listened to right after construction: ioredis emits its first connection events on a later tick.
  const connections = presence as unknown as { pub: EventEmitter; sub: EventEmitter };
  // RedisPresence logs "pub/sub connection error:" per reconnection attempt without the cause (our pino
  // drops its second argument): RedisHealth's own listeners replace them.
  connections.pub.removeAllListeners("error");
  connections.sub.removeAllListeners("error");
  health.watch("presence", connections.pub);
  health.watch("presence-sub", connections.sub);
  health.watch("driver", (driver as unknown as { _client: EventEmitter })._client);
  forgetFailedListingRequests(driver);
  const watch = new ProcessWatch(presence, driver);
  return { presence, driver, watch };
}

interface DriverInternals {
  getRooms(roomName?: string): Promise<unknown>;
  _roomCacheRequestByName: Record<string, Promise<unknown> | undefined>;
  _concurrentRoomCacheRequest?: Promise<unknown>;
}

/**
 * Colyseus' RedisDriver (0.18.3) shares one in-flight room-list request between callers and forgets it
 * when it succeeds, but never when it fails: after one Redis error every later listing and joinOrCreate
 * got the same rejected promise ("max retries per request") until the process restarted. Wrapped here so
 * that a failed request is dropped and the next call asks Redis again. The wrapped internals are checked
 * at start: a Colyseus upgrade that renames them stops the server with this message instead of silently
 * losing the fix.
 */
function forgetFailedListingRequests(driver: object): void {
  const d = driver as unknown as DriverInternals;
  if (typeof d.getRooms !== "function" || typeof d._roomCacheRequestByName !== "object" || d._roomCacheRequestByName === null) {
    throw new Error("@colyseus/redis-driver changed: getRooms/_roomCacheRequestByName not found (server/cluster.ts forgetFailedListingRequests)");
  }
  const getRooms = d.getRooms.bind(driver);
  d.getRooms = (roomName?: string) => {
    const request = getRooms(roomName);
    const shared = d._concurrentRoomCacheRequest;
    request.catch(() => {
      const key = roomName as string;
      if (d._roomCacheRequestByName[key] === request) delete d._roomCacheRequestByName[key];
      if (d._concurrentRoomCacheRequest === shared) d._concurrentRoomCacheRequest = undefined;
    });
    return request;
  };
}
