import { isIPv6 } from "node:net";

/**
 * Admission control per client address: how fast one address may create rooms and reserve seats, and
 * how many reserved seats it may hold unused. Together with the player-room share of MAX_ROOMS this
 * keeps one anonymous address from filling the process with rooms or locking rooms with seats it never
 * takes. Refusals are logged at info, once per address per interval, with the count of the rest.
 */
export interface AdmissionLimits {
  /** ROOM_CREATIONS_PER_MINUTE: player rooms one address may create per minute (burst: a fifth of it, at least 3). */
  roomCreationsPerMinute: number;
  /** SEAT_RESERVATIONS_PER_MINUTE: matchmaking seats one address may reserve per minute (burst: a third of it). */
  seatReservationsPerMinute: number;
  /**
   * PENDING_SEATS_PER_ADDRESS: reserved seats one address may hold before it connects to them; half of
   * that (at least 1) in any one room, so a household behind one address joins together but one address
   * never holds enough of a small room's seats to lock it.
   */
  pendingSeatsPerAddress: number;
  /** SEAT_RESERVATION_SECONDS: a reserved seat not connected to within this long is released. */
  seatReservationSeconds: number;
  /** ADMIN_ROOM_RESERVE: rooms of MAX_ROOMS that only the admin API may create. */
  adminRoomReserve: number;
  /** REFUSAL_LOG_SECONDS: refusals of one address are logged at most once per this interval. */
  refusalLogSeconds: number;
}

export interface AdmissionLog {
  info(obj: object, msg: string): void;
}

/** Rooms this process hosts, by who created them (counted by whoever keeps the rooms). */
export type RoomCounts = () => { player: number; admin: number };

interface Bucket {
  tokens: number;
  at: number;
}

interface Refusals {
  loggedAt: number;
  suppressed: number;
}

/**
 * Addresses tracked per table at most. The tables are kept in least-recently-used order (a key touched
 * moves to the end), so making room forgets the address idle the longest, in O(1): an attacker cycling
 * through many /64s forgets mostly its own keys, never the ones in use right now.
 */
const MAX_TRACKED_ADDRESSES = 50_000;
/** Refusal lines logged per second by the whole process at most, whatever the number of addresses. */
const REFUSAL_LOG_LINES_PER_SECOND = 5;

/** `map.get(key)`, moving the entry to the most recently used end. */
function touch<V>(map: Map<string, V>, key: string): V | undefined {
  const value = map.get(key);
  if (value !== undefined) {
    map.delete(key);
    map.set(key, value);
  }
  return value;
}

/** Adds `key` as the most recently used entry, forgetting the least recently used one when full. */
function insert<V>(map: Map<string, V>, key: string, value: V): V {
  if (map.size >= MAX_TRACKED_ADDRESSES) {
    const oldest = map.keys().next().value;
    if (oldest !== undefined) map.delete(oldest);
  }
  map.set(key, value);
  return value;
}

/** The key of a client address: IPv4 as is, IPv6 by its /64 (one subscriber's whole prefix). */
export function addressKey(ip: string): string {
  const v4 = ip.startsWith("::ffff:") && ip.includes(".") ? ip.slice(7) : ip;
  if (!isIPv6(v4)) return v4;
  const groups = expandIPv6(v4);
  return `${groups.slice(0, 4).join(":")}::/64`;
}

function expandIPv6(ip: string): string[] {
  const [head, tail = ""] = ip.split("::");
  const h = head === "" ? [] : head.split(":");
  const t = tail === "" ? [] : tail.split(":");
  const missing = ip.includes("::") ? 8 - h.length - t.length : 0;
  return [...h, ...Array<string>(Math.max(0, missing)).fill("0"), ...t].map((g) => g.toLowerCase().replace(/^0+(?=.)/, ""));
}

class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly perMinute: number;
  private readonly burst: number;
  constructor(perMinute: number, burst: number) {
    this.perMinute = perMinute;
    this.burst = burst;
  }

  take(key: string, now: number): boolean {
    const bucket = touch(this.buckets, key) ?? insert(this.buckets, key, { tokens: this.burst, at: now });
    bucket.tokens = Math.min(this.burst, bucket.tokens + ((now - bucket.at) * this.perMinute) / 60_000);
    bucket.at = now;
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Seconds until `key` has a token again. */
  retryAfter(key: string): number {
    const bucket = this.buckets.get(key);
    if (!bucket) return 0;
    return Math.max(1, Math.ceil(((1 - bucket.tokens) * 60) / this.perMinute));
  }
}

/** Presence channel on which rooms announce the sessions that connected to their reserved seats. */
export const SEAT_USED_CHANNEL = "physics:seat-used";

export type AdmissionVerdict = { ok: true } | { ok: false; status: 400 | 429 | 503; message: string; retryAfterSeconds: number };

const OK: AdmissionVerdict = Object.freeze({ ok: true });

export class Admission {
  readonly limits: AdmissionLimits;
  private readonly log: AdmissionLog;
  private readonly creations: RateLimiter;
  private readonly seats: RateLimiter;
  /** Unused seat reservations: sessionId → [address, room, expiry ms]. */
  private readonly pending = new Map<string, [string, string, number]>();
  private readonly pendingPerAddress = new Map<string, number>();
  /** The same, per address and room (`address|roomId`). */
  private readonly pendingPerRoom = new Map<string, number>();
  private readonly refusals = new Map<string, Refusals>();
  private readonly rooms: RoomCounts;
  /** Refusals by reason, for /metrics. */
  readonly refusedTotal = new Map<string, number>();
  private logWindowStart = 0;
  private logLinesInWindow = 0;
  /** Refusals not logged since the last logged line (per-address interval or the process-wide budget). */
  private suppressedProcessWide = 0;

  constructor(limits: AdmissionLimits, log: AdmissionLog, rooms: RoomCounts) {
    this.limits = limits;
    this.log = log;
    this.rooms = rooms;
    this.creations = new RateLimiter(limits.roomCreationsPerMinute, Math.max(3, Math.floor(limits.roomCreationsPerMinute / 5)));
    this.seats = new RateLimiter(limits.seatReservationsPerMinute, Math.max(3, Math.floor(limits.seatReservationsPerMinute / 3)));
  }

  /** May `address` create a room now (taken before the request body is parsed)? */
  chargeCreation(address: string, now = Date.now()): AdmissionVerdict {
    if (!this.creations.take(address, now)) {
      return this.refuse(address, "create-rate", 429, `too many rooms created from this address (at most ${this.limits.roomCreationsPerMinute} per minute)`, this.creations.retryAfter(address), now);
    }
    return OK;
  }

  /** May `address` reserve one more seat now (in `roomId`, when the request names it)? Takes a token when it may. */
  reserveSeat(address: string, now = Date.now(), roomId?: string): AdmissionVerdict {
    this.expireSeats(now);
    const perRoom = Math.max(1, Math.floor(this.limits.pendingSeatsPerAddress / 2));
    if (roomId !== undefined && (this.pendingPerRoom.get(`${address}|${roomId}`) ?? 0) >= perRoom) {
      return this.refuse(address, "pending-seats", 429, `too many reserved seats not yet connected from this address in this room (at most ${perRoom})`, this.limits.seatReservationSeconds, now);
    }
    const held = this.pendingPerAddress.get(address) ?? 0;
    if (held >= this.limits.pendingSeatsPerAddress) {
      return this.refuse(address, "pending-seats", 429, `too many reserved seats not yet connected from this address (at most ${this.limits.pendingSeatsPerAddress})`, this.limits.seatReservationSeconds, now);
    }
    if (!this.seats.take(address, now)) {
      return this.refuse(address, "seat-rate", 429, `too many seat reservations from this address (at most ${this.limits.seatReservationsPerMinute} per minute)`, this.seats.retryAfter(address), now);
    }
    return OK;
  }

  /**
   * May `address` create a player room now? Takes a creation from its allowance when it may (unless
   * `charge` is false: the matchmaking route took it before parsing the request). `maxRooms` is MAX_ROOMS.
   */
  createPlayerRoom(address: string, maxRooms: number, now = Date.now(), charge = true): AdmissionVerdict {
    const playerMax = Math.max(0, maxRooms - this.limits.adminRoomReserve);
    const { player, admin } = this.rooms();
    if (player + admin >= maxRooms || player >= playerMax) {
      return this.refuse(address, "rooms-full", 503, `server full: this process hosts at most ${playerMax} player-created rooms`, 10, now);
    }
    return charge ? this.chargeCreation(address, now) : OK;
  }

  /** May the admin API create a room? Admin rooms may use the whole of MAX_ROOMS. */
  createAdminRoom(maxRooms: number): AdmissionVerdict {
    const { player, admin } = this.rooms();
    if (player + admin >= maxRooms) {
      return { ok: false, status: 503, message: `server full: this process already hosts ${maxRooms} rooms`, retryAfterSeconds: 10 };
    }
    return OK;
  }

  /** Counts and logs a refusal decided elsewhere (the scenario, the CPU probe, the process CPU share). */
  refuseFor(address: string, reason: string, message: string): void {
    this.refuse(address, reason, 400, message, 0, Date.now());
  }

  /** A seat in `roomId` was handed out to `address` for `sessionId`. */
  seatReserved(address: string, sessionId: string, roomId: string, now = Date.now()): void {
    if (this.pending.has(sessionId)) return;
    this.pending.set(sessionId, [address, roomId, now + this.limits.seatReservationSeconds * 1000]);
    increment(this.pendingPerAddress, address, 1);
    increment(this.pendingPerRoom, `${address}|${roomId}`, 1);
  }

  /** Seats reserved and not yet connected to, now. */
  pendingSeats(now = Date.now()): number {
    this.expireSeats(now);
    return this.pending.size;
  }

  /**
   * The client holding `sessionId` connected (or the seat went away). The room announces it on
   * SEAT_USED_CHANNEL: the process that reserved the seat (served the HTTP request) may not be the one
   * hosting the room.
   */
  seatUsed(sessionId: string): void {
    const entry = this.pending.get(sessionId);
    if (!entry) return;
    this.pending.delete(sessionId);
    this.release(entry[0], entry[1]);
  }

  private release(address: string, roomId: string): void {
    increment(this.pendingPerAddress, address, -1);
    increment(this.pendingPerRoom, `${address}|${roomId}`, -1);
  }

  private expireSeats(now: number): void {
    // Map order is insertion order and every seat lives equally long: expired ones are at the front.
    for (const [sessionId, [address, roomId, expires]] of this.pending) {
      if (expires > now) break;
      this.pending.delete(sessionId);
      this.release(address, roomId);
    }
  }

  private refuse(address: string, reason: string, status: 400 | 429 | 503, message: string, retryAfterSeconds: number, now: number): AdmissionVerdict {
    this.refusedTotal.set(reason, (this.refusedTotal.get(reason) ?? 0) + 1);
    const r = touch(this.refusals, address) ?? insert(this.refusals, address, { loggedAt: Number.NEGATIVE_INFINITY, suppressed: 0 });
    if (now - this.logWindowStart >= 1000) {
      this.logWindowStart = now;
      this.logLinesInWindow = 0;
    }
    if (now - r.loggedAt >= this.limits.refusalLogSeconds * 1000 && this.logLinesInWindow < REFUSAL_LOG_LINES_PER_SECOND) {
      this.logLinesInWindow++;
      this.log.info(
        { address, reason, suppressedSinceLast: r.suppressed, suppressedProcessWide: this.suppressedProcessWide },
        `admission refused: ${message}`,
      );
      r.loggedAt = now;
      r.suppressed = 0;
      this.suppressedProcessWide = 0;
    } else {
      r.suppressed++;
      this.suppressedProcessWide++;
    }
    return { ok: false, status, message, retryAfterSeconds };
  }
}

/** Adds `by` to a count, forgetting it at zero. */
function increment(counts: Map<string, number>, key: string, by: number): void {
  const n = (counts.get(key) ?? 0) + by;
  if (n <= 0) counts.delete(key);
  else counts.set(key, n);
}
