import type { EventEmitter } from "node:events";
import { matchMaker } from "@colyseus/core";
import { Redis } from "ioredis";
import type { GameRegistry } from "../../shared/game/registry.ts";
import { redisOptions } from "../cluster.ts";
import type { RedisHealth } from "../redis-health.ts";
import type { RoomFailover } from "../rooms/room-config.ts";
import { RoomAdoption } from "./adoption.ts";
import { type CheckpointRedis, CheckpointStore } from "./checkpoint-store.ts";
import { BaseEncoder } from "./base-encoder.ts";
import { CheckpointFlusher } from "./checkpointer.ts";
import { PendingResumes } from "./resume.ts";

/** A clustered server's failover: its checkpoint connection, the store, the resumes it is about to make, the adoption. */
export interface Failover extends RoomFailover {
  readonly adoption: RoomAdoption;
  /** Closes the checkpoint connection (server shutdown). */
  close(): Promise<void>;
}

/**
 * Checkpoints go over a Redis connection of their own: a base is a few hundred KB of bytes, which must
 * not queue in front of the presence's small pub/sub and listing commands (and ioredis gives Buffers back
 * only per call, which Colyseus' presence API does not expose).
 */
export function createFailover(redisUrl: string, keyPrefix: string, health: RedisHealth, games: GameRegistry): Failover {
  const redis = new Redis({ ...redisOptions(redisUrl, keyPrefix), lazyConnect: false });
  health.watch("checkpoints", redis as unknown as EventEmitter);
  const store = new CheckpointStore(redis as unknown as CheckpointRedis, () => matchMaker.processId);
  const pending = new PendingResumes();
  const adoption = new RoomAdoption(store, pending, games);
  const flusher = new CheckpointFlusher(store);
  const encoder = new BaseEncoder();
  return {
    store,
    pending,
    adoption,
    flusher,
    encoder,
    async close() {
      flusher.stop();
      await encoder.stop();
      await redis.quit().catch(() => redis.disconnect());
    },
  };
}
