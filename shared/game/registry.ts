import soccer from "../../games/soccer.ts";
import tower from "../../games/tower.ts";
import type { GameDefinition } from "./define.ts";
import { sandbox } from "./sandbox.ts";

/**
 * The games every server offers: the sandbox (today's rules, the default) and the two examples in
 * games/. A server adds more from modules named in GAMES (server/games.ts); the replay tools load the
 * same ones.
 */
export const BUILTIN_GAMES: readonly GameDefinition[] = Object.freeze([sandbox, soccer, tower]);

/** The game rooms play when nobody asks for one. */
export const DEFAULT_GAME = sandbox.name;

/** A set of games by name, in the order they were added (built-ins first). */
export class GameRegistry {
  private readonly games = new Map<string, GameDefinition>();
  private readonly modules = new Map<string, string>();

  constructor(games: readonly GameDefinition[] = BUILTIN_GAMES) {
    for (const g of games) this.add(g);
  }

  /** Adds a game (`module`: the file it came from, for a game that is not built in); a name already taken is an error. */
  add(game: GameDefinition, module?: string): void {
    if (this.games.has(game.name)) throw new Error(`${module ?? "built-in"}: a game named "${game.name}" is already defined`);
    this.games.set(game.name, game);
    if (module !== undefined) this.modules.set(game.name, module);
  }

  /** The module a game came from (an absolute path), undefined for a built-in. */
  moduleOf(name: string): string | undefined {
    return this.modules.get(name);
  }

  get(name: string): GameDefinition | undefined {
    return this.games.get(name);
  }

  names(): string[] {
    return [...this.games.keys()];
  }

  list(): GameDefinition[] {
    return [...this.games.values()];
  }
}
