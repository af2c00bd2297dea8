import { afterAll, describe, expect, it } from "vitest";
import { api, cleanupDirs, eventually, json, spawnServer, stopAllServers, tempDir } from "../server/processes.ts";
import { metricValue, postFrom } from "./attack.ts";

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

interface Info {
  cpu: { msPerSecond: number; budgetMsPerSecond: number; state: string; enforced: boolean; overrunSeconds: number };
}

describe("rooms over their CPU budget", () => {
  it("an admin room over the process share is logged and counted, never slowed; player rooms are refused meanwhile", async () => {
    // A process share of 20 ms/s: the tumbling heap1000 (a few ms per tick) is far over it.
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), PLAYER_ROOMS_CPU_MS: "20" });
    const roomId = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "heap1000" }))).roomId;
    const info = await eventually("overrun seconds counted", async () => {
      const i = await json<Info>(api(server.url, "GET", `/rooms/${roomId}`));
      return i.cpu.overrunSeconds >= 2 ? i : null;
    });
    expect(info.cpu).toMatchObject({ enforced: false, state: "normal", budgetMsPerSecond: 20 });
    expect(info.cpu.msPerSecond).toBeGreaterThan(20);
    const metrics = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    expect(metricValue(metrics, "physics_room_cpu_overrun_seconds_total", `room="${roomId}"`)).toBeGreaterThanOrEqual(2);
    expect(metricValue(metrics, "physics_room_cpu_ms_per_second", `room="${roomId}"`)).toBeGreaterThan(20);
    expect(server.logs(/\(admin\): uses \d+ ms of CPU per second/).length).toBe(1);

    // A player room is refused while the rooms use more than the share (503, "server busy").
    const refused = await postFrom("127.0.0.2", `${server.url}/matchmake/create/physics`, JSON.stringify({ scenario: "stack10" }));
    expect(refused.status).toBe(503);
    expect((JSON.parse(refused.body) as { error: string }).error).toMatch(/^server busy: its rooms use or have reserved \d+ ms of CPU per second/);
    // The admin room was never acted on.
    const later = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    expect(metricValue(later, "physics_rooms_over_budget_total", 'action="slow"')).toBe(0);
    expect((await json<Info>(api(server.url, "GET", `/rooms/${roomId}`))).cpu.state).toBe("normal");
  }, 60_000);
});
