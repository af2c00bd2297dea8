import type { BodyDef, Vec3Tuple, World } from "../engine/index.ts";
import type { Scenario } from "../scenarios/format.ts";
import type { FieldValues } from "./fields.ts";

/** A player of a room, as hooks see them. Plain data: part of the room's snapshot. */
export interface Player<P extends FieldValues = FieldValues> {
  /** The Colyseus session id. */
  readonly session: string;
  /** The avatar's body id (`avatar-<session>`), "" in a game without avatars. */
  readonly avatarId: string;
  /** Tick the player joined on. */
  readonly joinedAt: number;
  /** The player's own fields (the game's `playerState`), synced to every client. */
  readonly state: P;
}

/** A player's avatar as the character controller has it. */
export interface AvatarInfo {
  /** The avatar body's handle (valid until the world is rebuilt). */
  handle: number;
  /** Unit planar direction it last walked in, [x, z]. */
  facing: [number, number];
  /** Standing on something. */
  grounded: boolean;
}

/** The room's seeded generator (mulberry32): the only randomness a hook may use. */
export interface GameRandom {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [min, max). */
  range(min: number, max: number): number;
  /** Uniform integer in [0, n), for an integer n in [1, 2^21]. */
  int(n: number): number;
}

/**
 * What a hook gets. Everything a game may read or change goes through here: the world (the engine's
 * whole API: bodies, impulses, joints, queries, events), the players, the game's fields and the room's
 * random generator. Valid during the hook only.
 */
export interface GameContext<S extends FieldValues = FieldValues, P extends FieldValues = FieldValues> {
  /** The room's world. Replaced when the scenario is reloaded (read it from ctx each time). */
  readonly world: World;
  /** The tick being computed (1 for the first step; continues across reloads). */
  readonly tick: number;
  /** Steps per second. */
  readonly tickRate: number;
  /** The scenario the world was built from. */
  readonly scenario: Scenario;
  /** Players in join order. */
  readonly players: readonly Player<P>[];
  /** The game's fields (its `state`), synced to every client. Assign declared fields only, with their type. */
  readonly state: S;
  readonly random: GameRandom;
  /** Most bodies the room may hold; `createBody` refuses past it. */
  readonly maxBodies: number;
  player(session: string): Player<P> | undefined;
  /** A player's avatar, or null (no avatar in this game, or the player has left). */
  avatar(player: Player<P>): AvatarInfo | null;
  /**
   * Creates a body with the room's material knobs applied (a friction override, say) and answers its
   * handle; -1 (nothing created) when the room already holds `maxBodies` bodies.
   */
  createBody(def: BodyDef): number;
  /** An id no body has: `prefix` and the room's next number (`ball1`, `ball2`…). */
  uniqueId(prefix: string): string;
  /** Puts a player's avatar back at a free spawn spot, or at `position`. */
  respawn(player: Player<P>, position?: Vec3Tuple): void;
  /** Rebuilds the world from the scenario (the players keep their seats and get fresh avatars); `setup` runs again. */
  restart(): void;
}
