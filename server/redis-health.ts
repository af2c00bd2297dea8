import type { EventEmitter } from "node:events";

/**
 * Whether the Redis connections matchmaking depends on (presence pub and sub, the room-listing driver)
 * are up, and a log an operator can read through an outage.
 *
 * ioredis reports a lost connection as an "error" event per reconnection attempt; with no listener it
 * prints each one with its stack to stderr (not JSON, dozens a second). Here the first failure of an
 * outage is one structured warning with the cause, the outage is summarised every `summaryEveryMs`, and
 * its end is one info line with how long it lasted. `/ready` answers 503 with the cause meanwhile, so a
 * load balancer stops sending players to a process that cannot matchmake.
 */

/** What this needs of pino. */
export interface HealthLog {
  warn(obj: object, msg: string): void;
  info(obj: object, msg: string): void;
}

interface Outage {
  since: number;
  cause: string;
  errors: number;
}

export class RedisHealth {
  private readonly down = new Map<string, Outage>();
  private readonly recoveredListeners: Array<() => Promise<void> | void> = [];
  private lastSummary = 0;
  private stopped = false;

  private readonly log: HealthLog;
  private readonly summaryEveryMs: number;
  private readonly now: () => number;

  constructor(log: HealthLog, summaryEveryMs = 10_000, now: () => number = Date.now) {
    this.log = log;
    this.summaryEveryMs = summaryEveryMs;
    this.now = now;
  }

  /** Follows one connection's events under `name` ("presence", "presence-sub", "driver"). */
  watch(name: string, connection: EventEmitter): void {
    connection.on("error", (err: Error & { code?: string }) => this.failed(name, causeOf(err)));
    // A close without an error (the server went away cleanly, or a restart): down until "ready".
    connection.on("close", () => this.failed(name, "connection closed"));
    connection.on("ready", () => this.recovered(name));
  }

  /** True while every watched connection is up. */
  get healthy(): boolean {
    return this.stopped || this.down.size === 0;
  }

  /** Why matchmaking cannot work now ("" when it can): the first connection down and its cause. */
  get problem(): string {
    for (const [name, o] of this.down) return `redis unreachable (${name}: ${o.cause})`;
    return "";
  }

  /** Runs `fn` each time the last connection down comes back (an outage ended). */
  onRecovered(fn: () => Promise<void> | void): void {
    this.recoveredListeners.push(fn);
  }

  /** Shutting down: connections closed on purpose are not an outage. */
  stop(): void {
    this.stopped = true;
  }

  private failed(name: string, cause: string): void {
    if (this.stopped) return;
    const t = this.now();
    const outage = this.down.get(name);
    if (!outage) {
      this.down.set(name, { since: t, cause, errors: 1 });
      this.log.warn({ redis: name, cause }, "redis unreachable: matchmaking waits for it (joins and listings fail meanwhile)");
      return;
    }
    outage.errors++;
    // A reconnection attempt's error says more than the close that follows it.
    if (cause !== "connection closed") outage.cause = cause;
    if (t - outage.since >= this.summaryEveryMs && t - this.lastSummary >= this.summaryEveryMs) {
      this.lastSummary = t;
      this.log.warn({ redis: name, cause: outage.cause, downMs: t - outage.since, failures: outage.errors }, "redis still unreachable");
    }
  }

  private recovered(name: string): void {
    const outage = this.down.get(name);
    if (!outage) return; // the first connection at start
    this.down.delete(name);
    if (this.stopped) return;
    this.log.info({ redis: name, downMs: this.now() - outage.since, failures: outage.errors }, "redis reachable again");
    if (this.down.size > 0) return;
    for (const fn of this.recoveredListeners) {
      Promise.resolve()
        .then(fn)
        .catch((err: Error) => this.log.warn({ cause: err.message }, "after the redis outage: restoring this process's records failed"));
    }
  }
}

/** An ioredis error as one line: its code and message, never its stack. */
function causeOf(err: Error & { code?: string }): string {
  const message = (err.message ?? String(err)).split("\n")[0]!.slice(0, 200);
  return err.code && !message.includes(err.code) ? `${err.code}: ${message}` : message;
}

/**
 * True for the errors ioredis rejects a command with while Redis cannot be reached (the connection is
 * down, or the command waited through its reconnection attempts).
 */
export function isRedisOutageError(err: unknown): boolean {
  if (!(err instanceof Error)) return false;
  if (err.name === "MaxRetriesPerRequestError") return true;
  return /Connection is closed|Stream isn't writeable|ECONNREFUSED|ECONNRESET|ETIMEDOUT|EHOSTUNREACH/.test(err.message);
}
