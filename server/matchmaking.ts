import { createAuthContext, matchMaker } from "@colyseus/core";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { type Admission, type AdmissionVerdict, addressKey } from "./admission.ts";
import { CREATOR_OPTION, type CreatorInfo, TRUST_OPTION } from "./rooms/physics-room.ts";

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
let tarpitted = 0;

async function tarpit(): Promise<void> {
  if (tarpitted >= TARPIT_MAX) return;
  tarpitted++;
  try {
    await new Promise((resolve) => setTimeout(resolve, TARPIT_MS));
  } finally {
    tarpitted--;
  }
}

export interface MatchmakingOptions {
  admission: Admission;
  /** Largest matchmaking request body, bytes (join options with a player scenario). */
  bodyLimit: number;
}

function sendRefusal(reply: FastifyReply, verdict: Exclude<AdmissionVerdict, { ok: true }>): FastifyReply {
  if (verdict.retryAfterSeconds > 0) reply.header("retry-after", String(verdict.retryAfterSeconds));
  if (verdict.status === 429) reply.header("connection", "close");
  return reply.code(verdict.status).send({ code: verdict.status, error: verdict.message });
}

/**
 * POST /matchmake/:method/:roomName over Fastify (what Colyseus' own router would serve), with admission
 * per client address checked before the body is read: seat reservations and room creations are rate
 * limited, unused seats are capped. The creating client's address reaches the room as CREATOR_OPTION
 * (the room applies the player-room share of MAX_ROOMS, the CPU budget and the scenario probe).
 */
export async function matchmakingRoutes(app: FastifyInstance, options: MatchmakingOptions): Promise<void> {
  const { admission } = options;
  const cors = (req: FastifyRequest) => ({
    ...matchMaker.controller.DEFAULT_CORS_HEADERS,
    ...matchMaker.controller.getCorsHeaders(new Headers(req.headers as Record<string, string>)),
  });
  app.options("/matchmake/*", async (req, reply) => reply.headers(cors(req)).code(204).send());
  app.post<{ Params: { method: string; roomName: string } }>(
    "/matchmake/:method/:roomName",
    {
      bodyLimit: options.bodyLimit,
      schema: { params: { type: "object", properties: { method: { type: "string", maxLength: 32 }, roomName: { type: "string", maxLength: 64 } } } },
      // Before the body is read and parsed: a refused address costs no JSON parsing.
      onRequest: async (req, reply) => {
        reply.headers(cors(req));
        const { method } = req.params as { method: string };
        const address = addressKey(req.ip);
        (req as FastifyRequest & { creator?: CreatorInfo }).creator = { address, charged: false };
        if (!SEAT_METHODS.has(method)) return;
        // joinById and reconnect name their room in the URL (the roomName parameter carries the roomId).
        const roomId = method === "joinById" || method === "reconnect" ? (req.params as { roomName: string }).roomName : undefined;
        const seat = admission.reserveSeat(address, Date.now(), roomId);
        if (!seat.ok) {
          await tarpit();
          return sendRefusal(reply, seat);
        }
        // A body of unknown length (chunked) may be as large as the route allows: charged like a large one.
        const declared = req.headers["content-length"];
        const length = declared === undefined ? Number.POSITIVE_INFINITY : Number(declared);
        if (method === "create" || (method === "joinOrCreate" && !(length <= CREATION_BODY_BYTES))) {
          const creation = admission.chargeCreation(address);
          if (!creation.ok) {
            await tarpit();
            return sendRefusal(reply, creation);
          }
          (req as FastifyRequest & { creator?: CreatorInfo }).creator = { address, charged: true };
        }
      },
    },
    async (req, reply) => {
      reply.headers(cors(req));
      // Joins stop the moment a shutdown starts (and before the matchmaker is ready).
      if (matchMaker.state !== matchMaker.MatchMakerState.READY) {
        return reply.code(503).send({ code: 503, error: "server is not accepting joins (starting or shutting down)" });
      }
      const raw = req.body ?? {};
      if (typeof raw !== "object" || Array.isArray(raw)) return reply.code(400).send({ code: 400, error: "body must be a JSON object of join options" });
      // Player-created rooms get the player caps: the admin marker and the creator never come from a client.
      const { [TRUST_OPTION]: _trust, [CREATOR_OPTION]: _creator, ...body } = raw as Record<string, unknown>;
      const creator = (req as FastifyRequest & { creator?: CreatorInfo }).creator;
      try {
        const reservation = (await matchMaker.controller.invokeMethod(
          req.params.method,
          req.params.roomName,
          { ...body, [CREATOR_OPTION]: creator } as matchMaker.ClientOptions,
          createAuthContext({ headers: req.headers as Record<string, string>, req: req.raw } as Parameters<typeof createAuthContext>[0]),
        )) as { sessionId?: string; roomId?: string } | undefined;
        if (creator && typeof reservation?.sessionId === "string" && typeof reservation.roomId === "string" && req.params.method !== "reconnect") {
          admission.seatReserved(creator.address, reservation.sessionId, reservation.roomId);
        }
        return reservation;
      } catch (e) {
        // Colyseus re-wraps an error thrown in onCreate as a ServerError with the same code and message, so
        // a RoomRefusal arrives here with its HTTP status as the code; its retry hint does not survive, and
        // a flat REFUSAL_RETRY_SECONDS is sent instead.
        const err = e as { code?: number; message?: string };
        const status = err.code === 429 || err.code === 503 ? err.code : 400;
        return sendRefusal(reply, { ok: false, status, message: err.message ?? "matchmaking failed", retryAfterSeconds: status === 400 ? 0 : REFUSAL_RETRY_SECONDS });
      }
    },
  );
}
