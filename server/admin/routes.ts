import { matchMaker } from "@colyseus/core";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyInstance } from "fastify";
import * as S from "../../shared/net/admin.ts";
import { type KnobRanges, ROOM_NAME, roomSettingsPatchSchema } from "../../shared/net/index.ts";
import { BUILTIN_SCENARIOS, builtinNames, getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { DEFAULT_GAME, type GameRegistry } from "../../shared/game/registry.ts";
import { gameListing } from "../games.ts";
import { httpError } from "../http-errors.ts";
import type { ServerMetrics } from "../metrics.ts";
import type { ReplayStore } from "../replay/store.ts";
import { type PhysicsRoom, TRUST_OPTION } from "../rooms/physics-room.ts";
import { type RoomCaps, scenarioCaps } from "../rooms/room-caps.ts";
import { placingRooms } from "../placement.ts";
import { resolveScenario } from "../scenario-input.ts";
import { bearerAuth } from "./auth.ts";
import { commandOf, requireRoom, roomAnswer } from "./room-call.ts";

export interface AdminOptions {
  adminToken: string;
  replayStore: ReplayStore;
  /** Caps of the rooms the admin API creates: POST /rooms' schema and its scenario check. */
  caps: Readonly<RoomCaps>;
  /** The ranges PATCH /rooms/:id/settings accepts per knob (its schema is built from them). */
  knobRanges: KnobRanges;
  /** The server's /metrics registry. */
  metrics: ServerMetrics;
  /** The games rooms may play (GET /games, POST /rooms' `game`). */
  games: GameRegistry;
  /** Why matchmaking cannot work now ("" when it can): a Redis outage (/ready answers 503 with it). */
  matchmakingProblem: () => string;
}

/** Route schemas type the handlers (the contract's Static types): requests in, replies out. */
function typed(app: FastifyInstance) {
  return app.withTypeProvider<TypeBoxTypeProvider>();
}

/** What GET /rooms shows for a room hosted elsewhere: the summary it keeps in its listing. */
function fromListing(l: { roomId: string; clients: number; processId: string; metadata?: unknown }): S.RoomListEntry {
  const meta = (l.metadata ?? {}) as { scenario?: string; game?: string; info?: S.RoomInfo & { updatedAt?: number } };
  if (meta.info) {
    const { updatedAt, ...info } = meta.info;
    return { ...info, clients: l.clients, processId: l.processId, infoAgeMs: updatedAt ? Math.max(0, Date.now() - updatedAt) : undefined };
  }
  return { roomId: l.roomId, clients: l.clients, scenario: meta.scenario ?? "", ...(meta.game ? { game: meta.game } : {}), processId: l.processId };
}

/** Liveness, readiness, /metrics, the built-in scenarios and the games (reads only). */
async function statusRoutes(fastify: FastifyInstance, opts: { metrics: ServerMetrics; games: GameRegistry; matchmakingProblem: () => string }): Promise<void> {
  const app = typed(fastify);
  app.get("/health", { schema: { response: { 200: S.StatusReply } } }, async () => ({ status: "ok" }));

  // A readiness status, not an error: load balancers read the code. Not ready while starting, shutting
  // down, or while matchmaking cannot work (Redis unreachable): the reason says which.
  app.get("/ready", { schema: { response: { 200: S.StatusReply, 503: S.StatusReply } } }, async (_req, reply) => {
    if (matchMaker.state !== matchMaker.MatchMakerState.READY) return reply.code(503).send({ status: "not ready", reason: "starting or shutting down" });
    const problem = opts.matchmakingProblem();
    if (problem) return reply.code(503).send({ status: "not ready", reason: problem });
    return reply.code(200).send({ status: "ready" });
  });

  app.get("/metrics", { schema: { response: { 200: { type: "string" } } } }, async (_req, reply) => {
    return reply.type("text/plain; version=0.0.4; charset=utf-8").send(opts.metrics.renderMetrics());
  });

  app.get("/scenarios", { schema: { response: { 200: S.ScenarioList } } }, async () =>
    builtinNames().map((name) => {
      const s = BUILTIN_SCENARIOS[name]();
      return { name, description: s.description ?? "", bodies: s.bodies.length };
    }),
  );

  // Computed once: the games are fixed for the process's life.
  const games = opts.games.list().map(gameListing);
  app.get("/games", async () => games);

  app.get("/scenarios/:name", { schema: { params: S.NameParams } }, async (req) => {
    const scenario = getBuiltinScenario(req.params.name);
    if (!scenario) throw httpError(404, `no built-in scenario "${req.params.name}"`);
    return scenario;
  });
}

/**
 * Rooms and processes. Every room is listed from the matchmaking driver's room cache (one Redis HGETALL
 * with several processes): rooms of this process are asked directly (fresh numbers), the others show the
 * summary they write into their listing every 2 s (`infoAgeMs` old). Everything that acts on one room
 * goes through roomAnswer (room-call.ts), to whichever process hosts it.
 */
async function roomRoutes(fastify: FastifyInstance, opts: AdminOptions): Promise<void> {
  const app = typed(fastify);
  const caps = scenarioCaps(opts.caps);
  // Every room route reads or writes the shared listing: during a Redis outage a clear 503 with the
  // cause, at once (not a 500 after the driver's retries).
  fastify.addHook("onRequest", async () => {
    const problem = opts.matchmakingProblem();
    if (problem) throw httpError(503, `rooms unavailable: ${problem}`, { headers: { "retry-after": "5" } });
  });

  app.get("/rooms", { schema: { response: { 200: S.RoomList } } }, async () => {
    const listings = await matchMaker.query({ name: ROOM_NAME });
    return listings.map((l) => {
      const local = matchMaker.getLocalRoomById(l.roomId) as PhysicsRoom | undefined;
      if (local && typeof local.adminInfo === "function" && local.sim) return { ...local.adminInfo(), infoAgeMs: 0 };
      return fromListing(l);
    });
  });

  /** Processes sharing the matchmaker (Colyseus' stats): id, rooms, clients. */
  app.get("/processes", { schema: { response: { 200: S.ProcessList } } }, async () => {
    const all = await matchMaker.stats.fetchAll();
    return all.map((p) => ({ processId: p.processId, rooms: p.roomCount, clients: p.ccu, self: p.processId === matchMaker.processId }));
  });

  app.get("/rooms/:id", { schema: { params: S.RoomParams, response: { 200: S.RoomInfo } } }, async (req) => {
    await requireRoom(req.params.id);
    return roomAnswer<S.RoomInfo>(req.params.id, "adminInfo");
  });

  app.post("/rooms", { schema: { body: S.createRoomBodySchema(opts.caps), response: { 201: S.CreatedRoom } } }, async (req, reply) => {
    const { scenario, game: gameName, ...limits } = req.body;
    const game = opts.games.get(gameName ?? DEFAULT_GAME);
    if (!game) throw httpError(400, `game: no game "${gameName}" (known: ${opts.games.names().join(", ")})`);
    if (scenario !== undefined && !game.anyScenario) throw httpError(400, `scenario: game "${game.name}" plays its own scenario`);
    const resolved = resolveScenario(scenario ?? game.scenario, "scenario", caps);
    if (!resolved.ok) throw httpError(400, resolved.message, { issues: resolved.issues });
    let roomId: string;
    try {
      // The game's own scenario is the room's to resolve (it was checked above, with the same caps).
      const chosen = scenario !== undefined ? { scenario: resolved.scenario } : {};
      roomId = (await placingRooms(() => matchMaker.createRoom(ROOM_NAME, { ...limits, game: game.name, ...chosen, [TRUST_OPTION]: opts.adminToken }))).roomId;
    } catch (err) {
      // e.g. "server full: this process already hosts 500 rooms"
      throw httpError(503, `room not created: ${(err as Error).message.slice(0, 200)}`);
    }
    return reply.code(201).send({ roomId });
  });

  app.delete("/rooms/:id", { schema: { params: S.RoomParams } }, async (req, reply) => {
    await requireRoom(req.params.id);
    await roomAnswer<boolean>(req.params.id, "adminDispose", [], commandOf(req, reply), reply);
    return reply.code(204).send();
  });

  app.post(
    "/rooms/:id/scenario",
    { schema: { params: S.RoomParams, body: S.LoadScenarioBody, response: { 200: S.QueuedChange } } },
    async (req, reply) => {
      const resolved = resolveScenario(req.body.scenario, "scenario", caps);
      if (!resolved.ok) throw httpError(400, resolved.message, { issues: resolved.issues });
      await requireRoom(req.params.id);
      // The room applies its own caps (a player-created room takes fewer bodies): its refusal is a 400.
      return roomAnswer<S.QueuedChange>(req.params.id, "adminLoadScenario", [resolved.scenario], commandOf(req, reply), reply);
    },
  );

  app.patch(
    "/rooms/:id/settings",
    { schema: { params: S.RoomParams, body: roomSettingsPatchSchema(opts.knobRanges), response: { 200: S.QueuedChange } } },
    async (req, reply) => {
      await requireRoom(req.params.id);
      return roomAnswer<S.SettingsChange>(req.params.id, "adminUpdateSettings", [req.body], commandOf(req, reply), reply);
    },
  );
}

/**
 * The room's ndjson recording, live (flushed first, so current to the last tick) or of a disposed room.
 * The file lives on the disk of the process that ran the room; from another process it is streamed
 * through presence IPC in chunks (server/replay/store.ts).
 */
async function replayRoutes(fastify: FastifyInstance, opts: { replayStore: ReplayStore }): Promise<void> {
  typed(fastify).get("/rooms/:id/replay", { schema: { params: S.RoomParams } }, async (req, reply) => {
    const id = req.params.id;
    const download = await opts.replayStore.open(id);
    if (!download.ok) throw httpError(download.status, download.message);
    return reply
      .type("application/x-ndjson")
      .header("content-length", String(download.size))
      .header("x-replay-host", download.host)
      .header("content-disposition", `attachment; filename="${id}.ndjson"`)
      .send(download.stream);
  });
}

/**
 * Admin and health routes (a Fastify plugin taking AdminOptions). Reads are open; mutating methods need
 * the bearer token (one hook for the whole scope, this plugin's child plugins included).
 */
export async function adminRoutes(app: FastifyInstance, opts: AdminOptions): Promise<void> {
  app.addHook("onRequest", bearerAuth(opts.adminToken));
  // A token check that changes nothing (the knobs panel's unlock): the hook above answers 401 to a wrong token.
  app.post("/auth/check", async (_req, reply) => reply.code(204).send());
  await app.register(statusRoutes, { metrics: opts.metrics, games: opts.games, matchmakingProblem: opts.matchmakingProblem });
  await app.register(roomRoutes, opts);
  await app.register(replayRoutes, { replayStore: opts.replayStore });
}
