import { existsSync } from "node:fs";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import fastifyStatic from "@fastify/static";
import { createAuthContext, matchMaker, Server } from "@colyseus/core";
import { Encoder } from "@colyseus/schema";
import { WebSocketTransport } from "@colyseus/ws-transport";
import Fastify, { type FastifyBaseLogger, type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import type { Logger } from "pino";
import { MAX_CLIENT_FRAME_BYTES, ROOM_NAME } from "../shared/net/index.ts";
import { adminRoutes } from "./admin/routes.ts";
import { presenceAndDriver, startProcessSweep } from "./cluster.ts";
import { DEFAULT_LIMITS, type ServerLimits } from "./config.ts";
import { startEventLoopMonitor, stopEventLoopMonitor } from "./metrics.ts";
import { DEFAULT_REPLAY_DIR } from "./replay/recorder.ts";
import { ReplayStore } from "./replay/store.ts";
import { PhysicsRoom, roomConfig, TRUST_OPTION } from "./rooms/physics-room.ts";

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
}

export interface PhysicsServer {
  app: FastifyInstance;
  gameServer: Server;
  /** Listens and starts accepting rooms. Port 0 picks a free port; the bound port is returned. */
  listen(port: number, host: string): Promise<number>;
  /** Disconnects every room (replays are closed), stops Colyseus and Fastify. Does not exit. */
  close(): Promise<void>;
}

const noop = () => {};
const SILENT = { debug: noop, error: noop, info: noop, trace: noop, warn: noop };

/** Fastify's validation errors answer 400 with the failing field in the message ("body/gravity must …"). */
function errorHandler(error: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  if (error.validation) {
    return reply.code(400).send({ statusCode: 400, error: "Bad Request", message: error.message });
  }
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 500;
  if (status === 500) request.log.error({ err: error }, "request failed");
  return reply.code(status).send({
    statusCode: status,
    error: status === 500 ? "Internal Server Error" : (error.code ?? "Error"),
    message: status === 500 ? "internal error" : error.message,
  });
}

/**
 * Builds the process: a Fastify app that owns the HTTP port (admin API, health, matchmaking routes)
 * and a Colyseus server whose WebSocket transport is attached to Fastify's http.Server ("wiring A" of
 * stack.md: Colyseus' own HTTP router is never bound, so the two cannot both answer a request).
 */
export async function createPhysicsServer(options: AppOptions): Promise<PhysicsServer> {
  // Join-time full states of 1000+ bodies exceed the 16 KB default; avoid the resize warning.
  Encoder.BUFFER_SIZE = 256 * 1024;
  roomConfig.replayDir = options.replayDir ?? DEFAULT_REPLAY_DIR;
  roomConfig.trustKey = options.adminToken;
  const limits: ServerLimits = { ...DEFAULT_LIMITS, ...options.limits };
  roomConfig.limits = limits;
  const replayStore = new ReplayStore(roomConfig.replayDir, limits.replayDirMaxBytes);
  roomConfig.replayStore = replayStore;

  const app: FastifyInstance = Fastify({
    ...(options.logger ? { loggerInstance: options.logger as FastifyBaseLogger } : { logger: false }),
    bodyLimit: options.bodyLimit ?? 4 * 1024 * 1024,
    ajv: { customOptions: { removeAdditional: false, coerceTypes: false, allErrors: false } },
  });
  app.setErrorHandler(errorHandler);

  // The browser client (`npm start` builds client/dist first); a placeholder page when it is not built.
  const clientDir = options.clientDir ?? fileURLToPath(new URL("../client/dist", import.meta.url));
  if (existsSync(join(clientDir, "index.html"))) {
    await app.register(fastifyStatic, { root: clientDir, index: ["index.html"] });
  } else {
    app.get("/", async (_req, reply) =>
      reply
        .type("text/html; charset=utf-8")
        .send("<!doctype html><title>physics rooms</title><p>Physics room server (browser client not built: <code>npm run build</code>). Admin API: /rooms, /scenarios, /metrics.</p>"),
    );
  }

  await app.register(adminRoutes, { adminToken: options.adminToken, replayDir: roomConfig.replayDir, replayStore });

  // With several processes (REDIS_URL) each needs its PUBLIC_ADDRESS (stack.md §6, server/cluster.ts).
  const { presence, driver } = await presenceAndDriver(options.redisUrl, options.redisKeyPrefix);
  // Client frames over MAX_CLIENT_FRAME_BYTES close the connection (1009) before anything decodes them.
  const transport = new WebSocketTransport({ noServer: true, maxPayload: MAX_CLIENT_FRAME_BYTES });
  const gameServer = new Server({
    transport,
    presence,
    driver,
    publicAddress: options.publicAddress,
    greet: false,
    gracefullyShutdown: options.handleSignals === true,
    // `logger: false` silences Colyseus too (it would print every refused room creation to the console).
    logger: options.logger ? options.logger : options.logger === false ? SILENT : undefined,
  });
  gameServer.define(ROOM_NAME, PhysicsRoom);
  let stopSweep: (() => void) | null = null;
  gameServer.onShutdown(async () => {
    stopSweep?.();
    await replayStore.stop().catch(() => {});
    await app.close();
  });

  // Matchmaking over Fastify (what Colyseus' own router would serve): POST /matchmake/:method/:roomName.
  const cors = (req: FastifyRequest) => ({
    ...matchMaker.controller.DEFAULT_CORS_HEADERS,
    ...matchMaker.controller.getCorsHeaders(new Headers(req.headers as Record<string, string>)),
  });
  app.options("/matchmake/*", async (req, reply) => reply.headers(cors(req)).code(204).send());
  app.post<{ Params: { method: string; roomName: string } }>(
    "/matchmake/:method/:roomName",
    { schema: { params: { type: "object", properties: { method: { type: "string", maxLength: 32 }, roomName: { type: "string", maxLength: 64 } } } } },
    async (req, reply) => {
      reply.headers(cors(req));
      // Joins stop the moment a shutdown starts (and before the matchmaker is ready).
      if (matchMaker.state !== matchMaker.MatchMakerState.READY) {
        return reply.code(503).send({ code: 503, error: "server is not accepting joins (starting or shutting down)" });
      }
      const raw = req.body ?? {};
      if (typeof raw !== "object" || Array.isArray(raw)) return reply.code(400).send({ code: 400, error: "body must be a JSON object of join options" });
      // Player-created rooms get the player caps: the admin marker never comes from a client.
      const { [TRUST_OPTION]: _ignored, ...body } = raw as Record<string, unknown>;
      try {
        return await matchMaker.controller.invokeMethod(
          req.params.method,
          req.params.roomName,
          body as matchMaker.ClientOptions,
          createAuthContext({ headers: req.headers as Record<string, string>, req: req.raw } as Parameters<typeof createAuthContext>[0]),
        );
      } catch (e) {
        const err = e as { code?: number; message?: string };
        return reply.code(400).send({ code: err.code, error: err.message });
      }
    },
  );

  let closed = false;
  return {
    app,
    gameServer,
    async listen(port: number, host: string): Promise<number> {
      await app.ready();
      transport.attachToServer(app.server);
      await app.listen({ port, host });
      await matchMaker.onReady;
      await matchMaker.accept();
      await replayStore.start(matchMaker.presence, matchMaker.processId);
      if (options.redisUrl) stopSweep = startProcessSweep(limits.processCheckIntervalMs);
      startEventLoopMonitor();
      return (app.server.address() as AddressInfo).port;
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      stopEventLoopMonitor();
      await gameServer.gracefullyShutdown(false);
      await app.close();
    },
  };
}
