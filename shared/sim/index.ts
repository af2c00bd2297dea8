/** The deterministic room simulation shared by the server room, the replay verifier and the client. */
export { AVATAR, type Avatar, avatarBodyId, clampPlanar, findSpawnSpot, updateAvatar } from "./avatar.ts";
export { type BodyDifference, type BodyDigest, bodyDigests, bodyHashAt, diffBodies } from "./body-hash.ts";
export type { SimInput } from "./inputs.ts";
export { IMPULSE_POINT_SLACK, pointNearBody } from "./impulse.ts";
export {
  DEFAULT_SIM_OPTIONS,
  RoomSim,
  type RoomSimSnapshot,
  SIM_VERSION,
  type SimOptions,
  type StepResult,
} from "./room-sim.ts";
export { decodeRoomSnapshot, encodeRoomSnapshot } from "./room-snapshot-bytes.ts";
