import { createAuthContext, matchMaker } from "@colyseus/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { type Admission, type AdmissionVerdict, addressKey } from "./admission.ts";
import { httpError } from "./http-errors.ts";
import { placingRooms } from "./placement.ts";
import { CREATOR_OPTION, type CreatorInfo, TRUST_OPTION } from "./rooms/room-admission.ts";
import { DEFAULT_GAME } from "../shared/game/registry.ts";
import { CONFIG_OPTION, GAME_OPTION } from "./rooms/room-config.ts";

declare module "fastify" {
  interface FastifyRequest {
    /** The creating client, as the matchmaking route's admission hook found it (passed on as CREATOR_OPTION). */
    creator: CreatorInfo | null;
  }
}

/** Matchmaking methods that hand out a seat. */
const SEAT_METHODS = new Set(["create", "joinOrCreate", "join", "joinById", "reconnect"]);
/** Retry-After of a refusal made while creating the room (server busy, server full), seconds. */
const REFUSAL_RETRY_SECONDS = 5;
/** A joinOrCreate body larger than this carries a scenario: it is charged as a creation before it is parsed. */
const CREATION_BODY_BYTES = 16 * 1024;
/**
 * A rate-limited request is answered after this delay, so a client that retries the moment it is refused
 * cannot turn refusals into a request flood; at most TARPIT_MAX answers wait at once (then at once).
 */
const TARPIT_MS = 1000;
const TARPIT_MAX = 1000;

/** Delays refusals (TARPIT_MS), at most TARPIT_MAX at once. One per plugin instance. */
class Tarpit {
  private waiting = 0;

  async wait(): Promise<void> {
    if (this.waiting >= TARPIT_MAX) return;
    this.waiting++;
    try {
      await new Promise((resolve) => setTimeout(resolve, TARPIT_MS));
    } finally {
      this.waiting--;
    }
  }
}

export interface MatchmakingOptions {
  admission: Admission;
  /** Largest matchmaking request body, bytes (join options with a player scenario). */
  bodyLimit: number;
  /** Why matchmaking cannot work now ("" when it can): a Redis outage. */
  matchmakingProblem: () => string;
}

/** The HTTP error of a refusal: its status, a Retry-After when it has one, and no keep-alive for a 429. */
function refusal(verdict: Exclude<AdmissionVerdict, { ok: true }>) {
  const headers: Record<string, string> = {};
  if (verdict.retryAfterSeconds > 0) headers["retry-after"] = String(verdict.retryAfterSeconds);
  if (verdict.status === 429) headers.connection = "close";
  return httpError(verdict.status, verdict.message, { headers });
}

type MatchmakeRequest = FastifyRequest<{ Params: { method: string; roomName: string } }>;

function corsHeaders(req: FastifyRequest): Record<string, string> {
  return {
    ...matchMaker.controller.DEFAULT_CORS_HEADERS,
    ...matchMaker.controller.getCorsHeaders(new Headers(req.headers as Record<string, string>)),
  };
}

/**
 * The `onRequest` hook of the matchmaking route, before the body is read and parsed (a refused address
 * costs no JSON parsing): a seat is reserved against the address's allowance, and a creation (`create`,
 * or a `joinOrCreate` whose body is large enough to carry a scenario) is charged to it. Refusals are
 * 429s, answered after the tarpit's delay.
 */
function admissionHook(admission: Admission, tarpit: Tarpit) {
  return async (req: MatchmakeRequest): Promise<void> => {
    const { method, roomName } = req.params;
    const address = addressKey(req.ip);
    req.creator = { address, charged: false };
    if (!SEAT_METHODS.has(method)) return;
    // joinById and reconnect name their room in the URL (the roomName parameter carries the roomId).
    const roomId = method === "joinById" || method === "reconnect" ? roomName : undefined;
    const seat = admission.reserveSeat(address, Date.now(), roomId);
    if (!seat.ok) {
      await tarpit.wait();
      throw refusal(seat);
    }
    // A body of unknown length (chunked) may be as large as the route allows: charged like a large one.
    const declared = req.headers["content-length"];
    const length = declared === undefined ? Number.POSITIVE_INFINITY : Number(declared);
    if (method === "create" || (method === "joinOrCreate" && !(length <= CREATION_BODY_BYTES))) {
      const creation = admission.chargeCreation(address);
      if (!creation.ok) {
        await tarpit.wait();
        throw refusal(creation);
      }
      req.creator = { address, charged: true };
    }
  };
}

/**
 * Hands the request to Colyseus' matchmaking controller (what its own router would do) with the client's
 * options, minus what only the server may set, plus the creator; records the seat it reserved.
 */
async function matchmake(options: MatchmakingOptions, req: MatchmakeRequest): Promise<unknown> {
  const { admission } = options;
  // Joins stop the moment a shutdown starts (and before the matchmaker is ready).
  if (matchMaker.state !== matchMaker.MatchMakerState.READY) throw httpError(503, "server is not accepting joins (starting or shutting down)");
  // During a Redis outage no room can be found or listed: a clear 503 at once, not a retry storm.
  const problem = options.matchmakingProblem();
  if (problem) throw refusal({ ok: false, status: 503, message: `matchmaking unavailable: ${problem}`, retryAfterSeconds: REFUSAL_RETRY_SECONDS });
  const raw = req.body ?? {};
  if (typeof raw !== "object" || Array.isArray(raw)) throw httpError(400, "body must be a JSON object of join options");
  // Player-created rooms get the player caps: the admin marker, the creator and the room's configuration
  // never come from a client (the room definition's config would win anyway).
  const { [TRUST_OPTION]: _trust, [CREATOR_OPTION]: _creator, [CONFIG_OPTION]: _config, ...body } = raw as Record<string, unknown>;
  // Rooms are matched on their game (filterBy): a client naming none plays the sandbox, in a sandbox room.
  if (body[GAME_OPTION] === undefined) body[GAME_OPTION] = DEFAULT_GAME;
  else if (typeof body[GAME_OPTION] !== "string") throw httpError(400, "game: must be a game's name (GET /games lists them)");
  const creator = req.creator;
  const { method, roomName } = req.params;
  try {
    // A room this creates counts as on its way to its process until the call is done (server/placement.ts).
    const reservation = (await placingRooms(() =>
      matchMaker.controller.invokeMethod(
        method,
        roomName,
        { ...body, [CREATOR_OPTION]: creator } as matchMaker.ClientOptions,
        createAuthContext({ headers: req.headers as Record<string, string>, req: req.raw } as Parameters<typeof createAuthContext>[0]),
      ),
    )) as { sessionId?: string; roomId?: string } | undefined;
    if (creator && typeof reservation?.sessionId === "string" && typeof reservation.roomId === "string" && method !== "reconnect") {
      admission.seatReserved(creator.address, reservation.sessionId, reservation.roomId);
    }
    return reservation;
  } catch (e) {
    // Colyseus re-wraps an error thrown in onCreate as a ServerError with the same code and message, so
    // a RoomRefusal arrives here with its HTTP status as the code; its retry hint does not survive, and
    // a flat REFUSAL_RETRY_SECONDS is sent instead.
    const err = e as { code?: number; message?: string };
    const status = err.code === 429 || err.code === 503 ? err.code : 400;
    throw refusal({ ok: false, status, message: err.message ?? "matchmaking failed", retryAfterSeconds: status === 400 ? 0 : REFUSAL_RETRY_SECONDS });
  }
}

/**
 * The matchmaking routes, a Fastify plugin taking MatchmakingOptions: POST /matchmake/:method/:roomName
 * over Fastify (what Colyseus' own router would serve), with admission per client address checked before
 * the body is read (admissionHook). The creating client's address reaches the room as CREATOR_OPTION
 * (the room applies the player-room share of MAX_ROOMS, the CPU budget and the scenario probe). Every
 * reply, refusals included, carries Colyseus' CORS headers.
 */
export async function matchmakingRoutes(app: FastifyInstance, options: MatchmakingOptions): Promise<void> {
  const { admission } = options;
  app.decorateRequest("creator", null);
  app.addHook("onRequest", async (req, reply) => {
    reply.headers(corsHeaders(req));
  });
  app.options("/matchmake/*", async (_req, reply) => reply.code(204).send());
  app.post<{ Params: { method: string; roomName: string } }>(
    "/matchmake/:method/:roomName",
    {
      bodyLimit: options.bodyLimit,
      schema: { params: { type: "object", properties: { method: { type: "string", maxLength: 32 }, roomName: { type: "string", maxLength: 64 } } } },
      onRequest: admissionHook(admission, new Tarpit()),
    },
    async (req) => matchmake(options, req),
  );
}
