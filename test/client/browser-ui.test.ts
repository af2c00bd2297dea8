import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClient, launchChromium } from "./browser-rig.ts";
import { createPhysicsServer, type PhysicsServer } from "../../server/app.ts";

/**
 * The first minutes of a player in the browser client, end to end: a real server on a random loopback
 * port serving a fresh build of the client, Debian's chromium driven by playwright-core. The own
 * avatar's prediction in zero gravity, the knobs panel's unlock and its starting values, the server's
 * refusals in the HUD, a saved link to a closed room, a long error banner, the energy plot's labels.
 * Every wait is for a condition, never a fixed sleep; times are server ticks where they matter.
 */
const TOKEN = "browser-ui-test-token";
const WAIT = { timeout: 30_000, polling: 100 } as const;
const VIEWPORT = { width: 880, height: 520 };

interface Hooks {
  joined: boolean;
  roomId: string;
  connection: string;
  bodyCount(): number;
  avatarServerPosition(): number[];
  avatarPredictedPosition(): number[];
  snapshotTick(): number;
  hud(): { message: string; messageKind: string; scenario: string; kinetic: number };
  rejected(): { type: string; reason: string }[];
}
type Hooked = typeof globalThis & { __physics: Hooks };

/** One prediction sample per frame: server tick of the newest snapshot, the predicted and the server position. */
interface Sample {
  tick: number;
  predicted: number[];
  server: number[];
}
type Sampled = typeof globalThis & { __samples: Sample[] };

/** One text drawn on a canvas: which canvas, where its ink starts and ends (x), the canvas's width. */
interface DrawnText {
  canvas: string;
  text: string;
  left: number;
  right: number;
  width: number;
}
type Recorded = typeof globalThis & { __texts: DrawnText[] };

let dist: string;
let dataDir: string;
let server: PhysicsServer;
let base: string;
let browser: Browser;
const pages: Page[] = [];

async function admin(method: string, path: string, body?: unknown): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${TOKEN}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  return fetch(`${base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

async function createRoom(scenario: unknown): Promise<string> {
  const res = await admin("POST", "/rooms", { scenario });
  expect(res.status).toBe(201);
  return ((await res.json()) as { roomId: string }).roomId;
}

async function settingsOf(roomId: string): Promise<Record<string, unknown>> {
  return ((await (await fetch(`${base}/rooms/${roomId}`)).json()) as { settings: Record<string, unknown> }).settings;
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

/** A fresh page that records its console errors (and uncaught exceptions), with an optional init script. */
async function openPage(init?: () => void): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: VIEWPORT });
  pages.push(page);
  const errors: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(m.text());
  });
  page.on("pageerror", (err) => errors.push(`pageerror: ${err.message}`));
  if (init) await page.addInitScript(init);
  return { page, errors };
}

async function joined(page: Page): Promise<void> {
  await page.waitForFunction(() => {
    const p = (globalThis as Hooked).__physics;
    return p?.joined && p.bodyCount() > 0 && p.avatarServerPosition().every((v) => !Number.isNaN(v));
  }, undefined, WAIT);
}

/** Init script: every frame, the newest snapshot's tick and the predicted and server positions of the own avatar. */
function samplePrediction(): void {
  const samples: Sample[] = [];
  (globalThis as Sampled).__samples = samples;
  const poll = () => {
    const p = (globalThis as Hooked).__physics;
    if (p?.joined) {
      const server = p.avatarServerPosition();
      if (!Number.isNaN(server[0])) samples.push({ tick: p.snapshotTick(), predicted: p.avatarPredictedPosition(), server });
    }
    requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}

/** Init script: records where every text drawn on a canvas starts and ends (after alignment and maxWidth). */
function recordCanvasText(): void {
  const texts: DrawnText[] = [];
  (globalThis as Recorded).__texts = texts;
  const proto = CanvasRenderingContext2D.prototype;
  const fillText = proto.fillText;
  proto.fillText = function (this: CanvasRenderingContext2D, text: string, x: number, y: number, maxWidth?: number) {
    const measured = this.measureText(text).width;
    const w = maxWidth === undefined ? measured : Math.min(measured, maxWidth);
    const align = this.textAlign;
    const left = align === "right" || align === "end" ? x - w : align === "center" ? x - w / 2 : x;
    texts.push({ canvas: this.canvas.id, text, left, right: left + w, width: this.canvas.width });
    if (texts.length > 500) texts.splice(0, 250);
    if (maxWidth === undefined) fillText.call(this, text, x, y);
    else fillText.call(this, text, x, y, maxWidth);
  };
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "client-ui-replays-"));
  dist = await buildClient("client-ui");
  server = await createPhysicsServer({ adminToken: TOKEN, replayDir: dataDir, logger: false, clientDir: dist });
  const port = await server.listen(0, "127.0.0.1");
  base = `http://127.0.0.1:${port}`;
  browser = await launchChromium();
});

afterAll(async () => {
  for (const p of pages) await p.close().catch(() => {});
  await browser?.close();
  await server?.close();
  for (const d of [dist, dataDir]) if (d) rmSync(d, { recursive: true, force: true });
});

/** Joins `scenario` in a fresh page and samples the prediction for `ticks` server ticks after the first snapshot. */
async function predictionRun(scenario: string, ticks: number): Promise<{ samples: Sample[]; page: Page; errors: string[] }> {
  const { page, errors } = await openPage(samplePrediction);
  await page.goto(`${base}/?scenario=${scenario}`);
  await joined(page);
  await page.waitForFunction(
    (n) => {
      const s = (globalThis as Sampled).__samples;
      return s.length > 0 && s[s.length - 1].tick - s[0].tick >= n;
    },
    ticks,
    WAIT,
  );
  const samples = await page.evaluate(() => (globalThis as Sampled).__samples.slice());
  return { samples, page, errors };
}

function gap(s: Sample): number {
  return Math.hypot(s.predicted[0] - s.server[0], s.predicted[1] - s.server[1], s.predicted[2] - s.server[2]);
}

describe("browser client, first minutes: the own avatar in zero gravity", () => {
  for (const scenario of ["failure-lab", "positional-correction"]) {
    it(`${scenario}: the prediction error settles below 1 cm within 1 s (60 server ticks) of joining`, async () => {
      const { samples, page, errors } = await predictionRun(scenario, 150);
      const first = samples[0].tick;
      // The curve: the largest error in each tenth of a second after the first snapshot.
      const buckets = new Map<number, number>();
      for (const s of samples) {
        const b = Math.floor((s.tick - first) / 6);
        buckets.set(b, Math.max(buckets.get(b) ?? 0, gap(s)));
      }
      const curve = [...buckets].map(([b, e]) => `${(b / 10).toFixed(1)}s ${(e * 100).toFixed(2)}cm`).join(", ");
      console.log(`${scenario}: |predicted - server| per 0.1 s of server time after the first snapshot: ${curve}`);
      const settled = samples.filter((s) => s.tick - first >= 60);
      const worst = Math.max(...settled.map(gap));
      console.log(`${scenario}: ${samples.length} frames over ${samples[samples.length - 1].tick - first} ticks; worst error from 1 s on ${(worst * 100).toFixed(2)} cm`);
      // Zero gravity: the server's avatar floats where it spawned.
      const ys = samples.map((s) => s.server[1]);
      expect(Math.max(...ys) - Math.min(...ys)).toBeLessThan(0.01);
      expect(settled.length).toBeGreaterThan(5);
      expect(worst).toBeLessThan(0.01);
      expect(errors).toEqual([]);
      await page.close();
    });
  }
});

describe("browser client, first minutes: the knobs panel", () => {
  let page: Page;
  let errors: string[];
  let roomId: string;

  beforeAll(async () => {
    roomId = await createRoom("arena");
    ({ page, errors } = await openPage(recordCanvasText));
    await page.goto(`${base}/?room=${roomId}`);
    await joined(page);
  });

  // A page left drawing the arena, and the admin room left running it, take the machine's cores from the
  // pages of the tests after these.
  afterAll(async () => {
    await page?.close();
    if (roomId) await admin("DELETE", `/rooms/${roomId}`);
  });

  const submitToken = (token: string) =>
    page.evaluate((t) => {
      const input = document.querySelector<HTMLInputElement>("#knobs input[type=password]")!;
      input.value = t;
      input.form!.requestSubmit();
    }, token);

  it("unlocks without a console error, clears the refusal, shows the room's values and a usable scenario picker", async () => {
    await submitToken("wrong-token");
    await page.waitForFunction(() => (globalThis as Hooked).__physics.hud().message.includes("401"), undefined, WAIT);
    const before = errors.length;
    await submitToken(TOKEN);
    await page.waitForFunction(() => document.querySelector<HTMLElement>("#knobs .knob-body")?.hidden === false, undefined, WAIT);
    // At once, as the panel appears: every control at the room's value.
    const shown = await page.evaluate(() => {
      const value = (key: string, n = 0) => document.querySelectorAll<HTMLInputElement>(`#knobs [data-knob="${key}"] input:not([type=checkbox])`)[n]?.value;
      const checked = (key: string) => document.querySelector<HTMLInputElement>(`#knobs [data-knob="${key}"] input[type=checkbox]`)!.checked;
      return {
        velocityIterations: Number(value("velocityIterations")),
        slop: Number(value("slop")),
        percent: Number(value("percent")),
        gravity: [0, 1, 2].map((i) => Number(value("gravity", i))),
        friction: { on: checked("friction"), value: Number(value("friction")) },
        restitution: { on: checked("restitution"), value: Number(value("restitution")) },
        select: document.querySelector<HTMLSelectElement>("#knobs select")!.getBoundingClientRect().width,
      };
    });
    const settings = await settingsOf(roomId);
    console.log(`knobs as shown on unlock: ${JSON.stringify(shown)}; room settings ${JSON.stringify(settings)}`);
    expect(shown.velocityIterations).toBe(settings.velocityIterations);
    expect(shown.slop).toBeCloseTo(settings.slop as number, 6);
    expect(shown.percent).toBeCloseTo(settings.percent as number, 6);
    expect(shown.gravity).toEqual(settings.gravity);
    // No override in the room: unticked, the slider at the arena's own coefficients (μ 0.5, e 0).
    expect(settings.friction).toBeNull();
    expect(shown.friction).toEqual({ on: false, value: 0.5 });
    expect(shown.restitution).toEqual({ on: false, value: 0 });
    expect(shown.select).toBeGreaterThan(200);
    const message = await page.evaluate(() => (globalThis as Hooked).__physics.hud().message);
    expect(message).not.toContain("401");
    // The unlock's token check answered without an error the browser would log (a 400, a 401).
    expect(errors.slice(before)).toEqual([]);
  });

  it("ticking a material override sends the value shown (the room's), not the middle of the range", async () => {
    for (const [key, expected] of [
      ["friction", 0.5],
      ["restitution", 0],
    ] as const) {
      // A click as the user's (one round trip to the busy page; Playwright's check() polls it many times).
      // (A click focuses the box, so the panel's once-a-second refresh leaves it as the user set it.)
      const click = (k: string) =>
        page.evaluate((kk) => {
          const box = document.querySelector<HTMLInputElement>(`#knobs [data-knob="${kk}"] input[type=checkbox]`)!;
          box.focus();
          box.click();
        }, k);
      await click(key);
      const value = await until(`${key} override set`, async () => {
        const v = (await settingsOf(roomId))[key];
        return v !== null && { v };
      });
      console.log(`ticked the ${key} override: the room's ${key} became ${value.v}`);
      expect(value.v).toBe(expected);
      await click(key);
      await until(`${key} override lifted`, async () => (await settingsOf(roomId))[key] === null);
      // The panel confirms each change in the HUD once the server answered it.
      await page.waitForFunction((k) => (globalThis as Hooked).__physics.hud().message.startsWith(`${k} applied at tick`), key, WAIT);
    }
  });

  it("a refused input (the spawn rate limit) is shown in the HUD with the server's reason, for a while", async () => {
    // Eight clicks within one task: the server takes four spawns a second per player and refuses the rest.
    await page.evaluate(() => {
      const canvas = document.getElementById("view")!;
      const at = { bubbles: true, button: 0, pointerId: 1, clientX: 440, clientY: 200 };
      for (let i = 0; i < 8; i++) {
        canvas.dispatchEvent(new PointerEvent("pointerdown", at));
        canvas.dispatchEvent(new PointerEvent("pointerup", at));
      }
    });
    const seen = () =>
      page.evaluate(() => {
        const el = document.querySelector<HTMLElement>("#hud .hud-message")!;
        return { text: el.textContent ?? "", kind: el.dataset.kind ?? "", rejected: (globalThis as Hooked).__physics.rejected() };
      });
    let last = await seen();
    try {
      await until("the refusal in the HUD", async () => (last = await seen()).text.includes("spawn rate limit"));
    } finally {
      console.log(`after 8 clicks in one go: HUD notice "${last.text}" (${last.kind}); refusals received ${JSON.stringify(last.rejected)}`);
    }
    const { text, kind } = last;
    expect(text).toMatch(/server refused spawn: spawn rate limit: at most 4 per second/);
    expect(kind).toBe("refused");
    // Transient: it goes away by itself.
    await page.waitForFunction(() => !document.querySelector("#hud .hud-message")?.textContent?.includes("spawn rate limit"), undefined, WAIT);
  });
});

describe("browser client, first minutes: dead links and long errors", () => {
  let dead: string;

  beforeAll(async () => {
    dead = await createRoom("bounce");
    expect((await admin("DELETE", `/rooms/${dead}`)).status).toBe(204);
    await until("the room to be gone", async () => (await fetch(`${base}/rooms/${dead}`)).status === 404);
  });

  it("a saved link to a closed room says so and offers a new room of its scenario and the lobby; the offer works", async () => {
    const { page } = await openPage();
    await page.goto(`${base}/?room=${dead}&scenario=bounce`);
    const offer = await page.waitForFunction(
      () => {
        const banner = document.getElementById("banner")!;
        const fresh = banner.querySelector<HTMLAnchorElement>("a.new-room");
        const lobby = banner.querySelector<HTMLAnchorElement>("a.lobby");
        return !banner.hidden && fresh && lobby && { text: banner.textContent, fresh: fresh.href, lobby: lobby.href, connection: (globalThis as Hooked).__physics.connection };
      },
      undefined,
      WAIT,
    );
    const shown = (await offer.jsonValue()) as { text: string; fresh: string; lobby: string; connection: string };
    console.log(`closed room link: banner "${shown.text}", new room ${shown.fresh}, lobby ${shown.lobby}, connection ${shown.connection}`);
    expect(shown.text).toContain(`Room ${dead} is closed`);
    expect(new URL(shown.fresh).search).toBe("?scenario=bounce");
    expect(new URL(shown.lobby).pathname).toBe("/");
    expect(new URL(shown.lobby).search).toBe("");
    expect(shown.connection).toBe("disconnected");
    // Taking the offer: a new bounce room, and the address remembers room and scenario for next time.
    await Promise.all([page.waitForURL((url) => url.search === "?scenario=bounce" || url.searchParams.has("room"), { timeout: 30_000 }), page.evaluate(() => document.querySelector<HTMLAnchorElement>("#banner a.new-room")!.click())]);
    await joined(page);
    const now = await page.evaluate(() => ({ roomId: (globalThis as Hooked).__physics.roomId, scenario: (globalThis as Hooked).__physics.hud().scenario, search: window.location.search }));
    console.log(`after taking the offer: ${JSON.stringify(now)}`);
    expect(now.roomId).not.toBe(dead);
    expect(now.scenario).toBe("bounce");
    expect(new URLSearchParams(now.search).get("room")).toBe(now.roomId);
    expect(new URLSearchParams(now.search).get("scenario")).toBe("bounce");
    await page.close();
  });

  it("a saved link to a closed room that does not name its scenario offers the lobby", async () => {
    const { page } = await openPage();
    await page.goto(`${base}/?room=${dead}`);
    await page.waitForFunction(() => document.querySelector("#banner a.lobby") !== null, undefined, WAIT);
    expect(await page.locator("#banner a.new-room").count()).toBe(0);
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.connection)).toBe("disconnected");
    await page.close();
  });

  it("a long error banner is drawn above the side panels, wrapped within the window", async () => {
    // heap1000 is too big for a player room: the page shows the server's (long) refusal.
    const { page } = await openPage();
    await page.goto(`${base}/?scenario=heap1000`);
    await page.waitForFunction(() => {
      const b = document.getElementById("banner")!;
      return !b.hidden && b.textContent!.length > 80;
    }, undefined, WAIT);
    const layout = await page.evaluate(() => {
      const b = document.getElementById("banner")!;
      const r = b.getBoundingClientRect();
      // Points along the banner's middle line and across its lines: is the banner what is on top there?
      const hidden: string[] = [];
      for (let fx = 0.02; fx < 1; fx += 0.06) {
        for (const fy of [0.25, 0.5, 0.75]) {
          const x = r.left + fx * r.width;
          const y = r.top + fy * r.height;
          const top = document.elementFromPoint(x, y);
          if (!top || !b.contains(top)) hidden.push(`${Math.round(x)},${Math.round(y)} under ${top?.id || top?.tagName}`);
        }
      }
      return { text: b.textContent, left: r.left, right: r.right, height: r.height, width: window.innerWidth, hidden };
    });
    console.log(`long banner: ${layout.left.toFixed(0)}…${layout.right.toFixed(0)} of ${layout.width} px, ${layout.height.toFixed(0)} px tall: "${layout.text}"`);
    expect(layout.left).toBeGreaterThanOrEqual(0);
    expect(layout.right).toBeLessThanOrEqual(layout.width);
    expect(layout.hidden).toEqual([]);
    await page.close();
  });
});

describe("browser client, first minutes: the energy readout", () => {
  it("reads kinetic energy in joules (a drifting ball's ½mv²), and the plot's labels fit on the plot", async () => {
    // One 0.1 m ball (density 1: m = 4.19e-3 kg) drifting at 1 m/s through empty space: 2.09e-3 J, for minutes.
    const mass = (4 / 3) * Math.PI * 0.1 ** 3;
    const expected = 0.5 * mass * 1 ** 2;
    const roomId = await createRoom({
      name: "drifter",
      world: { gravity: [0, 0, 0], sleep: false },
      bodies: [{ id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [0, 20, 0], linearVelocity: [1, 0, 0] }],
    });
    const { page, errors } = await openPage(recordCanvasText);
    await page.goto(`${base}/?room=${roomId}`);
    await joined(page);
    // Milli-joules: the readout's longest form (an exponent).
    await page.waitForFunction(() => (globalThis as Recorded).__texts.some((t) => t.canvas === "ke-plot" && /\de-3 J/.test(t.text)), undefined, WAIT);
    const drawn = await page.evaluate(() => (globalThis as Recorded).__texts.filter((t) => t.canvas === "ke-plot" || t.canvas === "tick-plot"));
    // The labels of the newest redraw of each plot.
    const texts = [...new Map(drawn.map((t) => [`${t.canvas} ${t.text.replace(/[\d.e+–-]+ (J|ms)/, "")}`, t])).values()];
    for (const t of texts) console.log(`${t.canvas}: "${t.text}" x ${t.left.toFixed(1)}…${t.right.toFixed(1)} of ${t.width}`);
    for (const t of texts) {
      expect(t.left, t.text).toBeGreaterThanOrEqual(0);
      expect(t.right, t.text).toBeLessThanOrEqual(t.width);
    }
    const row = await page.evaluate(() => {
      const dd = document.querySelector<HTMLElement>('#hud dd[data-key="kinetic"]')!;
      return { label: dd.previousElementSibling!.textContent, value: dd.textContent!, kinetic: (globalThis as Hooked).__physics.hud().kinetic };
    });
    console.log(`HUD energy row: ${row.label}: ${row.value} (${row.kinetic} J; ½mv² = ${expected.toExponential(3)} J)`);
    expect(row.label).toBe("kinetic energy");
    expect(row.value).toMatch(/^[\d.]+(e[+-]\d+)? J$/);
    expect(Math.abs(row.kinetic - expected) / expected).toBeLessThan(0.1);
    expect(errors).toEqual([]);
    await page.close();
  });
});
