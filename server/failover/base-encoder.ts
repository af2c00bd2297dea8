import { Worker } from "node:worker_threads";
import { encodeRoomSnapshot, type RoomSimSnapshot } from "../../shared/sim/index.ts";
import type { EncodeReply, EncodeRequest } from "./encode-worker.ts";

/** A base's bytes and where the encoding ran: `workerMs` is the worker's time (0 when it ran here). */
export interface EncodedBase {
  bytes: Uint8Array;
  workerMs: number;
}

/**
 * Encodes checkpoint bases (room snapshots as bytes) on a worker thread, one per process: the encoding is
 * most of a base's cost (an arena room's ~250 KB take 2-7 ms), and on the rooms' thread it would delay
 * every room's ticks. The rooms' thread only takes the snapshot (a copy) and hands it over. If the worker
 * cannot be started or dies, bases are encoded here, as before.
 */
export class BaseEncoder {
  private worker: Worker | null = null;
  private failed = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { resolve: (base: EncodedBase) => void; reject: (err: Error) => void }>();

  private start(): Worker | null {
    if (this.worker || this.failed) return this.worker;
    try {
      const worker = new Worker(new URL("./encode-worker.ts", import.meta.url));
      worker.unref();
      worker.on("message", (reply: EncodeReply) => {
        const entry = this.waiting.get(reply.id);
        if (!entry) return;
        this.waiting.delete(reply.id);
        if (reply.ok) entry.resolve({ bytes: reply.bytes, workerMs: reply.ms });
        else entry.reject(new Error(reply.error));
      });
      const fail = (err: Error) => {
        this.failed = true;
        this.worker = null;
        for (const entry of this.waiting.values()) entry.reject(err);
        this.waiting.clear();
      };
      worker.on("error", fail);
      worker.on("exit", (code) => fail(new Error(`checkpoint encoder exited (${code})`)));
      this.worker = worker;
    } catch {
      this.failed = true;
    }
    return this.worker;
  }

  /** The snapshot's bytes (shared/sim/room-snapshot-bytes.ts). The snapshot is copied to the worker as it is now. */
  encode(snapshot: RoomSimSnapshot): Promise<EncodedBase> {
    const worker = this.start();
    if (!worker) return Promise.resolve({ bytes: encodeRoomSnapshot(snapshot), workerMs: 0 });
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      const request: EncodeRequest = { id, snapshot };
      worker.postMessage(request);
    });
  }

  async stop(): Promise<void> {
    const worker = this.worker;
    this.failed = true;
    this.worker = null;
    await worker?.terminate();
  }
}
