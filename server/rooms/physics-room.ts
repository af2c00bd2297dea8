import { type Client, CloseCode, logger, matchMaker, Room } from "@colyseus/core";
import {
  CLOSE_RATE_LIMITED,
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
import { DEFAULT_LIMITS, type ServerLimits } from "../config.ts";
import { RoomMetrics, registerRoomMetrics, unregisterRoomMetrics } from "../metrics.ts";
import { DEFAULT_REPLAY_DIR, ReplayRecorder } from "../replay/recorder.ts";
import type { ReplayStore } from "../replay/store.ts";
import { resolveScenario, type ScenarioCaps } from "../scenario-input.ts";
import { StateSync } from "../state-sync.ts";
import { InputLimiter } from "./input-limiter.ts";

/** Ceilings for the per-room limits a creator may ask for (the scenario's body count included). */
export interface RoomCaps {
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
  /** Highest scenario tick rate, steps per second. */
  maxTickRate: number;
  /** Largest scenario JSON, bytes. */
  maxScenarioJsonBytes: number;
}

/** Close codes after which a dropped client gets no reconnection window (kicked, shut down, broken frames). */
const NO_RECONNECT_CODES: ReadonlySet<number> = new Set([CloseCode.WITH_ERROR, CloseCode.SERVER_SHUTDOWN, CLOSE_RATE_LIMITED, 1002, 1007, 1009]);
/** Protocol codes (low 5 bits of a frame's first byte) still handled while a client is throttled: join ack and leave. */
const ALWAYS_HANDLED = new Set([10, 12]);
/** How often the room refreshes its summary in the matchmaking listing (what GET /rooms shows for remote rooms), ms. */
const LISTING_REFRESH_MS = 2000;
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
}

export const roomConfig: RoomConfig = {
  replayDir: DEFAULT_REPLAY_DIR,
  adminCaps: { maxClients: 64, maxBodies: 20000, maxSpawnsPerSecond: 20, maxTickRate: 1000, maxScenarioJsonBytes: 3.5 * 1024 * 1024 },
  playerCaps: { maxClients: 16, maxBodies: 3000, maxSpawnsPerSecond: 4, maxTickRate: 120, maxScenarioJsonBytes: 1024 * 1024 },
  trustKey: "",
  defaults: { maxClients: 16, maxBodies: 3000, maxSpawnsPerSecond: 4, patchRateMs: 50, scenario: "arena" },
  keyframeInterval: 600,
  limits: { ...DEFAULT_LIMITS },
  replayStore: null,
};

function scenarioCaps(caps: RoomCaps): ScenarioCaps {
  return { maxBodies: caps.maxBodies, maxTickRate: caps.maxTickRate, maxJsonBytes: caps.maxScenarioJsonBytes };
}

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
  /** Wall-clock ms since the room has been empty, or -1. */
  private emptySince = -1;
  private removalLogWindow = 0;
  private removalLogs = 0;
  private removalsUnlogged = 0;

  override onCreate(options: PhysicsRoomOptions = {}): void {
    const d = roomConfig.defaults;
    const trusted = roomConfig.trustKey !== "" && options.trust === roomConfig.trustKey;
    this.trusted = trusted;
    this.caps = trusted ? roomConfig.adminCaps : roomConfig.playerCaps;
    const limits = roomConfig.limits;
    // Counted before this room: Colyseus adds it to stats.local once onCreate returns.
    if (matchMaker.stats.local.roomCount >= limits.maxRooms) {
      throw new Error(`server full: this process already hosts ${limits.maxRooms} rooms`);
    }
    const resolved = resolveScenario(options.scenario ?? d.scenario, "scenario", scenarioCaps(this.caps));
    if (!resolved.ok) throw new Error(`invalid scenario: ${resolved.message}`);
    this.maxClients = bounded(options.maxClients, Math.min(d.maxClients, this.caps.maxClients), 1, this.caps.maxClients);
    this.maxBodies = bounded(options.maxBodies, Math.min(d.maxBodies, this.caps.maxBodies), 1, this.caps.maxBodies);
    this.maxSpawnsPerSecond = bounded(
      options.maxSpawnsPerSecond,
      Math.min(d.maxSpawnsPerSecond, this.caps.maxSpawnsPerSecond),
      0,
      this.caps.maxSpawnsPerSecond,
    );
    this.patchRateMs = bounded(options.patchRateMs, d.patchRateMs, 16, 1000);
    // A scenario may hold more bodies than the spawn limit; spawning then simply stays closed.
    this.sim = new RoomSim(resolved.scenario, { maxBodies: this.maxBodies });
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
    this.setFixedTimestep(() => this.tickOnce(), this.sim.world.settings.tickRate);
    this.metrics.loop.stepMs = 1000 / this.sim.world.settings.tickRate;
    this.patchRate = this.patchRateMs;
    this.clock.setInterval(() => void this.recorder?.flush(), 500);
    this.refreshListing();
  }

  override onJoin(client: Client, _options?: Record<string, unknown>): void {
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
    // Keep the seat and the avatar for a network drop; not after a kick, a broken frame or a shutdown.
    const seconds = roomConfig.limits.reconnectSeconds;
    if (seconds <= 0 || (code !== undefined && NO_RECONNECT_CODES.has(code))) return;
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

  override onLeave(client: Client): void {
    this.sim.enqueue({ type: "leave", session: client.sessionId });
    this.spawnTicks.delete(client.sessionId);
    this.limiters.delete(client.sessionId);
    this.awaitingReconnection.delete(client.sessionId);
    this.metrics.clients = this.clients.length;
  }

  override async onDispose(): Promise<void> {
    unregisterRoomMetrics(this.roomId);
    const reason = matchMaker.state === matchMaker.MatchMakerState.SHUTTING_DOWN ? "shutdown" : "dispose";
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
    logger.error(`room ${this.roomId}: ${methodName} threw: ${error.stack ?? error.message}`);
  }

  // ---------------------------------------------------------------- simulation

  private tickOnce(): void {
    const t0 = performance.now();
    this.queuedSpawns = 0;
    const result = this.sim.step();
    if (this.sim.world.removedLastStep.length > 0) this.reportRemoved(this.sim.world.removedLastStep);
    this.recorder?.record(result, this.sim);
    this.metrics.tick = result.tick;
    const t1 = performance.now();
    this.metrics.observeTick(t1 - t0);
    this.metrics.loop.observe(this.clock, t0, t1);
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

  /** Queues a settings change for the next tick; answers the settings as they will be. */
  adminUpdateSettings(patch: RoomSettingsPatch): { appliesAtTick: number; settings: RoomSettings } {
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
}
