import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { callRoom } from "../../server/admin/room-call.ts";
import type { RoomInfo } from "../../shared/net/index.ts";
import { admin, createRoom, startTestServer, type TestServer } from "./helpers.ts";

/**
 * The HTTP API's one error path, over real HTTP against a real server: every 4xx/5xx reply, whichever
 * route, hook or Fastify check produced it, has the body `{ statusCode, code, error, message }` with the
 * same text in `error` and `message`. And callRoom, against real rooms of that server: a room that answers,
 * one that throws (what it threw), one that refuses, and a room nobody answers for (a timeout).
 */

interface ErrorBody {
  statusCode: number;
  code: string;
  error: string;
  message: string;
  issues?: { path: string; message: string }[];
}

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

/** The error body of `res`, checked for the one shape; `status` and the message pattern as expected. */
async function errorOf(res: Response, status: number, message: RegExp): Promise<ErrorBody> {
  expect(res.status).toBe(status);
  expect(res.headers.get("content-type")).toMatch(/^application\/json/);
  const body = (await res.json()) as ErrorBody;
  expect(Object.keys(body).filter((k) => k !== "issues")).toEqual(["statusCode", "code", "error", "message"]);
  expect(body.statusCode).toBe(status);
  expect(body.error).toBe(body.message);
  expect(body.message).toMatch(message);
  return body;
}

function matchmake(method: string, body: string): Promise<Response> {
  return fetch(`${srv.url}/matchmake/${method}/physics`, { method: "POST", headers: { "content-type": "application/json", origin: "http://example.test" }, body });
}

describe("one error shape for every route", () => {
  it("admin routes, hooks, Fastify's own checks and unknown routes", async () => {
    expect((await errorOf(await admin(srv.url, "GET", "/no/such/route", undefined, null), 404, /^no route GET \/no\/such\/route$/)).code).toBe("PHYSICS_NOT_FOUND");
    const unauthorized = await admin(srv.url, "DELETE", "/rooms/abc", undefined, null);
    expect(unauthorized.headers.get("www-authenticate")).toBe('Bearer realm="admin"');
    expect((await errorOf(unauthorized, 401, /^missing or wrong Authorization/)).code).toBe("PHYSICS_UNAUTHORIZED");
    await errorOf(await admin(srv.url, "GET", "/rooms/nosuchroom", undefined, null), 404, /^no room "nosuchroom"$/);
    await errorOf(await admin(srv.url, "GET", "/scenarios/nope", undefined, null), 404, /^no built-in scenario "nope"$/);
    await errorOf(await admin(srv.url, "GET", "/rooms/nosuchroom/replay", undefined, null), 404, /^no replay for room "nosuchroom"$/);
    // Fastify's schema validation: the caps in POST /rooms' schema are the admin rooms' caps.
    const validation = await errorOf(await admin(srv.url, "POST", "/rooms", { scenario: "stack10", maxClients: 65 }), 400, /^body\/maxClients must be <= 64$/);
    expect(validation.code).toBe("FST_ERR_VALIDATION");
    // An invalid scenario names the field, with every problem in `issues`.
    const scenario = { name: "bad", bodies: [{ id: "a", type: "dynamic", shape: { type: "box", halfExtents: [1, 0, 1] }, position: [0, 0, 0] }] };
    const invalid = await errorOf(await admin(srv.url, "POST", "/rooms", { scenario }), 400, /^scenario\.bodies\[0\]\.shape\.halfExtents/);
    expect(invalid.issues?.[0].path).toMatch(/^scenario\.bodies\[0\]\.shape\.halfExtents/);
    await errorOf(await admin(srv.url, "POST", "/rooms", { scenario: "x".repeat(5 * 1024 * 1024) }), 413, /too large/i);
    // A refusal made inside the room (a gravity its restitution threshold does not allow) arrives the same way.
    const roomId = await createRoom(srv.url, { scenario: "stack10" });
    await errorOf(await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { gravity: [0, -50, 0] }), 400, /^body\/gravity: this room's restitutionThreshold is 1 m\/s/);
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  });

  it("matchmaking: the same shape, with Colyseus' CORS headers", async () => {
    const notObject = await matchmake("create", "[1, 2]");
    expect(notObject.headers.get("access-control-allow-origin")).toBe("http://example.test");
    await errorOf(notObject, 400, /^body must be a JSON object of join options$/);
    // Refused by the room's onCreate: the status and message of its RoomRefusal.
    await errorOf(await matchmake("create", JSON.stringify({ scenario: "no-such-scene" })), 400, /^invalid scenario: scenario: unknown built-in scenario "no-such-scene"/);
  });
});

describe("an unknown property names itself", () => {
  it("PATCH /rooms/:id/settings, POST /rooms and POST /rooms/:id/scenario: its path, the nearest allowed name and the allowed names", async () => {
    const roomId = await createRoom(srv.url, { scenario: "stack10" });
    const knobs = await errorOf(await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { frictionn: 0.5 }), 400, /^body\/frictionn: unknown property/);
    console.log(knobs.message);
    expect(knobs.code).toBe("FST_ERR_VALIDATION");
    expect(knobs.message).toMatch(/^body\/frictionn: unknown property \(additional properties are not allowed\); did you mean "friction"\? allowed: .*\bgravity\b/);
    // Known keys before it are fine; the unknown one is named, whatever its position.
    await errorOf(await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { friction: 0.5, warmstarting: true }), 400, /^body\/warmstarting: unknown property .*did you mean "warmStarting"\?/);
    // Nothing near it: no guess, still the list.
    const far = await errorOf(await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { turbo: true }), 400, /^body\/turbo: unknown property \(additional properties are not allowed\) allowed: /);
    expect(far.message).not.toContain("did you mean");
    const create = await errorOf(await admin(srv.url, "POST", "/rooms", { scenario: "stack10", maxClient: 4 }), 400, /^body\/maxClient: unknown property .*did you mean "maxClients"\?/);
    expect(create.message).toContain("allowed: game, scenario, patchRateMs, maxClients, maxBodies, maxSpawnsPerSecond");
    // A key with a slash in it is escaped as JSON Pointer does.
    await errorOf(await admin(srv.url, "POST", `/rooms/${roomId}/scenario`, { scenario: "stack10", "a/b": 1 }), 400, /^body\/a~1b: unknown property \(additional properties are not allowed\) allowed: scenario$/);
    // Other schema errors keep Fastify's shape.
    await errorOf(await admin(srv.url, "POST", "/rooms", { scenario: "stack10", maxClients: 65 }), 400, /^body\/maxClients must be <= 64$/);
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  });
});

describe("callRoom", () => {
  it("tells an answer, a thrown error, a refusal and a room that does not answer apart", async () => {
    const roomId = await createRoom(srv.url, { scenario: "stack10" });
    const info = await callRoom<RoomInfo>(roomId, "adminInfo");
    expect(info.ok && info.value.roomId).toBe(roomId);

    // A patch the route's schema would have stopped: the room's method throws on it.
    const threw = await callRoom(roomId, "adminUpdateSettings", [null]);
    expect(threw).toMatchObject({ ok: false, outcome: "threw", status: 500 });
    if (threw.ok || threw.outcome !== "threw") throw new Error("expected a thrown error");
    expect(threw.error).toMatch(/^Cannot read properties of null/);
    expect(threw.message).toBe(`room "${roomId}" failed: adminUpdateSettings threw: ${threw.error}`);

    const refused = await callRoom(roomId, "adminLoadScenario", [{ name: "empty", bodies: "none" }]);
    expect(refused).toMatchObject({ ok: false, outcome: "threw", status: 400 });
    if (refused.ok) throw new Error("expected a refusal");
    expect(refused.message).toMatch(/^scenario\.bodies: /);

    // No process hosts this room: nobody answers on its channel.
    const started = Date.now();
    const silent = await callRoom("nosuchroom", "adminInfo", [], undefined, 300);
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(silent).toEqual({ ok: false, outcome: "timeout", message: 'room "nosuchroom" did not answer within 300 ms (process unknown)' });

    // The room is still there and still answers after all that.
    expect((await callRoom<RoomInfo>(roomId, "adminInfo")).ok).toBe(true);
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  });
});
