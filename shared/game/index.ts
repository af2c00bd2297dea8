/**
 * Everything a game module needs, from one entry point: `import { defineGame, z } from "physics-rooms/game"`.
 * See the README's "Write your own game".
 */
export { z } from "zod";
export type { AvatarInfo, GameContext, GameRandom, Player } from "./context.ts";
export {
  type AvatarOptions,
  type AvatarSpec,
  type ClientOptions,
  DEFAULT_AVATAR,
  defineGame,
  type GameDefinition,
  GameDefinitionError,
  type GameOptions,
  type InputDefinition,
  isGameDefinition,
  type KeyBinding,
  MOVE_INPUT,
} from "./define.ts";
export { FIELD_LIMITS, type FieldValue, type FieldValues } from "./fields.ts";
export { type HookError, MAX_HOOK_FAILURES_IN_A_ROW } from "./runtime.ts";
export { GameTester } from "./tester.ts";
export type { ContactEvent, BodyDef, Vec3Tuple } from "../engine/index.ts";
export type { Scenario } from "../scenarios/format.ts";
