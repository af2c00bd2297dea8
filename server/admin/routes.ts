import { createReadStream, existsSync } from "node:fs";
import { matchMaker } from "@colyseus/core";
import type { FastifyInstance, FastifyReply } from "fastify";
import { ROOM_NAME } from "../../shared/net/index.ts";
import { BUILTIN_SCENARIOS, builtinNames, getBuiltinScenario } from "../../shared/scenarios/index.ts";
import type { RoomSettingsPatch } from "../../shared/sim/index.ts";
import { renderMetrics } from "../metrics.ts";
import { replayPath } from "../replay/recorder.ts";
import { type PhysicsRoom, type RoomInfo, TRUST_OPTION } from "../rooms/physics-room.ts";
import { resolveScenario } from "../scenario-input.ts";
import { bearerAuth } from "./auth.ts";
import * as S from "./schemas.ts";

export interface AdminOptions {
  adminToken: string;
  replayDir: string;
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

  app.get("/rooms", { schema: { response: { 200: S.roomList } } }, async () => {
    const listings = await matchMaker.query({ name: ROOM_NAME });
    return Promise.all(
      listings.map(async (l): Promise<Partial<RoomInfo>> => {
        try {
          return (await matchMaker.remoteRoomCall<PhysicsRoom>(l.roomId, "adminInfo", undefined, REMOTE_TIMEOUT_MS)) as RoomInfo;
        } catch {
          // The hosting process did not answer in time: show what the listing knows.
          return { roomId: l.roomId, clients: l.clients, scenario: (l.metadata as { scenario?: string })?.scenario ?? "" };
        }
      }),
    );
  });

  app.get<{ Params: { id: string } }>("/rooms/:id", { schema: { params: S.roomParams, response: { 200: S.roomInfo } } }, async (req, reply) => {
    if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
    return matchMaker.remoteRoomCall<PhysicsRoom>(req.params.id, "adminInfo", undefined, REMOTE_TIMEOUT_MS);
  });

  app.post<{ Body: S.CreateRoomBody }>("/rooms", { schema: { body: S.createRoomBody, response: { 201: S.createdRoom } } }, async (req, reply) => {
    const { scenario, ...limits } = req.body;
    const resolved = resolveScenario(scenario, "scenario");
    if (!resolved.ok) return badRequest(reply, resolved.message, resolved.issues);
    const listing = await matchMaker.createRoom(ROOM_NAME, { ...limits, scenario: resolved.scenario, [TRUST_OPTION]: opts.adminToken });
    await matchMaker.remoteRoomCall<PhysicsRoom>(listing.roomId, "adminKeepAlive", undefined, REMOTE_TIMEOUT_MS);
    return reply.code(201).send({ roomId: listing.roomId });
  });

  app.delete<{ Params: { id: string } }>("/rooms/:id", { schema: { params: S.roomParams } }, async (req, reply) => {
    if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
    await matchMaker.remoteRoomCall<PhysicsRoom>(req.params.id, "adminDispose", undefined, REMOTE_TIMEOUT_MS);
    return reply.code(204).send();
  });

  app.post<{ Params: { id: string }; Body: { scenario: unknown } }>(
    "/rooms/:id/scenario",
    { schema: { params: S.roomParams, body: S.loadScenarioBody, response: { 200: S.queuedChange } } },
    async (req, reply) => {
      const resolved = resolveScenario(req.body.scenario, "scenario");
      if (!resolved.ok) return badRequest(reply, resolved.message, resolved.issues);
      if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
      try {
        return await matchMaker.remoteRoomCall<PhysicsRoom>(req.params.id, "adminLoadScenario", [resolved.scenario], REMOTE_TIMEOUT_MS);
      } catch (err) {
        // The room applies its own caps (a player-created room takes at most 3000 bodies).
        return badRequest(reply, (err as Error).message);
      }
    },
  );

  app.patch<{ Params: { id: string }; Body: RoomSettingsPatch }>(
    "/rooms/:id/settings",
    { schema: { params: S.roomParams, body: S.settingsBody, response: { 200: S.queuedChange } } },
    async (req, reply) => {
      if (!(await findRoom(req.params.id))) return notFound(reply, req.params.id);
      return matchMaker.remoteRoomCall<PhysicsRoom>(req.params.id, "adminUpdateSettings", [req.body], REMOTE_TIMEOUT_MS);
    },
  );

  app.get<{ Params: { id: string } }>("/rooms/:id/replay", { schema: { params: S.roomParams } }, async (req, reply) => {
    const id = req.params.id;
    if (await findRoom(id)) {
      // Live room: write its buffered lines first so the download is current to the last tick.
      await matchMaker.remoteRoomCall<PhysicsRoom>(id, "adminFlushReplay", undefined, REMOTE_TIMEOUT_MS).catch(() => false);
    }
    const path = replayPath(opts.replayDir, id);
    // Files of disposed rooms stay downloadable. With several processes, the file lives on the host
    // that ran the room (a shared REPLAY_DIR or object storage would be the next step).
    if (!existsSync(path)) return reply.code(404).send({ statusCode: 404, error: "Not Found", message: `no replay for room "${id}"` });
    return reply
      .type("application/x-ndjson")
      .header("content-disposition", `attachment; filename="${id}.ndjson"`)
      .send(createReadStream(path));
  });
}
