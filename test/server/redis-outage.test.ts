import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { presenceAndDriver } from "../../server/cluster.ts";
import { DEFAULT_LIMITS } from "../../server/config.ts";
import { RedisHealth } from "../../server/redis-health.ts";
import { needTool } from "../docs/system-tools.ts";
import { api, cleanupDirs, eventually, freePort, json, type ServerProcess, sleep, spawnServer, stopAllServers, TOKEN, tempDir } from "./processes.ts";

/**
 * A Redis outage as an operator sees it: two processes share a Redis of their own (its own port, so the
 * machine's Redis and other tests are untouched), Redis is killed for 15 s and comes back empty (no
 * persistence, as a restarted cache would). During the outage the processes say why they cannot
 * matchmake (/ready 503, joins and room listings 503 with the cause, at once) while their rooms keep
 * running; within 5 s of Redis' return joins and listings work again, with no restart; the logs stay JSON
 * and say what happened in a few lines.
 */

const OUTAGE_MS = 15_000;
const hasRedis = needTool("redis-server", "test/server/redis-outage.test.ts", spawnSync("redis-server", ["--version"]).status === 0);

let redis: ChildProcess | null = null;

async function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await eventually("redis answering", () => spawnSync("redis-cli", ["-p", String(port), "ping"], { encoding: "utf8" }).stdout.trim() === "PONG", 10_000);
  return child;
}

async function stopRedis(): Promise<void> {
  const r = redis;
  redis = null;
  if (!r || r.exitCode !== null) return;
  const gone = new Promise((res) => r.once("exit", res));
  r.kill("SIGKILL");
  await gone;
}

afterAll(async () => {
  await stopAllServers();
  await stopRedis();
  cleanupDirs();
});

async function serverOn(redisPort: number, name: string, extra: Record<string, string> = {}): Promise<ServerProcess> {
  const port = await freePort();
  return spawnServer({
    ...extra,
    PORT: String(port),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PUBLIC_ADDRESS: `127.0.0.1:${port}`,
    ADMIN_TOKEN: TOKEN,
    REPLAY_DIR: tempDir(`redis-outage-${name}`),
    PROCESS_CHECK_INTERVAL_MS: "500",
  });
}

async function joinOrCreate(url: string): Promise<Room<unknown, RoomState>> {
  const room = (await new Client(url).joinOrCreate("physics", {}, RoomState)) as Room<unknown, RoomState>;
  room.reconnection.enabled = false;
  room.onMessage(MSG_WELCOME, () => {});
  return room;
}

describe.runIf(hasRedis)("a Redis outage", () => {
  it("a room-list request that failed is asked again (Colyseus' RedisDriver kept the rejected one for good)", async () => {
    const port = await freePort();
    const warnings: string[] = [];
    const health = new RedisHealth({ warn: (o, msg) => warnings.push(`${msg} ${JSON.stringify(o)}`), info: () => {} });
    const { presence, driver } = await presenceAndDriver(`redis://127.0.0.1:${port}`, "", health);
    try {
      // Nothing listens yet: the listing fails, and so does the next one (Redis is still not there).
      await expect(driver!.query({ name: "physics" })).rejects.toThrow();
      await expect(driver!.query({ name: "physics" })).rejects.toThrow();
      expect(health.healthy).toBe(false);
      expect(health.problem).toMatch(/^redis unreachable \((presence|presence-sub|driver): .*ECONNREFUSED/);
      // Redis starts on that port: the same driver lists rooms (an empty list), no restart.
      redis = await startRedis(port);
      const rooms = await eventually("a listing from the same driver", () => driver!.query({ name: "physics" }), 10_000);
      expect(rooms).toEqual([]);
      await eventually("healthy", () => health.healthy, 10_000);
      expect(warnings.filter((w) => w.startsWith("redis unreachable")).length).toBeLessThanOrEqual(3);
    } finally {
      health.stop();
      presence!.shutdown();
      await driver!.shutdown();
      await stopRedis();
    }
  });

  it("15 s without Redis: clear 503s meanwhile, rooms keep running, everything works again within 5 s of its return, logs stay JSON", async () => {
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    const A = await serverOn(redisPort, "a");
    const B = await serverOn(redisPort, "b");
    await eventually("A and B see each other", async () => (await json<unknown[]>(api(A.url, "GET", "/processes"))).length === 2);

    const before = await joinOrCreate(A.url);
    let patches = 0;
    before.onStateChange(() => patches++);
    await eventually("the first player's room ticking", () => patches > 5);

    await stopRedis();
    const outageStart = Date.now();

    // Both processes notice and say why, on /ready; liveness stays up.
    for (const p of [A, B]) {
      const ready = await eventually(`${p.url} not ready`, async () => {
        const res = await api(p.url, "GET", "/ready", undefined, null);
        return res.status === 503 ? ((await res.json()) as { reason: string }) : null;
      });
      expect(ready.reason).toMatch(/^redis unreachable \(/);
      expect((await api(p.url, "GET", "/health", undefined, null)).status).toBe(200);
    }
    // A join is refused with the cause at once, not after a retry storm; so is the room listing.
    const t0 = Date.now();
    const refused = await joinOrCreate(A.url).then(
      () => "joined",
      (err: Error) => err.message,
    );
    const refusalMs = Date.now() - t0;
    console.log(`join during the outage: ${refusalMs} ms: ${refused}`);
    expect(refused).toMatch(/^matchmaking unavailable: redis unreachable/);
    const listing = await api(A.url, "GET", "/rooms");
    expect(listing.status).toBe(503);
    expect(((await listing.json()) as { error: string }).error).toMatch(/^rooms unavailable: redis unreachable/);

    // The room already running goes on without Redis: its simulation ticks on, its player gets patches.
    const tickBefore = before.state.tick;
    const patchesBefore = patches;
    await sleep(OUTAGE_MS - (Date.now() - outageStart));
    console.log(`during the outage: room tick ${tickBefore} -> ${before.state.tick}, ${patches - patchesBefore} patches`);
    expect(before.state.tick - tickBefore).toBeGreaterThan(10 * before.state.tickRate);

    // Redis comes back empty on the same port.
    redis = await startRedis(redisPort);
    const back = Date.now();
    await eventually("A and B ready again", async () => {
      for (const p of [A, B]) if ((await api(p.url, "GET", "/ready", undefined, null)).status !== 200) return false;
      return true;
    }, 5000);
    const after = await eventually("a join through A", () => joinOrCreate(A.url), 5000);
    const afterB = await eventually("a join through B", () => joinOrCreate(B.url), 5000);
    const rooms = await eventually("the listing", async () => {
      const res = await api(A.url, "GET", "/rooms");
      return res.status === 200 ? ((await res.json()) as { roomId: string }[]) : null;
    }, 5000);
    const recoveredMs = Date.now() - back;
    console.log(`after Redis came back: ready, joins through A and B and the listing in ${recoveredMs} ms; ${rooms.length} room(s) listed`);
    // The room from before the outage lists itself again in the emptied Redis (its 2 s listing refresh).
    await eventually("the first room listed again", async () => {
      const list = await json<{ roomId: string }[]>(api(A.url, "GET", "/rooms"));
      return list.some((r) => r.roomId === before.roomId);
    }, 5000);
    // Both processes are back in the shared process stats (written again when Redis returned).
    await eventually("A and B in the process stats again", async () => (await json<unknown[]>(api(B.url, "GET", "/processes"))).length === 2, 5000);

    // The logs: JSON lines only (no ioredis stack traces), one warning when it went and a few summaries, one line when it came back.
    for (const [name, p] of [["A", A], ["B", B]] as const) {
      const notJson = p.lines.filter((l) => l.trim() !== "" && !l.startsWith("{"));
      expect(notJson, `${name}'s non-JSON lines`).toEqual([]);
      const went = p.logs(/^redis unreachable/);
      const still = p.logs(/^redis still unreachable/);
      const cameBack = p.logs(/^redis reachable again/);
      console.log(`${name}: ${went.length} "unreachable", ${still.length} "still unreachable", ${cameBack.length} "reachable again" lines, ${p.lines.length} lines in all`);
      expect(went.length).toBeGreaterThanOrEqual(1);
      expect(went.length).toBeLessThanOrEqual(4); // one per connection (presence, its subscriber, the driver, the checkpoints)
      expect(still.length).toBeLessThanOrEqual(6);
      expect(cameBack.length).toBeGreaterThanOrEqual(1);
      const detail = JSON.parse(p.lines.find((l) => l.includes("redis unreachable"))!) as { cause?: string; redis?: string };
      expect(detail.cause).toMatch(/ECONNREFUSED|closed/);
      expect(detail.redis).toMatch(/^(presence|presence-sub|driver|checkpoints)$/);
    }
    for (const r of [before, after, afterB]) await r.leave(true).catch(() => {});
  }, 90_000);

  it("Redis restarts empty, then a process dies: its rooms leave it within 7 s, resumed on the survivor (default check interval)", async () => {
    const redisPort = await freePort();
    redis = await startRedis(redisPort);
    // The operator's default dead-process check, not the quick one the other tests use.
    const check = { PROCESS_CHECK_INTERVAL_MS: String(DEFAULT_LIMITS.processCheckIntervalMs) };
    const A = await serverOn(redisPort, "a2", check);
    const B = await serverOn(redisPort, "b2", check);
    const created = await json<{ roomId: string }>(api(B.url, "POST", "/rooms", { scenario: "stack10" }));
    await eventually("B's room listed through A", async () => (await json<{ roomId: string }[]>(api(A.url, "GET", "/rooms"))).some((r) => r.roomId === created.roomId));

    const checkpointTick = async () =>
      (await json<{ roomId: string; checkpointTick?: number }[]>(api(A.url, "GET", "/rooms"))).find((r) => r.roomId === created.roomId)?.checkpointTick;
    await eventually("B's room checkpointed", async () => (await checkpointTick()) !== undefined, 15_000);
    const before = (await checkpointTick()) as number;
    await stopRedis();
    redis = await startRedis(redisPort);
    await eventually("B's room listed again in the empty Redis", async () => {
      const res = await api(A.url, "GET", "/rooms");
      return res.status === 200 && ((await res.json()) as { roomId: string }[]).some((r) => r.roomId === created.roomId);
    }, 10_000);
    // Both processes wrote their load again when Redis came back (the sweep only checks processes it knows).
    await eventually("A and B in the process stats", async () => (await json<unknown[]>(api(A.url, "GET", "/processes"))).length === 2, 5000);

    // B checkpoints its room again into the empty Redis (a new base, later than the lost one).
    await eventually("B's room checkpointed again", async () => ((await checkpointTick()) ?? 0) > before, 15_000);
    const a = (await json<{ processId: string; self: boolean }[]>(api(A.url, "GET", "/processes"))).find((p) => p.self)?.processId;
    B.child.kill("SIGKILL");
    await B.exited;
    const killed = Date.now();
    // B checkpointed its room again into the empty Redis (a new base), so A resumes it (server/failover/).
    const onA = async () => (await json<{ roomId: string; processId: string }[]>(api(A.url, "GET", "/rooms"))).find((r) => r.roomId === created.roomId)?.processId === a;
    await eventually("B's room resumed on A", onA, 7000, 250);
    console.log(`B's room was listed on A ${Date.now() - killed} ms after SIGKILL (Redis restarted empty before)`);
    expect((await json<unknown[]>(api(A.url, "GET", "/processes"))).length).toBe(1);
  }, 60_000);
});
