import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { matchMaker, Server } from "@colyseus/core";
import { Encoder } from "@colyseus/schema";
import fastifyStatic from "@fastify/static";
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from "fastify";
import type { Logger } from "pino";
import { type KnobRange, MAX_CLIENT_FRAME_BYTES, narrowKnobRanges, ROOM_NAME, type RangedKnobKey } from "../shared/net/index.ts";
import { adminRoutes } from "./admin/routes.ts";
import { AJV_OPTIONS, formatSchemaErrors } from "./admin/schemas.ts";
import { Admission, SEAT_USED_CHANNEL } from "./admission.ts";
import { presenceAndDriver } from "./cluster.ts";
import { createFailover, type Failover } from "./failover/index.ts";
import { RoomPlacement } from "./placement.ts";
import { RedisHealth } from "./redis-health.ts";
import { DEFAULT_LIMITS, type ServerLimits } from "./config.ts";
import { type ScenarioProbe, sharedScenarioProbe } from "./cpu/probe.ts";
import { warmEngine } from "./cpu/warm-up.ts";
import { replyNotFound, replyWithError } from "./http-errors.ts";
import { DebugRequestLog } from "./logging.ts";
import { matchmakingRoutes } from "./matchmaking.ts";
import { ServerMetrics } from "./metrics.ts";
import { type ConnectionGuard, type GuardedTransportOptions, withConnectionGuard } from "./net/transport.ts";
import { DEFAULT_KEYFRAME_INTERVAL } from "./replay/format.ts";
import { DEFAULT_REPLAY_DIR } from "./replay/recorder.ts";
import { ReplayStore } from "./replay/store.ts";
import { LiveRooms } from "./rooms/live-rooms.ts";
import { PhysicsRoom } from "./rooms/physics-room.ts";
import { GameRegistry } from "../shared/game/registry.ts";
import { ADMIN_ROOM_CAPS, PLAYER_ROOM_CAPS } from "./rooms/room-caps.ts";
import { CONFIG_OPTION, GAME_OPTION, ROOM_DEFAULTS, type RoomConfig } from "./rooms/room-config.ts";
import { DeadlineTransport } from "./shutdown.ts";

export interface AppOptions {
  adminToken: string;
  /** Replay directory (REPLAY_DIR). */
  replayDir?: string;
  /** A pino logger for Fastify and Colyseus; false for silence (tests). */
  logger?: Logger | false;
  /** REDIS_URL: use Redis presence + driver instead of the embedded ones (multi-process). */
  redisUrl?: string;
  /** REDIS_KEY_PREFIX: prefix of every Redis key this deployment uses. */
  redisKeyPrefix?: string;
  /** Timeouts and rate limits; unset ones keep their defaults (server/config.ts). */
  limits?: Partial<ServerLimits>;
  /** PUBLIC_ADDRESS of this process (host:port), needed when several processes serve rooms. */
  publicAddress?: string;
  /** Largest request body, bytes. Default 4 MiB (scenario JSON for a few thousand bodies). */
  bodyLimit?: number;
  /** Let Colyseus handle SIGTERM/SIGINT (graceful shutdown, then exit). main.ts sets it; tests do not. */
  handleSignals?: boolean;
  /** The built browser client served at `/` (vite build output). Default client/dist; without an index.html there, `/` is a placeholder page. */
  clientDir?: string;
  /**
   * TRUST_PROXY: whose X-Forwarded-For to believe for the client address that admission limits are
   * keyed on (Fastify's trustProxy: an address/CIDR list, or a hop count). Default: nobody's.
   */
  trustProxy?: string | number;
  /** Narrower ranges for some room knobs than the knob table's (PATCH /rooms/:id/settings refuses the rest). */
  knobRanges?: Partial<Record<RangedKnobKey, KnobRange>>;
  /** The games rooms may play: the built-ins plus GAMES' modules (server/games.ts). Default: the built-ins. */
  games?: GameRegistry;
}

export interface PhysicsServer {
  app: FastifyInstance;
  gameServer: Server;
  /** The WebSocket transport (its test hook, ConnectionGuard#onFrame). */
  transport: ConnectionGuard;
  /** This server's /metrics registry. */
  metrics: ServerMetrics;
  /** Listens and starts accepting rooms. Port 0 picks a free port; the bound port is returned. */
  listen(port: number, host: string): Promise<number>;
  /** Disconnects every room (replays are closed), stops Colyseus and Fastify. Does not exit. */
  close(): Promise<void>;
}

const noop = () => {};
const SILENT = { debug: noop, error: noop, info: noop, trace: noop, warn: noop };
const SILENT_LOG = { info: noop, warn: noop };

/** TRUST_PROXY for Fastify: a hop count trusts that many proxies in front of us; a string is an address/CIDR list. */
function trustProxyOption(value: string | number | undefined): string | boolean | ((address: string, hop: number) => boolean) {
  if (value === undefined) return false;
  if (typeof value === "number") return (_address: string, hop: number) => hop < value;
  return value;
}

/** Admission refusals, rooms by creator and the scenario probe in /metrics. */
function admissionSeries(admission: Admission, probe: ScenarioProbe, rooms: LiveRooms): string[] {
  const out = ["# HELP physics_admission_refused_total Matchmaking requests refused, by reason.", "# TYPE physics_admission_refused_total counter"];
  for (const [reason, n] of admission.refusedTotal) out.push(`physics_admission_refused_total{reason="${reason}"} ${n}`);
  const counts = rooms.counts();
  out.push("# HELP physics_rooms_by_creator Rooms hosted, by who created them.", "# TYPE physics_rooms_by_creator gauge");
  out.push(`physics_rooms_by_creator{creator="player"} ${counts.player}`, `physics_rooms_by_creator{creator="admin"} ${counts.admin}`);
  out.push("# HELP physics_admission_pending_seats Seats reserved through this process and not yet connected to.", "# TYPE physics_admission_pending_seats gauge");
  out.push(`physics_admission_pending_seats ${admission.pendingSeats()}`);
  out.push("# HELP physics_probe_refused_total Player scenarios the sandbox probe refused (too slow, timed out or broken).", "# TYPE physics_probe_refused_total counter");
  out.push(`physics_probe_refused_total ${probe.refused}`);
  out.push("# HELP physics_probe_timeouts_total Sandbox probes stopped at their time limit.", "# TYPE physics_probe_timeouts_total counter");
  out.push(`physics_probe_timeouts_total ${probe.timedOut}`);
  return out;
}

/** The configuration and services of this server's rooms (one set per server: nothing in module state). */
function createRoomConfig(options: AppOptions, failover: Failover | null): RoomConfig {
  // First: a range wider than the knob table's stops the server before anything is started.
  const knobRanges = narrowKnobRanges(options.knobRanges);
  const limits: ServerLimits = Object.freeze({ ...DEFAULT_LIMITS, ...options.limits });
  const replayDir = options.replayDir ?? DEFAULT_REPLAY_DIR;
  const rooms = new LiveRooms();
  const metrics = new ServerMetrics();
  const admission = new Admission(limits, options.logger ? options.logger : SILENT_LOG, () => rooms.counts());
  // One sandbox per process (its worker is unref'd and outlives any one server in tests).
  const probe = sharedScenarioProbe();
  probe.warm();
  metrics.setExtraSeries(() => admissionSeries(admission, probe, rooms));
  return Object.freeze({
    replayDir,
    adminCaps: ADMIN_ROOM_CAPS,
    playerCaps: PLAYER_ROOM_CAPS,
    knobRanges,
    trustKey: options.adminToken,
    defaults: ROOM_DEFAULTS,
    keyframeInterval: DEFAULT_KEYFRAME_INTERVAL,
    limits,
    replayStore: new ReplayStore(replayDir, limits.replayDirMaxBytes, limits.replayDirMaxFiles),
    admission,
    probe,
    rooms,
    metrics,
    games: options.games ?? new GameRegistry(),
    failover,
  });
}

/** The browser client (`npm start` builds client/dist first); a placeholder page when it is not built. */
async function clientRoutes(app: FastifyInstance, opts: { clientDir?: string }): Promise<void> {
  const clientDir = opts.clientDir ?? fileURLToPath(new URL("../client/dist", import.meta.url));
  if (existsSync(join(clientDir, "index.html"))) {
    await app.register(fastifyStatic, { root: clientDir, index: ["index.html"] });
    if (existsSync(join(clientDir, "replay.html"))) await replayViewerRoutes(app, clientDir);
    return;
  }
  app.get("/", async (_req, reply) =>
    reply
      .type("text/html; charset=utf-8")
      .send("<!doctype html><title>physics rooms</title><p>Physics room server (browser client not built: <code>npm run build</code>). Admin API: /rooms, /scenarios, /metrics.</p>"),
  );
}

/**
 * The replay viewer (client/replay.html): one page for `/replay/` (drop a file) and `/replay/<roomId>`
 * (which fetches `GET /rooms/<roomId>/replay`). The build's asset paths are relative, so from those
 * addresses they resolve under `/replay/assets/`: served from the same assets directory.
 */
async function replayViewerRoutes(app: FastifyInstance, clientDir: string): Promise<void> {
  await app.register(fastifyStatic, { root: join(clientDir, "assets"), prefix: "/replay/assets/", decorateReply: false });
  const page = (_req: unknown, reply: FastifyReply) => reply.sendFile("replay.html", clientDir);
  app.get("/replay", page);
  app.get("/replay/", page);
  app.get("/replay/:roomId", page);
}

/** Fastify with its plugins: the browser client, the admin API, the matchmaking routes; one error path for all of them. */
async function createHttpApp(options: AppOptions, config: RoomConfig, redisHealth: RedisHealth): Promise<FastifyInstance> {
  const matchmakingProblem = () => redisHealth.problem;
  const app: FastifyInstance = Fastify({
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 4 * 1024 * 1024,
    // One debug line per request (server/logging.ts): at info, every open browser tab's polling would
    // bury the rest, and any anonymous client could grow the log as fast as it can send. Errors and
    // refusals (rate-limited) are still logged at their levels.
    logController: new DebugRequestLog(),
    trustProxy: trustProxyOption(options.trustProxy),
    ajv: { customOptions: { ...AJV_OPTIONS } },
    schemaErrorFormatter: formatSchemaErrors,
  });
  app.setErrorHandler(replyWithError);
  app.setNotFoundHandler(replyNotFound);
  await app.register(clientRoutes, { clientDir: options.clientDir });
  await app.register(adminRoutes, {
    adminToken: options.adminToken,
    replayStore: config.replayStore,
    caps: config.adminCaps,
    knobRanges: config.knobRanges,
    metrics: config.metrics,
    games: config.games,
    matchmakingProblem,
  });
  await app.register(matchmakingRoutes, { admission: config.admission, bodyLimit: 2 * config.playerCaps.maxScenarioJsonBytes, matchmakingProblem });
  return app;
}

/**
 * Colyseus with the physics room defined on this server's RoomConfig, over a WebSocket transport that
 * is attached to Fastify's http.Server at listen (embedded presence and driver, or Redis ones).
 */
async function createGameServer(options: AppOptions, config: RoomConfig, redisHealth: RedisHealth) {
  // With several processes (REDIS_URL) each needs its PUBLIC_ADDRESS (server/cluster.ts).
  const { presence, driver, watch } = await presenceAndDriver(options.redisUrl, options.redisKeyPrefix ?? "", redisHealth);
  // Client frames over MAX_CLIENT_FRAME_BYTES close the connection (1009) before anything decodes them.
  // Every close handshake has a deadline (1 s, then terminate); its shutdown closes every socket (server/shutdown.ts).
  // Frames are copied before ws can queue them, a client over ~2 s of unsent updates is closed (4030), and
  // only a pong answering our ping keeps a client alive (server/net/transport.ts).
  const transportOptions: GuardedTransportOptions = {
    noServer: true,
    maxPayload: MAX_CLIENT_FRAME_BYTES,
    onBacklogClose: () => config.metrics.backlogCloses++,
  };
  // A variable, not a literal: TypeScript types the mixin's constructor with its base's (TransportOptions).
  const transport = new (withConnectionGuard(DeadlineTransport))(transportOptions);
  const gameServer = new Server({
    transport,
    presence,
    driver,
    publicAddress: options.publicAddress,
    // Several processes: new rooms go to the least-loaded one by live counts (server/placement.ts).
    ...(options.redisUrl ? { selectProcessIdToCreateRoom: new RoomPlacement().select } : {}),
    greet: false,
    gracefullyShutdown: options.handleSignals === true,
    // `logger: false` silences Colyseus too (it would print every refused room creation to the console).
    logger: options.logger ? options.logger : options.logger === false ? SILENT : undefined,
  });
  // The definition's options reach every room's onCreate (and win over a client's options of the same name).
  // Rooms are matched by game: joinOrCreate({ game: "soccer" }) never lands in a sandbox room (the
  // matchmaking route names the sandbox when a client names no game, server/matchmaking.ts).
  gameServer.define(ROOM_NAME, PhysicsRoom, { [CONFIG_OPTION]: config }).filterBy([GAME_OPTION]);
  return { gameServer, transport, watch };
}

/**
 * Builds the process: a Fastify app that owns the HTTP port (admin API, health, matchmaking routes)
 * and a Colyseus server whose WebSocket transport is attached to Fastify's http.Server (Colyseus'
 * own HTTP router is never bound, so the two cannot both answer a request).
 */
export async function createPhysicsServer(options: AppOptions): Promise<PhysicsServer> {
  // Join-time full states of 1000+ bodies exceed the 16 KB default; avoid the resize warning.
  Encoder.BUFFER_SIZE = 256 * 1024;
  const redisHealth = new RedisHealth(options.logger ? options.logger : SILENT_LOG);
  const games = options.games ?? new GameRegistry();
  // Several processes: rooms checkpoint to Redis, and a dead process's rooms are resumed (server/failover/).
  const failover = options.redisUrl ? createFailover(options.redisUrl, options.redisKeyPrefix ?? "", redisHealth, games) : null;
  const config = createRoomConfig({ ...options, games }, failover);
  const { limits, metrics, replayStore } = config;
  // A Redis that comes back may have come back empty: this process's load is written again at once.
  redisHealth.onRecovered(async () => {
    if (matchMaker.state === matchMaker.MatchMakerState.READY) await matchMaker.stats.persist(true);
  });
  const app = await createHttpApp(options, config, redisHealth);
  const { gameServer, transport, watch } = await createGameServer(options, config, redisHealth);
  if (watch && failover) watch.onGone((processId) => failover.adoption.adopt(processId), () => failover.store.owners().then((owners) => [...owners.values()]));
  let stopSweep: (() => void) | null = null;
  // Load shedding, once a second: the most expensive player room is slowed (then closed) while the rooms
  // together use more than their share of the event loop.
  const shedder = setInterval(() => config.rooms.shedLoad(limits.playerRoomsCpuMs), 1000);
  shedder.unref();
  gameServer.onShutdown(async () => {
    redisHealth.stop();
    clearInterval(shedder);
    stopSweep?.();
    await replayStore.stop().catch(() => {});
    await app.close();
    await failover?.close();
  });

  let closed = false;
  return {
    app,
    gameServer,
    transport,
    metrics,
    async listen(port: number, host: string): Promise<number> {
      warmEngine();
      await app.ready();
      transport.attachToServer(app.server);
      await app.listen({ port, host });
      await matchMaker.onReady;
      await matchMaker.presence.subscribe(SEAT_USED_CHANNEL, (sessionId: unknown) => {
        if (typeof sessionId === "string") config.admission.seatUsed(sessionId);
      });
      await matchMaker.accept();
      await replayStore.start(matchMaker.presence, matchMaker.processId);
      if (watch) stopSweep = watch.start(limits.processCheckIntervalMs, redisHealth);
      metrics.startEventLoopMonitor();
      return (app.server.address() as AddressInfo).port;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      redisHealth.stop();
      clearInterval(shedder);
      metrics.stopEventLoopMonitor();
      await gameServer.gracefullyShutdown(false);
      await app.close();
      await failover?.close();
    },
  };
}
