import { logger, matchMaker, type Presence } from "@colyseus/core";

/**
 * Several processes behind one address: Colyseus' own Redis presence (pub/sub IPC between processes,
 * shared keys) and Redis driver (the room listing cache every process matchmakes from). Nothing here is
 * home-made except the periodic dead-process sweep, which only calls Colyseus' own health check.
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
  keyPrefix = "",
): Promise<{ presence?: Presence; driver?: matchMaker.MatchMakerDriver }> {
  if (!redisUrl) return {};
  const [{ RedisPresence }, { RedisDriver }] = await Promise.all([import("@colyseus/redis-presence"), import("@colyseus/redis-driver")]);
  const options = redisOptions(redisUrl, keyPrefix);
  return { presence: new RedisPresence({ ...options }), driver: new RedisDriver({ ...options }) };
}

/**
 * Colyseus 0.18 health-checks other processes only when this process starts (`accept()`) and when a seat
 * reservation on one of them times out; nothing notices a peer that dies while nobody is joining it, so
 * its rooms stay listed forever. Every `intervalMs` this calls Colyseus' own
 * `matchMaker.healthCheckAllProcesses()`: a process whose IPC channel (`p:<processId>`) has no Redis
 * subscriber any more (its connection closed when it died) is pinged over IPC and, if it does not answer
 * within COLYSEUS_PRESENCE_SHORT_TIMEOUT (2 s), removed from the process stats together with its room
 * listings (`driver.cleanup(processId)`). Live peers are never pinged (their channel is subscribed).
 */
export function startProcessSweep(intervalMs: number): () => void {
  let running = false;
  const timer = setInterval(async () => {
    if (running || matchMaker.state !== matchMaker.MatchMakerState.READY) return;
    running = true;
    try {
      const before = new Set((await matchMaker.stats.fetchAll()).map((s) => s.processId));
      await matchMaker.healthCheckAllProcesses();
      const after = new Set((await matchMaker.stats.fetchAll()).map((s) => s.processId));
      for (const id of before) if (!after.has(id)) logger.warn(`process ${id} stopped answering: its rooms were removed from the listing`);
    } catch (err) {
      logger.warn(`process health check failed: ${(err as Error).message}`);
    } finally {
      running = false;
    }
  }, intervalMs);
  timer.unref();
  return () => clearInterval(timer);
}
