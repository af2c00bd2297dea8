/**
 * Admin changes to a room that arrive late or twice. An admin call to a room on another process waits
 * REMOTE_TIMEOUT_MS and then answers 503; the call itself sits in Redis pub/sub and a paused process
 * applies it when it resumes, seconds later, after the operator was told it failed and may have retried
 * (a scenario loaded twice). So every change carries a command envelope:
 * - `requestId`: the caller's `Idempotency-Key` header (IETF draft "The Idempotency-Key HTTP Header
 *   Field"), else a fresh id. A room answers a request id it already applied with the first answer,
 *   without applying it again, for COMMAND_MEMORY_MS (at most COMMAND_MEMORY_SIZE ids per room).
 * - `deadline`: wall-clock ms after which the caller has stopped waiting. A room that receives a command
 *   after its deadline does not apply it (the caller answered 503 "not applied"). Processes compare their
 *   clocks here: on one machine they agree; across machines NTP keeps them within milliseconds, far
 *   below the 2 s timeout.
 */

/** Idempotency-Key: what a caller may send (long enough for a UUID with a prefix, short enough to log). */
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9._:-]{1,128}$/;
/** How long a room remembers a request id it applied, ms. */
export const COMMAND_MEMORY_MS = 10 * 60_000;
/** Most request ids a room remembers (oldest forgotten first). */
export const COMMAND_MEMORY_SIZE = 256;

export interface AdminCommand {
  requestId: string;
  /** Wall-clock ms (Date.now()) after which the command must not be applied. */
  deadline: number;
}

/** What a room remembers of a command it ran: its answer, and when. */
interface Remembered<A> {
  answer: A;
  at: number;
}

/** The request ids one room applied, with their answers (insertion order is age order). */
export class AppliedCommands<A> {
  private readonly seen = new Map<string, Remembered<A>>();
  private readonly now: () => number;

  constructor(now: () => number = Date.now) {
    this.now = now;
  }

  /** The answer given to `requestId` if it was applied within COMMAND_MEMORY_MS. */
  answerOf(requestId: string): A | undefined {
    this.forgetOld();
    return this.seen.get(requestId)?.answer;
  }

  remember(requestId: string, answer: A): void {
    this.forgetOld();
    this.seen.set(requestId, { answer, at: this.now() });
    while (this.seen.size > COMMAND_MEMORY_SIZE) this.seen.delete(this.seen.keys().next().value as string);
  }

  private forgetOld(): void {
    const t = this.now();
    for (const [id, r] of this.seen) {
      if (t - r.at <= COMMAND_MEMORY_MS) break;
      this.seen.delete(id);
    }
  }
}

/** What `applyOnce` answers besides the command's own answer. */
export type CommandOutcome<A> = { answer: A; replayed: boolean } | { late: number };

/**
 * Runs `run` for `command` at most once: an id seen before gets the first answer (the same promise while
 * the first run is still going), a command past its deadline is not run. No envelope: always run (reads).
 */
export async function applyOnce<A>(applied: AppliedCommands<Promise<A>>, command: AdminCommand | undefined, run: () => Promise<A>): Promise<CommandOutcome<A>> {
  if (command === undefined) return { answer: await run(), replayed: false };
  const earlier = applied.answerOf(command.requestId);
  if (earlier !== undefined) return { answer: await earlier, replayed: true };
  const late = Date.now() - command.deadline;
  if (late > 0) return { late };
  const answer = run();
  applied.remember(command.requestId, answer);
  return { answer: await answer, replayed: false };
}
