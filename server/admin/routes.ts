import { matchMaker } from "@colyseus/core";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ROOM_NAME } from "../../shared/net/index.ts";
import { BUILTIN_SCENARIOS, builtinNames, getBuiltinScenario } from "../../shared/scenarios/index.ts";
import type { RoomSettingsPatch } from "../../shared/sim/index.ts";
import { renderMetrics } from "../metrics.ts";
import type { ReplayStore } from "../replay/store.ts";
import { type PhysicsRoom, type RoomInfo, roomConfig, TRUST_OPTION } from "../rooms/physics-room.ts";
import { resolveScenario } from "../scenario-input.ts";
import { bearerAuth } from "./auth.ts";
import * as S from "./schemas.ts";

export interface AdminOptions {
  adminToken: string;
  replayDir: string;
  replayStore: ReplayStore;
}

/** How long an admin call waits for a room on another process, ms. */
const REMOTE_TIMEOUT_MS = 2000;

async function findRoom(id: string): Promise<boolean> {
  const listing = await matchMaker.getRoomById(id);
  return listing !== undefined && listing !== null && listing.name === ROOM_NAME;
}

function notFound(reply: FastifyReply, id: string) {
  return reply.code(404).send({ statusCode: 404, error: "Not Found", message: `no room "${id}"` });
}

function badRequest(reply: FastifyReply, message: string, issues?: unknown) {
  return reply.code(400).send({ statusCode: 400, error: "Bad Request", message, ...(issues ? { issues } : {}) });
}

function unavailable(reply: FastifyReply, message: string) {
  return reply.code(503).send({ statusCode: 503, error: "Service Unavailable", message });
}

type RoomCall<T> = { ok: true; value: T } | { ok: false; message: string };

/**
 * Calls an admin method of a room on whichever process hosts it. A host that does not answer (it died
 * and the periodic health check has not removed its rooms yet, or it is overloaded) becomes a 503 with a
 * short message; Colyseus' own error text repeats the call's arguments (whole scenarios).
 */
async function callRoom<T>(id: string, method: keyof PhysicsRoom, args?: unknown[]): Promise<RoomCall<T>> {
  try {
    return { ok: true, value: (await matchMaker.remoteRoomCall<PhysicsRoom>(id, method, args, REMOTE_TIMEOUT_MS)) as T };
  } catch {
    const listing = await Promise.resolve()
      .then(() => matchMaker.getRoomById(id))
      .catch(() => undefined);
    return { ok: false, message: `room "${id}" did not answer within ${REMOTE_TIMEOUT_MS} ms (process ${listing?.processId ?? "unknown"})` };
  }
}

/** What GET /rooms shows for a room hosted elsewhere: the summary it keeps in its listing. */
function fromListing(l: { roomId: string; clients: number; processId: string; metadata?: unknown }): Partial<RoomInfo> & { infoAgeMs?: number } {
  const meta = (l.metadata ?? {}) as { scenario?: string; info?: RoomInfo & { updatedAt?: number } };
  if (meta.info) {
    const { updatedAt, ...info } = meta.info;
    return { ...info, clients: l.clients, processId: l.processId, infoAgeMs: updatedAt ? Math.max(0, Date.now() - updatedAt) : undefined };
  }
  return { roomId: l.roomId, clients: l.clients, scenario: meta.scenario ?? "", processId: l.processId };
}

/**
 * Admin and health routes (a Fastify plugin). Everything that acts on a room goes through
 * `matchMaker.remoteRoomCall`, which calls the room directly when it is local and over presence IPC when
 * another process hosts it. Mutating methods need the bearer token (one hook for the whole scope).
 */
export async function adminRoutes(app: FastifyInstance, opts: AdminOptions): Promise<void> {
  app.addHook("onRequest", bearerAuth(opts.adminToken));

  app.get("/health", { schema: { response: { 200: S.okResponse } } }, async () => ({ status: "ok" }));

  app.get("/ready", { schema: { response: { 200: S.okResponse, 503: S.okResponse } } }, async (_req, reply) => {
    const ready = matchMaker.state === matchMaker.MatchMakerState.READY;
    return reply.code(ready ? 200 : 503).send({ status: ready ? "ready" : "not ready" });
  });

  app.get("/metrics", { schema: { response: { 200: { type: "string" } } } }, async (_req, reply) => {
    return reply.type("text/plain; version=0.0.4; charset=utf-8").send(renderMetrics());
  });

  app.get("/scenarios", { schema: { response: { 200: S.scenarioList } } }, async () =>
    builtinNames().map((name) => {
      const s = BUILTIN_SCENARIOS[name]();
      return { name, description: s.description ?? "", bodies: s.bodies.length };
    }),
  );

  app.get<{ Params: { name: string } }>("/scenarios/:name", { schema: { params: S.nameParams } }, async (req, reply) => {
    const scenario = getBuiltinScenario(req.params.name);
    if (!scenario) return reply.code(404).send({ statusCode: 404, error: "Not Found", message: `no built-in scenario "${req.params.name}"` });
    return scenario;
  });

  /**
   * Every room of every process, from the matchmaking driver's room cache (one Redis HGETALL with
   * several processes): rooms of this process are asked directly (fresh numbers), the others show the
   * summary they write into their listing every 2 s (`infoAgeMs` old). No per-room remote calls.
   */
  app.get("/rooms", { schema: { response: { 200: S.roomList } } }, async () => {
    const listings = await matchMaker.query({ name: ROOM_NAME });
    return listings.map((l) => {
      const local = matchMaker.getLocalRoomById(l.roomId) as PhysicsRoom | undefined;
      if (local && typeof local.adminInfo === "function" && local.sim) return { ...local.adminInfo(), infoAgeMs: 0 };
      return fromListing(l);
    });
  });

  /** Processes sharing the matchmaker (Colyseus' stats): id, rooms, clients. */
  app.get("/processes", { schema: { response: { 200: S.processList } } }, async () => {
    const all = await matchMaker.stats.fetchAll();
    return all.map((p) => ({ processId: p.processId, rooms: p.roomCount, clients: p.ccu, self: p.processId === matchMaker.processId }));
  });

  app.get<{ Params: { id: string } }>("/rooms/:id", { schema: { params: S.roomParams, response: { 200: S.roomInfo } } }, async (req, reply) => {
    if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
    const r = await callRoom<RoomInfo>(req.params.id, "adminInfo");
    return r.ok ? r.value : unavailable(reply, r.message);
  });

  app.post<{ Body: S.CreateRoomBody }>("/rooms", { schema: { body: S.createRoomBody, response: { 201: S.createdRoom } } }, async (req, reply) => {
    const { scenario, ...limits } = req.body;
    const caps = roomConfig.adminCaps;
    const resolved = resolveScenario(scenario, "scenario", { maxBodies: caps.maxBodies, maxTickRate: caps.maxTickRate, maxJsonBytes: caps.maxScenarioJsonBytes });
    if (!resolved.ok) return badRequest(reply, resolved.message, resolved.issues);
    try {
      const listing = await matchMaker.createRoom(ROOM_NAME, { ...limits, scenario: resolved.scenario, [TRUST_OPTION]: opts.adminToken });
      return reply.code(201).send({ roomId: listing.roomId });
    } catch (err) {
      // e.g. "server full: this process already hosts 500 rooms"
      return unavailable(reply, `room not created: ${(err as Error).message.slice(0, 200)}`);
    }
  });

  app.delete<{ Params: { id: string } }>("/rooms/:id", { schema: { params: S.roomParams } }, async (req, reply) => {
    if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
    const r = await callRoom<boolean>(req.params.id, "adminDispose");
    return r.ok ? reply.code(204).send() : unavailable(reply, r.message);
  });

  app.post<{ Params: { id: string }; Body: { scenario: unknown } }>(
    "/rooms/:id/scenario",
    { schema: { params: S.roomParams, body: S.loadScenarioBody, response: { 200: S.queuedChange } } },
    async (req, reply) => {
      const resolved = resolveScenario(req.body.scenario, "scenario");
      if (!resolved.ok) return badRequest(reply, resolved.message, resolved.issues);
      if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
      const r = await callRoom<{ appliesAtTick: number } | { error: string }>(req.params.id, "adminLoadScenario", [resolved.scenario]);
      if (!r.ok) return unavailable(reply, r.message);
      // The room applies its own caps (a player-created room takes at most 3000 bodies).
      if ("error" in r.value) return badRequest(reply, r.value.error);
      return r.value;
    },
  );

  app.patch<{ Params: { id: string }; Body: RoomSettingsPatch }>(
    "/rooms/:id/settings",
    { schema: { params: S.roomParams, body: S.settingsBody, response: { 200: S.queuedChange } } },
    async (req, reply) => {
      if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
      const r = await callRoom<{ error: string } | object>(req.params.id, "adminUpdateSettings", [req.body]);
      if (!r.ok) return unavailable(reply, r.message);
      if ("error" in r.value) return badRequest(reply, r.value.error);
      return r.value;
    },
  );

  /**
   * The room's ndjson recording, live (flushed first, so current to the last tick) or of a disposed room.
   * The file lives on the disk of the process that ran the room; from another process it is streamed
   * through presence IPC in chunks (server/replay/store.ts).
   */
  app.get<{ Params: { id: string } }>("/rooms/:id/replay", { schema: { params: S.roomParams } }, async (req, reply) => {
    const id = req.params.id;
    const download = await opts.replayStore.open(id);
    if (!download.ok) {
      return reply.code(download.status).send({ statusCode: download.status, error: download.status === 404 ? "Not Found" : "Service Unavailable", message: download.message });
    }
    return reply
      .type("application/x-ndjson")
      .header("content-length", String(download.size))
      .header("x-replay-host", download.host)
      .header("content-disposition", `attachment; filename="${id}.ndjson"`)
      .send(download.stream);
  });
}
