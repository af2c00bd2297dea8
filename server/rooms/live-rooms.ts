import { logger } from "@colyseus/core";
import type { BudgetAction, RoomCpuBudget } from "../cpu/room-budget.ts";

/** A new player room counts its whole CPU budget against the process share for this long, ms. */
export const PROBATION_MS = 10_000;
/** Rooms are shed once all of them together use more than this many times the player-room share. */
export const SHED_ABOVE_SHARE = 1.25;

/** What the server's room set reads of a running room. */
export interface LiveRoom {
  readonly roomId: string;
  /** Created over the admin API: never shed, counted in the admin share of MAX_ROOMS. */
  readonly trusted: boolean;
  /** Wall-clock ms the room took its place (its probation in the process share starts then). */
  readonly startedAt: number;
  readonly budget: RoomCpuBudget;
  /** onCreate finished: the room ticks (load shedding only acts on such rooms). */
  readonly started: boolean;
  /** Slows, closes or recovers the room for its CPU budget. */
  onBudgetAction(action: BudgetAction): void;
}

/**
 * The running rooms of one server (a room adds itself before its first await in onCreate and removes
 * itself in onDispose): room counts by creator for admission, the CPU the rooms use or have reserved,
 * and load shedding.
 */
export class LiveRooms {
  private readonly rooms = new Set<LiveRoom>();

  add(room: LiveRoom): void {
    this.rooms.add(room);
  }

  delete(room: LiveRoom): void {
    this.rooms.delete(room);
  }

  /** Rooms by who created them (the admission's room counts). */
  counts(): { player: number; admin: number } {
    let admin = 0;
    for (const room of this.rooms) if (room.trusted) admin++;
    return { player: this.rooms.size - admin, admin };
  }

  /**
   * CPU the rooms count against PLAYER_ROOMS_CPU_MS, ms per second: what each used in its last second,
   * but a player room in its first PROBATION_MS counts at least its whole budget, since what a scenario
   * costs once it has settled (or landed) is not known yet. A burst of creations can therefore not admit
   * more rooms than the share holds.
   */
  admissionLoadMs(now: number): number {
    let total = 0;
    for (const room of this.rooms) {
      const reserved = !room.trusted && now - room.startedAt < PROBATION_MS ? room.budget.msPerSecond : 0;
      total += Math.max(room.budget.lastSecondMs, reserved);
    }
    return total;
  }

  /**
   * Load shedding, once a second: when the rooms together used more than SHED_ABOVE_SHARE times
   * `playerRoomsCpuMs`, the most expensive player room is slowed at once (without its own 2 s grace), or
   * closed if it already runs slowed. Admin rooms are never shed.
   */
  shedLoad(playerRoomsCpuMs: number): void {
    let used = 0;
    let worst: LiveRoom | null = null;
    for (const room of this.rooms) {
      used += room.budget.lastSecondMs;
      if (!room.trusted && room.started && room.budget.state !== "closed" && (worst === null || room.budget.lastSecondMs > worst.budget.lastSecondMs)) worst = room;
    }
    if (worst === null || used <= playerRoomsCpuMs * SHED_ABOVE_SHARE) return;
    const action = worst.budget.shed();
    if (action !== "none") {
      logger.warn(`process over its room CPU share (${Math.round(used)} ms/s of ${playerRoomsCpuMs}): shedding room ${worst.roomId}`);
      worst.onBudgetAction(action);
    }
  }
}
