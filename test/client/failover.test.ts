import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matchMaker } from "@colyseus/core";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createPhysicsServer, type PhysicsServer } from "../../server/app.ts";
import type { PhysicsRoom } from "../../server/rooms/physics-room.ts";
import { needTool } from "../docs/system-tools.ts";
import { LOOPBACK_ADMISSION } from "../server/helpers.ts";
import { api, eventually, freePort, json, type ServerProcess, spawnServer, stopAllServers, TOKEN, tempDir, cleanupDirs } from "../server/processes.ts";
import { buildClient, expectChromium, launchChromium } from "./browser-rig.ts";

/**
 * The browser client through a failover (server/failover/): a page in Chromium plays in an arena room
 * hosted by H (a real server process); H is killed (SIGKILL). The page's own process T (the server
 * that serves the page and its matchmaking, on the same Redis) resumes the room, and the page gets its
 * seat back by itself, without a reload: same session, same avatar, and the avatar still answers the
 * keyboard in the resumed room.
 */

const hasRedis = needTool("redis-server", "test/client/failover.test.ts", spawnSync("redis-server", ["--version"]).status === 0);
const WAIT = { timeout: 30_000 };

interface Hooked {
  __physics: { sessionId: string; avatarId: string; connection: string; connectionLog(): string[] };
  __loadedOnce?: number;
}

let redis: ChildProcess | null = null;
let H: ServerProcess;
let T: PhysicsServer;
let tUrl = "";
let dist = "";
let tReplays = "";
let browser: Browser;
let page: Page;

beforeAll(async () => {
  if (!hasRedis) return;
  expectChromium();
  const redisPort = await freePort();
  redis = spawn("redis-server", ["--port", String(redisPort), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdio: "ignore" });
  await eventually("redis answering", () => spawnSync("redis-cli", ["-p", String(redisPort), "ping"], { encoding: "utf8" }).stdout.trim() === "PONG", 10_000);
  const redisUrl = `redis://127.0.0.1:${redisPort}`;
  const hPort = await freePort();
  H = await spawnServer({ PORT: String(hPort), REDIS_URL: redisUrl, PUBLIC_ADDRESS: `127.0.0.1:${hPort}`, ADMIN_TOKEN: TOKEN, REPLAY_DIR: tempDir("browser-failover-h") });
  dist = await buildClient("browser-failover");
  tReplays = mkdtempSync(join(tmpdir(), "browser-failover-t-"));
  const tPort = await freePort();
  T = await createPhysicsServer({
    adminToken: TOKEN,
    replayDir: tReplays,
    logger: false,
    clientDir: dist,
    redisUrl,
    publicAddress: `127.0.0.1:${tPort}`,
    limits: LOOPBACK_ADMISSION,
  });
  await T.listen(tPort, "127.0.0.1");
  tUrl = `http://127.0.0.1:${tPort}`;
  await eventually("H and T in the process stats", async () => (await json<unknown[]>(api(tUrl, "GET", "/processes"))).length === 2);
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await T?.close();
  await stopAllServers();
  redis?.kill("SIGKILL");
  cleanupDirs();
  if (dist) rmSync(dist, { recursive: true, force: true });
  if (tReplays) rmSync(tReplays, { recursive: true, force: true });
});

describe.runIf(hasRedis)("browser client through a failover", () => {
  it("H killed mid-game: the page is back in the resumed room with its avatar, without a reload", async () => {
    const hId = (await json<{ processId: string; self: boolean }[]>(api(H.url, "GET", "/processes"))).find((p) => p.self)?.processId;
    const { roomId } = await json<{ roomId: string }>(api(H.url, "POST", "/rooms", { scenario: "arena" }));
    await eventually("the room listed on H", async () => (await json<{ roomId: string; processId: string }[]>(api(tUrl, "GET", "/rooms"))).find((r) => r.roomId === roomId)?.processId === hId);

    await eventually("the room checkpointed", async () => (await json<{ roomId: string; checkpointTick?: number }[]>(api(tUrl, "GET", "/rooms"))).find((r) => r.roomId === roomId)?.checkpointTick !== undefined);
    page = await browser.newPage({ viewport: { width: 800, height: 500 } });
    const pageErrors: string[] = [];
    page.on("pageerror", (err) => pageErrors.push(err.message));
    await page.goto(`${tUrl}/?room=${roomId}`);
    await page.waitForFunction(() => {
      const p = (globalThis as unknown as Hooked).__physics;
      return p?.connection === "connected" && p.avatarId !== "";
    }, undefined, WAIT);
    const before = await page.evaluate(() => {
      const g = globalThis as unknown as Hooked;
      g.__loadedOnce = 1; // gone if the page reloads
      return { sessionId: g.__physics.sessionId, avatarId: g.__physics.avatarId };
    });
    await page.keyboard.down("KeyW");
    await new Promise((r) => setTimeout(r, 1500));
    await page.keyboard.up("KeyW");

    H.child.kill("SIGKILL");
    const killedAt = Date.now();
    await page.waitForFunction(
      () => {
        const p = (globalThis as unknown as Hooked).__physics;
        return p.connection === "connected" && p.connectionLog().some((s) => s.includes("reconnected"));
      },
      undefined,
      WAIT,
    );
    const backMs = Date.now() - killedAt;
    const after = await page.evaluate(() => {
      const g = globalThis as unknown as Hooked;
      return { sessionId: g.__physics.sessionId, avatarId: g.__physics.avatarId, loadedOnce: g.__loadedOnce, log: g.__physics.connectionLog() };
    });
    console.log(`browser failover: back in the room ${backMs} ms after the kill; connection log: ${after.log.join(" | ")}`);
    expect({ sessionId: after.sessionId, avatarId: after.avatarId, loadedOnce: after.loadedOnce }).toEqual({ ...before, loadedOnce: 1 });
    expect(backMs).toBeLessThanOrEqual(10_000);

    // The room now runs here on T, the avatar in it; it still answers the keyboard.
    const room = matchMaker.getLocalRoomById(roomId) as unknown as PhysicsRoom;
    expect(room, "the room resumed on T").toBeDefined();
    expect(room.sim.avatarOf(before.sessionId), "the avatar in the resumed room").toBeDefined();
    const position = () => {
      const avatar = room.sim.avatarOf(before.sessionId);
      return avatar ? room.sim.world.getPosition(avatar.handle, [0, 0, 0]) : [Number.NaN, 0, Number.NaN];
    };
    // Walks one way, then the other (a wall may be behind it): it moves either way.
    const start = position();
    const moved = () => {
      const p = position();
      return Math.hypot(p[0] - start[0], p[2] - start[2]) > 1;
    };
    for (const key of ["KeyS", "KeyW"]) {
      await page.keyboard.down(key);
      try {
        await eventually("the avatar moves in the resumed room", moved, 8000).catch(() => undefined);
      } finally {
        await page.keyboard.up(key);
      }
      if (moved()) break;
    }
    expect(moved(), "the avatar answers the keyboard in the resumed room").toBe(true);
    expect(pageErrors).toEqual([]);
    await page.close();
  }, 120_000);
});
