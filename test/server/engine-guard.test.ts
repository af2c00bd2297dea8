import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSG_MOVE, MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { position } from "./helpers.ts";
import { api, cleanupDirs, eventually, json, type ServerProcess, spawnServer, stopAllServers, tempDir } from "./processes.ts";

/**
 * The engine removes bodies that leave world.bounds or become non-finite and reports them; the room logs
 * and counts them, puts an avatar back, keeps ticking, and its replay still verifies.
 *
 * Non-finite: no input can make a body non-finite any more. A body of mass 5e-324 (the smallest double)
 * has an infinite inverse mass and used to turn its contacts into NaN; the scenario format now refuses
 * masses and densities below 1e-6 and sizes below 1 mm (a 400 naming the field), the engine refuses
 * bodies with a non-finite inverse mass or inertia and any non-finite input, and the solver keeps a
 * non-finite body's impulses away from the bodies it does not touch (test/engine/world-api.test.ts,
 * which also covers the removal of a non-finite body).
 */
const scene: Scenario = {
  name: "guard-scene",
  world: { bounds: { min: [-30, -10, -30], max: [30, 40, 30] } },
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [8, 0.5, 8] }, position: [0, -0.5, 0] },
    { id: "rocket", type: "dynamic", shape: { type: "sphere", radius: 0.3 }, position: [-5, 1, -5], linearVelocity: [0, 80, 0] },
    { id: "keeper", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [-5, 0.5, 5] },
  ],
};

/** Two static platforms: the poisoned pair on one, a bystander box on the other. */
const poisoned: Scenario = {
  name: "nan-scene",
  bodies: [
    { id: "left", type: "static", shape: { type: "box", halfExtents: [4, 0.5, 4] }, position: [-6, -0.5, 0] },
    { id: "right", type: "static", shape: { type: "box", halfExtents: [4, 0.5, 4] }, position: [6, -0.5, 0] },
    { id: "victim", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [6, 0.5, 0] },
    { id: "tiny", type: "dynamic", shape: { type: "sphere", radius: 0.4 }, position: [6, 2, 0], mass: 5e-324 },
    { id: "keeper", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [-6, 0.5, 0] },
  ],
};

interface Info {
  tick: number;
  finite: boolean;
  removedBodies: number;
  bodies: number;
}

let server: ServerProcess;
beforeAll(async () => {
  server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays") });
});
afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

describe("engine guard in a live room", () => {
  it("removes and logs a body that leaves the bounds; avatars come back; the room runs on and its replay verifies", async () => {
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: scene }))).roomId;
    const room = (await new Client(server.url).joinById(roomId, {}, RoomState)) as Room<unknown, RoomState>;
    room.onMessage(MSG_WELCOME, () => {});
    const avatar = `avatar-${room.sessionId}`;
    await eventually("the rocket gone, the rest still there", () => room.state.bodies.has("keeper") && !room.state.bodies.has("rocket"));
    await eventually("the removal logged", () => server.logs(/body "rocket" removed by the engine \(bounds\)/).length === 1);

    // The player walks off the 16 m ground and falls out of the world bounds (y < -10): the engine removes
    // the kinematic avatar like any other body and the room sim puts it back at a spawn spot.
    await eventually("own avatar", () => room.state.bodies.has(avatar));
    room.send(MSG_MOVE, { vx: 6, vz: 0 });
    await eventually("the avatar falling", () => position(room.state.bodies.get(avatar)!)[1] < -5);
    room.send(MSG_MOVE, { vx: 0, vz: 0 });
    await eventually("the avatar back on the ground", () => {
      const b = room.state.bodies.get(avatar);
      return b && Math.abs(position(b)[1] - 0.95) < 0.2;
    });

    const info = await json<Info>(api(server.url, "GET", `/rooms/${roomId}`));
    expect(info.finite).toBe(true);
    expect(info.removedBodies).toBe(2);
    expect(server.logs(new RegExp(`body "${avatar}" removed by the engine \\(bounds\\)`)).length).toBe(1);
    const metrics = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    expect(metrics).toContain(`physics_removed_bodies_total{room="${roomId}"} 2`);
    await eventually("still ticking", async () => (await json<Info>(api(server.url, "GET", `/rooms/${roomId}`))).tick > info.tick + 30);

    const text = await (await api(server.url, "GET", `/rooms/${roomId}/replay`, undefined, null)).text();
    const file = join(tempDir("copy"), "guard.ndjson");
    writeFileSync(file, text);
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.ticks).toBeGreaterThan(info.tick - 1);
    await room.leave();
  });

  it("refuses a subnormal mass with a 400 naming the field", async () => {
    const res = await api(server.url, "POST", "/rooms", { scenario: poisoned });
    expect(res.status).toBe(400);
    expect((await json<{ message: string }>(res)).message).toBe("scenario.bodies[3].mass: must be >= 0.000001");
    await expect(new Client(server.url).create("physics", { scenario: poisoned }, RoomState)).rejects.toThrow(/scenario.bodies\[3\].mass/);
  });

});
