import createError from "@fastify/error";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";

/**
 * The one error path of the HTTP API. Routes and hooks throw the typed errors below (or let Fastify's
 * own errors through: schema validation, body size, content type); `replyWithError`, the app's error
 * handler, turns every one of them into the reply, and `replyNotFound` makes an unknown route one of them.
 *
 * Every 4xx/5xx body has one shape, `{ statusCode, code, error, message }` (plus `issues` for an invalid
 * scenario): `error` and `message` carry the same text, because both kinds of clients on this port read
 * one of them: Colyseus' SDK and its own matchmaking replies use `error` (`{ code, error }`), Fastify's
 * convention and the admin API's documentation use `message`. `code` names the kind of error
 * (`PHYSICS_NOT_FOUND`, `FST_ERR_VALIDATION`…). A 5xx that is not one of ours says "internal error";
 * every 5xx but a 503 is logged with its stack.
 */

/** What a typed error may carry besides its message: headers for the reply, the problems of a scenario. */
export interface ErrorDetails {
  headers?: Record<string, string>;
  issues?: readonly { path: string; message: string }[];
}

export const BadRequest = createError<"PHYSICS_BAD_REQUEST", 400, [string]>("PHYSICS_BAD_REQUEST", "%s", 400);
export const Unauthorized = createError<"PHYSICS_UNAUTHORIZED", 401, [string]>("PHYSICS_UNAUTHORIZED", "%s", 401);
export const NotFound = createError<"PHYSICS_NOT_FOUND", 404, [string]>("PHYSICS_NOT_FOUND", "%s", 404);
export const TooManyRequests = createError<"PHYSICS_TOO_MANY_REQUESTS", 429, [string]>("PHYSICS_TOO_MANY_REQUESTS", "%s", 429);
/** A room (or its process) failed while answering: what it threw is in the message. */
export const RoomFailed = createError<"PHYSICS_ROOM_FAILED", 500, [string]>("PHYSICS_ROOM_FAILED", "%s", 500);
export const ServiceUnavailable = createError<"PHYSICS_SERVICE_UNAVAILABLE", 503, [string]>("PHYSICS_SERVICE_UNAVAILABLE", "%s", 503);

const BY_STATUS = { 400: BadRequest, 401: Unauthorized, 404: NotFound, 429: TooManyRequests, 500: RoomFailed, 503: ServiceUnavailable } as const;
export type ErrorStatus = keyof typeof BY_STATUS;

/** The typed error for `status`, with its reply headers or scenario issues attached. */
export function httpError(status: ErrorStatus, message: string, details: ErrorDetails = {}): FastifyError & ErrorDetails {
  return Object.assign(new BY_STATUS[status](message), details);
}

/** Errors whose message is written for the client (ours, and any 4xx: Fastify's own say what was wrong). */
function isForClient(error: FastifyError, status: number): boolean {
  return status < 500 || Object.values(BY_STATUS).some((type) => error instanceof type);
}

/** The app's error handler (setErrorHandler): every error reply of every route and hook. */
export function replyWithError(error: FastifyError & ErrorDetails, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const status = error.statusCode !== undefined && error.statusCode >= 400 && error.statusCode <= 599 ? error.statusCode : 500;
  const forClient = isForClient(error, status);
  // A server fault (a room that threw, a bug) is logged; a 503 is the server's answer, not a fault.
  if (status >= 500 && !(error instanceof ServiceUnavailable)) request.log.error({ err: error }, "request failed");
  if (error.headers) reply.headers(error.headers);
  const message = forClient ? error.message : "internal error";
  const code = forClient ? (error.code ?? "PHYSICS_ERROR") : "PHYSICS_INTERNAL_ERROR";
  return reply.code(status).send({ statusCode: status, code, error: message, message, ...(error.issues ? { issues: error.issues } : {}) });
}

/** The app's not-found handler (setNotFoundHandler): an unknown route is a 404 of the same shape. */
export async function replyNotFound(request: FastifyRequest): Promise<never> {
  throw httpError(404, `no route ${request.method} ${request.url.slice(0, 200)}`);
}
