import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { verifyReplay } from "../../server/replay/verify.ts";
import { admin, createRoom, joinRoom, startTestServer, type TestServer, waitForState } from "./helpers.ts";

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

/** admin API: read-only endpoints, authentication and bad input. */
function readAndRefusalTests(): void {
  it("serves health, readiness, scenarios and a placeholder page", async () => {
    expect(await (await admin(srv.url, "GET", "/health", undefined, null)).json()).toEqual({ status: "ok" });
    const ready = await admin(srv.url, "GET", "/ready", undefined, null);
    expect(ready.status).toBe(200);
    const list = (await (await admin(srv.url, "GET", "/scenarios", undefined, null)).json()) as { name: string; bodies: number }[];
    expect(list.map((s) => s.name)).toContain("fiedler-cubes");
    expect(list.find((s) => s.name === "fiedler-cubes")?.bodies).toBe(901);
    const one = (await (await admin(srv.url, "GET", "/scenarios/stack10", undefined, null)).json()) as { name: string; bodies: unknown[] };
    expect(one.name).toBe("stack10");
    expect(one.bodies.length).toBe(11);
    expect((await admin(srv.url, "GET", "/scenarios/nope", undefined, null)).status).toBe(404);
    const page = await admin(srv.url, "GET", "/", undefined, null);
    expect(page.headers.get("content-type")).toMatch(/text\/html/);
  });

  it("refuses mutating calls without the right token (401)", async () => {
    const none = await admin(srv.url, "POST", "/rooms", { scenario: "stack10" }, null);
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toMatch(/Bearer/);
    expect((await admin(srv.url, "POST", "/rooms", { scenario: "stack10" }, "wrong")).status).toBe(401);
    expect((await admin(srv.url, "PATCH", "/rooms/abc/settings", { sleep: false }, null)).status).toBe(401);
    expect((await admin(srv.url, "DELETE", "/rooms/abc", undefined, "x")).status).toBe(401);
  });

  it("answers 400 naming the field for bad input", async () => {
    const bad = await admin(srv.url, "POST", "/rooms", {
      scenario: { name: "bad", bodies: [{ id: "a", type: "dynamic", shape: { type: "sphere", radius: -1 }, position: [0, 0, 0] }] },
    });
    expect(bad.status).toBe(400);
    const body = (await bad.json()) as { message: string; issues: { path: string }[] };
    expect(body.message).toBe("scenario.bodies[0].shape.radius: must be > 0");
    expect(body.issues[0].path).toBe("scenario.bodies[0].shape.radius");

    const unknown = await admin(srv.url, "POST", "/rooms", { scenario: "no-such-scene" });
    expect(unknown.status).toBe(400);
    expect(((await unknown.json()) as { message: string }).message).toMatch(/^scenario: unknown built-in scenario "no-such-scene"/);

    // A room needs no scenario (its game has one), but a game that exists, and its own scenario unless it takes any.
    const noGame = await admin(srv.url, "POST", "/rooms", { game: "no-such-game" });
    expect(noGame.status).toBe(400);
    expect(((await noGame.json()) as { message: string }).message).toBe('game: no game "no-such-game" (known: sandbox, soccer, tower)');
    const ownScenario = await admin(srv.url, "POST", "/rooms", { game: "soccer", scenario: "stack10" });
    expect(ownScenario.status).toBe(400);
    expect(((await ownScenario.json()) as { message: string }).message).toBe('scenario: game "soccer" plays its own scenario');

    const notJson = await fetch(`${srv.url}/rooms`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: "Bearer test-admin-token" },
      body: "{oops",
    });
    expect(notJson.status).toBe(400);

    const roomId = await createRoom(srv.url, { scenario: "stack10" });
    const knob = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { velocityIterations: 1000 });
    expect(knob.status).toBe(400);
    expect(((await knob.json()) as { message: string }).message).toMatch(/velocityIterations must be <= 64/);
    const typo = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { gravty: [0, 0, 0] });
    expect(typo.status).toBe(400);
    expect(((await typo.json()) as { message: string }).message).toMatch(/additional properties/);
    const gravity = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { gravity: [0, "down", 0] });
    expect(((await gravity.json()) as { message: string }).message).toMatch(/gravity\/1 must be number/);
    // Within the gravity range, but more than this room's restitution threshold (1 m/s) allows.
    const strong = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { gravity: [0, -50, 0] });
    expect(strong.status).toBe(400);
    expect(((await strong.json()) as { message: string }).message).toBe("body/gravity: this room's restitutionThreshold is 1 m/s; this gravity needs at least 5 m/s");
    expect((await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { gravity: [0, -9.81, 0] })).status).toBe(200);
    const tooBig = await admin(srv.url, "POST", "/rooms", { scenario: "x".repeat(5 * 1024 * 1024) });
    expect(tooBig.status).toBe(413);
    expect((await admin(srv.url, "GET", "/rooms/..%2Fetc", undefined, null)).status).toBe(400);
    expect((await admin(srv.url, "GET", "/rooms/nosuchroom", undefined, null)).status).toBe(404);
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  });
}

/** admin API: a room's lifecycle, settings, scenarios, metrics and replay. */
function roomLifecycleTests(): void {
  it("creates rooms, lists them, changes settings, loads scenarios and serves the replay", async () => {
    const roomId = await createRoom(srv.url, { scenario: "stack10", patchRateMs: 100 });
    const rooms = (await (await admin(srv.url, "GET", "/rooms", undefined, null)).json()) as { roomId: string; scenario: string; bodies: number }[];
    const listed = rooms.find((r) => r.roomId === roomId);
    expect(listed).toMatchObject({ scenario: "stack10", bodies: 11, clients: 0 });
    expect(listed).toHaveProperty("tickMsP99");

    const patched = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { gravity: [0, -5, 0], friction: 0.2, method: "projection" });
    expect(patched.status).toBe(200);
    const applied = (await patched.json()) as { settings: { gravity: number[]; friction: number; method: string } };
    expect(applied.settings).toMatchObject({ gravity: [0, -5, 0], friction: 0.2, method: "projection" });

    const player = await joinRoom(srv.url, roomId);
    await waitForState(player, "stack10 state", (s) => s.scenario === "stack10" && s.bodies.size === 12);
    const info = (await (await admin(srv.url, "GET", `/rooms/${roomId}`, undefined, null)).json()) as {
      settings: { gravity: number[]; friction: number };
      kineticEnergy: number;
    };
    expect(info.kineticEnergy).toBeGreaterThanOrEqual(0);
    expect(info.settings.gravity).toEqual([0, -5, 0]);
    expect(info.settings.friction).toBe(0.2);

    const load = await admin(srv.url, "POST", `/rooms/${roomId}/scenario`, { scenario: "pyramid20" });
    expect(load.status).toBe(200);
    // The new world: pyramid bodies plus the player's avatar again; room overrides reset to the scenario's.
    await waitForState(player, "pyramid20 loaded", (s) => s.scenario === "pyramid20" && s.bodies.has("ground") && s.bodies.has(`avatar-${player.sessionId}`) && s.bodies.size === 212);
    const after = (await (await admin(srv.url, "GET", `/rooms/${roomId}`, undefined, null)).json()) as { settings: { friction: number | null } };
    expect(after.settings.friction).toBeNull();

    const metrics = await (await admin(srv.url, "GET", "/metrics", undefined, null)).text();
    expect(metrics).toMatch(new RegExp(`physics_tick_duration_ms_bucket\\{room="${roomId}",le="\\+Inf"\\} \\d+`));
    expect(metrics).toMatch(new RegExp(`physics_patch_bytes_total\\{room="${roomId}"\\} [1-9]`));
    expect(metrics).toMatch(/nodejs_eventloop_delay_ms\{quantile="0.99"\}/);
    expect(metrics).toMatch(/physics_clients 1/);

    const replay = await admin(srv.url, "GET", `/rooms/${roomId}/replay`, undefined, null);
    expect(replay.status).toBe(200);
    const lines = (await replay.text()).trim().split("\n");
    const header = JSON.parse(lines[0]);
    expect(header).toMatchObject({ type: "header", format: 1, roomId, tickRate: 60 });
    expect(header.scenario.name).toBe("stack10");
    const inputs = lines.slice(1).flatMap((l) => JSON.parse(l).i ?? []);
    expect(inputs.map((i: { type: string }) => i.type)).toEqual(["settings", "join", "load"]);
    // The recording so far (settings change, join, scenario load included) re-simulates identically.
    const file = join(srv.replayDir, "live.ndjson");
    writeFileSync(file, `${lines.join("\n")}\n`);
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.inputs).toBe(3);
    await player.leave();
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  });
}

describe("admin API over real HTTP", () => {
  readAndRefusalTests();
  roomLifecycleTests();
});
