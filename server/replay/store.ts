import { createReadStream } from "node:fs";
import { open, readdir, stat, unlink } from "node:fs/promises";
import { join } from "node:path";
import { Readable } from "node:stream";
import { logger, matchMaker, type Presence, requestFromIPC, subscribeIPC } from "@colyseus/core";
import { type ReplayRecorder, replayPath } from "./recorder.ts";

/**
 * The replay directory of one process: which recordings are live here, the size cap with rotation, and
 * downloads of recordings that live on another process's disk.
 *
 * Cross-process downloads go over Colyseus' own presence IPC (`subscribeIPC` / `requestFromIPC`, the
 * mechanism behind `remoteRoomCall`), on a per-process channel `replays:<processId>`: the requester asks
 * the host to flush and `stat` the file, then reads it in base64 chunks of CHUNK_BYTES. This works for live
 * and for disposed rooms, and needs nothing but Redis between the processes (no internal HTTP addresses,
 * which differ from PUBLIC_ADDRESS behind a proxy). Which process holds a disposed room's file is kept in
 * presence under `replay-host:<roomId>` for HOST_KEY_TTL_SECONDS.
 *
 * The size cap (REPLAY_DIR_MAX_BYTES) counts every replay in the directory, live ones included: closed
 * files (and other processes' files) by their size at the last scan, this process's live recordings by
 * the bytes they have handed to their files, which each recorder reports as it flushes. Checking the cap
 * is therefore an addition per flush; the directory is scanned only at a new recording, every
 * ROTATE_INTERVAL_MS, and at most once per OVER_CAP_RETRY_MS while over the cap. Over the cap, the oldest
 * closed replays are deleted first; when live recordings alone exceed it, the largest is closed (end line
 * "dir-limit"), its room running on unrecorded.
 */

/** Raw bytes per IPC chunk (base64 on the wire: 4/3 of this). */
export const CHUNK_BYTES = 256 * 1024;
/** How long presence remembers which process recorded a room (LocalPresence uses a timer: < 2^31 ms). */
const HOST_KEY_TTL_SECONDS = 20 * 24 * 3600;
/** How long a replay request waits for the host process, ms. */
const IPC_TIMEOUT_MS = 3000;
/**
 * A file not written for this long and not recorded by this process counts as closed. Protects the
 * live recordings of other processes that share the directory (they flush every 500 ms).
 */
const CLOSED_GRACE_MS = 30_000;
/** How often the directory is scanned besides at each new recording (other processes' files), ms. */
const ROTATE_INTERVAL_MS = 30_000;
/**
 * While the directory stays over its cap and only recent files could be deleted, the next scan waits
 * this long (a flush every 500 ms per room must not become a scan every 500 ms per room), ms.
 */
const OVER_CAP_RETRY_MS = 1000;
/** End-line reason of a recording closed because live recordings alone exceed the directory cap. */
export const DIR_LIMIT_REASON = "dir-limit";

const ROOM_ID = /^[A-Za-z0-9_-]{1,64}$/;

function hostKey(roomId: string): string {
  return `replay-host:${roomId}`;
}

function channel(processId: string): string {
  return `replays:${processId}`;
}

export type ReplayDownload =
  | { ok: true; size: number; stream: Readable; host: string }
  | { ok: false; status: 404 | 503; message: string };

export interface RotationResult {
  /** Room ids whose closed replays were deleted. */
  deleted: string[];
  /** Room ids whose live recordings were closed (end line "dir-limit"). */
  closed: string[];
  /** Bytes the directory holds afterwards: files on disk plus live recordings' bytes handed to their files. */
  totalBytes: number;
}

export class ReplayStore {
  readonly dir: string;
  readonly maxDirBytes: number;
  /**
   * Most replay files the directory keeps: each closed one also keeps its `replay-host` key in Redis, and
   * anonymous room creation makes files cheaply (a short room's file is a few KB), so bytes alone would
   * let Redis hold a key per room for weeks. Oldest closed ones go first, with their keys.
   */
  readonly maxFiles: number;
  /** Open recordings of this process. */
  private readonly live = new Map<string, ReplayRecorder>();
  /** Bytes handed to the files of `live` (each recorder reports its writes: no stat, no scan). */
  private liveRecordingBytes = 0;
  /** Bytes of every other replay in the directory: as of the last scan, plus recordings closed since. */
  private otherBytes = 0;
  private presence: Presence | null = null;
  private processId = "";
  private timer: ReturnType<typeof setInterval> | null = null;
  private rotating: Promise<RotationResult> | null = null;
  private enforcing: Promise<RotationResult> | null = null;
  /** No scan triggered by growth before this time (performance.now() ms). */
  private retryAt = 0;
  private warnedLiveOverCap = false;
  private scanCount = 0;

  constructor(dir: string, maxDirBytes: number, maxFiles = Number.MAX_SAFE_INTEGER) {
    this.dir = dir;
    this.maxDirBytes = maxDirBytes;
    this.maxFiles = maxFiles;
  }

  /** Starts answering other processes' replay requests and the periodic size check. */
  async start(presence: Presence, processId: string): Promise<void> {
    this.presence = presence;
    this.processId = processId;
    await subscribeIPC(presence, channel(processId), (method: string, args: unknown[]) => this.answer(method, args));
    this.timer = setInterval(() => void this.rotate(), ROTATE_INTERVAL_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    if (this.presence && this.processId) await this.presence.unsubscribe(channel(this.processId));
  }

  /** What the directory holds by this process's count: other files as last scanned plus live recordings. */
  get totalBytes(): number {
    return this.otherBytes + this.liveRecordingBytes;
  }

  /** Bytes of this process's open recordings. */
  get liveBytes(): number {
    return this.liveRecordingBytes;
  }

  /** Directory scans so far (at registrations, every 30 s, and while over the cap at most once a second). */
  get scans(): number {
    return this.scanCount;
  }

  /**
   * A room of this process started recording. Its bytes count against the cap from now on, as it writes
   * them: the recorder reports each flush, and only a total over the cap costs more than an addition.
   */
  register(roomId: string, recorder: ReplayRecorder): void {
    if (recorder.isClosed) return;
    this.live.set(roomId, recorder);
    this.liveRecordingBytes += recorder.bytesWritten;
    recorder.observe({
      written: (bytes) => {
        this.liveRecordingBytes += bytes;
        this.checkCap();
      },
      closed: () => this.moveToClosed(roomId, recorder),
    });
    if (this.presence && this.processId) {
      Promise.resolve(this.presence.setex(hostKey(roomId), this.processId, HOST_KEY_TTL_SECONDS)).catch(() => {});
    }
    void this.enforce();
  }

  /** The room's recording is closed (its file stays, subject to rotation). */
  unregister(roomId: string): void {
    const recorder = this.live.get(roomId);
    if (recorder) this.moveToClosed(roomId, recorder);
  }

  /** A recording ended: its file now counts as a closed replay. */
  private moveToClosed(roomId: string, recorder: ReplayRecorder): void {
    if (this.live.get(roomId) !== recorder) return;
    recorder.observe(null);
    this.live.delete(roomId);
    this.liveRecordingBytes -= recorder.bytesWritten;
    this.otherBytes += recorder.bytesWritten;
  }

  /** Called on every write of a live recording: arithmetic unless the total is over the cap. */
  private checkCap(): void {
    if (this.totalBytes <= this.maxDirBytes || this.enforcing) return;
    // Live recordings alone over the cap: act at once (no scan needed). Otherwise a scan, throttled.
    if (this.liveRecordingBytes <= this.maxDirBytes && performance.now() < this.retryAt) return;
    void this.enforce();
  }

  /** Resolves once any size check under way has finished. */
  async settled(): Promise<void> {
    while (this.enforcing || this.rotating) await (this.enforcing ?? this.rotating);
  }

  /**
   * Brings the directory under maxDirBytes: live recordings alone over the cap are closed first (the
   * largest, then the oldest, with end line "dir-limit"; their rooms run on), then closed replays are
   * deleted, oldest first, until the total fits.
   */
  enforce(): Promise<RotationResult> {
    this.enforcing ??= this.enforceNow().finally(() => {
      this.enforcing = null;
    });
    return this.enforcing;
  }

  private async enforceNow(): Promise<RotationResult> {
    // Continue once `enforcing` is set: the closes below write their last lines, which must not start another round.
    await Promise.resolve();
    const closed = this.closeLiveOverCap();
    const result = await this.rotate();
    return { ...result, closed: [...closed, ...result.closed] };
  }

  /** Closes live recordings, largest first (ties: the oldest), while they alone exceed the cap. */
  private closeLiveOverCap(): string[] {
    const closed: string[] = [];
    if (this.liveRecordingBytes <= this.maxDirBytes) return closed;
    // Map order is registration order: a stable sort keeps the oldest first among equal sizes.
    const bySize = [...this.live].sort((a, b) => b[1].bytesWritten - a[1].bytesWritten);
    for (const [roomId, recorder] of bySize) {
      if (this.liveRecordingBytes <= this.maxDirBytes) break;
      const live = this.liveRecordingBytes;
      const why = `live recordings hold ${live} bytes, over the replay directory cap of ${this.maxDirBytes}`;
      void recorder.stop(DIR_LIMIT_REASON, why);
      // The close has reported itself through the observer; this only makes sure the count moves on.
      this.moveToClosed(roomId, recorder);
      closed.push(roomId);
      logger.warn(`room ${roomId}: replay closed at ${recorder.bytesWritten} bytes (end line "${DIR_LIMIT_REASON}"): ${why}; the room runs on unrecorded`);
    }
    return closed;
  }

  /**
   * Keeps the directory under maxDirBytes: deletes closed replays, oldest first (by modification time).
   * Live recordings of this process, and files written in the last CLOSED_GRACE_MS, are never deleted.
   * Scans the directory (other processes' files are only known this way).
   */
  rotate(): Promise<RotationResult> {
    this.rotating ??= this.rotateNow().finally(() => {
      this.rotating = null;
    });
    return this.rotating;
  }

  private async rotateNow(): Promise<RotationResult> {
    this.scanCount++;
    let names: string[];
    try {
      names = (await readdir(this.dir)).filter((n) => n.endsWith(".ndjson"));
    } catch {
      return { deleted: [], closed: [], totalBytes: this.totalBytes };
    }
    const files: { name: string; roomId: string; size: number; mtime: number }[] = [];
    for (const name of names) {
      try {
        const s = await stat(join(this.dir, name));
        if (s.isFile()) files.push({ name, roomId: name.slice(0, -".ndjson".length), size: s.size, mtime: s.mtimeMs });
      } catch {
        // Deleted meanwhile (another process rotating the same directory).
      }
    }
    // Live recordings count with the bytes handed to their files (some may not be on disk yet).
    const others = files.filter((f) => !this.live.has(f.roomId));
    this.otherBytes = others.reduce((n, f) => n + f.size, 0);
    const deleted: string[] = [];
    const now = Date.now();
    // Live recordings may not have a file yet: counted either way.
    let fileCount = others.length + this.live.size;
    const fits = () => this.totalBytes <= this.maxDirBytes && fileCount <= this.maxFiles;
    if (fits()) {
      this.warnedLiveOverCap = false;
      return { deleted, closed: [], totalBytes: this.totalBytes };
    }
    const closed = others.filter((f) => now - f.mtime >= CLOSED_GRACE_MS).sort((a, b) => a.mtime - b.mtime);
    for (const f of closed) {
      if (fits()) break;
      // Recorded again meanwhile (a room id reused): not a closed replay any more.
      if (this.live.has(f.roomId)) continue;
      try {
        await unlink(join(this.dir, f.name));
        this.otherBytes -= f.size;
        fileCount--;
        deleted.push(f.roomId);
        if (this.presence) Promise.resolve(this.presence.del(hostKey(f.roomId))).catch(() => {});
      } catch {
        // Already gone.
      }
    }
    if (deleted.length > 0) {
      const limit = fileCount + deleted.length > this.maxFiles ? `${this.maxFiles} files` : `${this.maxDirBytes} bytes`;
      logger.info(`replay directory over ${limit}: deleted ${deleted.length} oldest closed replay(s)`);
    }
    if (this.totalBytes > this.maxDirBytes) {
      this.retryAt = performance.now() + OVER_CAP_RETRY_MS;
      if (!this.warnedLiveOverCap) {
        this.warnedLiveOverCap = true;
        logger.warn(`replay directory holds ${this.totalBytes} bytes of live or recent recordings, over its cap of ${this.maxDirBytes}`);
      }
    }
    return { deleted, closed: [], totalBytes: this.totalBytes };
  }

  // ---------------------------------------------------------------- downloads

  /** Flushes a live recording of this process, then the file's size (null if there is no file). */
  private async localSize(roomId: string): Promise<number | null> {
    await this.live.get(roomId)?.flush();
    const path = replayPath(this.dir, roomId);
    try {
      return (await stat(path)).size;
    } catch {
      return null;
    }
  }

  /** IPC handler: other processes reading this process's replays. */
  private async answer(method: string, args: unknown[]): Promise<unknown> {
    const roomId = Array.isArray(args) ? args[0] : undefined;
    if (typeof roomId !== "string" || !ROOM_ID.test(roomId)) throw new Error("bad room id");
    if (method === "stat") return { size: await this.localSize(roomId) };
    if (method === "read") {
      const offset = Number(args[1]);
      const length = Math.min(CHUNK_BYTES, Number(args[2]));
      if (!Number.isInteger(offset) || offset < 0 || !Number.isInteger(length) || length <= 0) throw new Error("bad range");
      const handle = await open(replayPath(this.dir, roomId), "r");
      try {
        const buf = Buffer.alloc(length);
        const { bytesRead } = await handle.read(buf, 0, length, offset);
        return { data: buf.subarray(0, bytesRead).toString("base64") };
      } finally {
        await handle.close();
      }
    }
    throw new Error(`unknown method ${method.slice(0, 16)}`);
  }

  /** Where a room's replay lives: the hosting process of a live room, else the one that recorded it. */
  private async hostOf(roomId: string): Promise<string | null> {
    // LocalDriver answers synchronously, RedisDriver with a promise.
    const listing = await Promise.resolve()
      .then(() => matchMaker.getRoomById(roomId))
      .catch(() => undefined);
    if (listing?.processId) return listing.processId;
    if (!this.presence) return null;
    const host = await Promise.resolve(this.presence.get(hostKey(roomId))).catch(() => null);
    return typeof host === "string" && host !== "" ? host : null;
  }

  /**
   * A download of the room's replay as it is now (a live recording is flushed first, and the stream ends
   * at that size, so it ends on a whole line). Local files are streamed from disk; files of other
   * processes through their IPC channel.
   */
  async open(roomId: string): Promise<ReplayDownload> {
    const host = await this.hostOf(roomId);
    const local = replayPath(this.dir, roomId);
    if (host === null || host === this.processId) {
      const size = await this.localSize(roomId);
      if (size === null) return { ok: false, status: 404, message: `no replay for room "${roomId}"` };
      const stream = size === 0 ? Readable.from([]) : createReadStream(local, { start: 0, end: size - 1 });
      return { ok: true, size, stream, host: this.processId };
    }
    if (!this.presence) return { ok: false, status: 404, message: `no replay for room "${roomId}"` };
    const presence = this.presence;
    let size: number | null;
    try {
      size = ((await requestFromIPC(presence, channel(host), "stat", [roomId], IPC_TIMEOUT_MS)) as { size: number | null }).size;
    } catch (err) {
      if ((err as Error).message === "ipc_timeout") {
        // The host may share this directory (one machine): serve the local copy if there is one.
        const fallback = await this.localSize(roomId);
        if (fallback !== null) return { ok: true, size: fallback, stream: createReadStream(local, { start: 0, end: Math.max(0, fallback - 1) }), host: this.processId };
        return { ok: false, status: 503, message: `the replay of room "${roomId}" is on process ${host}, which does not answer` };
      }
      throw err;
    }
    if (size === null) return { ok: false, status: 404, message: `no replay for room "${roomId}" on process ${host}` };
    const total = size;
    async function* chunks() {
      for (let offset = 0; offset < total; ) {
        const length = Math.min(CHUNK_BYTES, total - offset);
        const { data } = (await requestFromIPC(presence, channel(host as string), "read", [roomId, offset, length], IPC_TIMEOUT_MS)) as { data: string };
        const buf = Buffer.from(data, "base64");
        if (buf.length === 0) throw new Error(`replay of room "${roomId}" ended early at byte ${offset} of ${total}`);
        offset += buf.length;
        yield buf;
      }
    }
    return { ok: true, size: total, stream: Readable.from(chunks()), host };
  }
}
