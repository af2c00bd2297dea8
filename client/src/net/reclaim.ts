import type { Client } from "@colyseus/sdk";

/** Pause before the second attempt, ms; it grows by half after every failure up to RECLAIM_MAX_INTERVAL_MS (each attempt counts against the server's per-address seat-reservation limit: 60 a minute, bursts of 20). */
export const RECLAIM_INTERVAL_MS = 500;
export const RECLAIM_MAX_INTERVAL_MS = 1000;
/** The matchmaker's answer when the room runs but holds no seat for this token (Colyseus ErrorCode.MATCHMAKE_EXPIRED): asking again cannot help. */
const SEAT_GONE = 524;
/** Attempts in flight at once. */
const MAX_IN_FLIGHT = 3;
/**
 * How long a seat is worth asking for after the connection dropped, ms: the server holds a dropped seat
 * for its RECONNECT_SECONDS (10 s by default), and when the room's process died, a surviving process
 * resumes the room within a few seconds and holds its players' seats for at least 20 s from then.
 */
export const RECLAIM_WITHIN_MS = 25_000;

export interface ReclaimOptions {
  /** Give up after this long, ms (default RECLAIM_WITHIN_MS). */
  withinMs?: number;
  /** First pause between attempts, ms (default RECLAIM_INTERVAL_MS; grows by half up to RECLAIM_MAX_INTERVAL_MS). */
  intervalMs?: number;
  /** Stop early (the player left meanwhile). */
  stopped?: () => boolean;
  /** Told the error of every failed attempt. */
  onAttempt?: (error: Error) => void;
}

/**
 * Gets a dropped session back into its room with its reconnection token (`room.reconnectionToken`, which
 * names the room), through the matchmaker's HTTP route rather than the old socket's address: the
 * matchmaker finds the room wherever it runs now. That is what survives the room's process dying: the
 * SDK's own automatic reconnection (room.reconnection) reopens the dead process's address and keeps
 * failing, while a surviving process has resumed the room under the same id and holds the seat for this
 * token. Same session, same avatar; the answer is a new Room object (re-attach listeners to it).
 * Resolves with the room, or rejects with the last error once `withinMs` has passed, or at once when the
 * room answers that it holds no seat for this token. Attempts start every 0.5-1 s and may overlap.
 */
export function reclaimSeat<R>(client: Client, token: string, rootSchema: unknown, options: ReclaimOptions = {}): Promise<R> {
  const until = Date.now() + (options.withinMs ?? RECLAIM_WITHIN_MS);
  let interval = options.intervalMs ?? RECLAIM_INTERVAL_MS;
  return new Promise<R>((resolve, reject) => {
    let settled = false;
    let inFlight = 0;
    let lastError: Error = new Error("no attempt made");
    const finish = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    // Attempts overlap (at most MAX_IN_FLIGHT): while the old process is still listed, the matchmaker
    // waits 2 s for it before an attempt fails, and the room may be listed again meanwhile.
    const attempt = () => {
      if (settled) return;
      if (options.stopped?.()) return finish(new Error("stopped"));
      if (Date.now() >= until) {
        if (inFlight === 0) finish(lastError);
        else setTimeout(attempt, interval);
        return;
      }
      if (inFlight < MAX_IN_FLIGHT) {
        inFlight++;
        client.reconnect(token, rootSchema as never).then(
          (room) => {
            inFlight--;
            // Only one attempt can get the seat: the server consumes it on the first connection.
            if (!settled) {
              settled = true;
              resolve(room as unknown as R);
            }
          },
          (err: Error) => {
            inFlight--;
            lastError = err;
            options.onAttempt?.(err);
            if ((err as { code?: number }).code === SEAT_GONE) finish(err);
          },
        );
      }
      setTimeout(attempt, interval);
      interval = Math.min(RECLAIM_MAX_INTERVAL_MS, interval * 1.5);
    };
    attempt();
  });
}
