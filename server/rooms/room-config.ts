import type { GameRegistry } from "../../shared/game/registry.ts";
import type { KnobRanges } from "../../shared/net/index.ts";
import type { Admission } from "../admission.ts";
import type { ServerLimits } from "../config.ts";
import type { ScenarioProbe } from "../cpu/probe.ts";
import type { ServerMetrics } from "../metrics.ts";
import type { CheckpointStore } from "../failover/checkpoint-store.ts";
import type { BaseEncoder } from "../failover/base-encoder.ts";
import type { CheckpointFlusher } from "../failover/checkpointer.ts";
import type { PendingResumes } from "../failover/resume.ts";
import type { ReplayStore } from "../replay/store.ts";
import type { LiveRooms } from "./live-rooms.ts";
import type { RoomCaps } from "./room-caps.ts";

/** What a room gets when its creator asks for nothing else. */
export interface RoomDefaults {
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
  patchRateMs: number;
  /** Built-in scenario name. */
  scenario: string;
}

export const ROOM_DEFAULTS: Readonly<RoomDefaults> = Object.freeze({ maxClients: 16, maxBodies: 3000, maxSpawnsPerSecond: 4, patchRateMs: 50, scenario: "arena" });

/**
 * The configuration of one server's physics rooms and the server's services they report to. Built once
 * by createPhysicsServer and handed to every room through its Colyseus room definition
 * (`gameServer.define(ROOM_NAME, PhysicsRoom, { config })`: the definition's options reach onCreate and
 * override any client option of the same name), never from client options and never through module
 * state, so two servers in one process share nothing.
 */
export interface RoomConfig {
  readonly replayDir: string;
  /** Rooms created over the admin API. */
  readonly adminCaps: Readonly<RoomCaps>;
  /** Rooms players create through matchmaking (join options). */
  readonly playerCaps: Readonly<RoomCaps>;
  /**
   * The ranges the admin API's settings route accepts per room knob: the knob table's
   * (shared/net/knobs.ts), or narrower when the server is created with `knobRanges`.
   */
  readonly knobRanges: KnobRanges;
  /**
   * Marks options as coming from the admin API (the admin token: shared by every process when set in
   * the environment). Never sent to clients; stripped from matchmaking requests.
   */
  readonly trustKey: string;
  readonly defaults: Readonly<RoomDefaults>;
  /** Ticks between replay keyframes. */
  readonly keyframeInterval: number;
  /** Timeouts and rate limits (server/config.ts). */
  readonly limits: Readonly<ServerLimits>;
  /** The process's replay directory (rotation, cross-process downloads). */
  readonly replayStore: ReplayStore;
  /** Per-address room and seat admission. */
  readonly admission: Admission;
  /** Sandbox that tries a player scenario's first ticks before the room starts. */
  readonly probe: ScenarioProbe;
  /** The server's running rooms (room counts, the process CPU share, load shedding). */
  readonly rooms: LiveRooms;
  /** The server's /metrics registry. */
  readonly metrics: ServerMetrics;
  /** The games rooms may play (by name; the default is sandbox). */
  readonly games: GameRegistry;
  /**
   * Several processes on one Redis: rooms checkpoint there and rooms of a dead process are resumed
   * (server/failover/); null with the embedded presence (one process, nothing to fail over to).
   */
  readonly failover: RoomFailover | null;
}

/** Checkpoints and resumes of a clustered server (set once its Redis connection exists). */
export interface RoomFailover {
  readonly store: CheckpointStore;
  /** Rooms about to be created again under their ids on this process. */
  readonly pending: PendingResumes;
  /** Sends every room's log entries together (one pipeline per round). */
  readonly flusher: CheckpointFlusher;
  /** Encodes bases on a worker thread. */
  readonly encoder: BaseEncoder;
}

/** Option key of the room definition's options under which a room finds its RoomConfig. */
export const CONFIG_OPTION = "config";
/** Option key of the game a room plays (creation and join options; rooms are matched on it). */
export const GAME_OPTION = "game";
