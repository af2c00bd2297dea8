import type { GameDefinition } from "../../shared/game/define.ts";
import { decodeRoomSnapshot, RoomSim, type StepResult } from "../../shared/sim/index.ts";
import type { Checkpoint } from "./checkpoint-store.ts";

/** Ticks re-run between two turns of the event loop while a room is resumed (other rooms tick in between). */
const TICKS_PER_TURN = 120;

/** A room to be created again under its id on this process: its checkpoint, the game, where it ran. */
export interface ResumePlan {
  checkpoint: Checkpoint;
  game: GameDefinition;
  /** The process that hosted it. */
  from: string;
}

/**
 * Rooms this process is about to create again under their ids. Process-local on purpose: a room's
 * onCreate takes its plan by its own id, which only the server chooses (matchmaking generates ids), so no
 * client option can make a room resume anything.
 */
export class PendingResumes {
  private readonly plans = new Map<string, ResumePlan>();

  put(roomId: string, plan: ResumePlan): void {
    this.plans.set(roomId, plan);
  }

  /** The plan for this room id, once (undefined for a room created the ordinary way). */
  take(roomId: string): ResumePlan | undefined {
    const plan = this.plans.get(roomId);
    this.plans.delete(roomId);
    return plan;
  }
}

/** The checkpoint's log does not reproduce its own hashes: resuming would not continue the same game. */
export class ResumeDivergence extends Error {}

/** The room simulation as it was at the checkpoint's base (queued inputs dropped: the log holds what each tick applied). */
export function restoreBase(checkpoint: Checkpoint, game: GameDefinition): RoomSim {
  const { meta } = checkpoint;
  const snapshot = decodeRoomSnapshot(checkpoint.base);
  if (snapshot.tick !== checkpoint.baseTick) throw new Error(`checkpoint of room ${meta.roomId}: base is tick ${snapshot.tick}, recorded as ${checkpoint.baseTick}`);
  snapshot.pending = [];
  const sim = new RoomSim(snapshot.scenario, { maxBodies: meta.maxBodies, seed: meta.seed }, game);
  sim.restore(snapshot);
  return sim;
}

function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Re-runs the checkpoint's log on `sim` (restored from its base): every tick with its logged inputs,
 * its hash checked against the logged one (ResumeDivergence on the first that differs). `onStep` sees
 * every tick re-run (the room records them in its new replay segment). Answers the seats as of the last
 * entry (sessions and their reconnection tokens).
 */
export async function rerunLog(sim: RoomSim, checkpoint: Checkpoint, onStep: (result: StepResult) => void): Promise<[string, string][]> {
  let seats = checkpoint.seats;
  let sinceTurn = 0;
  for (const entry of checkpoint.log) {
    for (const line of entry.ticks) {
      const tick = line.t;
      if (tick !== sim.tick + 1) throw new ResumeDivergence(`checkpoint log of room ${checkpoint.meta.roomId}: tick ${tick} follows tick ${sim.tick}`);
      for (const input of line.i ?? []) sim.enqueue(input);
      const result = sim.step();
      if (result.hash !== line.h) {
        throw new ResumeDivergence(`checkpoint log of room ${checkpoint.meta.roomId}: tick ${tick} re-ran to hash ${result.hash}, logged ${line.h}`);
      }
      onStep(result);
      if (++sinceTurn >= TICKS_PER_TURN) {
        sinceTurn = 0;
        await nextTurn();
      }
    }
    seats = entry.seats;
  }
  return seats;
}
