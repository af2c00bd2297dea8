import { type Client, ClientState, CloseCode, logger, matchMaker, Room, ServerError } from "@colyseus/core";
import {
  CLOSE_CPU_BUDGET,
  CLOSE_RATE_LIMITED,
  CLOSE_REPLACED,
  CLOSE_REPLACED_REASON,
  type ClientMessageType,
  LIMITS,
  MSG_IMPULSE,
  MSG_MOVE,
  MSG_REJECTED,
  MSG_SPAWN,
  MSG_WELCOME,
  parseClientMessage,
  type RejectedMessage,
  RoomState,
  type WelcomeMessage,
} from "../../shared/net/index.ts";
import type { RemovedBody } from "../../shared/engine/index.ts";
import { pointNearBody, type RoomSettings, type RoomSettingsPatch, RoomSim } from "../../shared/sim/index.ts";
import { resolveSettings } from "../../shared/engine/index.ts";
import { type Admission, SEAT_USED_CHANNEL } from "../admission.ts";
import { DEFAULT_LIMITS, type ServerLimits } from "../config.ts";
import type { ScenarioProbe } from "../cpu/probe.ts";
import { solverPasses } from "../cpu/cost-model.ts";
import { type BudgetAction, type BudgetState, bodyCapForBudget, RoomCpuBudget } from "../cpu/room-budget.ts";
import { countBudgetAction, RoomMetrics, registerRoomMetrics, unregisterRoomMetrics } from "../metrics.ts";
import { DEFAULT_REPLAY_DIR, ReplayRecorder } from "../replay/recorder.ts";
import type { ReplayStore } from "../replay/store.ts";
import { resolveScenario } from "../scenario-input.ts";
import { minRestitutionThreshold } from "../../shared/scenarios/index.ts";
import { releaseUnclaimedSeats } from "../shutdown.ts";
import { StateSync } from "../state-sync.ts";
import { InputLimiter } from "./input-limiter.ts";
import { createHash } from "node:crypto";
import { ADMIN_ROOM_CAPS, PLAYER_ROOM_CAPS, type RoomCaps, scenarioCaps } from "./room-caps.ts";

export type { RoomCaps } from "./room-caps.ts";

/** Close codes after which a dropped client gets no reconnection window (kicked, shut down, broken frames). */
const NO_RECONNECT_CODES: ReadonlySet<number> = new Set([CloseCode.WITH_ERROR, CloseCode.SERVER_SHUTDOWN, CLOSE_RATE_LIMITED, 1002, 1007, 1009]);
/** Protocol codes (low 5 bits of a frame's first byte) still handled while a client is throttled: join ack and leave. */
const ALWAYS_HANDLED = new Set([10, 12]);
/** How often the room refreshes its summary in the matchmaking listing (what GET /rooms shows for remote rooms), ms. */
const LISTING_REFRESH_MS = 2000;
/** A new player room counts its whole CPU budget against the process share for this long, ms. */
const PROBATION_MS = 10_000;
/** Rooms are shed once all of them together use more than this many times the player-room share. */
const SHED_ABOVE_SHARE = 1.25;
/** Removed-body log lines per room per second at most (the rest are counted). */
const REMOVAL_LOGS_PER_SECOND = 5;

/** Server-wide settings of physics rooms (set once by the app; never from client options). */
export interface RoomConfig {
  replayDir: string;
  /** Rooms created over the admin API. */
  adminCaps: RoomCaps;
  /** Rooms players create through matchmaking (join options). */
  playerCaps: RoomCaps;
  /**
   * Marks options as coming from the admin API (the admin token: shared by every process when set in
   * the environment). Never sent to clients; stripped from matchmaking requests.
   */
  trustKey: string;
  defaults: { maxClients: number; maxBodies: number; maxSpawnsPerSecond: number; patchRateMs: number; scenario: string };
  /** Ticks between replay keyframes. */
  keyframeInterval: number;
  /** Timeouts and rate limits (server/config.ts). */
  limits: ServerLimits;
  /** The process's replay directory (rotation, cross-process downloads); null in bare tests. */
  replayStore: ReplayStore | null;
  /** Per-address room and seat admission; null in bare tests. */
  admission: Admission | null;
  /** Sandbox that tries a player scenario's first ticks before the room starts; null in bare tests. */
  probe: ScenarioProbe | null;
}

export const roomConfig: RoomConfig = {
  replayDir: DEFAULT_REPLAY_DIR,
  adminCaps: { ...ADMIN_ROOM_CAPS },
  playerCaps: { ...PLAYER_ROOM_CAPS },
  trustKey: "",
  defaults: { maxClients: 16, maxBodies: 3000, maxSpawnsPerSecond: 4, patchRateMs: 50, scenario: "arena" },
  keyframeInterval: 600,
  limits: { ...DEFAULT_LIMITS },
  replayStore: null,
  admission: null,
  probe: null,
};

/** Options a room is created with (join options of the creating client, or POST /rooms). */
export interface PhysicsRoomOptions {
  /** Built-in scenario name or scenario JSON. Default `arena`. */
  scenario?: unknown;
  /** Milliseconds between state patches (16..1000). Default 50 (20 Hz). */
  patchRateMs?: number;
  maxClients?: number;
  maxBodies?: number;
  maxSpawnsPerSecond?: number;
  /** Set by the admin API only (see RoomConfig.trustKey). */
  trust?: string;
}

/** Option key the admin API uses to mark its room creations. */
export const TRUST_OPTION = "trust";
/**
 * Option key the matchmaking route sets to the requesting client's address (never taken from a client):
 * `{ address, charged }`, where `charged` says the route already took this creation from the address's
 * allowance.
 */
export const CREATOR_OPTION = "creator";

export interface CreatorInfo {
  address: string;
  charged: boolean;
}

/**
 * A room creation refused for a reason the client should read (invalid scenario, rate, CPU budget). A
 * ServerError, so Colyseus does not print it as a crash; its code is the HTTP status of the refusal
 * (Colyseus re-wraps it with the same code and message for the matchmaking route).
 */
export class RoomRefusal extends ServerError {
  constructor(status: 400 | 429 | 503, message: string) {
    super(status, message);
  }
}

/** Lets the event loop run whatever is waiting (other rooms' ticks, requests) before going on. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The cache key of a scenario for the probe: a built-in's name, or a digest of the JSON. */
function scenarioKey(input: unknown): string {
  if (typeof input === "string") return `builtin:${input}`;
  return `json:${createHash("sha256").update(JSON.stringify(input)).digest("base64url")}`;
}

function bounded(value: unknown, fallback: number, min: number, max: number): number {
  return typeof value === "number" && Number.isFinite(value) ? Math.min(max, Math.max(min, Math.floor(value))) : fallback;
}

/**
 * The `physics` room. Thin on purpose: it validates client messages and queues them as simulation
 * inputs; on Colyseus' fixed timestep it steps the RoomSim (which applies the queued inputs first) and
 * records the tick; right before each patch it copies the changed state into the schema. Admin methods
 * (`admin*`) are called through `matchMaker.remoteRoomCall`, so they work on any process.
 */
export class PhysicsRoom extends Room<{ state: RoomState }> {
  override state = new RoomState();
  sim!: RoomSim;
  metrics!: RoomMetrics;
  private sync!: StateSync;
  private recorder: ReplayRecorder | null = null;
  private maxSpawnsPerSecond = 4;
  private caps: RoomCaps = roomConfig.playerCaps;
  private maxBodies = 3000;
  private patchRateMs = 50;
  /** Recent accepted spawn ticks per session (a sliding one-second window in sim ticks). */
  private spawnTicks = new Map<string, number[]>();
  private queuedSpawns = 0;
  private encodedBytes = 0;
  private encoderHooked = false;
  /** Sync time of the current patch, ms (measured in onBeforePatch, subtracted from broadcastPatch). */
  private lastSyncMs = 0;
  /** Created over the admin API (admin caps, longer idle timeout). */
  private trusted = false;
  /** Input rate limiter per session. */
  private limiters = new Map<string, InputLimiter>();
  /** Sessions dropped and waiting for their reconnection. */
  private awaitingReconnection = new Set<string>();
  /** Sessions we closed for misbehaving (no reconnection window for them, whatever code their socket closed with). */
  private kicked = new Set<string>();
  /** Sessions whose live socket is being replaced by a newer connection (checkReconnectionToken → onDrop). */
  private replacing = new Set<string>();
  /** Wall-clock ms since the room has been empty, or -1. */
  private emptySince = -1;
  private removalLogWindow = 0;
  private removalLogs = 0;
  private removalsUnlogged = 0;
  /** CPU budget of the room (enforced for player rooms, reported for admin rooms). */
  private budget!: RoomCpuBudget;
  /** Why the room is closing, when it closes itself (the replay's end line). */
  private closeReason: string | null = null;
  private lastOverrunLog = 0;
  /** Wall-clock ms the room took its place (its probation in the process share starts then). */
  private startedAt = 0;
  /** onCreate finished: the room ticks (load shedding only acts on such rooms). */
  private started = false;

  /** Rooms of this process that are running (for the process CPU share and load shedding). */
  private static readonly live = new Set<PhysicsRoom>();

  /** Rooms of this process by who created them (the admission's room counts). */
  static roomCounts(): { player: number; admin: number } {
    let admin = 0;
    for (const room of PhysicsRoom.live) if (room.trusted) admin++;
    return { player: PhysicsRoom.live.size - admin, admin };
  }

  /**
   * CPU the process's rooms count against PLAYER_ROOMS_CPU_MS, ms per second: what each used in its last
   * second, but a player room in its first PROBATION_MS counts at least its whole budget, since what a
   * scenario costs once it has settled (or landed) is not known yet. A burst of creations can therefore
   * not admit more rooms than the share holds.
   */
  static admissionLoadMs(now: number): number {
    let total = 0;
    for (const room of PhysicsRoom.live) {
      const reserved = !room.trusted && now - room.startedAt < PROBATION_MS ? room.budget.msPerSecond : 0;
      total += Math.max(room.budget.lastSecondMs, reserved);
    }
    return total;
  }

  /**
   * Load shedding, once a second: when the rooms together used more than the player share allows, the
   * most expensive player room is slowed at once (without its own 2 s grace), or closed if it already
   * runs slowed. Admin rooms are never shed.
   */
  static shedLoad(limits: ServerLimits): void {
    let used = 0;
    let worst: PhysicsRoom | null = null;
    for (const room of PhysicsRoom.live) {
      used += room.budget.lastSecondMs;
      if (!room.trusted && room.started && room.budget.state !== "closed" && (worst === null || room.budget.lastSecondMs > worst.budget.lastSecondMs)) worst = room;
    }
    if (worst === null || used <= limits.playerRoomsCpuMs * SHED_ABOVE_SHARE) return;
    const action = worst.budget.shed();
    if (action !== "none") {
      logger.warn(`process over its room CPU share (${Math.round(used)} ms/s of ${limits.playerRoomsCpuMs}): shedding room ${worst.roomId}`);
      worst.onBudgetAction(action);
    }
  }

  override async onCreate(options: PhysicsRoomOptions = {}): Promise<void> {
    // No patches until the simulation exists (the scenario probe below is awaited).
    this.patchRate = null;
    const d = roomConfig.defaults;
    const trusted = roomConfig.trustKey !== "" && options.trust === roomConfig.trustKey;
    this.trusted = trusted;
    this.caps = trusted ? roomConfig.adminCaps : roomConfig.playerCaps;
    const limits = roomConfig.limits;
    const creator = (options as Record<string, unknown>)[CREATOR_OPTION] as CreatorInfo | undefined;
    const address = creator?.address ?? "local";
    const admission = roomConfig.admission;
    const refuse = (status: 400 | 429 | 503, reason: string, message: string): never => {
      admission?.refuseFor(address, reason, message);
      throw new RoomRefusal(status, message);
    };
    // Counted before this room: Colyseus adds it to stats.local once onCreate returns.
    if (matchMaker.stats.local.roomCount >= limits.maxRooms) {
      throw new RoomRefusal(503, `server full: this process already hosts ${limits.maxRooms} rooms`);
    }
    if (admission) {
      const verdict = trusted ? admission.createAdminRoom(limits.maxRooms) : admission.createPlayerRoom(address, limits.maxRooms, Date.now(), !creator?.charged);
      if (!verdict.ok) throw new RoomRefusal(verdict.status, verdict.message);
    }
    const resolved = resolveScenario(options.scenario ?? d.scenario, "scenario", scenarioCaps(this.caps));
    if (!resolved.ok) return refuse(400, "invalid-scenario", `invalid scenario: ${resolved.message}`);
    const settings = resolveSettings(resolved.scenario.world);
    let bodyCap = this.caps.maxBodies;
    if (!trusted) {
      // A player room's size follows from its CPU budget: more steps per second and more solver
      // iterations per step leave room for fewer bodies.
      const passes = solverPasses(settings);
      bodyCap = Math.min(bodyCap, bodyCapForBudget(limits.playerRoomCpuMs, settings.tickRate, passes));
      const count = resolved.scenario.bodies.length;
      if (count > bodyCap) {
        refuse(
          400,
          "cpu-budget",
          `invalid scenario: scenario.bodies: ${count} bodies, but a player room at ${settings.tickRate} Hz with these solver iterations holds at most ${bodyCap} within its CPU budget (${limits.playerRoomCpuMs} ms/s)`,
        );
      }
      const load = PhysicsRoom.admissionLoadMs(Date.now());
      if (load + limits.playerRoomCpuMs > limits.playerRoomsCpuMs) {
        refuse(
          503,
          "process-cpu",
          `server busy: its rooms use or have reserved ${Math.round(load)} ms of CPU per second, and a new player room reserves ${limits.playerRoomCpuMs} of the ${limits.playerRoomsCpuMs} player rooms may share`,
        );
      }
    }
    // Every check so far ran without yielding: the room now takes its place (room counts, its CPU
    // reservation in the process share) before its first await, so concurrent creations see it. If it is
    // refused later, Colyseus disposes it and onDispose gives the place back.
    this.budget = new RoomCpuBudget(trusted ? limits.playerRoomsCpuMs : limits.playerRoomCpuMs, settings.tickRate, !trusted);
    this.startedAt = Date.now();
    PhysicsRoom.live.add(this);
    // Building a room of a few thousand bodies takes tens of milliseconds: it yields between its phases
    // (the probe, the world, the first state sync) so that other rooms' ticks and requests run between.
    await nextTurn();
    if (!trusted) {
      if (roomConfig.probe) {
        const verdict = await roomConfig.probe.probe(
          scenarioKey(options.scenario ?? d.scenario),
          resolved.scenario,
          settings.tickRate,
          limits.playerRoomCpuMs / settings.tickRate,
          bodyCap,
        );
        if (!verdict.ok) {
          if (verdict.busy) refuse(503, "probe-busy", verdict.reason);
          refuse(400, "probe", `invalid scenario: scenario: ${verdict.reason}`);
        }
      }
    }
    this.maxClients = bounded(options.maxClients, Math.min(d.maxClients, this.caps.maxClients), 1, this.caps.maxClients);
    this.maxBodies = bounded(options.maxBodies, Math.min(d.maxBodies, bodyCap), 1, bodyCap);
    this.maxSpawnsPerSecond = bounded(
      options.maxSpawnsPerSecond,
      Math.min(d.maxSpawnsPerSecond, this.caps.maxSpawnsPerSecond),
      0,
      this.caps.maxSpawnsPerSecond,
    );
    this.patchRateMs = bounded(options.patchRateMs, d.patchRateMs, 16, 1000);
    // A scenario may hold more bodies than the spawn limit; spawning then simply stays closed.
    this.sim = new RoomSim(resolved.scenario, { maxBodies: this.maxBodies });
    await nextTurn();
    this.sync = new StateSync(this.state);
    // Filled now, so a client joining before the first patch gets the scenario in its full state.
    this.sync.sync(this.sim);
    this.metrics = new RoomMetrics(this.roomId);
    this.metrics.scenario = resolved.scenario.name;
    registerRoomMetrics(this.metrics);
    try {
      this.recorder = new ReplayRecorder(roomConfig.replayDir, this.roomId, this.sim, roomConfig.keyframeInterval, limits.replayFileMaxBytes);
      roomConfig.replayStore?.register(this.roomId, this.recorder);
    } catch (err) {
      logger.error(`room ${this.roomId}: replay recording disabled: ${(err as Error).message}`);
    }
    // Our own limiter (guardMessages) throttles and disconnects floods; Colyseus' per-second counter
    // (which closes with 4002 without a reason) stays as a backstop above it.
    this.maxMessagesPerSecond = 2 * limits.maxInputsPerSecond + 8;
    this.guardMessages();
    // Emptiness is handled by checkIdle (a grace period instead of disposing at once).
    this.autoDispose = false;
    this.clock.setInterval(() => this.checkIdle(), 250);
    this.clock.setInterval(() => this.refreshListing(), LISTING_REFRESH_MS);
    this.onMessage(MSG_MOVE, (client, payload) => this.handleInput(client, MSG_MOVE, payload));
    this.onMessage(MSG_SPAWN, (client, payload) => this.handleInput(client, MSG_SPAWN, payload));
    this.onMessage(MSG_IMPULSE, (client, payload) => this.handleInput(client, MSG_IMPULSE, payload));
    this.onMessage("*", (client, type) => this.reject(client, String(type), `unknown message type "${String(type).slice(0, 32)}"`));
    this.metrics.cpu = this.budget;
    this.seatReservationTimeout = limits.seatReservationSeconds;
    this.setFixedTimestep(() => this.tickOnce(), this.sim.world.settings.tickRate);
    this.metrics.loop.stepMs = 1000 / this.sim.world.settings.tickRate;
    this.patchRate = this.patchRateMs;
    this.clock.setInterval(() => void this.recorder?.flush(), 500);
    this.refreshListing();
    this.started = true;
  }

  override onJoin(client: Client, _options?: Record<string, unknown>): void {
    // The seat may have been reserved through another process: every process hears it (and this one at once).
    roomConfig.admission?.seatUsed(client.sessionId);
    void Promise.resolve(matchMaker.presence?.publish(SEAT_USED_CHANNEL, client.sessionId)).catch(() => {});
    this.sim.enqueue({ type: "join", session: client.sessionId });
    this.sendWelcome(client);
    this.metrics.clients = this.clients.length;
  }

  private sendWelcome(client: Client): void {
    const welcome: WelcomeMessage = {
      sessionId: client.sessionId,
      avatarId: `avatar-${client.sessionId}`,
      tickRate: this.sim.world.settings.tickRate,
      patchRateMs: this.patchRateMs,
      maxSpawnsPerSecond: this.maxSpawnsPerSecond,
      maxInputsPerSecond: roomConfig.limits.maxInputsPerSecond,
      reconnectSeconds: roomConfig.limits.reconnectSeconds,
    };
    client.send(MSG_WELCOME, welcome);
  }

  override onDrop(client: Client, code?: number): void {
    // Taken over by a newer connection (checkReconnectionToken): the seat waits for it, whatever the code.
    const replaced = this.replacing.delete(client.sessionId);
    // Kicked by us (client.leave): the close event carries the peer's answer (1000, or 1006 from one that
    // never answers), not our code, so the kick is remembered by session.
    const kicked = this.kicked.delete(client.sessionId);
    // Keep the seat and the avatar for a network drop; not after a kick, a broken frame or a shutdown.
    const seconds = replaced ? this.seatReservationTimeout : roomConfig.limits.reconnectSeconds;
    if (seconds <= 0 || kicked || (!replaced && code !== undefined && NO_RECONNECT_CODES.has(code))) return;
    const session = client.sessionId;
    // The avatar stands still while its player is away (an input like any other: recorded, replayable).
    if (this.sim.avatarOf(session)) this.sim.enqueue({ type: "move", session, vx: 0, vz: 0 });
    this.awaitingReconnection.add(session);
    this.allowReconnection(client, seconds).catch(() => {
      // Expired or the room is closing: onLeave follows and removes the avatar.
    });
  }

  override onReconnect(client: Client): void {
    this.awaitingReconnection.delete(client.sessionId);
    this.sendWelcome(client);
    this.metrics.clients = this.clients.length;
  }

  /**
   * A reconnection token presented while its session is still connected (the player's old socket is
   * half-open, or the client reconnects from a new network): a takeover. Colyseus alone would close the
   * live session with 4002, which onDrop takes for "no reconnection" (avatar removed, reconnection
   * refused). Instead the stale socket is closed with CLOSE_REPLACED and its reason (terminated if it
   * does not answer within a second, server/shutdown.ts) and the session is dropped with its seat kept,
   * so the newer connection continues it: same sessionId, same avatar, the welcome again. Possession of
   * the token is the credential: it is secret, sent only to the session's own connection, and replaced
   * on every (re)connection, so the replaced socket's token stops working. A join never acknowledged
   * gets no takeover (Colyseus' own handling). Called by the matchmaker (`client.reconnect(token)`) and
   * by hasReservedSeat below.
   */
  override checkReconnectionToken(reconnectionToken: string): string {
    const live = this.clients.find((c) => c.reconnectionToken === reconnectionToken);
    if (live !== undefined && live.state === ClientState.JOINED) {
      this.replacing.add(live.sessionId);
      logger.info(`room ${this.roomId}: session ${live.sessionId} taken over by a newer connection`);
      // Our code goes out in the close frame; Colyseus' own close (4002) that follows is a no-op on a closing socket.
      live.leave(CLOSE_REPLACED, CLOSE_REPLACED_REASON);
    }
    return super.checkReconnectionToken(reconnectionToken);
  }

  /**
   * The SDK's automatic reconnection connects to the room with the token directly (no matchmaker call);
   * Colyseus would then wait until the old socket dies (ping timeout) or the seat reservation time ends.
   * A token of a live session takes it over here as well, before Colyseus checks the seat.
   */
  override hasReservedSeat(sessionId: string, reconnectionToken?: string): boolean {
    if (reconnectionToken && this.clients.get(sessionId)?.reconnectionToken === reconnectionToken) {
      this.checkReconnectionToken(reconnectionToken);
    }
    return super.hasReservedSeat(sessionId, reconnectionToken);
  }

  /**
   * Shutdown (SIGTERM/SIGINT: Colyseus calls this on every room once matchmaking has stopped). The
   * replay is closed first (final keyframe + end line), before anything waits on a client; seats
   * reserved but never claimed are released (the room would wait for them to expire); then every
   * client is closed with 4001. onDispose closes the replay again, which only waits for this close.
   */
  override onBeforeShutdown(): void {
    void this.recorder?.close(this.sim, this.closeReason ?? "shutdown");
    releaseUnclaimedSeats(this);
    try {
      this.disconnect(CloseCode.SERVER_SHUTDOWN).catch(() => {});
    } catch (err) {
      logger.warn(`room ${this.roomId}: shutdown disconnect failed: ${(err as Error).message}`);
    }
  }

  override onLeave(client: Client): void {
    this.kicked.delete(client.sessionId);
    this.sim.enqueue({ type: "leave", session: client.sessionId });
    this.spawnTicks.delete(client.sessionId);
    this.limiters.delete(client.sessionId);
    this.awaitingReconnection.delete(client.sessionId);
    this.metrics.clients = this.clients.length;
  }

  override async onDispose(): Promise<void> {
    PhysicsRoom.live.delete(this);
    unregisterRoomMetrics(this.roomId);
    const reason = this.closeReason ?? (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN ? "shutdown" : "dispose");
    await this.recorder?.close(this.sim, reason);
    roomConfig.replayStore?.unregister(this.roomId);
  }

  /** Disposes the room once it has been empty (no client, no seat reserved or awaiting reconnection) long enough. */
  private checkIdle(): void {
    const seats = (this as unknown as { _reservedSeats?: Record<string, unknown> })._reservedSeats;
    const empty = this.clients.length === 0 && this.awaitingReconnection.size === 0 && (seats === undefined || Object.keys(seats).length === 0);
    if (!empty) {
      this.emptySince = -1;
      return;
    }
    const now = Date.now();
    if (this.emptySince < 0) this.emptySince = now;
    const idleSeconds = this.trusted ? roomConfig.limits.adminRoomIdleSeconds : roomConfig.limits.roomIdleSeconds;
    if (now - this.emptySince >= idleSeconds * 1000) {
      logger.info(`room ${this.roomId}: empty for ${idleSeconds} s, disposing`);
      this.emptySince = -1;
      void this.disconnect();
    }
  }

  /** Writes the room's summary into its matchmaking listing: GET /rooms on any process reads it from there. */
  private refreshListing(): void {
    void this.setMetadata({ scenario: this.sim.scenario.name, info: { ...this.adminInfo(), updatedAt: Date.now() } }).catch(() => {});
  }

  // ---------------------------------------------------------------- connection guard

  private limiterOf(client: Client): InputLimiter {
    let limiter = this.limiters.get(client.sessionId);
    if (!limiter) {
      limiter = new InputLimiter(roomConfig.limits.maxInputsPerSecond, roomConfig.limits.floodDisconnectSeconds);
      this.limiters.set(client.sessionId, limiter);
    }
    return limiter;
  }

  /**
   * Wraps Colyseus' per-connection frame handler (`Room#_onMessage`, internal: it is looked up on the room
   * when a client joins, so an own property shadows it). Every frame is counted by the client's rate
   * limiter before it is decoded; over the rate, data frames are dropped, and a client that keeps
   * flooding is closed with 4029 and the reason. A frame Colyseus cannot decode is answered with a
   * rejection instead of throwing out of the socket's event handler. If the internal method is ever
   * renamed, the guard is skipped with a warning and Colyseus' own maxMessagesPerSecond still applies.
   */
  private guardMessages(): void {
    const self = this as unknown as { _onMessage?: (client: Client, buffer: Uint8Array) => void };
    const original = self._onMessage;
    if (typeof original !== "function") {
      logger.warn(`room ${this.roomId}: Room#_onMessage not found; per-client input limits are Colyseus' only`);
      return;
    }
    self._onMessage = (client: Client, buffer: Uint8Array) => {
      const limiter = this.limiterOf(client);
      const now = Date.now();
      const verdict = limiter.check(now);
      const code = buffer && buffer.length > 0 ? buffer[0] & 31 : -1;
      if (verdict !== "accept" && !ALWAYS_HANDLED.has(code)) {
        this.metrics.rejectedInputs++;
        if (verdict === "disconnect") {
          if (!limiter.kicked) {
            limiter.kicked = true;
            logger.warn(`room ${this.roomId}: client ${client.sessionId} disconnected: ${limiter.reason()}`);
            this.kicked.add(client.sessionId);
            client.leave(CLOSE_RATE_LIMITED, limiter.reason());
          }
          return;
        }
        if (limiter.firstDropInWindow) {
          this.notify(client, "*", `rate limit: at most ${limiter.maxPerSecond} messages per second; the rest of this second is dropped`);
        }
        return;
      }
      try {
        original.call(this, client, buffer);
      } catch (err) {
        this.reject(client, "*", `malformed message: ${(err as Error).message.slice(0, 80)}`);
      }
    };
  }

  override onUncaughtException(error: Error, methodName: string): void {
    // A refused creation is an answer to the client, logged by the admission (once per address), not a crash.
    if ((error as { cause?: unknown }).cause instanceof RoomRefusal || error instanceof RoomRefusal) return;
    logger.error(`room ${this.roomId}: ${methodName} threw: ${error.stack ?? error.message}`);
  }

  // ---------------------------------------------------------------- simulation

  private tickOnce(): void {
    if (!this.budget.shouldStep()) return;
    const t0 = performance.now();
    this.queuedSpawns = 0;
    const result = this.sim.step();
    if (this.sim.world.removedLastStep.length > 0) this.reportRemoved(this.sim.world.removedLastStep);
    this.recorder?.record(result, this.sim);
    this.metrics.tick = result.tick;
    const t1 = performance.now();
    this.metrics.observeTick(t1 - t0);
    this.metrics.loop.observe(this.clock, t0, t1);
    const action = this.budget.charge(t1 - t0, Date.now());
    if (action !== "none") this.onBudgetAction(action);
    else if (!this.budget.enforce && this.budget.lastSecondMs > this.budget.msPerSecond) this.logAdminOverrun();
  }

  /** A player room over its CPU budget: slowed to half speed, then closed with the reason; or back to full speed. */
  private onBudgetAction(action: BudgetAction): void {
    countBudgetAction(action);
    const used = `${Math.round(this.budget.lastSecondMs)} ms/s of its ${this.budget.msPerSecond} ms/s CPU budget`;
    if (action === "slow") {
      logger.warn(`room ${this.roomId}: over its CPU budget for 2 s (${used}): running at half speed`);
    } else if (action === "recover") {
      logger.info(`room ${this.roomId}: back under its CPU budget: running at full speed`);
    } else if (action === "close") {
      const reason = `room closed: it stayed over its CPU budget at half speed (${used})`;
      logger.warn(`room ${this.roomId}: ${reason}`);
      this.closeReason = "cpu-budget";
      this.lock().catch(() => {});
      for (const client of [...this.clients]) client.leave(CLOSE_CPU_BUDGET, reason);
      void this.disconnect();
    }
  }

  /** Admin rooms are trusted: over budget, they are only reported (once a minute). */
  private logAdminOverrun(): void {
    const now = Date.now();
    if (now - this.lastOverrunLog < 60_000) return;
    this.lastOverrunLog = now;
    logger.warn(`room ${this.roomId} (admin): uses ${Math.round(this.budget.lastSecondMs)} ms of CPU per second, more than the ${this.budget.msPerSecond} ms/s all rooms share`);
  }

  override onBeforePatch(): void {
    const t0 = performance.now();
    this.sync.sync(this.sim);
    this.lastSyncMs = performance.now() - t0;
    this.metrics.syncMs += this.lastSyncMs;
    this.metrics.bodies = this.sim.world.bodyCount;
    this.metrics.awake = this.sim.world.awakeBodyCount;
  }

  override broadcastPatch(): boolean {
    if (!this.encoderHooked) this.hookEncoder();
    const t0 = performance.now();
    this.encodedBytes = 0;
    this.lastSyncMs = 0;
    const changed = super.broadcastPatch();
    const total = performance.now() - t0;
    this.metrics.patchMs += total - this.lastSyncMs;
    if (this.encodedBytes > 0) {
      this.metrics.patches++;
      this.metrics.patchBytes += this.encodedBytes;
      this.metrics.patchBytesPerClient += this.encodedBytes * this.clients.length;
    }
    return changed;
  }

  /**
   * Counts encoded patch bytes by wrapping the serializer's encoder (internal API; if it changes, the
   * byte metrics stay at zero and nothing else breaks).
   */
  private hookEncoder(): void {
    this.encoderHooked = true;
    const serializer = (this as unknown as { _serializer?: { encoder?: { encode?: (...args: unknown[]) => Uint8Array } } })._serializer;
    const encoder = serializer?.encoder;
    if (!encoder || typeof encoder.encode !== "function") return;
    const original = encoder.encode.bind(encoder);
    encoder.encode = (...args: unknown[]) => {
      const bytes = original(...args);
      this.encodedBytes += bytes.byteLength;
      return bytes;
    };
  }

  // ---------------------------------------------------------------- client inputs

  private reject(client: Client, type: string, reason: string): void {
    this.metrics.rejectedInputs++;
    this.notify(client, type, reason);
  }

  /** Sends a rejection notice, within the client's notice budget (garbage cannot make us send more than we get). */
  private notify(client: Client, type: string, reason: string): void {
    if (!this.limiterOf(client).allowNotice(Date.now())) return;
    const message: RejectedMessage = { type: type.slice(0, 64), reason };
    client.send(MSG_REJECTED, message);
  }

  /** The engine removed bodies that left world.bounds or became non-finite: log (rate-limited) and count. */
  private reportRemoved(removed: readonly RemovedBody[]): void {
    this.metrics.removedBodies += removed.length;
    const now = Date.now();
    if (now - this.removalLogWindow >= 1000) {
      this.removalLogWindow = now;
      this.removalLogs = 0;
    }
    for (const r of removed) {
      if (this.removalLogs >= REMOVAL_LOGS_PER_SECOND) {
        this.removalsUnlogged++;
        continue;
      }
      this.removalLogs++;
      const avatar = this.sim.avatars.some((a) => a.bodyId === r.id) ? " (an avatar: put back at a spawn spot)" : "";
      const more = this.removalsUnlogged > 0 ? `; ${this.removalsUnlogged} earlier removals not logged` : "";
      this.removalsUnlogged = 0;
      logger.warn(`room ${this.roomId}: tick ${this.sim.tick}: body "${r.id.slice(0, 64)}" removed by the engine (${r.reason})${avatar}${more}`);
    }
  }

  private handleInput(client: Client, type: ClientMessageType, payload: unknown): void {
    const reason = this.queueInput(client, type, payload);
    if (reason !== null) this.reject(client, type, reason);
  }

  /** Validates and queues one client message; returns why it was rejected, or null. */
  private queueInput(client: Client, type: ClientMessageType, payload: unknown): string | null {
    const parsed = parseClientMessage(type, payload);
    if (!parsed.ok) return parsed.reason;
    const session = client.sessionId;
    switch (type) {
      case MSG_MOVE: {
        const m = parsed.value as { vx: number; vz: number; jump?: boolean };
        this.sim.enqueue({ type: "move", session, vx: m.vx, vz: m.vz, ...(m.jump ? { jump: true } : {}) });
        return null;
      }
      case MSG_SPAWN: {
        const m = parsed.value as { shape: "sphere" | "box"; size: number; velocity?: [number, number, number] };
        const window = this.spawnTicks.get(session) ?? [];
        const since = this.sim.tick - this.sim.world.settings.tickRate;
        while (window.length > 0 && window[0] <= since) window.shift();
        if (window.length >= this.maxSpawnsPerSecond) {
          return `spawn rate limit: at most ${this.maxSpawnsPerSecond} per second`;
        }
        if (this.sim.world.bodyCount + this.queuedSpawns >= this.maxBodies) {
          return `body limit reached: the room holds at most ${this.maxBodies} bodies`;
        }
        // A player room's size follows from its CPU budget (an admin room's from the admin's maxBodies).
        if (this.budget.enforce && this.budget.nearLimit()) {
          return `the room is at its CPU budget (${Math.round(this.budget.lastSecondMs)} of ${this.budget.msPerSecond} ms/s): spawning is paused`;
        }
        window.push(this.sim.tick);
        this.spawnTicks.set(session, window);
        this.queuedSpawns++;
        this.sim.enqueue({ type: "spawn", session, shape: m.shape, size: m.size, ...(m.velocity ? { velocity: m.velocity } : {}) });
        return null;
      }
      case MSG_IMPULSE: {
        const m = parsed.value as { bodyId: string; impulse: [number, number, number]; point?: [number, number, number] };
        const world = this.sim.world;
        const handle = world.handleOf(m.bodyId);
        if (handle < 0) return `bodyId: no body "${m.bodyId}"`;
        if (world.getType(handle) !== "dynamic") return `bodyId: body "${m.bodyId}" is not dynamic`;
        if (m.point && !pointNearBody(world, handle, m.point)) {
          return `point: farther than ${LIMITS.impulsePointSlack} m outside body "${m.bodyId}"`;
        }
        this.sim.enqueue({ type: "impulse", session, bodyId: m.bodyId, impulse: m.impulse, ...(m.point ? { point: m.point } : {}) });
        return null;
      }
    }
    return null;
  }

  // ---------------------------------------------------------------- admin (via remoteRoomCall)

  adminInfo(): RoomInfo {
    return {
      roomId: this.roomId,
      scenario: this.sim.scenario.name,
      clients: this.clients.length,
      maxClients: this.maxClients,
      bodies: this.sim.world.bodyCount,
      maxBodies: this.maxBodies,
      awake: this.sim.world.awakeBodyCount,
      tick: this.sim.tick,
      tickRate: this.sim.world.settings.tickRate,
      patchRateMs: this.patchRateMs,
      tickMsP50: this.metrics.tickQuantile(0.5),
      tickMsP99: this.metrics.tickQuantile(0.99),
      settings: this.sim.roomSettings(),
      processId: matchMaker.processId,
      finite: worldIsFinite(this.sim),
      removedBodies: this.metrics.removedBodies,
      recording: this.recorder !== null && !this.recorder.isClosed,
      kineticEnergy: this.sim.world.kineticEnergy(),
      cpu: {
        msPerSecond: this.budget.lastSecondMs,
        budgetMsPerSecond: this.budget.msPerSecond,
        state: this.budget.state,
        enforced: this.budget.enforce,
        overrunSeconds: this.budget.overrunSeconds,
      },
    };
  }

  /** Kept for callers of the first admin API: every room now waits while empty, admin rooms longest. */
  adminKeepAlive(): boolean {
    return true;
  }

  /**
   * Queues a scenario (re)load for the next tick. Answers `{ error }` rather than throwing: over presence
   * IPC a thrown error reaches the caller only as "remote room timed out".
   */
  adminLoadScenario(scenario: unknown): { appliesAtTick: number } | { error: string } {
    const resolved = resolveScenario(scenario, "scenario", scenarioCaps(this.caps));
    if (!resolved.ok) return { error: resolved.message };
    this.sim.enqueue({ type: "load", scenario: resolved.scenario });
    this.metrics.scenario = resolved.scenario.name;
    return { appliesAtTick: this.sim.tick + 1 };
  }

  /**
   * Queues a settings change for the next tick; answers the settings as they will be. Answers `{ error }`
   * for a gravity the room's restitution threshold is too low for (restitution would pump energy into
   * resting contacts; the scenario validator applies the same rule to a scenario's own gravity).
   */
  adminUpdateSettings(patch: RoomSettingsPatch): { appliesAtTick: number; settings: RoomSettings } | { error: string } {
    if (patch.gravity) {
      const threshold = this.sim.world.settings.restitutionThreshold;
      const needed = minRestitutionThreshold(patch.gravity);
      if (needed > threshold) {
        return { error: `body/gravity: this room's restitutionThreshold is ${threshold} m/s; this gravity needs at least ${needed} m/s` };
      }
    }
    this.sim.enqueue({ type: "settings", patch });
    const settings = { ...this.sim.roomSettings(), ...patch } as RoomSettings;
    return { appliesAtTick: this.sim.tick + 1, settings };
  }

  /** Writes buffered replay lines now; answers whether the room records. */
  async adminFlushReplay(): Promise<boolean> {
    await this.recorder?.flush();
    return this.recorder !== null;
  }

  adminDispose(): boolean {
    void this.disconnect();
    return true;
  }
}

/** True if every body's position, rotation and velocities are finite numbers. */
function worldIsFinite(sim: RoomSim): boolean {
  const b = sim.world.bodies;
  for (let s = 0; s < b.slotCount; s++) {
    if (b.alive[s] === 0) continue;
    for (let k = 0; k < 3; k++) {
      if (!Number.isFinite(b.pos[s * 3 + k]) || !Number.isFinite(b.vel[s * 3 + k]) || !Number.isFinite(b.angVel[s * 3 + k])) return false;
    }
    for (let k = 0; k < 4; k++) if (!Number.isFinite(b.rot[s * 4 + k])) return false;
  }
  return true;
}

export interface RoomInfo {
  roomId: string;
  scenario: string;
  clients: number;
  maxClients: number;
  bodies: number;
  maxBodies: number;
  awake: number;
  tick: number;
  tickRate: number;
  patchRateMs: number;
  tickMsP50: number;
  tickMsP99: number;
  settings: RoomSettings;
  /** Process hosting the room. */
  processId: string;
  /** Every body's state is finite (the engine removes bodies that are not). */
  finite: boolean;
  /** Bodies the engine removed (left world.bounds or became non-finite) since the room started. */
  removedBodies: number;
  /** The replay is being recorded (false after a disk error or the size limit). */
  recording: boolean;
  /** Σ ½mv² + ½ωᵀIω over dynamic bodies, joules (the client's energy plot; seed 001 keeps restitution honest). */
  kineticEnergy: number;
  /** CPU use against the room's budget (enforced for player rooms: slowed, then closed). */
  cpu: {
    msPerSecond: number;
    budgetMsPerSecond: number;
    state: BudgetState;
    enforced: boolean;
    overrunSeconds: number;
  };
}
