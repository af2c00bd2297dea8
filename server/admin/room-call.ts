import { randomUUID } from "node:crypto";
import { matchMaker } from "@colyseus/core";
import type { FastifyReply, FastifyRequest } from "fastify";
import { ROOM_NAME } from "../../shared/net/index.ts";
import { httpError } from "../http-errors.ts";
import { type AdminCommand, IDEMPOTENCY_KEY_PATTERN } from "./commands.ts";
import type { AdminAnswer, AdminMethod, PhysicsRoom } from "../rooms/physics-room.ts";

/** How long an admin call waits for a room on another process, ms. */
export const REMOTE_TIMEOUT_MS = 2000;

/**
 * How an admin call to a room went: its answer; no answer in time (its process died and the periodic
 * health check has not removed its rooms yet, or it is overloaded); or the room threw, with the HTTP
 * status of a refusal (400: the request asks for more than the room allows) or 500, and what it threw.
 */
export type RoomCallResult<T> =
  | { ok: true; value: T; replayed: boolean }
  | { ok: false; outcome: "timeout"; message: string }
  | { ok: false; outcome: "threw"; status: number; error: string; message: string };

/** The process hosting room `id`, as the room listing says ("unknown" if it says nothing). */
async function hostOf(id: string): Promise<string> {
  const listing = await Promise.resolve()
    .then(() => matchMaker.getRoomById(id))
    .catch(() => undefined);
  return listing?.processId ?? "unknown";
}

/**
 * Calls an admin method of room `id` on whichever process hosts it (PhysicsRoom#adminCall through
 * `matchMaker.remoteRoomCall`: directly for a room of this process, over presence IPC for another's).
 * adminCall answers what the method threw as a value, so a rejection here can only mean that the room
 * did not answer within `timeoutMs`; Colyseus' own error text for it repeats the call's arguments (whole
 * scenarios) and is not passed on.
 */
export async function callRoom<T>(id: string, method: AdminMethod, args: unknown[] = [], command?: AdminCommand, timeoutMs = REMOTE_TIMEOUT_MS): Promise<RoomCallResult<T>> {
  let answer: AdminAnswer;
  try {
    answer = (await matchMaker.remoteRoomCall<PhysicsRoom>(id, "adminCall", command ? [method, args, command] : [method, args], timeoutMs)) as AdminAnswer;
  } catch {
    // A change that did not reach the room before its deadline is dropped there (commands.ts).
    const applied = command ? `: not applied (the room drops it if it arrives later; retry with Idempotency-Key ${command.requestId})` : "";
    return { ok: false, outcome: "timeout", message: `room "${id}" did not answer within ${timeoutMs} ms (process ${await hostOf(id)})${applied}` };
  }
  if (answer.ok) return { ok: true, value: answer.value as T, replayed: answer.replayed === true };
  const error = answer.error.slice(0, 500);
  // A refusal is the room's answer to the request (its message names the field); anything else failed.
  const message = answer.status === 500 ? `room "${id}" failed: ${method} threw: ${error}` : error;
  return { ok: false, outcome: "threw", status: answer.status, error, message };
}

/** Throws a 404 unless room `id` exists (a physics room on any process). */
export async function requireRoom(id: string): Promise<void> {
  const listing = await matchMaker.getRoomById(id);
  if (listing === undefined || listing === null || listing.name !== ROOM_NAME) throw httpError(404, `no room "${id}"`);
}

/**
 * callRoom for a route: the room's answer, or the HTTP error for how the call failed (503 naming the
 * process for a room that did not answer, the status of the room's refusal, 500 saying what the room threw).
 */
export async function roomAnswer<T>(id: string, method: AdminMethod, args: unknown[] = [], command?: AdminCommand, reply?: FastifyReply): Promise<T> {
  const r = await callRoom<T>(id, method, args, command);
  if (r.ok) {
    if (r.replayed) reply?.header("idempotent-replayed", "true");
    return r.value;
  }
  if (r.outcome === "timeout") throw httpError(503, r.message);
  throw httpError(r.status === 400 || r.status === 429 || r.status === 503 ? r.status : 500, r.message);
}

/**
 * The command envelope of a change request: its request id (the caller's `Idempotency-Key`, else a
 * fresh one), echoed in the `request-id` response header, and the deadline the room checks.
 */
export function commandOf(req: FastifyRequest, reply: FastifyReply): AdminCommand {
  const key = req.headers["idempotency-key"];
  if (key !== undefined && (typeof key !== "string" || !IDEMPOTENCY_KEY_PATTERN.test(key))) {
    throw httpError(400, "idempotency-key: 1 to 128 characters of A-Z a-z 0-9 . _ : -");
  }
  const requestId = key ?? randomUUID();
  reply.header("request-id", requestId);
  return { requestId, deadline: Date.now() + REMOTE_TIMEOUT_MS };
}
