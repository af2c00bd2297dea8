import { createHash, timingSafeEqual } from "node:crypto";
import type { FastifyReply, FastifyRequest } from "fastify";

const MUTATING = new Set(["POST", "PUT", "PATCH", "DELETE"]);

function digest(s: string): Buffer {
  return createHash("sha256").update(s).digest();
}

/**
 * `onRequest` hook for the admin scope: mutating methods need `Authorization: Bearer <token>`.
 * Both sides are hashed first so the comparison is constant-time and independent of the lengths.
 */
export function bearerAuth(token: string) {
  const expected = digest(token);
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (!MUTATING.has(request.method)) return;
    const header = request.headers.authorization;
    const match = typeof header === "string" ? /^Bearer\s+(.+)$/i.exec(header.trim()) : null;
    if (match && timingSafeEqual(digest(match[1]), expected)) return;
    reply
      .code(401)
      .header("www-authenticate", 'Bearer realm="admin"')
      .send({ statusCode: 401, error: "Unauthorized", message: "missing or wrong Authorization: Bearer <ADMIN_TOKEN>" });
    return reply;
  };
}
