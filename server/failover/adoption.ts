import { logger, matchMaker } from "@colyseus/core";
import type { GameRegistry } from "../../shared/game/registry.ts";
import { ROOM_NAME } from "../../shared/net/index.ts";
import type { CheckpointStore } from "./checkpoint-store.ts";
import type { PendingResumes } from "./resume.ts";

/** What the adoption needs of a resumed room once Colyseus has listed it. */
export interface ResumedRoom {
  /** Reserves the seats of the room's players (their reconnection tokens) so they can come back. */
  reserveResumedSeats(): void;
}

/**
 * Rooms of a dead process resumed here. When the process watch removes a dead peer
 * (server/process-watch.ts), every surviving process tries to claim each of the peer's checkpointed
 * rooms (a Redis SET NX per room: exactly one process wins each) and creates it again under the same room
 * id from its checkpoint (PhysicsRoom resumes from the plan it finds for its id). Colyseus then lists it
 * here, so the players' reconnection through matchmaking (`client.reconnect(token)`) lands in it, in
 * their seats, with their avatars.
 */
export class RoomAdoption {
  private readonly store: CheckpointStore;
  private readonly pending: PendingResumes;
  private readonly games: GameRegistry;

  constructor(store: CheckpointStore, pending: PendingResumes, games: GameRegistry) {
    this.store = store;
    this.pending = pending;
    this.games = games;
  }

  /** Claims and resumes every checkpointed room of a process that was found dead. */
  async adopt(deadProcessId: string): Promise<void> {
    let rooms: string[];
    try {
      rooms = await this.store.roomsOf(deadProcessId);
    } catch (err) {
      logger.warn({ processId: deadProcessId, cause: (err as Error).message }, "cannot read the checkpoints of a dead process");
      return;
    }
    for (const roomId of rooms) await this.adoptRoom(roomId, deadProcessId);
  }

  private async adoptRoom(roomId: string, from: string): Promise<void> {
    const started = Date.now();
    if (!(await this.store.claim(roomId).catch(() => false))) return;
    const checkpoint = await this.store.load(roomId).catch(() => null);
    if (checkpoint === null) {
      logger.warn({ roomId, from }, "a dead process's room has no checkpoint left: not resumed");
      await this.store.remove(roomId).catch(() => {});
      return;
    }
    const { meta } = checkpoint;
    const game = this.games.get(meta.game);
    if (!game || game.version !== meta.gameVersion) {
      logger.error({ roomId, from, game: meta.game, version: meta.gameVersion }, "cannot resume a dead process's room: this process does not have its game at that version");
      await this.store.remove(roomId).catch(() => {});
      return;
    }
    this.pending.put(roomId, { checkpoint, game, from });
    try {
      await matchMaker.handleCreateRoom(ROOM_NAME, { game: meta.game }, undefined, roomId);
    } catch (err) {
      logger.error({ roomId, from, cause: (err as Error).message }, "resuming a dead process's room failed");
      await this.store.remove(roomId).catch(() => {});
      return;
    } finally {
      this.pending.take(roomId);
    }
    const room = matchMaker.getLocalRoomById(roomId) as unknown as (ResumedRoom & { sim: { tick: number } }) | undefined;
    if (!room) return;
    room.reserveResumedSeats();
    const ms = Date.now() - started;
    logger.info({ roomId, from, tick: room.sim.tick, rerunTicks: room.sim.tick - checkpoint.baseTick, ms }, "room resumed from its checkpoint after its process died");
  }
}
