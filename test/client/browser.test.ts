import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClient, expectChromium, launchChromium } from "./browser-rig.ts";
import { matchMaker } from "@colyseus/core";
import { createPhysicsServer, type PhysicsServer } from "../../server/app.ts";
import { dequantizeAxis, KNOB_KEYS, KNOB_RANGES, RoomState } from "../../shared/net/index.ts";

/**
 * The browser client end to end: a real server on a random loopback port serving a fresh build of the
 * client, Debian's chromium driven by playwright-core, and an SDK observer in the same room that checks
 * what the page does on the server's side. Every wait is for a condition (generous timeouts), never a
 * fixed sleep.
 */
const TOKEN = "browser-test-token";
const ROOT = join(import.meta.dirname, "..", "..");
const ARTIFACTS = join(ROOT, "test-artifacts");
const WAIT = { timeout: 30_000, polling: 100 } as const;

interface PhysicsHooks {
  joined: boolean;
  roomId: string;
  sessionId: string;
  avatarId: string;
  connection: string;
  connectionLog(): string[];
  framesRendered: number;
  meshCount(): number;
  bodyCount(): number;
  avatarServerPosition(): number[];
  avatarPredictedPosition(): number[];
  rejected(): { type: string; reason: string }[];
  hud(): { message: string; kinetic: number };
  /** Largest kinetic energy read since the scenario last changed, J. */
  kineticPeak(): number;
  resetKineticPeak(): void;
  pixelStats(): { mean: number; variance: number; colors: number; width: number; height: number };
  pushTarget(): { id: string; x: number; y: number } | null;
}
type Hooked = typeof globalThis & { __physics: PhysicsHooks };

let dist: string;
let dataDir: string;
let server: PhysicsServer;
let base: string;
let browser: Browser;
let page: Page;
let roomId: string;
let observer: Room<unknown, RoomState>;
const pageErrors: string[] = [];

async function roomInfo(): Promise<{ bodies: number; awake: number }> {
  const res = await fetch(`${base}/rooms/${roomId}`);
  return (await res.json()) as { bodies: number; awake: number };
}

/** Polls `fn` until it returns a truthy value. */
async function until<T>(what: string, fn: () => Promise<T | undefined | false> | T | undefined | false, timeoutMs = 30_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** Resolves after the observer decoded `n` more patches. */
function patches(n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const listener = () => {
      if (++seen < n) return;
      observer.onStateChange.remove(listener);
      resolve();
    };
    observer.onStateChange(listener);
  });
}

function observedPosition(id: string): [number, number, number] | undefined {
  const b = observer.state.bodies.get(id);
  return b ? [dequantizeAxis(b.cx, b.fx), dequantizeAxis(b.cy, b.fy), dequantizeAxis(b.cz, b.fz)] : undefined;
}

beforeAll(async () => {
  expectChromium();
  dataDir = mkdtempSync(join(tmpdir(), "client-replays-"));
  dist = await buildClient("client");
  server = await createPhysicsServer({ adminToken: TOKEN, replayDir: dataDir, logger: false, clientDir: dist });
  const port = await server.listen(0, "127.0.0.1");
  base = `http://127.0.0.1:${port}`;
  const created = await fetch(`${base}/rooms`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify({ scenario: "arena" }),
  });
  expect(created.status).toBe(201);
  roomId = ((await created.json()) as { roomId: string }).roomId;
  observer = (await new Client(base).joinById(roomId, {}, RoomState)) as Room<unknown, RoomState>;
  observer.onMessage("*", () => {});
  browser = await launchChromium();
  page = await browser.newPage({ viewport: { width: 880, height: 520 } });
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(`${base}/?room=${roomId}`);
  await page.waitForFunction(() => {
    const p = (globalThis as Hooked).__physics;
    return p?.joined && p.bodyCount() > 0 && p.avatarServerPosition().every((v) => !Number.isNaN(v));
  }, undefined, WAIT);
});

afterAll(async () => {
  if (page) {
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "client-final.png") }).catch(() => {});
  }
  await browser?.close();
  await observer?.leave(true).catch(() => {});
  await server?.close();
  for (const d of [dist, dataDir]) if (d) rmSync(d, { recursive: true, force: true });
});

describe("browser client against a real server: joining, rendering, spawning", () => {
  it("joins the room and renders every body the server has", async () => {
    const hooks = await page.evaluate(() => {
      const p = (globalThis as Hooked).__physics;
      return { roomId: p.roomId, avatarId: p.avatarId, connection: p.connection };
    });
    expect(hooks.roomId).toBe(roomId);
    expect(hooks.connection).toBe("connected");
    expect(observer.state.bodies.has(hooks.avatarId)).toBe(true);
    // arena: ground + 4 walls + 150 boxes + 50 balls, plus the page's and the observer's avatars
    const info = await roomInfo();
    expect(info.bodies).toBe(207);
    await page.waitForFunction((n) => (globalThis as Hooked).__physics.meshCount() === n, info.bodies, WAIT);
    const stats = await page.evaluate(() => (globalThis as Hooked).__physics.pixelStats());
    expect(stats.width).toBeGreaterThan(500);
    // Not blank: a lit, shadowed scene has many colours and a wide spread of brightness.
    expect(stats.colors).toBeGreaterThan(50);
    expect(stats.variance).toBeGreaterThan(100);
    mkdirSync(ARTIFACTS, { recursive: true });
    const shot = join(ARTIFACTS, "client.png");
    await page.screenshot({ path: shot });
    expect(statSync(shot).size).toBeGreaterThan(10_000);
    // The README's screenshot: written when missing or on request, so test runs leave the tree clean.
    const readmeShot = join(ROOT, "docs", "screenshot.png");
    if (!existsSync(readmeShot) || process.env.UPDATE_SCREENSHOT === "1") {
      mkdirSync(join(ROOT, "docs"), { recursive: true });
      copyFileSync(shot, readmeShot);
    }
  });

  it("a click spawns a body that the server then has, and the page renders it", async () => {
    const before = (await roomInfo()).bodies;
    const box = page.viewportSize()!;
    await page.mouse.click(box.width / 2, box.height * 0.35);
    const after = await until("the server to have the spawned body", async () => {
      const n = (await roomInfo()).bodies;
      return n > before && n;
    });
    expect(after).toBe(before + 1);
    await until("the observer to see it", () => [...observer.state.bodies.keys()].some((id) => /^s\d+$/.test(id)));
    await page.waitForFunction((n) => (globalThis as Hooked).__physics.meshCount() === n, after, WAIT);
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.rejected())).toEqual([]);
  });

});

describe("browser client against a real server: pushing and moving", () => {
  it("shift-click pushes the body under the cursor (client raycast, server validation)", async () => {
    const target = await page.waitForFunction(() => (globalThis as Hooked).__physics.pushTarget(), undefined, WAIT).then((h) => h.jsonValue());
    const start = observedPosition(target!.id)!;
    // It was at rest, so whatever moves it next is the push.
    expect(observer.state.bodies.get(target!.id)!.sleeping).toBe(true);
    await page.keyboard.down("Shift");
    try {
      await page.mouse.click(target!.x, target!.y);
    } finally {
      await page.keyboard.up("Shift");
    }
    await until(`${target!.id} to be pushed on the server`, () => {
      const p = observedPosition(target!.id);
      return p && Math.hypot(p[0] - start[0], p[1] - start[1], p[2] - start[2]) > 0.1;
    });
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.rejected())).toEqual([]);
  });

  it("holding W moves the avatar on the server, and the prediction agrees with it", async () => {
    const avatarId = await page.evaluate(() => (globalThis as Hooked).__physics.avatarId);
    const start = observedPosition(avatarId)!;
    expect(start).toBeDefined();
    await page.keyboard.down("KeyW");
    try {
      await until(
        "the avatar to move 2 m on the server",
        () => {
          const p = observedPosition(avatarId);
          return p && Math.hypot(p[0] - start[0], p[2] - start[2]) > 2;
        },
      );
    } finally {
      await page.keyboard.up("KeyW");
    }
    // After letting go, prediction and server settle on the same spot (reconciled, not left apart).
    await until("prediction and server to agree", async () => {
      const [predicted, served] = await page.evaluate(() => {
        const p = (globalThis as Hooked).__physics;
        return [p.avatarPredictedPosition(), p.avatarServerPosition()];
      });
      const observed = observedPosition(avatarId)!;
      return Math.hypot(predicted[0] - observed[0], predicted[2] - observed[2]) < 0.1 && Math.hypot(served[0] - observed[0], served[2] - observed[2]) < 0.05;
    });
    expect(pageErrors).toEqual([]);
  });

});

describe("browser client against a real server: reconnecting", () => {
  it("a dropped connection is shown, then reconnects to the same seat and keeps the avatar", async () => {
    const { sessionId, avatarId } = await page.evaluate(() => {
      const p = (globalThis as Hooked).__physics;
      return { sessionId: p.sessionId, avatarId: p.avatarId };
    });
    const room = matchMaker.getLocalRoomById(roomId);
    const client = room.clients.find((c) => c.sessionId === sessionId) as unknown as { ref: { terminate(): void } };
    expect(client).toBeDefined();
    client.ref.terminate(); // like a network loss: no close frame
    await page.waitForFunction(
      () => {
        const p = (globalThis as Hooked).__physics;
        return p.connectionLog().some((s) => s.startsWith("reconnecting")) && p.connection === "connected";
      },
      undefined,
      WAIT,
    );
    const after = await page.evaluate(() => {
      const p = (globalThis as Hooked).__physics;
      return { sessionId: p.sessionId, avatarId: p.avatarId, banner: document.getElementById("banner")!.hidden };
    });
    expect(after).toEqual({ sessionId, avatarId, banner: true });
    expect(observer.state.bodies.has(avatarId)).toBe(true);
    // Still playing: the avatar answers the keyboard after the reconnect.
    const start = observedPosition(avatarId)!;
    await page.keyboard.down("KeyS");
    try {
      await until("the avatar to move again", () => {
        const p = observedPosition(avatarId);
        return p && Math.hypot(p[0] - start[0], p[2] - start[2]) > 1;
      });
    } finally {
      await page.keyboard.up("KeyS");
    }
  });

});

describe("browser client against a real server: the knobs panel", () => {
  it("the knobs panel (after the admin token) runs the stack demo live through the admin API", async () => {
    // force: skip Playwright's actionability polling, slow while software WebGL keeps the page busy.
    const force = { force: true } as const;
    // The token form submitted the way a user's Enter does (one round trip to the busy page each).
    const submitToken = (token: string) =>
      page.evaluate((t) => {
        const input = document.querySelector<HTMLInputElement>("#knobs input[type=password]")!;
        input.value = t;
        input.form!.requestSubmit();
      }, token);
    await submitToken("wrong-token");
    await page.waitForFunction(() => (globalThis as Hooked).__physics.hud().message.includes("401"), undefined, WAIT);
    await submitToken(TOKEN);
    const drop8 = page.getByRole("button", { name: "Drop stack · 8 iterations" });
    await drop8.waitFor({ state: "visible", timeout: 30_000 });
    // The panel is built from the knob table: one control per knob, numeric ones spanning the table's range.
    const panel = await page.evaluate((keys) => {
      return keys.map((key) => {
        const control = document.querySelector(`#knobs [data-knob="${key}"]`);
        const inputs = [...(control?.querySelectorAll<HTMLInputElement>("input[min]") ?? [])];
        return { key, found: control !== null, spans: inputs.map((i) => [Number(i.min), Number(i.max)]) };
      });
    }, KNOB_KEYS);
    for (const { key, found, spans } of panel) {
      expect(found, key).toBe(true);
      const range = (KNOB_RANGES as Record<string, { min: number; max: number } | undefined>)[key];
      for (const span of spans) expect(span, key).toEqual([range?.min, range?.max]);
      expect(spans.length > 0, key).toBe(range !== undefined);
    }
    await drop8.click(force);
    const info = async () => (await (await fetch(`${base}/rooms/${roomId}`)).json()) as { scenario: string; bodies: number; settings: Record<string, unknown> };
    await until("the demo scenario", async () => (await info()).scenario === "seed001-stack");
    const loaded = await info();
    expect(loaded.settings).toMatchObject({ warmStarting: false, sleep: false, velocityIterations: 8 });
    expect(loaded.bodies).toBe(1 + 5 + 2);
    await page.waitForFunction(() => (globalThis as Hooked).__physics.meshCount() === 8, undefined, WAIT);
    const top = () => observedPosition("box4");
    await until("the dropped stack to stand", () => {
      const p = top();
      return p && Math.abs(p[1] - 4.5) < 0.02;
    });
    // Standing (after half a second to settle): the kinetic-energy readout stays in the millijoules.
    await patches(10);
    await page.evaluate(() => (globalThis as Hooked).__physics.resetKineticPeak());
    await patches(15);
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.kineticPeak())).toBeLessThan(0.01);
    // Turn the knob live: 1 iteration, and the standing stack slumps.
    await page.locator("#knobs input[type=range]").first().fill("1", force);
    await until("velocityIterations 1", async () => (await info()).settings.velocityIterations === 1);
    await until("the stack to collapse", () => {
      const p = top();
      return p && p[1] < 2;
    });
    // ...which the kinetic-energy readout saw: joules while collapsing, after millijoules while standing.
    await page.waitForFunction(() => (globalThis as Hooked).__physics.kineticPeak() > 1, undefined, WAIT);
  });
});
