import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyRequest } from "fastify";
import { httpError } from "../http-errors.ts";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

/**
 * `onRequest` hook for the admin scope: mutating methods need `Authorization: Bearer <token>`, else a 401
 * (the app's error handler writes it). Both sides are hashed first so the comparison is constant-time and
 * independent of the lengths.
 */
export function bearerAuth(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest): Promise<void> => {
    if (!MUTATING.has(request.method)) return;
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (match && timingSafeEqual(digest(match[1]), expected)) return;
    throw httpError(401, "missing or wrong Authorization: Bearer <ADMIN_TOKEN>", { headers: { "www-authenticate": 'Bearer realm="admin"' } });
  };
}
