import { type Client, ClientState, CloseCode, logger, matchMaker, Protocol, Room } from "@colyseus/core";
import { PROTOCOL_CODE_MASK } from "@colyseus/shared-types";
import {
  CLOSE_CPU_BUDGET,
  CLOSE_RATE_LIMITED,
  CLOSE_REPLACED,
  CLOSE_REPLACED_REASON,
  CLOSE_GAME_FAILED,
  CLOSE_TAKEN_OVER,
  MSG_MOVE,
  MSG_REJECTED,
  MSG_WELCOME,
  parseClientMessage,
  type RejectedMessage,
  type RoomInfo,
  type RoomSettingsPatch,
  RoomState,
  type SettingsChange,
  type WelcomeMessage,
} from "../../shared/net/index.ts";
import type { RemovedBody } from "../../shared/engine/index.ts";
import { minRestitutionThreshold, type Scenario } from "../../shared/scenarios/index.ts";
import type { GameDefinition } from "../../shared/game/define.ts";
import type { HookError } from "../../shared/game/runtime.ts";
import { RoomSim } from "../../shared/sim/index.ts";
import { type AdminCommand, AppliedCommands, applyOnce } from "../admin/commands.ts";
import { SEAT_USED_CHANNEL } from "../admission.ts";
import { type BudgetAction, RoomCpuBudget } from "../cpu/room-budget.ts";
import { RoomMetrics } from "../metrics.ts";
import { ReplayRecorder, tickLineJson } from "../replay/recorder.ts";
import { resolveScenario } from "../scenario-input.ts";
import { releaseUnclaimedSeats } from "../shutdown.ts";
import { StateSync } from "../state-sync.ts";
import { type CheckpointSource, RoomCheckpointer } from "../failover/checkpointer.ts";
import { type ResumePlan, rerunLog, restoreBase } from "../failover/resume.ts";
import { InputGate } from "./input-gate.ts";
import { InputLimiter } from "./input-limiter.ts";
import { getRandomValues } from "node:crypto";
import type { LiveRoom } from "./live-rooms.ts";
import { type RoomCaps, scenarioCaps } from "./room-caps.ts";
import { admitRoom, type PhysicsRoomOptions, probePlayerScenario, RoomRefusal, roomLimits } from "./room-admission.ts";
import { CONFIG_OPTION, type RoomConfig } from "./room-config.ts";

export type { RoomCaps } from "./room-caps.ts";
export { CREATOR_OPTION, type CreatorInfo, type PhysicsRoomOptions, RoomRefusal, TRUST_OPTION } from "./room-admission.ts";

/** WebSocket close codes (RFC 6455, section 7.4.1) the server's ws sends for a broken frame. */
const WS_PROTOCOL_ERROR = 1002;
const WS_INVALID_PAYLOAD = 1007;
const WS_MESSAGE_TOO_BIG = 1009;
/** Close codes after which a dropped client gets no reconnection window (kicked, shut down, broken frames). */
const NO_RECONNECT_CODES: ReadonlySet<number> = new Set([
  CloseCode.WITH_ERROR,
  CloseCode.SERVER_SHUTDOWN,
  CLOSE_RATE_LIMITED,
  WS_PROTOCOL_ERROR,
  WS_INVALID_PAYLOAD,
  WS_MESSAGE_TOO_BIG,
]);
/** Protocol codes (a frame's first byte under PROTOCOL_CODE_MASK) still handled while a client is throttled: join ack and leave. */
const ALWAYS_HANDLED: ReadonlySet<number> = new Set([Protocol.JOIN_ROOM, Protocol.LEAVE_ROOM]);
/** How often the room refreshes its summary in the matchmaking listing (what GET /rooms shows for remote rooms), ms. */
const LISTING_REFRESH_MS = 2000;
/** Removed-body log lines per room per second at most (the rest are counted). */
const REMOVAL_LOGS_PER_SECOND = 5;
/** Hook-error log lines per room per second at most (the rest are counted). */
const HOOK_ERROR_LOGS_PER_SECOND = 5;
/** Least time a resumed room keeps its players' seats for them (their clients first have to notice the old process is gone), s. */
const RESUMED_SEAT_SECONDS = 20;

/** Lets the event loop run whatever is waiting (other rooms' ticks, requests) before going on. */
function nextTurn(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** The room methods the admin API calls, through PhysicsRoom#adminCall. */
export type AdminMethod = "adminInfo" | "adminDispose" | "adminLoadScenario" | "adminUpdateSettings" | "adminFlushReplay";
const ADMIN_METHODS: ReadonlySet<string> = new Set<AdminMethod>(["adminInfo", "adminDispose", "adminLoadScenario", "adminUpdateSettings", "adminFlushReplay"]);

/**
 * What adminCall answers: the method's result, or what it threw (a refusal's HTTP status, else 500);
 * `replayed`: the answer given when this request id was first applied (nothing was applied now).
 */
export type AdminAnswer = ({ ok: true; value: unknown } | { ok: false; status: number; error: string }) & { replayed?: true };

/**
 * The `physics` room. Thin on purpose: it validates client messages and queues them as simulation
 * inputs; on Colyseus' fixed timestep it steps the RoomSim (which applies the queued inputs first) and
 * records the tick; right before each patch it copies the changed state into the schema. Its
 * configuration and the server's services come from its room definition (RoomConfig). Admin methods
 * (`admin*`) are called through `adminCall` over `matchMaker.remoteRoomCall`, so they work on any process.
 */
export class PhysicsRoom extends Room<{ state: RoomState }> implements LiveRoom {
  override state = new RoomState();
  /** The server's configuration and services (set first thing in onCreate). */
  private config!: RoomConfig;
  sim!: RoomSim;
  metrics!: RoomMetrics;
  private sync!: StateSync;
  private recorder: ReplayRecorder | null = null;
  maxSpawnsPerSecond = 4;
  private caps!: RoomCaps;
  maxBodies = 3000;
  private patchRateMs = 50;
  /** The game's inputs' boundary: schemas, rate limits, the game's checks (built with the simulation). */
  private gate!: InputGate;
  private hookLogWindow = 0;
  private hookLogs = 0;
  private hookErrorsUnlogged = 0;
  private encodedBytes = 0;
  private encoderHooked = false;
  /** Sync time of the current patch, ms (measured in onBeforePatch, subtracted from broadcastPatch). */
  private lastSyncMs = 0;
  /** Created over the admin API (admin caps, longer idle timeout). */
  trusted = false;
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
  budget!: RoomCpuBudget;
  /** Why the room is closing, when it closes itself (the replay's end line). */
  private closeReason: string | null = null;
  private lastOverrunLog = 0;
  /** Wall-clock ms the room took its place (its probation in the process share starts then). */
  startedAt = 0;
  /** onCreate finished: the room ticks (load shedding only acts on such rooms). */
  started = false;
  /** Admin changes applied, by request id (a retried call is answered, not applied again). */
  private readonly commands = new AppliedCommands<Promise<AdminAnswer>>();
  /** The room's checkpoints in Redis (clustered servers only), and the room as the process's checkpoint flusher sees it. */
  checkpointer: RoomCheckpointer | null = null;
  private checkpointSource: CheckpointSource | null = null;
  /** Replay segment this process records (1 unless the room was resumed after its process died). */
  private segment = 1;
  /** A resumed room: its players' sessions and tokens from the checkpoint, until their seats are reserved. */
  private resumedSeats: [string, string][] = [];
  /** Sessions of a resumed room whose seats wait for their players. */
  private readonly resumedSessions = new Set<string>();

  override async onCreate(options: PhysicsRoomOptions = {}): Promise<void> {
    // No patches until the simulation exists (the scenario probe below is awaited).
    this.patchRate = null;
    const config = options[CONFIG_OPTION];
    if (!config) throw new Error("the physics room is defined without its RoomConfig: gameServer.define(ROOM_NAME, PhysicsRoom, { config })");
    this.config = config;
    const plan = config.failover?.pending.take(this.roomId);
    if (plan) return this.resume(plan);
    const admitted = admitRoom(config, options);
    this.trusted = admitted.trusted;
    this.caps = admitted.caps;
    // Every check so far ran without yielding: the room now takes its place (room counts, its CPU
    // reservation in the process share) before its first await, so concurrent creations see it. If it is
    // refused later, Colyseus disposes it and onDispose gives the place back.
    const limits = config.limits;
    this.budget = new RoomCpuBudget(this.trusted ? limits.playerRoomsCpuMs : limits.playerRoomCpuMs, admitted.settings.tickRate, !this.trusted);
    this.startedAt = Date.now();
    config.rooms.add(this);
    // Building a room of a few thousand bodies takes tens of milliseconds: it yields between its phases
    // (the probe, the world, the first state sync) so that other rooms' ticks and requests run between.
    await nextTurn();
    if (!this.trusted) await probePlayerScenario(config, admitted);
    const asked = roomLimits(config.defaults, this.caps, options, admitted.bodyCap);
    this.maxClients = asked.maxClients;
    this.maxBodies = asked.maxBodies;
    this.maxSpawnsPerSecond = asked.maxSpawnsPerSecond;
    this.patchRateMs = asked.patchRateMs;
    await this.buildSimulation(admitted.scenario, admitted.game);
    this.startTicking();
    logger.info({ ...this.logFields(), creator: this.trusted ? "admin" : "player", bodies: this.sim.world.bodyCount, maxClients: this.maxClients }, "room created");
  }

  /** Fields of every lifecycle log line (room created/disposed, player joined/left): which room, game and scenario. */
  private logFields(): { roomId: string; game: string; scenario: string } {
    return { roomId: this.roomId, game: this.sim.game.name, scenario: this.sim.scenario.name };
  }

  /**
   * The room again, on this process, after the process that hosted it died (server/failover/): from its
   * checkpoint's base, with the log since re-run tick by tick (every hash checked) and recorded as the
   * start of a new replay segment. Its players' seats are reserved once Colyseus lists it (reserveResumedSeats).
   * No admission: the room was admitted when it was created, and its players are in the middle of a game.
   */
  private async resume(plan: ResumePlan): Promise<void> {
    const { meta } = plan.checkpoint;
    const config = this.config;
    this.patchRate = null;
    this.trusted = meta.trusted;
    this.caps = meta.trusted ? config.adminCaps : config.playerCaps;
    const sim = restoreBase(plan.checkpoint, plan.game);
    const limits = config.limits;
    this.budget = new RoomCpuBudget(this.trusted ? limits.playerRoomsCpuMs : limits.playerRoomCpuMs, sim.world.settings.tickRate, !this.trusted);
    this.startedAt = Date.now();
    config.rooms.add(this);
    this.maxClients = meta.maxClients;
    this.maxBodies = meta.maxBodies;
    this.maxSpawnsPerSecond = meta.maxSpawnsPerSecond;
    this.patchRateMs = meta.patchRateMs;
    this.segment = meta.segment + 1;
    await this.buildSimulation(sim.scenario, plan.game, { sim, base: plan.checkpoint.base });
    this.resumedSeats = await rerunLog(sim, plan.checkpoint, (result) => {
      const line = tickLineJson(result);
      this.recorder?.recordLine(line, result.tick, sim);
      this.checkpointer?.record(line, 0);
    });
    this.sync.sync(sim);
    this.startTicking();
    logger.info({ ...this.logFields(), from: plan.from, tick: sim.tick, segment: this.segment, seats: this.resumedSeats.length }, "room resumed");
  }

  /**
   * A resumed room's players get their seats back under their sessions and reconnection tokens, for
   * long enough to find the room again (Colyseus' reservation keyed by token, the one its dev-mode
   * restore uses; checkReconnectionToken accepts it). A seat nobody claims expires into onLeave: the
   * avatar goes, as after any reconnection window.
   */
  reserveResumedSeats(): void {
    const seconds = Math.max(this.config.limits.reconnectSeconds, RESUMED_SEAT_SECONDS);
    const reserve = (this as unknown as { _reserveSeat: (...args: unknown[]) => Promise<boolean> })._reserveSeat.bind(this);
    for (const [sessionId, token] of this.resumedSeats) {
      if (!this.sim.players.some((p) => p.session === sessionId)) continue;
      this.resumedSessions.add(sessionId);
      void reserve(sessionId, {}, undefined, seconds, false, token);
    }
    this.resumedSeats = [];
  }

  /** The room's sessions and their reconnection tokens: connected clients, then those dropped and awaited (for the checkpoint). */
  private seats(): [string, string][] {
    const out: [string, string][] = [];
    for (const c of this.clients) if (c.reconnectionToken) out.push([c.sessionId, c.reconnectionToken]);
    const reconnections = (this as unknown as { _reconnections?: Record<string, [string, unknown]> })._reconnections ?? {};
    for (const [token, entry] of Object.entries(reconnections)) {
      const sessionId = entry[0];
      if (!out.some((s) => s[0] === sessionId)) out.push([sessionId, token]);
    }
    return out;
  }

  /** The world, its first state sync, the room's metrics, its replay recording and its checkpoints. */
  private async buildSimulation(scenario: Scenario, game: GameDefinition, resumed?: { sim: RoomSim; base: Uint8Array }): Promise<void> {
    const config = this.config;
    // A scenario may hold more bodies than the spawn limit; spawning then simply stays closed. The seed of
    // the game's random generator is the room's own, recorded in the replay header with the other options.
    const seed = resumed?.sim.options.seed ?? getRandomValues(new Uint32Array(1))[0];
    this.sim = resumed?.sim ?? new RoomSim(scenario, { maxBodies: this.maxBodies, seed }, game);
    this.gate = new InputGate(this.sim, this, (e) => this.reportHookErrors([e]));
    await nextTurn();
    this.sync = new StateSync(this.state);
    // Filled now, so a client joining before the first patch gets the scenario in its full state.
    this.sync.sync(this.sim);
    this.metrics = new RoomMetrics(this.roomId);
    this.metrics.scenario = scenario.name;
    this.metrics.cpu = this.budget;
    config.metrics.register(this.metrics);
    try {
      this.recorder = new ReplayRecorder(
        config.replayDir,
        this.roomId,
        this.sim,
        config.keyframeInterval,
        config.limits.replayFileMaxBytes,
        config.games.moduleOf(game.name),
        resumed ? { segment: this.segment, base: resumed.base } : undefined,
      );
      config.replayStore.register(this.roomId, this.recorder);
    } catch (err) {
      logger.error(`room ${this.roomId}: replay recording disabled: ${(err as Error).message}`);
    }
    if (config.failover) {
      this.checkpointer = new RoomCheckpointer(config.failover.store, {
        roomId: this.roomId,
        game: game.name,
        gameVersion: game.version,
        trusted: this.trusted,
        maxClients: this.maxClients,
        maxBodies: this.maxBodies,
        maxSpawnsPerSecond: this.maxSpawnsPerSecond,
        patchRateMs: this.patchRateMs,
        seed,
        segment: this.segment,
      }, config.limits.checkpointBaseSeconds * 1000, config.failover.encoder);
      this.checkpointer.onTakenOver = () => this.closeTakenOver();
      this.metrics.checkpoint = this.checkpointer;
    }
  }

  /** Message handlers, timers and the fixed timestep: the room is open for business. */
  private startTicking(): void {
    const limits = this.config.limits;
    // Our own limiter (guardMessages) throttles and disconnects floods; Colyseus' per-second counter
    // (which closes with 4002 without a reason) stays as a backstop above it.
    this.maxMessagesPerSecond = 2 * limits.maxInputsPerSecond + 8;
    this.guardMessages();
    // Emptiness is handled by checkIdle (a grace period instead of disposing at once).
    this.autoDispose = false;
    this.clock.setInterval(() => this.checkIdle(), 250);
    this.clock.setInterval(() => this.refreshListing(), LISTING_REFRESH_MS);
    const game = this.sim.game;
    if (game.avatar !== null) this.onMessage(MSG_MOVE, (client, payload) => this.handleMove(client, payload));
    for (const name of Object.keys(game.inputs)) this.onMessage(name, (client, payload) => this.handleInput(client, name, payload));
    this.onMessage("*", (client, type) => this.reject(client, String(type), `unknown message type "${String(type).slice(0, 32)}" (game "${game.name}" takes ${this.messageNames()})`));
    this.seatReservationTimeout = limits.seatReservationSeconds;
    this.setFixedTimestep(() => this.tickOnce(), this.sim.world.settings.tickRate);
    this.metrics.loop.stepMs = 1000 / this.sim.world.settings.tickRate;
    this.patchRate = this.patchRateMs;
    this.clock.setInterval(() => void this.recorder?.flush(), 500);
    if (this.checkpointer && this.config.failover) {
      // The process's flusher writes this room's first base within a round or a few, then sends its
      // entries with every other room's.
      const room = this;
      this.checkpointSource = {
        checkpointer: this.checkpointer,
        get sim() {
          return room.sim;
        },
        seats: () => this.seats(),
      };
      this.config.failover.flusher.add(this.checkpointSource);
    }
    this.refreshListing();
    this.started = true;
  }

  override onJoin(client: Client, _options?: Record<string, unknown>): void {
    if (this.resumedSessions.delete(client.sessionId)) {
      // A player of the room before its process died, back in its seat: its avatar is in the world already.
      this.sendWelcome(client);
      this.metrics.clients = this.clients.length;
      logger.info({ ...this.logFields(), sessionId: client.sessionId, clients: this.clients.length }, "player back in the resumed room");
      return;
    }
    // The seat may have been reserved through another process: every process hears it (and this one at once).
    this.config.admission.seatUsed(client.sessionId);
    void Promise.resolve(matchMaker.presence?.publish(SEAT_USED_CHANNEL, client.sessionId)).catch(() => {});
    this.sim.enqueue({ type: "join", session: client.sessionId });
    this.sendWelcome(client);
    this.metrics.clients = this.clients.length;
    logger.info({ ...this.logFields(), sessionId: client.sessionId, clients: this.clients.length }, "player joined");
  }

  private sendWelcome(client: Client): void {
    const welcome: WelcomeMessage = {
      sessionId: client.sessionId,
      game: this.sim.game.name,
      avatar: this.sim.game.avatar,
      avatarId: `avatar-${client.sessionId}`,
      tickRate: this.sim.world.settings.tickRate,
      patchRateMs: this.patchRateMs,
      maxSpawnsPerSecond: this.maxSpawnsPerSecond,
      maxInputsPerSecond: this.config.limits.maxInputsPerSecond,
      reconnectSeconds: this.config.limits.reconnectSeconds,
      settings: this.sim.roomSettings(),
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
    const seconds = replaced ? this.seatReservationTimeout : this.config.limits.reconnectSeconds;
    if (seconds <= 0 || kicked || (!replaced && code !== undefined && NO_RECONNECT_CODES.has(code))) return;
    const session = client.sessionId;
    // The avatar stands still while its player is away (an input like any other: recorded, replayable).
    if (this.sim.avatarOf(session)) this.sim.enqueue({ type: "move", session, vx: 0, vz: 0 });
    this.awaitingReconnection.add(session);
    logger.info({ ...this.logFields(), sessionId: session, code, seconds, clients: this.clients.length }, "player dropped: seat kept for reconnection");
    this.allowReconnection(client, seconds).catch(() => {
      // Expired or the room is closing: onLeave follows and removes the avatar.
    });
  }

  override onReconnect(client: Client): void {
    this.awaitingReconnection.delete(client.sessionId);
    this.sendWelcome(client);
    this.metrics.clients = this.clients.length;
    logger.info({ ...this.logFields(), sessionId: client.sessionId, clients: this.clients.length }, "player reconnected");
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
    const resumed = this.resumedSession(reconnectionToken);
    if (resumed !== undefined) return resumed;
    const live = this.clients.find((c) => c.reconnectionToken === reconnectionToken);
    if (live !== undefined && live.state === ClientState.JOINED) {
      this.replacing.add(live.sessionId);
      logger.info(`room ${this.roomId}: session ${live.sessionId} taken over by a newer connection`);
      // Our code goes out in the close frame; Colyseus' own close (4002) that follows is a no-op on a closing socket.
      live.leave(CLOSE_REPLACED, CLOSE_REPLACED_REASON);
    }
    return super.checkReconnectionToken(reconnectionToken);
  }

  /** The session a resumed room's seat is reserved for under this token, while the seat waits. */
  private resumedSession(token: string): string | undefined {
    const self = this as unknown as { _reconnections: Record<string, [string, unknown] | undefined>; _reservedSeats: Record<string, [unknown, unknown, boolean, boolean] | undefined> };
    const sessionId = self._reconnections[token]?.[0];
    if (sessionId === undefined || !this.resumedSessions.has(sessionId)) return undefined;
    return self._reservedSeats[sessionId]?.[2] === false ? sessionId : undefined;
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
    this.resumedSessions.delete(client.sessionId);
    this.kicked.delete(client.sessionId);
    this.sim.enqueue({ type: "leave", session: client.sessionId });
    this.gate.forget(client.sessionId);
    this.limiters.delete(client.sessionId);
    this.awaitingReconnection.delete(client.sessionId);
    this.metrics.clients = this.clients.length;
    logger.info({ ...this.logFields(), sessionId: client.sessionId, clients: this.clients.length }, "player left");
  }

  override async onDispose(): Promise<void> {
    // No config: onCreate refused the room before it took its place.
    const config = this.config as RoomConfig | undefined;
    config?.rooms.delete(this);
    config?.metrics.unregister(this.roomId);
    const reason = this.closeReason ?? (matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN ? "shutdown" : "dispose");
    await this.recorder?.close(this.sim, reason);
    config?.replayStore.unregister(this.roomId);
    if (this.checkpointSource) config?.failover?.flusher.delete(this.checkpointSource);
    await this.checkpointer?.close();
    // A room refused during onCreate never ran: its refusal is logged by the admission.
    if (this.started) logger.info({ ...this.logFields(), reason, clients: this.clients.length }, "room disposed");
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
    const idleSeconds = this.trusted ? this.config.limits.adminRoomIdleSeconds : this.config.limits.roomIdleSeconds;
    if (now - this.emptySince >= idleSeconds * 1000) {
      logger.info(`room ${this.roomId}: empty for ${idleSeconds} s, disposing`);
      this.emptySince = -1;
      void this.disconnect();
    }
  }

  /** Writes the room's summary into its matchmaking listing: GET /rooms on any process reads it from there. */
  private refreshListing(): void {
    void this.setMetadata({ scenario: this.sim.scenario.name, game: this.sim.game.name, info: { ...this.adminInfo(), updatedAt: Date.now() } }).catch(() => {});
  }

  // ---------------------------------------------------------------- connection guard

  private limiterOf(client: Client): InputLimiter {
    let limiter = this.limiters.get(client.sessionId);
    if (!limiter) {
      limiter = new InputLimiter(this.config.limits.maxInputsPerSecond, this.config.limits.floodDisconnectSeconds);
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
      const code = buffer && buffer.length > 0 ? buffer[0] & PROTOCOL_CODE_MASK : -1;
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
    this.gate.stepped();
    const result = this.sim.step();
    const stepMs = performance.now() - t0;
    // One line for the replay and the checkpoint; the step's time is what re-running it costs a resume.
    const line = this.recorder !== null || this.checkpointer !== null ? tickLineJson(result) : "";
    this.checkpointer?.record(line, stepMs);
    if (this.sim.world.removedLastStep.length > 0) this.reportRemoved(this.sim.world.removedLastStep);
    this.recorder?.recordLine(line, result.tick, this.sim);
    if (result.hookErrors.length > 0) this.reportHookErrors(result.hookErrors);
    if (this.sim.runtime.failed !== null && this.closeReason === null) this.closeFailedGame(this.sim.runtime.failed);
    this.metrics.tick = result.tick;
    const t1 = performance.now();
    this.metrics.observeTick(t1 - t0);
    this.metrics.loop.observe(this.clock, t0, t1);
    const action = this.budget.charge(t1 - t0, Date.now());
    if (action !== "none") this.onBudgetAction(action);
    else if (!this.budget.enforce && this.budget.lastSecondMs > this.budget.msPerSecond) this.logAdminOverrun();
  }

  /** A player room over its CPU budget: slowed to half speed, then closed with the reason; or back to full speed. */
  onBudgetAction(action: BudgetAction): void {
    this.config.metrics.countBudgetAction(action);
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

  /** The message types this room's game takes, for the unknown-type rejection. */
  private messageNames(): string {
    const names = [...(this.sim.game.avatar !== null ? [MSG_MOVE] : []), ...Object.keys(this.sim.game.inputs)];
    return names.length > 0 ? names.map((n) => `"${n}"`).join(", ") : "no messages";
  }

  /** The avatar's walking input (every game with an avatar): validated, queued for the next tick. */
  private handleMove(client: Client, payload: unknown): void {
    const parsed = parseClientMessage(MSG_MOVE, payload);
    if (!parsed.ok) {
      this.reject(client, MSG_MOVE, parsed.reason);
      return;
    }
    const m = parsed.value;
    this.sim.enqueue({ type: "move", session: client.sessionId, vx: m.vx, vz: m.vz, ...(m.jump ? { jump: true } : {}) });
  }

  /** Why inputs that add bodies are paused, or null: a player room at its CPU budget (an admin room's size is its maxBodies). */
  pausedFor(): string | null {
    if (!this.budget.enforce || !this.budget.nearLimit()) return null;
    return `the room is at its CPU budget (${Math.round(this.budget.lastSecondMs)} of ${this.budget.msPerSecond} ms/s)`;
  }

  private handleInput(client: Client, name: string, payload: unknown): void {
    const reason = this.gate.admit(client.sessionId, name, payload);
    if (reason !== null) this.reject(client, name, reason);
  }

  /** Hooks that threw this tick: logged with the game's name and the tick (at most a few lines a second; the rest counted). */
  private reportHookErrors(errors: readonly HookError[]): void {
    this.metrics.hookErrors += errors.length;
    const now = Date.now();
    if (now - this.hookLogWindow >= 1000) {
      this.hookLogWindow = now;
      this.hookLogs = 0;
    }
    for (const e of errors) {
      if (this.hookLogs >= HOOK_ERROR_LOGS_PER_SECOND) {
        this.hookErrorsUnlogged++;
        continue;
      }
      this.hookLogs++;
      const unlogged = this.hookErrorsUnlogged;
      this.hookErrorsUnlogged = 0;
      logger.warn({ ...this.logFields(), hook: e.hook, tick: e.tick, ...(unlogged > 0 ? { unlogged } : {}) }, `game hook threw: ${e.message}`);
    }
  }

  /** A game whose hooks kept throwing: the room closes, its replay ends with the reason, clients are told (4032). */
  private closeFailedGame(reason: string): void {
    logger.error({ ...this.logFields(), tick: this.sim.tick }, `room closed: ${reason}`);
    this.closeReason = "game-failed";
    this.lock().catch(() => {});
    const told = `room closed: ${reason}`.slice(0, 120);
    for (const client of [...this.clients]) client.leave(CLOSE_GAME_FAILED, told);
    void this.disconnect();
  }

  /**
   * Another process resumed this room while this one was cut off from Redis (declared dead): this copy
   * closes so that one room id has one running room. Its replay ends "taken-over"; its clients are told
   * (4033) and find the resumed room through the matchmaker with their tokens.
   */
  private closeTakenOver(): void {
    if (this.closeReason !== null) return;
    logger.warn({ ...this.logFields(), tick: this.sim.tick }, "room resumed by another process while this one was cut off from Redis: closing this copy");
    this.closeReason = "taken-over";
    this.lock().catch(() => {});
    for (const client of [...this.clients]) client.leave(CLOSE_TAKEN_OVER, "room moved to another server");
    void this.disconnect();
  }

  // ---------------------------------------------------------------- admin (via remoteRoomCall)

  /**
   * The admin API's one entry point into a room (through `matchMaker.remoteRoomCall`, on whichever
   * process hosts it): runs one admin method and answers its result, or what it threw. It never throws
   * itself: over presence IPC Colyseus reports any error as "remote room timed out", and the caller
   * could not tell a room that failed from one that did not answer (server/admin/room-call.ts). A change
   * comes with a command envelope: applied once per request id, never after its deadline (server/admin/commands.ts).
   */
  async adminCall(method: string, args: unknown[] = [], command?: AdminCommand): Promise<AdminAnswer> {
    const outcome = await applyOnce(this.commands, command, () => this.runAdmin(method, args));
    if ("answer" in outcome) return outcome.replayed ? { ...outcome.answer, replayed: true } : outcome.answer;
    logger.warn({ ...this.logFields(), method, requestId: command?.requestId, lateMs: outcome.late }, "admin command arrived after its deadline: not applied");
    return { ok: false, status: 503, error: `request ${command?.requestId} reached room "${this.roomId}" ${outcome.late} ms after its deadline: not applied` };
  }

  private async runAdmin(method: string, args: unknown[]): Promise<AdminAnswer> {
    try {
      if (!ADMIN_METHODS.has(method)) throw new Error(`no admin method "${method.slice(0, 32)}"`);
      const value: unknown = await (this[method as AdminMethod] as (...a: unknown[]) => unknown).apply(this, args);
      return { ok: true, value };
    } catch (err) {
      return { ok: false, status: err instanceof RoomRefusal ? err.code : 500, error: err instanceof Error ? err.message : String(err) };
    }
  }

  adminInfo(): RoomInfo {
    return {
      roomId: this.roomId,
      game: this.sim.game.name,
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
      ...(this.checkpointer?.acknowledgedBaseTick !== undefined ? { checkpointTick: this.checkpointer.acknowledgedBaseTick } : {}),
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

  /** Queues a scenario (re)load for the next tick; a scenario over this room's caps is a 400 RoomRefusal. */
  adminLoadScenario(scenario: unknown): { appliesAtTick: number } {
    const resolved = resolveScenario(scenario, "scenario", scenarioCaps(this.caps));
    if (!resolved.ok) throw new RoomRefusal(400, resolved.message);
    this.sim.enqueue({ type: "load", scenario: resolved.scenario });
    this.metrics.scenario = resolved.scenario.name;
    return { appliesAtTick: this.sim.tick + 1 };
  }

  /**
   * Queues a settings change for the next tick; answers the settings as they will be. A gravity the
   * room's restitution threshold is too low for is a 400 RoomRefusal (restitution would pump energy into
   * resting contacts; the scenario validator applies the same rule to a scenario's own gravity).
   */
  adminUpdateSettings(patch: RoomSettingsPatch): SettingsChange {
    if (patch.gravity) {
      const threshold = this.sim.world.settings.restitutionThreshold;
      const needed = minRestitutionThreshold(patch.gravity);
      if (needed > threshold) {
        throw new RoomRefusal(400, `body/gravity: this room's restitutionThreshold is ${threshold} m/s; this gravity needs at least ${needed} m/s`);
      }
    }
    this.sim.enqueue({ type: "settings", patch });
    const settings = { ...this.sim.roomSettings(), ...patch };
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
  const b = sim.world.view();
  for (let s = 0; s < b.slotCount; s++) {
    if (b.alive[s] === 0) continue;
    for (let k = 0; k < 3; k++) {
      if (!Number.isFinite(b.pos[s * 3 + k]) || !Number.isFinite(b.vel[s * 3 + k]) || !Number.isFinite(b.angVel[s * 3 + k])) return false;
    }
    for (let k = 0; k < 4; k++) if (!Number.isFinite(b.rot[s * 4 + k])) return false;
  }
  return true;
}
