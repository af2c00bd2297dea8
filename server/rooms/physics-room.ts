import { type Client, CloseCode, logger, Room } from "@colyseus/core";
import {
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
import { pointNearBody, type RoomSettings, type RoomSettingsPatch, RoomSim } from "../../shared/sim/index.ts";
import { RoomMetrics, registerRoomMetrics, unregisterRoomMetrics } from "../metrics.ts";
import { DEFAULT_REPLAY_DIR, ReplayRecorder } from "../replay/recorder.ts";
import { resolveScenario } from "../scenario-input.ts";
import { StateSync } from "../state-sync.ts";

/** Ceilings for the per-room limits a creator may ask for (the scenario's body count included). */
export interface RoomCaps {
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
}

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
}

export const roomConfig: RoomConfig = {
  replayDir: DEFAULT_REPLAY_DIR,
  adminCaps: { maxClients: 64, maxBodies: 20000, maxSpawnsPerSecond: 20 },
  playerCaps: { maxClients: 16, maxBodies: 3000, maxSpawnsPerSecond: 4 },
  trustKey: "",
  defaults: { maxClients: 16, maxBodies: 3000, maxSpawnsPerSecond: 4, patchRateMs: 50, scenario: "arena" },
  keyframeInterval: 600,
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

  override onCreate(options: PhysicsRoomOptions = {}): void {
    const d = roomConfig.defaults;
    const trusted = roomConfig.trustKey !== "" && options.trust === roomConfig.trustKey;
    this.caps = trusted ? roomConfig.adminCaps : roomConfig.playerCaps;
    const resolved = resolveScenario(options.scenario ?? d.scenario, "scenario", this.caps.maxBodies);
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
    this.metrics = new RoomMetrics(this.roomId);
    this.metrics.scenario = resolved.scenario.name;
    registerRoomMetrics(this.metrics);
    try {
      this.recorder = new ReplayRecorder(roomConfig.replayDir, this.roomId, this.sim, roomConfig.keyframeInterval);
    } catch (err) {
      logger.error(`room ${this.roomId}: replay recording disabled: ${(err as Error).message}`);
    }
    // A flooding client is disconnected by Colyseus (60 Hz moves + spawns fit comfortably).
    this.maxMessagesPerSecond = 240;
    this.onMessage(MSG_MOVE, (client, payload) => this.handleInput(client, MSG_MOVE, payload));
    this.onMessage(MSG_SPAWN, (client, payload) => this.handleInput(client, MSG_SPAWN, payload));
    this.onMessage(MSG_IMPULSE, (client, payload) => this.handleInput(client, MSG_IMPULSE, payload));
    this.onMessage("*", (client, type) => this.reject(client, String(type), `unknown message type "${String(type).slice(0, 32)}"`));
    this.setFixedTimestep(() => this.tickOnce(), this.sim.world.settings.tickRate);
    this.patchRate = this.patchRateMs;
    this.clock.setInterval(() => void this.recorder?.flush(), 500);
    void this.setMetadata({ scenario: resolved.scenario.name });
  }

  override onJoin(client: Client, _options?: Record<string, unknown>): void {
    this.sim.enqueue({ type: "join", session: client.sessionId });
    const welcome: WelcomeMessage = {
      sessionId: client.sessionId,
      avatarId: `avatar-${client.sessionId}`,
      tickRate: this.sim.world.settings.tickRate,
      patchRateMs: this.patchRateMs,
      maxSpawnsPerSecond: this.maxSpawnsPerSecond,
    };
    client.send(MSG_WELCOME, welcome);
    this.metrics.clients = this.clients.length;
  }

  override onDrop(client: Client, code?: number): void {
    // Keep the avatar for a short network drop; not after a kick or a shutdown.
    if (code === CloseCode.WITH_ERROR || code === CloseCode.SERVER_SHUTDOWN) return;
    this.allowReconnection(client, 10);
  }

  override onLeave(client: Client): void {
    this.sim.enqueue({ type: "leave", session: client.sessionId });
    this.spawnTicks.delete(client.sessionId);
    this.metrics.clients = this.clients.length;
  }

  override async onDispose(): Promise<void> {
    unregisterRoomMetrics(this.roomId);
    await this.recorder?.close(this.sim, "dispose");
  }

  override onUncaughtException(error: Error, methodName: string): void {
    logger.error(`room ${this.roomId}: ${methodName} threw: ${error.stack ?? error.message}`);
  }

  // ---------------------------------------------------------------- simulation

  private tickOnce(): void {
    const t0 = performance.now();
    this.queuedSpawns = 0;
    const result = this.sim.step();
    this.recorder?.record(result, this.sim);
    this.metrics.tick = result.tick;
    this.metrics.observeTick(performance.now() - t0);
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
    const message: RejectedMessage = { type, reason };
    client.send(MSG_REJECTED, message);
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
    };
  }

  /** Never dispose while empty (rooms created over the admin API wait for players). */
  adminKeepAlive(): boolean {
    this.autoDispose = false;
    return true;
  }

  /** Queues a scenario (re)load for the next tick. The scenario must already be validated. */
  adminLoadScenario(scenario: unknown): { appliesAtTick: number } {
    const resolved = resolveScenario(scenario, "scenario", this.caps.maxBodies);
    if (!resolved.ok) throw new Error(resolved.message);
    this.sim.enqueue({ type: "load", scenario: resolved.scenario });
    this.metrics.scenario = resolved.scenario.name;
    void this.setMetadata({ scenario: resolved.scenario.name });
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
}
