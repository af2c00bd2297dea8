import { parentPort } from "node:worker_threads";
import { encodeRoomSnapshot, type RoomSimSnapshot } from "../../shared/sim/index.ts";

/**
 * Encodes room snapshots for checkpoint bases off the rooms' thread (base-encoder.ts): the snapshot
 * arrives as a structured clone, its bytes go back transferred, with the ms the encoding took.
 */

export interface EncodeRequest {
  id: number;
  snapshot: RoomSimSnapshot;
}

export type EncodeReply = { id: number; ok: true; bytes: Uint8Array; ms: number } | { id: number; ok: false; error: string };

parentPort?.on("message", (request: EncodeRequest) => {
  const t0 = performance.now();
  try {
    const bytes = encodeRoomSnapshot(request.snapshot);
    const reply: EncodeReply = { id: request.id, ok: true, bytes, ms: performance.now() - t0 };
    parentPort?.postMessage(reply, [bytes.buffer as ArrayBuffer]);
  } catch (err) {
    const reply: EncodeReply = { id: request.id, ok: false, error: (err as Error).message };
    parentPort?.postMessage(reply);
  }
});
