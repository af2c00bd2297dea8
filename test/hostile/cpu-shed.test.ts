import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { CLOSE_CPU_BUDGET, MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { api, cleanupDirs, eventually, json, spawnServer, stopAllServers, tempDir, verifyCli } from "../server/processes.ts";
import { metricValue } from "./attack.ts";

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

describe("load shedding", () => {
  it("when the rooms together use more than the player share, the most expensive player room is slowed, then closed with 4031; its replay ends cpu-budget and verifies", async () => {
    const replayDir = tempDir("replays");
    // A small share (40 ms/s) that one player arena fits (its probation reservation of 30 ms/s included),
    // and that the admin's tumbling heap1000 then overflows on its own.
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: replayDir, PLAYER_ROOM_CPU_MS: "30", PLAYER_ROOMS_CPU_MS: "40" });
    const player = (await new Client(server.url).create("physics", { scenario: { name: "small", bodies: [] } }, RoomState)) as Room<unknown, RoomState>;
    player.onMessage(MSG_WELCOME, () => {});
    const left = new Promise<number>((resolve) => player.onLeave((code) => resolve(code)));
    const heavy = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "heap1000" }))).roomId;

    const code = await Promise.race([left, new Promise<number>((r) => setTimeout(() => r(-1), 20_000))]);
    expect(code).toBe(CLOSE_CPU_BUDGET);
    expect(server.logs(/process over its room CPU share .*: shedding room/).length).toBeGreaterThanOrEqual(2);
    const metrics = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    expect(metricValue(metrics, "physics_rooms_over_budget_total", 'action="slow"')).toBeGreaterThanOrEqual(1);
    expect(metricValue(metrics, "physics_rooms_over_budget_total", 'action="close"')).toBe(1);
    // The admin room was never touched.
    expect((await json<{ cpu: { state: string } }>(api(server.url, "GET", `/rooms/${heavy}`))).cpu.state).toBe("normal");

    const file = join(replayDir, `${player.roomId}.ndjson`);
    const lastLine = await eventually("the closed room's replay end line", () => {
      const lines = readFileSync(file, "utf8").trim().split("\n");
      const last = JSON.parse(lines[lines.length - 1]) as { type: string; reason?: string };
      return last.type === "end" ? last : null;
    });
    expect(lastLine.reason).toBe("cpu-budget");
    expect(readdirSync(replayDir)).toContain(`${player.roomId}.ndjson`);
    const verify = verifyCli(file);
    expect(verify.status, verify.stdout + verify.stderr).toBe(0);
  }, 60_000);
});
