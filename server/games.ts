import { registerHooks } from "node:module";
import { isAbsolute, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { z } from "zod";
import { type GameDefinition, isGameDefinition } from "../shared/game/define.ts";
import { GameRegistry } from "../shared/game/registry.ts";
import { gamePaths } from "./game-paths.ts";
import { resolveScenario } from "./scenario-input.ts";

export { gamePaths };

/** The entry point game modules import, wherever they live (a temp dir, another repository). */
export const GAME_ENTRY_SPECIFIER = "physics-rooms/game";
const GAME_ENTRY = pathToFileURL(join(import.meta.dirname, "..", "shared", "game", "index.ts")).href;

let hooked = false;

/**
 * Lets a module outside this package import `physics-rooms/game` (Node resolves a package's name only
 * inside it): resolved to this checkout's entry point, so a game in any directory uses the very classes
 * the server checks it against.
 */
function resolveGameEntry(): void {
  if (hooked) return;
  hooked = true;
  registerHooks({
    resolve(specifier, context, nextResolve) {
      if (specifier === GAME_ENTRY_SPECIFIER) return { url: GAME_ENTRY, shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}

/** A game module that cannot be served; the message names the file and the problem. */
export class GameModuleError extends Error {}


/**
 * Imports one game module and checks it: a default export made by defineGame, whose scenario is a
 * built-in's name or a valid scenario. Throws a GameModuleError naming the file.
 */
export async function loadGameModule(path: string, cwd = process.cwd()): Promise<GameDefinition> {
  resolveGameEntry();
  const file = isAbsolute(path) ? path : resolve(cwd, path);
  let mod: { default?: unknown };
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown };
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why = e.code === "ERR_MODULE_NOT_FOUND" && e.message.includes(file) ? "no such file" : e.message.split("\n")[0];
    throw new GameModuleError(`${path}: cannot load the module: ${why}`);
  }
  const game = mod.default;
  if (!isGameDefinition(game)) {
    throw new GameModuleError(`${path}: the module's default export is not a game: export default defineGame({ … }) from "${GAME_ENTRY_SPECIFIER}"`);
  }
  checkGameScenario(game, path);
  return game;
}

/** A game's own scenario must load: a built-in's name or valid scenario JSON. */
export function checkGameScenario(game: GameDefinition, from: string): void {
  const resolved = resolveScenario(game.scenario, "scenario", {});
  if (!resolved.ok) throw new GameModuleError(`${from}: game "${game.name}": ${resolved.message}`);
}

let fromEnvironment: Promise<GameRegistry> | null = null;

/** The built-in games plus GAMES' modules (loaded once per process; what the replay tools verify against by default). */
export function gamesFromEnvironment(): Promise<GameRegistry> {
  fromEnvironment ??= loadGames(gamePaths(process.env.GAMES));
  return fromEnvironment;
}

/** The built-in games plus those of GAMES (paths relative to `cwd`), in that order. */
export async function loadGames(paths: readonly string[], cwd = process.cwd()): Promise<GameRegistry> {
  const registry = new GameRegistry();
  for (const g of registry.list()) checkGameScenario(g, "built-in");
  for (const path of paths) {
    const game = await loadGameModule(path, cwd);
    try {
      registry.add(game, isAbsolute(path) ? path : resolve(cwd, path));
    } catch (err) {
      throw new GameModuleError((err as Error).message);
    }
  }
  return registry;
}

/** One game as GET /games lists it. */
export interface GameListing {
  name: string;
  version: string;
  description: string;
  avatar: GameDefinition["avatar"];
  anyScenario: boolean;
  scenario: string;
  inputs: { name: string; label: string; schema: unknown; empty: boolean; perSecond?: number; roomInterval?: number; addsBodies?: boolean }[];
  state: Record<string, unknown>;
  playerState: Record<string, unknown>;
  client: { keys: { key: string; input: string; message?: unknown }[]; help?: string; labels?: Record<string, string> };
}

/** What clients need to play a game: its inputs (with JSON Schemas), fields and presentation. */
export function gameListing(game: GameDefinition): GameListing {
  return {
    name: game.name,
    version: game.version,
    description: game.description,
    avatar: game.avatar,
    anyScenario: game.anyScenario,
    scenario: typeof game.scenario === "string" ? game.scenario : game.scenario.name,
    inputs: Object.entries(game.inputs).map(([name, def]) => ({
      name,
      label: def.label ?? name,
      schema: z.toJSONSchema(def.schema, { unrepresentable: "any" }),
      empty: def.schema.safeParse({}).success,
      ...(def.perSecond !== undefined ? { perSecond: def.perSecond } : {}),
      ...(def.roomInterval !== undefined ? { roomInterval: def.roomInterval } : {}),
      ...(def.addsBodies ? { addsBodies: true } : {}),
    })),
    state: { ...game.state },
    playerState: { ...game.playerState },
    client: { keys: [...(game.client?.keys ?? [])], ...(game.client?.help ? { help: game.client.help } : {}), ...(game.client?.labels ? { labels: { ...game.client.labels } } : {}) },
  };
}
