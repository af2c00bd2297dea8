import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { needTool } from "../docs/system-tools.ts";
import { api, cleanupDirs, eventually, freePort, json, type ServerProcess, sleep, spawnServer, stopAllServers, TOKEN, tempDir } from "./processes.ts";

/**
 * Two processes on a Redis of their own, at the operator's defaults (no PROCESS_CHECK_INTERVAL_MS), as
 * an operator sees them fail:
 * - 200 rooms created through A in one burst are placed 40-60 % on each (Colyseus' default read process
 *   loads that are rewritten at most once a second: 196 of 200 landed on B);
 * - B paused for 10 s (SIGSTOP): a join through A while B sleeps lands in a new room on A and does not
 *   declare B dead: B's rooms stay listed, B is back in the process list after SIGCONT;
 * - an admin change sent through A to a room on the paused B answers 503 "not applied" after 2 s, and B
 *   does not apply it when it resumes; the operator's retry with the same Idempotency-Key is applied
 *   once, and a second retry answers the first answer without applying it again;
 * - B killed (SIGKILL): its rooms leave B within 7 s: A resumes them from their checkpoints (server/failover/).
 */

const hasRedis = needTool("redis-server", "test/server/cluster-faults.test.ts", spawnSync("redis-server", ["--version"]).status === 0);
const PAUSE_MS = 10_000;

let redis: ChildProcess | null = null;
let A: ServerProcess;
let B: ServerProcess;

interface Listed {
  roomId: string;
  processId: string;
  scenario: string;
  checkpointTick?: number;
}
interface ProcessRow {
  processId: string;
  rooms: number;
  self: boolean;
}

async function serverOn(redisPort: number, name: string): Promise<ServerProcess> {
  const port = await freePort();
  return spawnServer({
    PORT: String(port),
    REDIS_URL: `redis://127.0.0.1:${redisPort}`,
    PUBLIC_ADDRESS: `127.0.0.1:${port}`,
    ADMIN_TOKEN: TOKEN,
    REPLAY_DIR: tempDir(`cluster-faults-${name}`),
  });
}

const rooms = (via: ServerProcess) => json<Listed[]>(api(via.url, "GET", "/rooms"));
const processes = (via: ServerProcess) => json<ProcessRow[]>(api(via.url, "GET", "/processes"));
const idOf = async (p: ServerProcess) => (await processes(p)).find((r) => r.self)?.processId ?? "";

/** A stack10 room created through B and hosted by B (placement prefers the creating process on a tie), listed through A. */
async function roomOnB(): Promise<{ roomId: string }> {
  const b = await idOf(B);
  const created = await json<{ roomId: string }>(api(B.url, "POST", "/rooms", { scenario: "stack10" }));
  await eventually("B's room listed through A", async () => (await rooms(A)).some((r) => r.roomId === created.roomId));
  expect((await rooms(A)).find((r) => r.roomId === created.roomId)?.processId).toBe(b);
  return created;
}

/** Pauses B (SIGSTOP) for `ms` while `during` runs; resumes it even when `during` throws. */
async function whileBPaused<T>(ms: number, during: () => Promise<T>): Promise<T> {
  B.child.kill("SIGSTOP");
  const pausedAt = Date.now();
  try {
    return await during();
  } finally {
    const left = ms - (Date.now() - pausedAt);
    if (left > 0) await sleep(left);
    B.child.kill("SIGCONT");
  }
}

beforeAll(async () => {
  if (!hasRedis) return;
  const redisPort = await freePort();
  redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await eventually("redis answering", () => spawnSync("redis-cli", ["-p", String(redisPort), "ping"], { encoding: "utf8" }).stdout.trim() === "PONG", 10_000);
  [A, B] = await Promise.all([serverOn(redisPort, "a"), serverOn(redisPort, "b")]);
  await eventually("A and B in the process stats", async () => (await processes(A)).length === 2);
}, 60_000);

afterAll(async () => {
  if (B && B.child.exitCode === null) B.child.kill("SIGCONT");
  await stopAllServers();
  redis?.kill("SIGKILL");
  cleanupDirs();
});

describe.runIf(hasRedis)("two processes at the operator's defaults", () => {
  it("200 rooms created through A in one burst are placed 40-60 % on each of A and B", async () => {
    const [a, b] = [await idOf(A), await idOf(B)];
    const created = await Promise.all(
      Array.from({ length: 200 }, () => json<{ roomId: string }>(api(A.url, "POST", "/rooms", { scenario: "stack10" }))),
    );
    const listed = await rooms(A);
    const onA = listed.filter((r) => r.processId === a).length;
    const onB = listed.filter((r) => r.processId === b).length;
    console.log(`burst of 200 rooms through A: ${onA} on A, ${onB} on B`);
    expect(onA + onB).toBe(200);
    expect(onA).toBeGreaterThanOrEqual(80);
    expect(onB).toBeGreaterThanOrEqual(80);
    await Promise.all(created.map((c) => api(A.url, "DELETE", `/rooms/${c.roomId}`)));
    await eventually("the burst's rooms gone", async () => (await rooms(A)).length === 0);
  }, 120_000);

  it("B paused for 10 s: a join through A lands on A and B stays listed with its rooms; B is back after it resumes", async () => {
    const b = await idOf(B);
    const onB = await roomOnB();

    const joined = await whileBPaused(PAUSE_MS, async () => {
      // joinOrCreate finds B's room first (the only one), its seat reservation times out, B is pinged and
      // does not answer; B only becomes a suspect, and the retry creates a room on A.
      const t0 = Date.now();
      const player = (await new Client(A.url).joinOrCreate("physics", {}, RoomState)) as Room<unknown, RoomState>;
      player.reconnection.enabled = false;
      player.onMessage(MSG_WELCOME, () => {});
      console.log(`join through A while B is paused: ${Date.now() - t0} ms, room ${player.roomId}`);
      const listed = await rooms(A);
      expect(listed.find((r) => r.roomId === player.roomId)?.processId).toBe(await idOf(A));
      // B's room is still listed while B sleeps: a paused process is not a dead one.
      expect(listed.some((r) => r.roomId === onB.roomId)).toBe(true);
      expect(A.logs(/still connected to Redis/).length).toBeGreaterThanOrEqual(1);
      expect(A.logs(/stopped answering/)).toEqual([]);
      return player;
    });

    await eventually("A hears from B again", () => A.logs(/answers again/).length >= 1, 15_000);
    await eventually("B back in the process list", async () => (await processes(A)).some((p) => p.processId === b), 15_000);
    expect((await rooms(A)).some((r) => r.roomId === onB.roomId)).toBe(true);
    expect(A.logs(/stopped answering/)).toEqual([]);
    await joined.leave();
    await api(A.url, "DELETE", `/rooms/${onB.roomId}`);
  }, 90_000);

  it("an admin change through A to the paused B is 503 and not applied; the retry with its Idempotency-Key is applied once", async () => {
    const onB = await roomOnB();
    const key = `load-pyramid-${onB.roomId}`;
    const load = (k: string) =>
      fetch(`${A.url}/rooms/${onB.roomId}/scenario`, {
        method: "POST",
        headers: { authorization: `Bearer ${TOKEN}`, "content-type": "application/json", "idempotency-key": k },
        body: JSON.stringify({ scenario: "pyramid20" }),
      });

    const first = await whileBPaused(PAUSE_MS, async () => {
      const res = await load(key);
      expect(res.status).toBe(503);
      expect(res.headers.get("request-id")).toBe(key);
      return (await res.json()) as { message: string };
    });
    console.log(`while B was paused: 503 ${first.message}`);
    expect(first.message).toMatch(/not applied/);
    // B resumed and received the stale command: it drops it.
    await eventually("B dropped the late command", () => B.logs(/after its deadline: not applied/).length === 1, 10_000);
    await sleep(500);
    expect((await json<Listed>(api(A.url, "GET", `/rooms/${onB.roomId}`))).scenario).toBe("stack10");

    const retry = await load(key);
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    const applied = (await retry.json()) as { appliesAtTick: number };
    const again = await load(key);
    expect(again.status).toBe(200);
    expect(again.headers.get("idempotent-replayed")).toBe("true");
    expect(await again.json()).toEqual(applied);
    await eventually("pyramid20 loaded", async () => (await json<Listed>(api(A.url, "GET", `/rooms/${onB.roomId}`))).scenario === "pyramid20");
    // The room's replay records one scenario load.
    const replay = await (await fetch(`${A.url}/rooms/${onB.roomId}/replay`)).text();
    const loads = replay
      .trim()
      .split("\n")
      .flatMap((l) => (JSON.parse(l) as { i?: { type: string }[] }).i ?? [])
      .filter((i) => i.type === "load");
    expect(loads.length).toBe(1);
    // A malformed key is refused before anything reaches the room.
    const bad = await load("no spaces allowed");
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as { message: string }).message).toMatch(/idempotency-key/);
    await api(A.url, "DELETE", `/rooms/${onB.roomId}`);
  }, 90_000);

  it("B killed: its rooms leave B within 7 s, resumed on A (default check interval)", async () => {
    const onB = await roomOnB();
    const a = await idOf(A);
    // Resumable once its first checkpoint base is in Redis (the listing shows its tick).
    await eventually("B's room checkpointed", async () => (await rooms(A)).find((r) => r.roomId === onB.roomId)?.checkpointTick !== undefined, 15_000);
    B.child.kill("SIGKILL");
    await B.exited;
    const killed = Date.now();
    await eventually("B's room resumed on A", async () => (await rooms(A)).find((r) => r.roomId === onB.roomId)?.processId === a, 7000, 250);
    console.log(`B's room was listed on A ${Date.now() - killed} ms after SIGKILL`);
    expect((await processes(A)).length).toBe(1);
  }, 30_000);
});
