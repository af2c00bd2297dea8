import { resolveSettings, type Vec3Tuple } from "../../../shared/engine/index.ts";
import type { AvatarSpec } from "../../../shared/game/define.ts";
import {
  MSG_IMPULSE,
  MSG_MOVE,
  MSG_SPAWN,
  type RejectedMessage,
  type RoomInfo,
  type RoomSettings,
  type RoomState,
  type WelcomeMessage,
} from "../../../shared/net/index.ts";
import { getBuiltinScenario } from "../../../shared/scenarios/index.ts";
import { avatarBodyId } from "../../../shared/sim/index.ts";
import { AdminApi } from "./admin-api.ts";
import { Connection, type JoinTarget, type PhysicsRoom } from "./connection.ts";
import { DEFAULT_GAME_NAME, GameFields, type GameListing, gameInput, unlistedGame } from "./games.ts";
import { SnapshotFeed } from "./snapshot-feed.ts";

const INFO_POLL_MS = 1000;
/** Tries at GET /games before the page plays the room's game as one without inputs, and the wait between them, ms. */
const GAME_LIST_TRIES = 4;
const GAME_LIST_RETRY_MS = 1000;

/**
 * The page's seat in a room: the connection (joins, reconnects), the messages it sends, the snapshots it
 * receives (`snapshots`), and the room's info polled from the admin API every second. The other pieces
 * of the app hear about it through the `on…` callbacks.
 */
export class RoomSession {
  readonly admin = new AdminApi();
  readonly conn: Connection;
  readonly snapshots = new SnapshotFeed();
  /** The room last joined (kept while reconnecting). */
  room: PhysicsRoom | null = null;
  avatarId = "";
  joined = false;
  /** The room's info from the newest poll (GET /rooms/:id). */
  info: RoomInfo | null = null;
  /** The room's gravity as last reported (its welcome, then its info); the world mirror is kept at it. */
  readonly gravity: [number, number, number] = [0, -9.81, 0];
  /** The room's settings as last reported (its welcome, then every poll of its info); null before the welcome. */
  settings: RoomSettings | null = null;
  /** The room's game by name (its welcome); "" before the welcome. */
  gameName = "";
  /** The room's game as GET /games lists it (inputs, fields, keys, labels); null until both the welcome and the listing arrived. */
  game: GameListing | null = null;
  /** The game's avatar (its welcome): size, walking and jumping speeds; null before the welcome and in a game without avatars. */
  avatar: AvatarSpec | null = null;
  /** The game's fields as the newest patch has them (RoomState `fields`). */
  readonly fields = new GameFields();
  /** A room was attached; `newSession`: a different seat than before (or the first). */
  onSeat: (room: PhysicsRoom, newSession: boolean) => void = () => {};
  onWelcome: (welcome: WelcomeMessage) => void = () => {};
  /** The room's game is known (after each welcome, once GET /games answered). */
  onGame: (game: GameListing) => void = () => {};
  /** After a patch went into `snapshots`; `scenarioChanged` when it is the first of another scenario. */
  onSnapshot: (state: RoomState, scenarioChanged: boolean) => void = () => {};
  onInfo: (info: RoomInfo) => void = () => {};
  /** The server refused one of our messages (the reason is for the player). */
  onRejected: (rejection: RejectedMessage) => void = () => {};
  private lastScenario = "";

  constructor(endpoint: string) {
    this.conn = new Connection(endpoint, this.admin);
    this.conn.onRoom = (room) => this.attach(room);
    this.conn.onWelcome = (w) => this.welcome(w);
    this.conn.onRejected = (m) => this.onRejected(m);
    // Asked at once, so the game's inputs are usually known by the time its welcome arrives.
    this.admin.games().catch(() => {});
    setInterval(() => void this.pollInfo(), INFO_POLL_MS);
  }

  /** Whether the room's game takes the input `name` (false until the game is known). */
  hasInput(name: string): boolean {
    return gameInput(this.game, name) !== undefined;
  }

  /** One of the game's inputs, with its payload (the server validates it and answers `rejected` when it is not valid). */
  sendInput(name: string, message: unknown = {}): void {
    this.conn.send(name, message);
  }

  async join(target: JoinTarget): Promise<void> {
    await this.conn.join(target);
  }

  /** Desired planar velocity of the avatar (the server keeps the last one), and a jump. */
  move(vx: number, vz: number, jump = false): void {
    this.conn.send(MSG_MOVE, jump ? { vx, vz, jump: true } : { vx, vz });
  }

  spawnSphere(radius: number, velocity: number[]): void {
    this.conn.send(MSG_SPAWN, { shape: "sphere", size: radius, velocity });
  }

  impulse(bodyId: string, impulse: number[], point: Vec3Tuple | number[]): void {
    this.conn.send(MSG_IMPULSE, { bodyId, impulse, point });
  }

  private attach(room: PhysicsRoom): void {
    const fresh = this.room !== null && this.room.roomId !== room.roomId;
    const newSession = this.room === null || this.room.sessionId !== room.sessionId || fresh;
    this.room = room;
    if (newSession) {
      this.snapshots.reset();
      this.fields.clear();
    }
    this.avatarId = avatarBodyId(room.sessionId);
    room.onStateChange((state) => this.ingest(state));
    this.joined = true;
    this.rememberInAddress(room.roomId, this.conn.target.scenario);
    this.onSeat(room, newSession);
  }

  /**
   * A reload rejoins this room rather than whatever the address asked for first, and the address keeps
   * the room's game (unless it is the sandbox) and scenario (a built-in one) so that a saved link to a
   * room since closed can offer a new room of the same: `?room=<id>&game=<name>&scenario=<name>`.
   */
  private rememberInAddress(roomId: string, scenario: string | undefined): void {
    const url = new URL(window.location.href);
    const before = url.search;
    url.searchParams.set("room", roomId);
    const game = this.conn.target.game;
    if (game && game !== DEFAULT_GAME_NAME) url.searchParams.set("game", game);
    else url.searchParams.delete("game");
    if (scenario) url.searchParams.set("scenario", scenario);
    else url.searchParams.delete("scenario");
    if (url.search !== before) window.history.replaceState(null, "", url);
  }

  private welcome(w: WelcomeMessage): void {
    this.snapshots.setRates(w);
    this.avatarId = w.avatarId;
    this.takeSettings(w.settings);
    const another = w.game !== this.gameName;
    this.gameName = w.game;
    this.avatar = w.avatar ?? null;
    // After losing the room, rejoin a room of this game.
    this.conn.target.game = w.game === DEFAULT_GAME_NAME ? undefined : w.game;
    if (this.room) this.rememberInAddress(this.room.roomId, this.conn.target.scenario);
    if (another) this.game = null;
    this.onWelcome(w);
    void this.loadGame(w.game);
  }

  /** The welcome's game from GET /games (asked again a few times if the server does not answer). */
  private async loadGame(name: string): Promise<void> {
    let listing: GameListing | undefined;
    for (let attempt = 1; attempt <= GAME_LIST_TRIES && listing === undefined; attempt++) {
      try {
        listing = (await this.admin.games()).find((g) => g.name === name) ?? unlistedGame(name);
      } catch {
        if (attempt < GAME_LIST_TRIES) await new Promise((r) => setTimeout(r, GAME_LIST_RETRY_MS));
      }
    }
    // Answered after we moved on to another game's room: not this room's.
    if (name !== this.gameName) return;
    this.game = listing ?? unlistedGame(name);
    this.onGame(this.game);
  }

  /** The room's settings (welcome or info): the gravity the world mirror and the ball launcher use. */
  private takeSettings(settings: RoomSettings): void {
    this.settings = settings;
    this.setGravity(settings.gravity);
  }

  private setGravity(g: readonly number[]): void {
    this.gravity[0] = g[0];
    this.gravity[1] = g[1];
    this.gravity[2] = g[2];
    this.snapshots.mirror.setGravity(g);
  }

  private ingest(state: RoomState): void {
    this.snapshots.ingest(state, this.avatarId, performance.now());
    this.fields.read(state);
    const scenarioChanged = state.scenario !== this.lastScenario;
    if (scenarioChanged) {
      this.lastScenario = state.scenario;
      // After losing the room, rejoin a room of this scenario (when it is a built-in one, and the room's
      // game takes a scenario: the sandbox, or a game with anyScenario; any other plays its own).
      const builtin = getBuiltinScenario(state.scenario);
      const game = this.gameName || this.conn.target.game || DEFAULT_GAME_NAME;
      const takesScenario = game === DEFAULT_GAME_NAME || this.game?.anyScenario === true;
      this.conn.target.scenario = builtin && takesScenario ? state.scenario : undefined;
      if (this.room) this.rememberInAddress(this.room.roomId, this.conn.target.scenario);
      // A reload of another scene brings its gravity now, not at the next poll of the room's info (a
      // scenario given as JSON, or a gravity knob turned, is only known from that poll).
      if (builtin && this.settings) this.setGravity(resolveSettings(builtin.world).gravity);
    }
    this.onSnapshot(state, scenarioChanged);
  }

  private async pollInfo(): Promise<void> {
    const id = this.room?.roomId;
    if (!id) return;
    try {
      const info = await this.admin.room(id);
      // Answered after we moved on to another room: not this room's settings.
      if (id !== this.room?.roomId) return;
      this.info = info;
      this.takeSettings(info.settings);
      this.onInfo(info);
    } catch {
      // The room may be gone (reconnecting); the connection state says so.
    }
  }
}
