import { decodeSnapshot, encodeSnapshot } from "../engine/index.ts";
import { type RoomSimSnapshot, SIM_VERSION } from "./room-sim.ts";

/**
 * RoomSim snapshots as bytes (the engine's snapshot encoding, kind "room"): the payload carries
 * SIM_VERSION next to the snapshot, because a room only continues exactly under the same simulation
 * rules, as a world only does on the same engine (which the header checks).
 */
const ROOM_KIND = "room";

interface RoomPayload {
  simVersion: string;
  room: RoomSimSnapshot;
}

/** `sim.snapshot()` as bytes; `sim.restore(decodeRoomSnapshot(bytes))` continues it exactly. */
export function encodeRoomSnapshot(snapshot: RoomSimSnapshot): Uint8Array {
  const payload: RoomPayload = { simVersion: SIM_VERSION, room: snapshot };
  return encodeSnapshot(payload, ROOM_KIND);
}

/** The room snapshot `encodeRoomSnapshot` wrote; throws on another kind, engine or sim version, or a damaged file. */
export function decodeRoomSnapshot(bytes: Uint8Array): RoomSimSnapshot {
  const payload = decodeSnapshot(bytes, ROOM_KIND) as Partial<RoomPayload> | null;
  if (typeof payload !== "object" || payload === null || typeof payload.room !== "object" || payload.room === null) {
    throw new Error("room snapshot: the payload is not a room snapshot");
  }
  if (payload.simVersion !== SIM_VERSION) throw new Error(`room snapshot from sim ${String(payload.simVersion)}, this is sim ${SIM_VERSION}`);
  return payload.room;
}
