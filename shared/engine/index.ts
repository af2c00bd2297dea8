/** The engine's only public surface: the world, its definitions and settings. */
export { BODY_DEFAULTS, DEFAULT_SETTINGS, ENGINE_CONSTANTS, resolveSettings } from "./config.ts";
export type {
  BodyDef,
  BodyType,
  BoxShapeDef,
  PositionCorrectionMethod,
  PositionCorrectionSettings,
  QuatTuple,
  ShapeDef,
  SphereShapeDef,
  Vec3Tuple,
  WorldBounds,
  WorldSettings,
  WorldSettingsPatch,
} from "./types.ts";
export type { CharacterMoveOptions, CharacterMoveResult } from "./world/character.ts";
export { shapeInertia, shapeVolume } from "./dynamics/mass.ts";
export type { StepProfile } from "./world/profile.ts";
export { packBodyState } from "./world/state-hash.ts";
export {
  type ContactInfo,
  ENGINE_VERSION,
  type RaycastHit,
  type RemovalReason,
  type RemovedBody,
  type StepStats,
  World,
} from "./world/world.ts";
