import { matchMaker } from "@colyseus/core";

/**
 * Where a new room goes when several processes serve together: the process with the fewest rooms right
 * now. Colyseus' default picks the lowest `roomCount` in its process stats, which each process rewrites
 * at most once a second, so a burst of creations all read the same stale counts and land on one process
 * (200 rooms created through A in a burst: 196 on B, 4 on A). Counted here instead:
 * - live counts: the rooms each process has in the room listing (written when a room is created, not
 *   throttled), read once per selection;
 * - this process's own view of what is still on its way: creations it sent to a process in the last
 *   IN_FLIGHT_MS that the listing cannot show yet.
 * Candidates are the processes in the stats (a process that failed a health check was taken out of
 * them) plus this one. Ties go to this process (no IPC round trip), then to the lowest process id, so
 * every process breaks them the same way.
 */

/** How long a creation sent to a process counts as on its way (a room appears in the listing when its onCreate finished). */
export const IN_FLIGHT_MS = 1000;

export interface ProcessLoad {
  processId: string;
  /** Rooms the listing shows for the process. */
  listed: number;
  /** Creations this process sent there within IN_FLIGHT_MS. */
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
  /** Per process, when this process sent it a creation (oldest first). */
  private readonly sent = new Map<string, number[]>();
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
    const loads: ProcessLoad[] = [];
    for (const processId of candidates) loads.push({ processId, listed: listed.get(processId) ?? 0, inFlight: this.inFlight(processId, t) });
    const chosen = leastLoaded(loads, self);
    let times = this.sent.get(chosen);
    if (times === undefined) this.sent.set(chosen, (times = []));
    times.push(t);
    return chosen;
  };

  private inFlight(processId: string, t: number): number {
    const times = this.sent.get(processId);
    if (times === undefined) return 0;
    let expired = 0;
    while (expired < times.length && t - times[expired] > IN_FLIGHT_MS) expired++;
    if (expired > 0) times.splice(0, expired);
    if (times.length === 0) this.sent.delete(processId);
    return times.length;
  }
}
