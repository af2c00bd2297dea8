import { AsyncLocalStorage } from "node:async_hooks";
import { matchMaker } from "@colyseus/core";

/**
 * Where a new room goes when several processes serve together: the process with the fewest rooms right
 * now. Colyseus' default picks the lowest `roomCount` in its process stats, which each process rewrites
 * at most once a second, so a burst of creations all read the same stale counts and land on one process
 * (200 rooms created through A in a burst: 196 on B, 4 on A). Counted here instead:
 * - live counts: the rooms each process has in the room listing (written when a room is created, not
 *   throttled), read once per selection;
 * - this process's own view of what is still on its way: creations it sent to a process that have not
 *   finished yet. Our routes run their room creations inside `placingRooms`, which marks the creations
 *   chosen during the call finished when it settles (a room is listed by then, or already gone: counting
 *   it longer would count a room twice, or one that no longer exists). A creation chosen outside such a
 *   call counts for UNTRACKED_IN_FLIGHT_MS.
 * Candidates are the processes in the stats (a process that failed a health check was taken out of
 * them) plus this one. Ties go to this process (no IPC round trip), then to the lowest process id, so
 * every process breaks them the same way.
 */

/** How long a creation chosen outside `placingRooms` counts as on its way, ms. */
export const UNTRACKED_IN_FLIGHT_MS = 1000;
/** A tracked creation counts at most this long, however long its call takes, ms. */
const TRACKED_IN_FLIGHT_MAX_MS = 30_000;

/** One creation this process sent to a process. */
interface Dispatch {
  processId: string;
  at: number;
  /** Chosen inside `placingRooms` (it ends when that call settles). */
  tracked: boolean;
  finished: boolean;
}

/** The dispatches chosen within the current `placingRooms` call. */
const creationScope = new AsyncLocalStorage<Dispatch[]>();

/** Runs `create` (a call that may create rooms); the creations it chose stop counting as on their way when it settles. */
export async function placingRooms<T>(create: () => Promise<T>): Promise<T> {
  const mine: Dispatch[] = [];
  try {
    return await creationScope.run(mine, create);
  } finally {
    for (const d of mine) d.finished = true;
  }
}

export interface ProcessLoad {
  processId: string;
  /** Rooms the listing shows for the process. */
  listed: number;
  /** Creations this process sent there that have not finished. */
  inFlight: number;
}

/** The process to create the next room on, from the candidates' loads (pure: unit-tested). */
export function leastLoaded(loads: readonly ProcessLoad[], self: string): string {
  let best: ProcessLoad | null = null;
  for (const l of loads) {
    if (best === null) {
      best = l;
      continue;
    }
    const a = l.listed + l.inFlight;
    const b = best.listed + best.inFlight;
    if (a < b || (a === b && (l.processId === self || (best.processId !== self && l.processId < best.processId)))) best = l;
  }
  return best?.processId ?? self;
}

export class RoomPlacement {
  /** Creations sent out and maybe still on their way, oldest first. */
  private readonly sent: Dispatch[] = [];
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** Colyseus' `selectProcessIdToCreateRoom`. */
  readonly select = async (): Promise<string> => {
    const self = matchMaker.processId;
    const [stats, listings] = await Promise.all([matchMaker.stats.fetchAll(), matchMaker.driver.query({})]);
    const listed = new Map<string, number>();
    for (const l of listings) listed.set(l.processId, (listed.get(l.processId) ?? 0) + 1);
    const candidates = new Set(stats.map((s) => s.processId));
    candidates.add(self);
    const t = this.now();
    const inFlight = this.inFlight(t);
    const loads: ProcessLoad[] = [];
    for (const processId of candidates) loads.push({ processId, listed: listed.get(processId) ?? 0, inFlight: inFlight.get(processId) ?? 0 });
    const chosen = leastLoaded(loads, self);
    const scope = creationScope.getStore();
    const dispatch: Dispatch = { processId: chosen, at: t, tracked: scope !== undefined, finished: false };
    this.sent.push(dispatch);
    scope?.push(dispatch);
    return chosen;
  };

  /** Per process, the creations still on their way at `t` (finished and expired ones are forgotten). */
  private inFlight(t: number): Map<string, number> {
    const counts = new Map<string, number>();
    let kept = 0;
    for (const d of this.sent) {
      const limit = d.tracked ? TRACKED_IN_FLIGHT_MAX_MS : UNTRACKED_IN_FLIGHT_MS;
      if (d.finished || t - d.at > limit) continue;
      this.sent[kept++] = d;
      counts.set(d.processId, (counts.get(d.processId) ?? 0) + 1);
    }
    this.sent.length = kept;
    return counts;
  }
}
