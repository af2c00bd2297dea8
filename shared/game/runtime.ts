import type { BodyDef, Vec3Tuple, World } from "../engine/index.ts";
import type { Scenario } from "../scenarios/format.ts";
import { createPrng, type Prng } from "../scenarios/prng.ts";
import type { AvatarInfo, GameContext, GameRandom, Player } from "./context.ts";
import type { GameDefinition, HOOKS } from "./define.ts";
import { assignFields, checkFields, createFields, type FieldValues, fnv1a } from "./fields.ts";

/** A hook that keeps throwing this many times in a row (no successful hook call between) fails the game. */
export const MAX_HOOK_FAILURES_IN_A_ROW = 10;

export type HookName = (typeof HOOKS)[number];

/** A hook that threw: which, on which tick, and what it threw (the room logs it with the game's name). */
export interface HookError {
  hook: HookName;
  tick: number;
  message: string;
}

/** What the runtime needs from the room simulation that hosts it. */
export interface GameHost {
  readonly world: World;
  readonly tick: number;
  readonly scenario: Scenario;
  readonly maxBodies: number;
  createBody(def: BodyDef): number;
  avatarInfo(session: string): AvatarInfo | null;
  respawn(session: string, position?: Vec3Tuple): void;
  restart(): void;
}

/** The game's part of a room snapshot: plain data. */
export interface GameRuntimeSnapshot {
  players: { session: string; avatarId: string; joinedAt: number; state: FieldValues }[];
  state: FieldValues;
  random: number;
  ids: number;
  failures: number;
  failed: string | null;
}

/**
 * Runs one game inside a room simulation: its players and fields, its random generator, and every hook
 * call, each guarded. A hook that throws is reported (HookError) and the tick goes on; what it did before
 * throwing stays done (the replay re-runs it the same way). After MAX_HOOK_FAILURES_IN_A_ROW throws in a
 * row the game is `failed` and its hooks no longer run; the server then closes the room with the reason.
 * A field left with a value of the wrong type counts as a throw of the hook that left it, and the field
 * goes back to its previous value.
 */
export class GameRuntime {
  readonly game: GameDefinition;
  readonly players: Player[] = [];
  readonly state: FieldValues;
  /** Hooks that threw since the last `takeErrors`. */
  errors: HookError[] = [];
  /** Why the game stopped running its hooks, or null. */
  failed: string | null = null;
  private failures = 0;
  private prng: Prng;
  private ids = 0;
  private readonly host: GameHost;
  readonly ctx: GameContext;
  /** Fields of the game and of each player as they were before the running hook (to undo a bad type). */
  private readonly hasFields: boolean;

  constructor(game: GameDefinition, host: GameHost, seed: number) {
    this.game = game;
    this.host = host;
    this.state = createFields(game.state);
    this.prng = createPrng(seed);
    this.hasFields = Object.keys(game.state).length > 0 || Object.keys(game.playerState).length > 0;
    this.ctx = this.createContext();
  }

  private createContext(): GameContext {
    const host = this.host;
    const random: GameRandom = {
      next: () => this.prng.next(),
      range: (min, max) => this.prng.range(min, max),
      int: (n) => this.prng.int(n),
    };
    const players = this.players;
    const uniqueId = (prefix: string): string => {
      let id: string;
      do id = `${prefix}${++this.ids}`;
      while (host.world.handleOf(id) >= 0);
      return id;
    };
    return Object.freeze({
      get world() {
        return host.world;
      },
      get tick() {
        return host.tick;
      },
      get tickRate() {
        return host.world.settings.tickRate;
      },
      get scenario() {
        return host.scenario;
      },
      get maxBodies() {
        return host.maxBodies;
      },
      players: this.players,
      state: this.state,
      random,
      player: (session: string) => players.find((p) => p.session === session),
      avatar: (player: Player) => host.avatarInfo(player.session),
      createBody: (def: BodyDef) => host.createBody(def),
      uniqueId,
      respawn: (player: Player, position?: Vec3Tuple) => host.respawn(player.session, position),
      restart: () => host.restart(),
    });
  }

  /** Whether the game declares any field (the tick hash then covers them). */
  get hashesFields(): boolean {
    return this.hasFields;
  }

  /**
   * Calls a hook if the game has it and has not failed; answers false if it threw. Every call checks the
   * fields it may have changed.
   */
  call(hook: HookName, ...args: unknown[]): boolean {
    const fn = this.game[hook];
    if (fn === undefined || this.failed !== null) return true;
    const before = this.hasFields ? this.copyFields() : null;
    try {
      fn(this.ctx, ...args);
      const problem = this.hasFields ? this.fieldProblem() : null;
      if (problem !== null) {
        if (before !== null) this.putFields(before);
        throw new Error(`${problem} (the fields went back to their values before ${hook})`);
      }
      this.failures = 0;
      return true;
    } catch (err) {
      // A hook that threw after giving a field the wrong type: the fields go back as well.
      if (before !== null && this.fieldProblem() !== null) this.putFields(before);
      const message = err instanceof Error ? err.message : String(err);
      this.errors.push({ hook, tick: this.host.tick, message: message.slice(0, 500) });
      if (++this.failures >= MAX_HOOK_FAILURES_IN_A_ROW) {
        this.failed = `game "${this.game.name}": hooks threw ${this.failures} times in a row (last: ${hook} on tick ${this.host.tick}: ${message.slice(0, 200)})`;
      }
      return false;
    }
  }

  /** Errors since the last call (and forgets them). */
  takeErrors(): HookError[] {
    if (this.errors.length === 0) return NO_ERRORS;
    const out = this.errors;
    this.errors = [];
    return out;
  }

  addPlayer(session: string, avatarId: string): Player {
    const player: Player = { session, avatarId, joinedAt: this.host.tick, state: createFields(this.game.playerState) };
    this.players.push(player);
    return player;
  }

  removePlayer(session: string): void {
    const i = this.players.findIndex((p) => p.session === session);
    if (i >= 0) this.players.splice(i, 1);
  }

  /** The fields' hash, 8 hex digits (the tick hash's game part). */
  fieldsHash(): string {
    return fnv1a(this.fieldsText()).toString(16).padStart(8, "0");
  }

  /** Every field, game then players in join order, as one JSON text. */
  private fieldsText(): string {
    let text = JSON.stringify(this.state);
    for (const p of this.players) text += `|${p.session}${JSON.stringify(p.state)}`;
    return text;
  }

  private copyFields(): { state: FieldValues; players: Map<Player, FieldValues> } {
    return { state: { ...this.state }, players: new Map(this.players.map((p) => [p, { ...p.state }])) };
  }

  private putFields(copy: { state: FieldValues; players: Map<Player, FieldValues> }): void {
    assignFields(this.state, copy.state);
    for (const [player, state] of copy.players) assignFields(player.state, state);
  }

  private fieldProblem(): string | null {
    const game = checkFields(this.state, this.game.state, "state");
    if (game !== null) return game;
    for (const p of this.players) {
      const problem = checkFields(p.state, this.game.playerState, `player ${p.session} state`);
      if (problem !== null) return problem;
    }
    return null;
  }

  snapshot(): GameRuntimeSnapshot {
    return {
      players: this.players.map((p) => ({ session: p.session, avatarId: p.avatarId, joinedAt: p.joinedAt, state: { ...p.state } })),
      state: { ...this.state },
      random: this.prng.state(),
      ids: this.ids,
      failures: this.failures,
      failed: this.failed,
    };
  }

  restore(s: GameRuntimeSnapshot): void {
    this.players.length = 0;
    for (const p of s.players) {
      const state = createFields(this.game.playerState);
      assignFields(state, p.state);
      this.players.push({ session: p.session, avatarId: p.avatarId, joinedAt: p.joinedAt, state });
    }
    assignFields(this.state, s.state);
    this.prng = createPrng(s.random);
    this.ids = s.ids;
    this.failures = s.failures;
    this.failed = s.failed;
    this.errors = [];
  }
}

const NO_ERRORS: HookError[] = [];
