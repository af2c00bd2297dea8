import type { FieldValue } from "../../../shared/game/fields.ts";
import type { RoomState } from "../../../shared/net/index.ts";
import type { GameListing } from "../../../server/games.ts";

export type { GameListing };
export type GameInput = GameListing["inputs"][number];
export type GameKey = GameListing["client"]["keys"][number];

/**
 * The game a room plays when nobody asks for one (DEFAULT_GAME in shared/game/registry.ts; not imported
 * from there, which would bundle every built-in game into the page). Its rooms are the page's default:
 * no `game` in the address or the join options.
 */
export const DEFAULT_GAME_NAME = "sandbox";

/** A game the listing does not have (a server older than the games API): no inputs, no fields, no keys. */
export function unlistedGame(name: string): GameListing {
  return { name, version: "", description: "", avatar: null, anyScenario: false, scenario: "", inputs: [], state: {}, playerState: {}, client: { keys: [] } };
}

/** The game's input `name`, if it has one. */
export function gameInput(game: GameListing | null, name: string): GameInput | undefined {
  return game?.inputs.find((i) => i.name === name);
}

/** A field's value from its JSON text (what the room state carries); text that is not JSON is shown as it is. */
function parseField(text: string): FieldValue {
  try {
    const v = JSON.parse(text) as unknown;
    return typeof v === "number" || typeof v === "string" || typeof v === "boolean" ? v : text;
  } catch {
    return text;
  }
}

/**
 * The game's fields from the room state's `fields` map (RoomState): game fields keyed by name, player
 * fields keyed `<sessionId>:<name>` (field names never hold a colon), each value JSON text. Read again
 * on every patch (a few dozen keys at most); `version` counts the reads that changed something.
 */
export class GameFields {
  /** Game fields by name, in the room state's order. */
  readonly game = new Map<string, FieldValue>();
  /** Player fields: session → (name → value), players in the order their first field arrived. */
  readonly players = new Map<string, Map<string, FieldValue>>();
  version = 0;
  private lastText = "";

  /** Reads the state's fields (a state without the map: no fields). */
  read(state: RoomState): void {
    const map = state.fields;
    let text = "";
    map?.forEach((value, key) => {
      text += `${key}\u0000${value}\u0001`;
    });
    if (text === this.lastText) return;
    this.lastText = text;
    this.version++;
    this.game.clear();
    this.players.clear();
    map?.forEach((value, key) => {
      const colon = key.lastIndexOf(":");
      if (colon < 0) {
        this.game.set(key, parseField(value));
        return;
      }
      const session = key.slice(0, colon);
      let fields = this.players.get(session);
      if (fields === undefined) {
        fields = new Map();
        this.players.set(session, fields);
      }
      fields.set(key.slice(colon + 1), parseField(value));
    });
  }

  clear(): void {
    this.game.clear();
    this.players.clear();
    this.lastText = "";
    this.version++;
  }

  /** Plain objects for tests and the console: `{ game: {...}, players: { session: {...} } }`. */
  toJSON(): { game: Record<string, FieldValue>; players: Record<string, Record<string, FieldValue>> } {
    const players: Record<string, Record<string, FieldValue>> = {};
    for (const [session, fields] of this.players) players[session] = Object.fromEntries(fields);
    return { game: Object.fromEntries(this.game), players };
  }
}
