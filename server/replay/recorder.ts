import { createWriteStream, existsSync, mkdirSync, renameSync, type WriteStream } from "node:fs";
import { join } from "node:path";
import { ENGINE_VERSION } from "../../shared/engine/index.ts";
import { bodyDigests, type RoomSim, SIM_VERSION, type StepResult } from "../../shared/sim/index.ts";
import { DEFAULT_KEYFRAME_INTERVAL, type ReplayHeader, REPLAY_FORMAT, type ResumeLine, type TickLine } from "./format.ts";

/** Default replay directory, relative to the working directory (env REPLAY_DIR overrides). */
export const DEFAULT_REPLAY_DIR = "data/replays";

/** A tick's replay line (format.ts): its number, its hash and the inputs applied at its start, as JSON. */
export function tickLineJson(result: StepResult): string {
  const line: TickLine = { t: result.tick, h: result.hash };
  if (result.applied.length > 0) line.i = result.applied;
  return JSON.stringify(line);
}

export function replayPath(dir: string, roomId: string): string {
  return join(dir, `${roomId}.ndjson`);
}

/** Told about a recording's growth and its end (the replay directory's accounting, store.ts). */
export interface RecorderObserver {
  /** `bytes` more were handed to the file. */
  written(bytes: number): void;
  /** The file is closed (end line written, or a write error); nothing more will be written. */
  closed(): void;
}

/**
 * Appends a room's replay (see format.ts). Lines are buffered in memory and written by `flush()`,
 * which the room calls every 500 ms and on dispose, so a crash loses at most the last second. Writes go
 * through a WriteStream (asynchronous; the tick never waits on the disk).
 */
export class ReplayRecorder {
  readonly path: string;
  private readonly stream: WriteStream;
  private buffer: string[] = [];
  private readonly keyframeInterval: number;
  private closed = false;
  /** The first close(), until and after the file is closed. */
  private closing: Promise<void> | null = null;
  /** Bytes handed to the stream so far. */
  bytesWritten = 0;
  /** Bytes of the lines buffered since the last flush. */
  private bufferedBytes = 0;
  /** The recording stops (end line "size-limit") once the file would grow past this. */
  private readonly maxBytes: number;
  /** Why the recording ended early (disk error, size limit, directory cap), or null. */
  stoppedReason: string | null = null;
  /** The room's simulation (for the final keyframe when the recording is stopped from outside the room). */
  private readonly sim: RoomSim;
  private observer: RecorderObserver | null = null;

  constructor(
    dir: string,
    roomId: string,
    sim: RoomSim,
    keyframeInterval = DEFAULT_KEYFRAME_INTERVAL,
    maxBytes = Number.POSITIVE_INFINITY,
    /** The file the room's game was loaded from (a GAMES module), recorded for whoever verifies it. */
    gameModule?: string,
    /**
     * A room resumed after its process died: the file is the recording's next segment, which starts from
     * the checkpoint's base (its room snapshot as bytes) in a `resume` line after the header.
     */
    resume?: { segment: number; base: Uint8Array },
  ) {
    mkdirSync(dir, { recursive: true });
    this.path = replayPath(dir, roomId);
    this.keyframeInterval = keyframeInterval;
    this.maxBytes = maxBytes;
    this.sim = sim;
    // A resumed room on a process sharing the dead one's directory: the earlier segment keeps its file.
    if (resume && existsSync(this.path)) renameSync(this.path, join(dir, `${roomId}.seg${resume.segment - 1}.ndjson`));
    this.stream = createWriteStream(this.path, { flags: "w" });
    // A failing disk must not take the process down; the room keeps running without its recording.
    this.stream.on("error", (err) => {
      this.stoppedReason ??= `write error: ${err.message}`;
      this.markClosed();
    });
    const header: ReplayHeader = {
      type: "header",
      format: REPLAY_FORMAT,
      engineVersion: ENGINE_VERSION,
      simVersion: SIM_VERSION,
      node: process.version,
      roomId,
      createdAt: new Date().toISOString(),
      tickRate: sim.world.settings.tickRate,
      keyframeInterval,
      options: sim.options,
      game: { name: sim.game.name, version: sim.game.version, ...(gameModule ? { module: gameModule } : {}) },
      scenario: sim.scenario,
      settings: sim.world.settings,
    };
    this.push(JSON.stringify(header));
    if (resume) {
      const line: ResumeLine = { type: "resume", t: sim.tick, segment: resume.segment, snapshot: Buffer.from(resume.base.buffer, resume.base.byteOffset, resume.base.byteLength).toString("base64") };
      this.push(JSON.stringify(line));
    }
    void this.flush();
  }

  /** True once the file is closed (end line written, or stopped by an error). */
  get isClosed(): boolean {
    return this.closed;
  }

  /**
   * Reports every later write and the close to `observer` (one at a time; null detaches). Writes are
   * reported as they are handed to the file, so the observer knows the size without asking the disk.
   */
  observe(observer: RecorderObserver | null): void {
    this.observer = observer;
  }

  private markClosed(): void {
    if (this.closed) return;
    this.closed = true;
    const observer = this.observer;
    this.observer = null;
    observer?.closed();
  }

  private push(line: string): void {
    this.buffer.push(line);
    this.bufferedBytes += line.length + 1;
  }

  /** Records one tick; adds a keyframe every keyframeInterval ticks. */
  record(result: StepResult, sim: RoomSim): void {
    this.recordLine(tickLineJson(result), result.tick, sim);
  }

  /** Records one tick given its line (tickLineJson: the room makes it once for the recording and its checkpoints). */
  recordLine(line: string, tick: number, sim: RoomSim): void {
    if (this.closed) return;
    this.push(line);
    if (tick % this.keyframeInterval === 0) this.keyframe(sim);
    if (this.bytesWritten + this.bufferedBytes >= this.maxBytes) {
      // Bounded disk use: the file ends cleanly here (final keyframe + end line) and still verifies.
      this.stoppedReason = `size limit of ${this.maxBytes} bytes reached`;
      void this.close(sim, "size-limit");
    }
  }

  private keyframe(sim: RoomSim): void {
    this.push(JSON.stringify({ type: "keyframe", t: sim.tick, bodies: bodyDigests(sim.world) }));
  }

  /** Hands the buffered lines to the file; resolves once they are written. */
  flush(): Promise<void> {
    if (this.closed || this.buffer.length === 0) return Promise.resolve();
    const chunk = `${this.buffer.join("\n")}\n`;
    this.buffer = [];
    this.bufferedBytes = 0;
    const bytes = Buffer.byteLength(chunk);
    this.bytesWritten += bytes;
    const written = new Promise<void>((resolve) => this.stream.write(chunk, () => resolve()));
    this.observer?.written(bytes);
    return written;
  }

  /**
   * Writes a final keyframe (unless one was just written) and an end line, then closes the file.
   * Idempotent: later calls (the room's onDispose after its onBeforeShutdown) write nothing and resolve
   * with the first call, once the file is closed.
   */
  close(sim: RoomSim, reason: string): Promise<void> {
    if (this.closing) return this.closing;
    if (this.closed) return Promise.resolve();
    if (sim.tick % this.keyframeInterval !== 0) this.keyframe(sim);
    this.push(JSON.stringify({ type: "end", t: sim.tick, reason }));
    void this.flush();
    this.markClosed();
    this.closing = new Promise((resolve) => this.stream.end(resolve));
    return this.closing;
  }

  /**
   * Ends the recording from outside the room (the replay directory's cap): a final keyframe of the
   * room's current tick and an end line with `reason`; the room runs on unrecorded.
   */
  stop(reason: string, why: string): Promise<void> {
    if (!this.closed) this.stoppedReason ??= why;
    return this.close(this.sim, reason);
  }
}
