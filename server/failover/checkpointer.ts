import { logger } from "@colyseus/core";
import { encodeRoomSnapshot, type RoomSim } from "../../shared/sim/index.ts";
import type { BaseEncoder } from "./base-encoder.ts";
import { AppendBatch, CheckpointLost, type CheckpointMeta, type CheckpointStore, RoomTakenOver } from "./checkpoint-store.ts";

/** How often a room sends its log entry (at most this much simulation is lost with its process), ms. */
export const CHECKPOINT_EVERY_MS = 500;
/**
 * CPU a resume may spend re-running a room's log, ms: a base is due once the ticks since the last one
 * took this long (a room's ticks re-run at about the cost they ran at). Keeps a resumed room within the
 * 5 s it has to be listed again, however heavy the room.
 */
export const RERUN_BUDGET_MS = 600;
/** Least time between two bases, ms (a heavy room's re-run budget fills in under a second). */
export const BASE_MIN_INTERVAL_MS = 5000;
/** Largest log between two bases, bytes of JSON (a room flooded with inputs gets a base sooner). */
export const LOG_MAX_BYTES = 512 * 1024;
/**
 * Bases the process takes per flush round at most (each is a snapshot on the rooms' thread): a burst of
 * new rooms gets its first bases over a few rounds instead of stalling every room's ticks in one.
 */
export const BASES_PER_ROUND = 4;

/**
 * One room's checkpoints (checkpoint-store.ts): the room hands it every tick's result and what the tick
 * cost; every CHECKPOINT_EVERY_MS the room calls `flush`, which sends the ticks since the last entry, or
 * a new base instead when one is due: when re-running the log would cost more than RERUN_BUDGET_MS, when
 * the log passes LOG_MAX_BYTES, and at least every `baseEveryMs`. A base is what checkpoints cost (an
 * arena room's: ~250 KB, 1-5 ms to snapshot and encode), an entry a few hundred bytes. One write is in
 * flight at a time, so Redis sees them in order; a failed write leaves a gap in the log, so the next
 * flush writes a base. The CPU this costs the room (snapshot, encoding, JSON) is counted in `cpuMs`; the
 * Redis round trips are not the room's (asynchronous).
 */
export class RoomCheckpointer {
  private readonly store: CheckpointStore;
  readonly meta: CheckpointMeta;
  /** Replay lines of the ticks since the last write (the room's own, tickLineJson: nothing is serialised twice). */
  private lines: string[] = [];
  private lastSeats = "";
  private lastBaseAt = Number.NEGATIVE_INFINITY;
  private needsBase = true;
  /** Tick CPU and log bytes since the last base. */
  private tickMsSinceBase = 0;
  private logBytes = 0;
  private readonly baseEveryMs: number;
  private writing = false;
  /** The write in flight (close waits for it: a base landing after the removal would bring a closed room back). */
  private inflight: Promise<void> | null = null;
  private closed = false;
  /** CPU spent on checkpoints so far, ms (snapshots, encoding, JSON), and the part of it spent on bases. */
  cpuMs = 0;
  baseMs = 0;
  /** Time the base encoder's worker thread spent on this room's bases, ms (not on the rooms' thread). */
  workerMs = 0;
  /** Bytes handed to Redis so far. */
  bytes = 0;
  /** Bases and log entries written. */
  bases = 0;
  entries = 0;
  /** Tick of the last base Redis acknowledged (undefined until the first: the room cannot be resumed before). */
  acknowledgedBaseTick: number | undefined = undefined;
  private readonly now: () => number;
  /** Called once if another process has resumed the room (this process was cut off from Redis and declared dead meanwhile). */
  onTakenOver: () => void = () => {};

  private readonly encoder: BaseEncoder | null;

  constructor(store: CheckpointStore, meta: CheckpointMeta, baseEveryMs: number, encoder: BaseEncoder | null = null, now: () => number = Date.now) {
    this.store = store;
    this.encoder = encoder;
    this.meta = meta;
    this.baseEveryMs = baseEveryMs;
    this.now = now;
  }

  /** One tick of the room (after its step): its replay line, and the ms the step took. */
  record(line: string, tickMs: number): void {
    this.tickMsSinceBase += tickMs;
    this.lines.push(line);
  }

  private baseDue(now: number): boolean {
    const since = now - this.lastBaseAt;
    if (this.needsBase || since >= this.baseEveryMs) return true;
    return since >= BASE_MIN_INTERVAL_MS && (this.tickMsSinceBase >= RERUN_BUDGET_MS || this.logBytes >= LOG_MAX_BYTES);
  }

  /**
   * Sends what happened since the last write (a new base when one is due); `seats` are the room's
   * sessions and tokens. A log entry goes into `batch` when one is given (CheckpointFlusher sends every
   * room's at once), else straight to the store.
   */
  flush(sim: RoomSim, seats: [string, string][], batch?: AppendBatch, allowance?: { bases: number }): boolean {
    if (this.writing || this.closed) return false;
    const t0 = performance.now();
    const now = this.now();
    let write: Promise<void>;
    let kind: "base" | "entry";
    const baseDue = this.baseDue(now);
    // A base due but not allowed this round: an entry meanwhile if the log can take one, else nothing.
    if (baseDue && allowance !== undefined && allowance.bases <= 0 && this.needsBase) return false;
    if (baseDue && (allowance === undefined || allowance.bases-- > 0)) {
      // The snapshot is taken now, between ticks; ticks recorded while it is encoded go into the next entry.
      const snapshot = sim.snapshot();
      const tick = sim.tick;
      this.lines = [];
      this.lastBaseAt = now;
      this.needsBase = false;
      this.tickMsSinceBase = 0;
      this.logBytes = 0;
      this.lastSeats = JSON.stringify(seats);
      this.bases++;
      kind = "base";
      const encoded = this.encoder ? this.encoder.encode(snapshot) : Promise.resolve({ bytes: encodeRoomSnapshot(snapshot), workerMs: 0 });
      write = encoded.then((base) => {
        this.bytes += base.bytes.byteLength;
        this.workerMs += base.workerMs;
        return this.store.writeBase(this.meta, base.bytes, tick, seats).then(() => {
          this.acknowledgedBaseTick = tick;
        });
      });
      this.baseMs += performance.now() - t0;
    } else {
      const seatsText = JSON.stringify(seats);
      if (this.lines.length === 0 && seatsText === this.lastSeats) {
        this.cpuMs += performance.now() - t0;
        return false;
      }
      // A LogEntry (checkpoint-store.ts), written around the lines the room already serialised.
      const text = `{"ticks":[${this.lines.join(",")}],"seats":${seatsText}}`;
      this.lines = [];
      this.lastSeats = seatsText;
      this.bytes += text.length;
      this.logBytes += text.length;
      this.entries++;
      kind = "entry";
      write = batch ? batch.append(this.meta.roomId, text) : this.store.append(this.meta.roomId, text);
    }
    this.cpuMs += performance.now() - t0;
    this.writing = true;
    this.inflight = write
      .catch((err: Error) => {
        if (err instanceof RoomTakenOver) {
          this.closed = true;
          this.onTakenOver();
          return;
        }
        // The log now has a gap (or Redis lost the base): the next flush starts again from a base.
        this.needsBase = true;
        if (err instanceof CheckpointLost) return;
        logger.warn({ roomId: this.meta.roomId, kind, cause: err.message }, "room checkpoint not written");
      })
      .finally(() => {
        this.writing = false;
      });
    return kind === "entry" && batch !== undefined;
  }

  /** Adds CPU spent for this room elsewhere (its share of a batch's send), ms. */
  charge(ms: number): void {
    this.cpuMs += ms;
  }

  /** The room closed: its checkpoint goes (nothing to resume), after the write in flight has landed. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.inflight;
    await this.store.remove(this.meta.roomId).catch(() => {});
  }
}

/** A room as the flusher sees it: its checkpointer, its simulation now, its seats now. */
export interface CheckpointSource {
  readonly checkpointer: RoomCheckpointer;
  readonly sim: RoomSim;
  seats(): [string, string][];
}

/**
 * Flushes every room's checkpoint of the process at once, every CHECKPOINT_EVERY_MS: their log entries
 * go to Redis in one pipeline (one socket write for all rooms instead of one command and one write per
 * room and flush: that fixed cost was most of what checkpoints cost at 40 rooms). Bases are written by
 * each room as they fall due. The pipeline's send time is charged to the rooms in it, evenly.
 */
export class CheckpointFlusher {
  private readonly store: CheckpointStore;
  private readonly rooms = new Set<CheckpointSource>();
  private timer: ReturnType<typeof setInterval> | null = null;

  constructor(store: CheckpointStore) {
    this.store = store;
  }

  add(room: CheckpointSource): void {
    this.rooms.add(room);
    if (this.timer === null) {
      this.timer = setInterval(() => this.flushAll(), CHECKPOINT_EVERY_MS);
      this.timer.unref();
    }
  }

  delete(room: CheckpointSource): void {
    this.rooms.delete(room);
    if (this.rooms.size === 0 && this.timer !== null) {
      clearInterval(this.timer);
      this.timer = null;
    }
  }

  /** One round: every room's flush (at most BASES_PER_ROUND bases), then the batch of their entries in one pipeline. */
  flushAll(): void {
    const batch = new AppendBatch();
    const inBatch: RoomCheckpointer[] = [];
    const allowance = { bases: BASES_PER_ROUND };
    for (const room of this.rooms) {
      if (room.checkpointer.flush(room.sim, room.seats(), batch, allowance)) inBatch.push(room.checkpointer);
    }
    if (inBatch.length === 0) return;
    const t0 = performance.now();
    this.store.send(batch);
    const share = (performance.now() - t0) / inBatch.length;
    for (const checkpointer of inBatch) checkpointer.charge(share);
  }

  stop(): void {
    this.rooms.clear();
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
  }
}
