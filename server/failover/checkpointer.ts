import { logger } from "@colyseus/core";
import { encodeRoomSnapshot, type RoomSim, type SimInput, type StepResult } from "../../shared/sim/index.ts";
import { CheckpointLost, type CheckpointMeta, type CheckpointStore, type LogEntry, RoomTakenOver } from "./checkpoint-store.ts";

/** How often a room sends its log entry (at most this much simulation is lost with its process), ms. */
export const CHECKPOINT_EVERY_MS = 500;
/**
 * CPU a resume may spend re-running a room's log, ms: a base is due once the ticks since the last one
 * took this long (a room's ticks re-run at about the cost they ran at). Keeps a resumed room within the
 * 5 s it has to be listed again, however heavy the room.
 */
export const RERUN_BUDGET_MS = 400;
/** Least time between two bases, ms (a heavy room's re-run budget fills in under a second). */
export const BASE_MIN_INTERVAL_MS = 5000;
/** Largest log between two bases, bytes of JSON (a room flooded with inputs gets a base sooner). */
export const LOG_MAX_BYTES = 512 * 1024;

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
  private from = 0;
  private hashes: string[] = [];
  private inputs: [number, SimInput[]][] = [];
  private lastSeats = "";
  private lastBaseAt = Number.NEGATIVE_INFINITY;
  private needsBase = true;
  /** Tick CPU and log bytes since the last base. */
  private tickMsSinceBase = 0;
  private logBytes = 0;
  private readonly baseEveryMs: number;
  private writing = false;
  private closed = false;
  /** CPU spent on checkpoints so far, ms (snapshots, encoding, JSON). */
  cpuMs = 0;
  /** Bytes handed to Redis so far. */
  bytes = 0;
  /** Bases and log entries written. */
  bases = 0;
  entries = 0;
  private readonly now: () => number;
  /** Called once if another process has resumed the room (this process was cut off from Redis and declared dead meanwhile). */
  onTakenOver: () => void = () => {};

  constructor(store: CheckpointStore, meta: CheckpointMeta, baseEveryMs: number, now: () => number = Date.now) {
    this.store = store;
    this.meta = meta;
    this.baseEveryMs = baseEveryMs;
    this.now = now;
  }

  /** One tick of the room (after its step), and the ms it took. */
  record(result: StepResult, tickMs: number): void {
    this.tickMsSinceBase += tickMs;
    if (this.hashes.length === 0) this.from = result.tick;
    this.hashes.push(result.hash);
    if (result.applied.length > 0) this.inputs.push([result.tick, result.applied]);
  }

  private baseDue(now: number): boolean {
    const since = now - this.lastBaseAt;
    if (this.needsBase || since >= this.baseEveryMs) return true;
    return since >= BASE_MIN_INTERVAL_MS && (this.tickMsSinceBase >= RERUN_BUDGET_MS || this.logBytes >= LOG_MAX_BYTES);
  }

  /** Sends what happened since the last write (a new base when one is due); `seats` are the room's sessions and tokens. */
  flush(sim: RoomSim, seats: [string, string][]): void {
    if (this.writing || this.closed) return;
    const t0 = performance.now();
    const now = this.now();
    let write: Promise<void>;
    let kind: "base" | "entry";
    if (this.baseDue(now)) {
      const base = encodeRoomSnapshot(sim.snapshot());
      this.hashes = [];
      this.inputs = [];
      this.lastBaseAt = now;
      this.needsBase = false;
      this.tickMsSinceBase = 0;
      this.logBytes = 0;
      this.lastSeats = JSON.stringify(seats);
      this.bytes += base.byteLength;
      this.bases++;
      kind = "base";
      write = this.store.writeBase(this.meta, base, sim.tick, seats);
    } else {
      const seatsText = JSON.stringify(seats);
      if (this.hashes.length === 0 && seatsText === this.lastSeats) {
        this.cpuMs += performance.now() - t0;
        return;
      }
      const entry: LogEntry = { from: this.hashes.length > 0 ? this.from : sim.tick + 1, hashes: this.hashes, inputs: this.inputs, seats };
      this.hashes = [];
      this.inputs = [];
      this.lastSeats = seatsText;
      const text = JSON.stringify(entry);
      this.bytes += text.length;
      this.logBytes += text.length;
      this.entries++;
      kind = "entry";
      write = this.store.append(this.meta.roomId, text);
    }
    this.cpuMs += performance.now() - t0;
    this.writing = true;
    write
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
  }

  /** The room closed: its checkpoint goes (nothing to resume). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.store.remove(this.meta.roomId).catch(() => {});
  }
}
