import { Client, type Room } from "@colyseus/sdk";
import {
  CLOSE_REPLACED,
  CLOSE_REPLACED_REASON,
  MSG_REJECTED,
  MSG_WELCOME,
  type RejectedMessage,
  ROOM_NAME,
  RoomState,
  type WelcomeMessage,
} from "../../../shared/net/index.ts";
import type { AdminApi } from "./admin-api.ts";
import { DEFAULT_GAME_NAME } from "./games.ts";
import { RECLAIM_WITHIN_MS, reclaimSeat } from "./reclaim.ts";

export type ConnectionState = "connecting" | "connected" | "reconnecting" | "disconnected";
export type PhysicsRoom = Room<unknown, RoomState>;

/**
 * Where to go: a room id, or a game and/or a scenario (joins a room playing it that has space, else
 * creates one). No game: the sandbox (the server's default).
 */
export interface JoinTarget {
  roomId?: string;
  scenario?: string;
  game?: string;
}

/**
 * The room a join asked for by id does not exist (any more): a saved link to a room since closed. Carries
 * the scenario the link remembered, if any, so the page can offer a new room of it.
 */
export class RoomGoneError extends Error {
  readonly roomId: string;
  readonly scenario: string | undefined;
  /** The game the link remembered (undefined: the sandbox). */
  readonly game: string | undefined;
  constructor(roomId: string, scenario: string | undefined, game?: string) {
    super(`room ${roomId} is closed`);
    this.roomId = roomId;
    this.scenario = scenario;
    this.game = game;
  }
}

/** How the matchmaker answers a join of a room id it does not know (Colyseus: `room "<id>" not found`). */
function isUnknownRoom(err: unknown): boolean {
  return /\bnot found\b/i.test((err as Error)?.message ?? "");
}

/** How long after the room closed us (a close code of its own) we try to get the same seat back: the server holds a dropped seat 10 s. */
const SEAT_HELD_MS = 10_000;
/** A dropped connection (no close frame): the room's process may have died, and a survivor resumes the room within seconds. */
const ABNORMAL_CLOSURE = 1006;

/**
 * The room connection: joining, and getting the seat back after losing the connection: the
 * reconnection token through the matchmaker (reclaim.ts) while the server holds the seat (the avatar is
 * kept), then a fresh join of the same room. The SDK's automatic reconnection (@colyseus/sdk 0.18
 * room.reconnection) is off: it reopens the old socket's address, which is dead for good when the room's
 * process died, while the matchmaker finds the room where a surviving process resumed it. The token
 * works even while the server still sees our old socket open (a half-open connection): the server
 * closes that socket (CLOSE_REPLACED) and the session goes on over the new one.
 * Counts bytes received on the WebSocket and measures RTT with the SDK's ping.
 */
export class Connection {
  readonly client: Client;
  room: PhysicsRoom | null = null;
  state: ConnectionState = "connecting";
  /** Why the state last changed (close code, error). */
  detail = "";
  welcome: WelcomeMessage | null = null;
  bytesIn = 0;
  rttMs = Number.NaN;
  readonly rejected: RejectedMessage[] = [];
  /** Every state change with its detail, oldest first (the HUD shows the latest; tests read it). */
  readonly log: string[] = [];
  /** Called with every room object this connection gets (first join and each manual rejoin). */
  onRoom: (room: PhysicsRoom) => void = () => {};
  onWelcome: (welcome: WelcomeMessage) => void = () => {};
  onStateChange: (state: ConnectionState, detail: string) => void = () => {};
  /** The server refused one of our messages (e.g. the spawn rate limit), with the reason. */
  onRejected: (rejection: RejectedMessage) => void = () => {};
  /** What to rejoin after losing the room (the app fills in the scenario once it knows it). */
  readonly target: JoinTarget = {};
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private closedByUs = false;

  private readonly admin: AdminApi;

  constructor(endpoint: string, admin: AdminApi) {
    this.client = new Client(endpoint);
    this.admin = admin;
  }

  /**
   * The page's first join. A room asked for by id that does not exist is a RoomGoneError (the page
   * offers a new room rather than silently putting the player somewhere else); any failure leaves the
   * state "disconnected" with the reason.
   */
  async join(target: JoinTarget): Promise<PhysicsRoom> {
    this.target.roomId = target.roomId;
    this.target.scenario = target.scenario;
    this.target.game = target.game;
    this.set("connecting", "");
    let room: PhysicsRoom;
    try {
      room = await this.joinTarget(target, false);
    } catch (err) {
      const gone = target.roomId !== undefined && isUnknownRoom(err);
      const failure = gone ? new RoomGoneError(target.roomId!, target.scenario, target.game) : (err as Error);
      this.set("disconnected", gone ? failure.message : `could not join: ${failure.message}`);
      throw failure;
    }
    this.attach(room);
    return room;
  }

  /**
   * Joins the room asked for by id; if it is gone and `fallback`, a room of the game or scenario we came
   * for (if known). A game without a scenario is the matchmaker's joinOrCreate (rooms are matched on
   * their game); a scenario (of the sandbox, or of a game that takes any) is looked up in the room list.
   */
  private async joinTarget(target: JoinTarget, fallback: boolean): Promise<PhysicsRoom> {
    const game = target.game !== undefined && target.game !== DEFAULT_GAME_NAME ? target.game : undefined;
    if (target.roomId) {
      try {
        return (await this.client.joinById(target.roomId, {}, RoomState)) as PhysicsRoom;
      } catch (err) {
        if (!fallback || (target.scenario === undefined && game === undefined)) throw err;
      }
    }
    if (game !== undefined && target.scenario === undefined) return (await this.client.joinOrCreate(ROOM_NAME, { game }, RoomState)) as PhysicsRoom;
    const scenario = target.scenario ?? "arena";
    const playing = game ?? DEFAULT_GAME_NAME;
    try {
      const rooms = await this.admin.rooms();
      const open = rooms.find((r) => (r.game ?? DEFAULT_GAME_NAME) === playing && r.scenario === scenario && r.clients < (r.maxClients ?? Number.POSITIVE_INFINITY));
      if (open) return (await this.client.joinById(open.roomId, {}, RoomState)) as PhysicsRoom;
    } catch {
      // No listing or the room went away meanwhile: create one.
    }
    return (await this.client.create(ROOM_NAME, game === undefined ? { scenario } : { game, scenario }, RoomState)) as PhysicsRoom;
  }

  private attach(room: PhysicsRoom): void {
    this.room = room;
    room.reconnection.enabled = false;
    this.target.roomId = room.roomId;
    this.welcome = null;
    // The Connection object (and its events) survives the SDK's reconnects, so this counts every byte.
    const events = room.connection.events;
    const onmessage = events.onmessage;
    events.onmessage = (event: MessageEvent) => {
      const data = event.data as ArrayBuffer | string;
      this.bytesIn += typeof data === "string" ? data.length : data.byteLength;
      onmessage?.(event);
    };
    room.onMessage(MSG_WELCOME, (w: WelcomeMessage) => {
      this.welcome = w;
      this.onWelcome(w);
    });
    room.onMessage(MSG_REJECTED, (m: RejectedMessage) => {
      this.rejected.push(m);
      if (this.rejected.length > 20) this.rejected.shift();
      this.onRejected(m);
    });
    room.onDrop((code) => this.set("reconnecting", `connection lost (${code}), reconnecting…`));
    room.onLeave((code) => {
      if (this.room !== room) return;
      this.room = null;
      if (this.closedByUs) return this.set("disconnected", "left");
      // Our session went on over a newer connection (ours was taken over with our token): a rejoin would
      // only start a second session.
      if (code === CLOSE_REPLACED) return this.set("disconnected", CLOSE_REPLACED_REASON);
      void this.recover(room, code);
    });
    this.set("connected", "");
    if (this.pingTimer === null) {
      this.pingTimer = setInterval(() => this.room?.ping((ms) => (this.rttMs = ms)), 1000);
      room.ping((ms) => (this.rttMs = ms));
    }
    this.onRoom(room);
  }

  /** After losing the room: the seat (token) while the server may hold it, then a fresh join. */
  private async recover(lost: PhysicsRoom, code: number): Promise<void> {
    const token = lost.reconnectionToken;
    this.set("reconnecting", `room closed (${code}), reconnecting…`);
    if (token) {
      try {
        const room = await reclaimSeat<PhysicsRoom>(this.client, token, RoomState, {
          withinMs: code === ABNORMAL_CLOSURE ? RECLAIM_WITHIN_MS : SEAT_HELD_MS,
          stopped: () => this.closedByUs,
          onAttempt: (err) => (this.detail = err.message),
        });
        if (this.closedByUs) return void room.leave(true);
        this.attach(room);
        this.set("connected", "reconnected");
        return;
      } catch (err) {
        this.detail = (err as Error).message;
      }
    }
    let delay = 250;
    while (!this.closedByUs) {
      this.set("reconnecting", `room closed (${code}), joining it again…`);
      try {
        this.attach(await this.joinTarget(this.target, true));
        return;
      } catch (err) {
        this.detail = (err as Error).message;
      }
      await new Promise((r) => setTimeout(r, delay));
      delay = Math.min(delay * 2, 4000);
    }
  }

  send(type: string, payload: unknown): void {
    this.room?.send(type, payload);
  }

  async leave(): Promise<void> {
    this.closedByUs = true;
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    await this.room?.leave(true);
  }

  private set(state: ConnectionState, detail: string): void {
    this.log.push(detail ? `${state}: ${detail}` : state);
    if (this.log.length > 50) this.log.shift();
    this.state = state;
    this.detail = detail;
    this.onStateChange(state, detail);
  }
}
