import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPhysicsServer } from "../../server/app.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { KNOB_KEYS, type RoomInfo, type RoomSettings, type SettingsChange } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { overRange, probeValue } from "../net/knob-probes.ts";
import { admin, createRoom, joinRoom, patches, startTestServer, type TestServer } from "./helpers.ts";

/**
 * Every knob of the knob table through a real server: an admin PATCH with it is accepted, answered with
 * the knob in the settings, reaches the room (its GET /rooms/:id shows it, a player stays connected),
 * is recorded (the replay verifies), and a value over its range is a 400 naming it. The knobs come
 * from the table, so a new knob is covered without changing this file.
 */

/**
 * A small room whose restitution threshold allows any gravity the gravity knob's range holds (a room
 * refuses a gravity over |g| × 0.1 s of its threshold: at most √3 · 1000 × 0.1 ≈ 173 m/s), so each knob
 * is probed on its own.
 */
const scene: Scenario = {
  name: "knobs",
  world: { restitutionThreshold: 200 },
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] },
    { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [3, 0.5, 0] },
  ],
};

async function info(url: string, roomId: string): Promise<RoomInfo> {
  return (await (await admin(url, "GET", `/rooms/${roomId}`, undefined, null)).json()) as RoomInfo;
}

async function message(res: Response): Promise<string> {
  return ((await res.json()) as { message: string }).message;
}

describe("every knob through the admin API of a real server", () => {
  let srv: TestServer;
  beforeAll(async () => {
    srv = await startTestServer();
  });
  afterAll(async () => {
    await srv.close();
  });

  it("a PATCH with each knob reaches the room, is recorded and replays; over its range it is a 400 naming it", async () => {
    const roomId = await createRoom(srv.url, { scenario: scene });
    const player = await joinRoom(srv.url, roomId);
    let expected: RoomSettings = (await info(srv.url, roomId)).settings;
    for (const key of KNOB_KEYS) {
      const value = probeValue(key, expected);
      const res = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { [key]: value });
      expect(res.status, `${key}: ${JSON.stringify(value)}`).toBe(200);
      const change = (await res.json()) as SettingsChange;
      expected = { ...expected, [key]: value };
      expect(change.settings, key).toEqual(expected);
      await patches(player, 2);
      expect((await info(srv.url, roomId)).settings, key).toEqual(expected);

      const over = overRange(key);
      if (over === null) continue;
      const refused = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { [key]: over });
      expect(refused.status, key).toBe(400);
      expect(await message(refused), key).toMatch(new RegExp(`^body/${key}(/0)? must be <= `));
    }
    expect(player.connection.isOpen).toBe(true);
    expect(player.rejected).toEqual([]);

    const replay = await admin(srv.url, "GET", `/rooms/${roomId}/replay`, undefined, null);
    const file = join(srv.replayDir, "knobs.ndjson");
    writeFileSync(file, await replay.text());
    const report = await verifyReplay(file);
    expect(report.divergence).toBeNull();
    expect(report.inputs).toBe(KNOB_KEYS.length + 1); // every knob's patch and the join
    await player.leave();
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  });
});

describe("knob ranges injected into a server", () => {
  it("the settings schema is built from the server's ranges (narrower than the table's)", async () => {
    const srv = await startTestServer({ knobRanges: { velocityIterations: { min: 2, max: 8 } } });
    try {
      const roomId = await createRoom(srv.url, { scenario: "stack10" });
      const refused = await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { velocityIterations: 9 });
      expect(refused.status).toBe(400);
      expect(await message(refused)).toBe("body/velocityIterations must be <= 8");
      expect((await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { velocityIterations: 1 })).status).toBe(400);
      expect((await admin(srv.url, "PATCH", `/rooms/${roomId}/settings`, { velocityIterations: 8 })).status).toBe(200);
    } finally {
      await srv.close();
    }
  });

  it("a range wider than the table's stops the server from being created", async () => {
    const creating = createPhysicsServer({ adminToken: "t", logger: false, knobRanges: { slop: { min: 0, max: 1 } } });
    await expect(creating).rejects.toThrow("knob slop: range 0..1 is not within 0..0.1");
  });
});
