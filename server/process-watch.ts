import { logger, matchMaker, type Presence } from "@colyseus/core";
import type { RedisHealth } from "./redis-health.ts";

/**
 * Which peer processes are dead, with several processes on one Redis.
 *
 * Colyseus 0.18 decides a peer is dead when it does not answer one IPC ping within 2 s, and then removes
 * it and every room it hosts from the listing (`healthCheckProcessId` → `driver.cleanup`). It pings a
 * peer when this process starts, and when a seat reservation or a room creation on that peer times out.
 * Two faults follow:
 * - A peer that dies while nobody joins it is never pinged: its rooms stay listed for good.
 * - A peer that is only paused (a long GC, a stopped container, a saturated event loop) is declared dead
 *   by one join attempt, and its live rooms vanish from the listing until it resumes.
 *
 * A dead process and a paused one differ in one thing Redis can see: a killed process's connections are
 * closed by its kernel, so its IPC channel (`p:<processId>`) loses its subscriber at once; a paused
 * process keeps it. So:
 * - every `intervalMs`, each peer known from the process stats, the room listing or an earlier suspicion
 *   whose channel has no subscriber is pinged, and removed if it does not answer (Colyseus' own check);
 * - a removal asked for a peer whose channel is still subscribed only makes it a suspect: its rooms stay
 *   listed, matchmaking sends no new player to them and no new room to it, and it is pinged again each
 *   interval; it is cleared when it answers, and removed after SUSPECT_LIMIT_MS without an answer (a
 *   host that vanished without closing its connections, or a process wedged for good);
 * - a process that finds itself missing from the stats (a peer excluded it while it was paused, Redis
 *   restarted empty) writes its own record again;
 * - a peer removed as dead is handed to `onGone` (the failover resumes its rooms, server/failover/), and
 *   the processes that own room checkpoints are watched like the others, so a room whose process died
 *   while nobody listed it (its listing lost in an empty Redis restart) is still found and resumed.
 */

/** How long a peer that is still connected to Redis may leave pings unanswered before it is removed, ms. */
export const SUSPECT_LIMIT_MS = 30_000;

/** The parts of Colyseus' matchmaking driver that the watch wraps. */
interface GuardedDriver {
  cleanup(processId: string): Promise<unknown>;
  findOne(conditions: Record<string, unknown>, sortOptions?: unknown): Promise<unknown>;
  query(conditions: Record<string, unknown>, sortOptions?: unknown): Promise<{ processId: string }[]>;
}

export class ProcessWatch {
  /** Peers that missed a ping while still connected to Redis, and since when (ms). */
  private readonly suspects = new Map<string, number>();
  private readonly presence: Presence;
  private readonly now: () => number;
  private gone: (processId: string) => Promise<void> = async () => {};
  private extraPeers: () => Promise<string[]> = async () => [];

  constructor(presence: Presence, driver: object, now: () => number = Date.now) {
    this.presence = presence;
    this.now = now;
    this.guard(driver as GuardedDriver);
  }

  /** `handler` is called with every peer removed as dead; `peers` names more processes to watch (checkpoint owners). */
  onGone(handler: (processId: string) => Promise<void>, peers: () => Promise<string[]>): void {
    this.gone = handler;
    this.extraPeers = peers;
  }

  /** Whether a peer's IPC channel still has a subscriber (its process still holds its Redis connection). */
  private async connected(processId: string): Promise<boolean> {
    return (await this.presence.channels(`p:${processId}`)).length > 0;
  }

  private guard(driver: GuardedDriver): void {
    if (typeof driver.cleanup !== "function" || typeof driver.findOne !== "function" || typeof driver.query !== "function") {
      throw new Error("matchmaking driver changed: cleanup/findOne/query not found (server/process-watch.ts)");
    }
    const cleanup = driver.cleanup.bind(driver);
    const findOne = driver.findOne.bind(driver);
    driver.cleanup = async (processId: string) => {
      if (processId === matchMaker.processId) return cleanup(processId);
      if (await this.connected(processId)) {
        const since = this.suspects.get(processId);
        if (since === undefined) {
          this.suspects.set(processId, this.now());
          logger.warn(`process ${processId} did not answer within 2 s but is still connected to Redis: its rooms stay listed, no new players or rooms go there until it answers`);
          return;
        }
        if (this.now() - since < SUSPECT_LIMIT_MS) return;
        logger.warn(`process ${processId} has not answered for ${Math.round((this.now() - since) / 1000)} s although connected to Redis: removed`);
      }
      this.suspects.delete(processId);
      const rooms = (await driver.query({ processId })).length;
      await cleanup(processId);
      logger.warn(`process ${processId} stopped answering: its ${rooms} room(s) were removed from the listing`);
      await this.gone(processId).catch((err: Error) => logger.error({ processId, cause: err.message }, "resuming a dead process's rooms failed"));
    };
    // Matchmaking's "find an available room" (no roomId): not in a suspect's rooms. A join by room id
    // still reaches the room (and fails cleanly while its process does not answer).
    driver.findOne = (conditions, sortOptions) => {
      if (conditions.roomId !== undefined || this.suspects.size === 0) return findOne(conditions, sortOptions);
      return driver.query(conditions, sortOptions).then((rooms) => rooms.find((r) => !this.suspects.has(r.processId)));
    };
  }

  /** One pass: ping the peers that look dead or are suspected; write this process's record if it is missing. */
  async check(): Promise<void> {
    const self = matchMaker.processId;
    const [stats, listings, channels, owners] = await Promise.all([
      matchMaker.stats.fetchAll(),
      matchMaker.driver.query({}),
      this.presence.channels("p:*"),
      this.extraPeers(),
    ]);
    const subscribed = new Set(channels.map((c) => c.slice(2)));
    const peers = new Set<string>([...stats.map((s) => s.processId), ...listings.map((l) => l.processId), ...owners, ...this.suspects.keys()]);
    peers.delete(self);
    const pings: Promise<void>[] = [];
    for (const id of peers) {
      if (subscribed.has(id) && !this.suspects.has(id)) continue;
      pings.push(
        matchMaker.healthCheckProcessId(id).then((answered: boolean) => {
          if (answered && this.suspects.delete(id)) logger.info(`process ${id} answers again`);
        }),
      );
    }
    await Promise.all(pings);
    if (!stats.some((s) => s.processId === self) && matchMaker.state === matchMaker.MatchMakerState.READY) await matchMaker.stats.persist(true);
  }

  /** Runs `check` every `intervalMs` (skipped during a Redis outage: RedisHealth logs it once); returns the stop function. */
  start(intervalMs: number, health: RedisHealth): () => void {
    let running = false;
    const timer = setInterval(async () => {
      if (running || matchMaker.state !== matchMaker.MatchMakerState.READY || !health.healthy) return;
      running = true;
      try {
        await this.check();
      } catch (err) {
        logger.warn(`process health check failed: ${(err as Error).message}`);
      } finally {
        running = false;
      }
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }
}
