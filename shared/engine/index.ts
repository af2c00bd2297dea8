/**
 * The engine's only public surface: the world, its definitions and settings.
 *
 * - Bodies are created from plain definitions (BodyDef) and addressed by handles (`World.createBody`,
 *   `handleOf(id)`); everything about a body is read and changed through the World's methods:
 *   get/set pose and velocities, impulses, kinematic and character moves, materials (setFriction,
 *   setRestitution, setLinearDamping, setAngularDamping and their getters, validated against
 *   MATERIAL_LIMITS), getAabb, getBoundingRadius.
 * - Queries: `raycast` (every shape), `castShape` (a convex shape swept along a direction: first hit),
 *   `overlap` (bodies a placed convex shape overlaps) and `queryAabb(min, max, out | visit)`, all over the
 *   broad phase's grid and all taking optional collision groups; results in ascending slot order.
 * - `world.view()`: a read-only, zero-copy BodyView of every body's arrays by slot, for readers that walk
 *   all bodies each tick (state sync, hashing). The types forbid writes. It stays valid until the next
 *   createBody or removeBody (the arrays may be reallocated when the world grows); take a new one after.
 *   `type` and `shape` hold BodyTypeCode and ShapeTypeCode values.
 * - `world.snapshot()` / `restore(snapshot)` / `World.fromSnapshot`: an exact copy of the world's state
 *   (plain data and typed arrays); `encodeWorldSnapshot` / `decodeWorldSnapshot` turn it into bytes and
 *   back (`encodeSnapshot` / `decodeSnapshot` for other kinds of payload), checked against the engine
 *   version on the way in.
 * - The world's stores (body store, contacts, broad phase) are private. Engine tests that need them use
 *   `worldInternals` from internal.ts, which is not part of this surface.
 */
export { BODY_DEFAULTS, DEFAULT_SETTINGS, ENGINE_CONSTANTS, MATERIAL_LIMITS, resolveSettings } from "./config.ts";
export { BodyTypeCode, JointTypeCode, ShapeTypeCode } from "./types.ts";
export type {
  Aabb,
  BodyDef,
  BodyType,
  BoxShapeDef,
  CapsuleShapeDef,
  CollisionGroups,
  CompoundChildDef,
  CompoundShapeDef,
  ConvexShapeDef,
  CylinderShapeDef,
  HeightfieldShapeDef,
  HullShapeDef,
  JointDef,
  JointInfo,
  JointMotorDef,
  JointReaction,
  JointSpringDef,
  JointType,
  MeshShapeDef,
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
export type { BodyView, ReadonlyNumberArray } from "./world/body-view.ts";
export type { CharacterMoveOptions, CharacterMoveResult } from "./world/character.ts";
export { shapeInertia, shapeVolume } from "./dynamics/mass.ts";
export type { StepProfile } from "./world/profile.ts";
export { packBodyState } from "./world/state-hash.ts";
export type { OverlapOptions, ShapeCastHit, ShapeCastOptions, ShapePose } from "./world/queries.ts";
export {
  type ContactEvent,
  type ContactEventType,
  type ContactInfo,
  ENGINE_VERSION,
  type RaycastHit,
  type RemovalReason,
  type RemovedBody,
  type StepStats,
  World,
  type WorldSnapshot,
} from "./world/world.ts";
export { decodeSnapshot, decodeWorldSnapshot, encodeSnapshot, encodeWorldSnapshot, SNAPSHOT_BYTES_FORMAT } from "./world/snapshot-bytes.ts";
