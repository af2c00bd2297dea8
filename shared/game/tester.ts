import type { Scenario } from "../scenarios/format.ts";
import { getBuiltinScenario } from "../scenarios/index.ts";
import { RoomSim, type StepResult } from "../sim/room-sim.ts";
import { formatZodIssues } from "../net/messages.ts";
import type { GameContext, Player } from "./context.ts";
import type { GameDefinition } from "./define.ts";
import type { FieldValues } from "./fields.ts";
import type { HookError } from "./runtime.ts";

/**
 * A game without a server, for its author's tests: the same room simulation a room runs (same hooks,
 * same tick, same hashes), driven directly. Inputs are queued for the next step as the room would queue
 * them, after the game's schema has parsed them (an invalid one throws here; a room would reject it).
 *
 *   const t = new GameTester(myGame);
 *   t.join("alice");
 *   t.input("alice", "drop", {});
 *   t.step(60);
 *   expect(t.state.score).toBe(1);
 */
export class GameTester {
  readonly sim: RoomSim;
  /** Every hook error so far, in order. */
  readonly hookErrors: HookError[] = [];
  private last: StepResult | null = null;

  constructor(game: GameDefinition, options: { scenario?: Scenario; seed?: number; maxBodies?: number } = {}) {
    const scenario = options.scenario ?? (typeof game.scenario === "string" ? getBuiltinScenario(game.scenario) : game.scenario);
    if (!scenario) throw new Error(`game "${game.name}": no built-in scenario "${String(game.scenario)}"`);
    this.sim = new RoomSim(structuredClone(scenario), { seed: options.seed ?? 1, ...(options.maxBodies ? { maxBodies: options.maxBodies } : {}) }, game);
  }

  join(session: string): void {
    this.sim.enqueue({ type: "join", session });
  }

  leave(session: string): void {
    this.sim.enqueue({ type: "leave", session });
  }

  /** Walks a player's avatar (m/s along x and z), optionally jumping. */
  move(session: string, vx: number, vz: number, jump = false): void {
    this.sim.enqueue({ type: "move", session, vx, vz, ...(jump ? { jump: true } : {}) });
  }

  /**
   * One of the game's inputs, parsed by its schema (an invalid one throws), queued without its `check`:
   * what onInput does with an input its check would have refused (tryInput gives the room's answer).
   */
  input(session: string, name: string, message: unknown = {}): void {
    const def = Object.hasOwn(this.sim.game.inputs, name) ? this.sim.game.inputs[name] : undefined;
    if (def === undefined) throw new Error(`game "${this.sim.game.name}" has no input "${name}"`);
    this.sim.enqueue({ type: "input", session, name, message: def.schema.parse(message) });
  }

  /**
   * What a room answers an input: null when it is queued for the next step, else the reason it is
   * rejected for (the game's schema with the field's path, then its `check`). The rate limits (perSecond,
   * roomInterval, the spawn rate) are the server's and are not applied here.
   */
  tryInput(session: string, name: string, message: unknown = {}): string | null {
    const def = Object.hasOwn(this.sim.game.inputs, name) ? this.sim.game.inputs[name] : undefined;
    if (def === undefined) return `unknown message type "${name}"`;
    const parsed = def.schema.safeParse(message);
    if (!parsed.success) return formatZodIssues(parsed.error.issues);
    const player = this.player(session);
    if (def.check !== undefined && player !== undefined) {
      const verdict = def.check(this.ctx, player, parsed.data);
      if (verdict !== null) return verdict;
    }
    this.sim.enqueue({ type: "input", session, name, message: parsed.data });
    return null;
  }

  /** The context hooks get (read it between steps: the world, the fields, the players). */
  get ctx(): GameContext {
    return this.sim.runtime.ctx;
  }

  /** Steps `ticks` times; answers the last step's hash. */
  step(ticks = 1): string {
    for (let i = 0; i < ticks; i++) {
      this.last = this.sim.step();
      this.hookErrors.push(...this.last.hookErrors);
    }
    return this.last?.hash ?? "";
  }

  get tick(): number {
    return this.sim.tick;
  }

  get state(): FieldValues {
    return this.sim.runtime.state;
  }

  player(session: string): Player | undefined {
    return this.sim.players.find((p) => p.session === session);
  }

  /** Why the game stopped running (a hook kept throwing), or null. */
  get failed(): string | null {
    return this.sim.runtime.failed;
  }
}
