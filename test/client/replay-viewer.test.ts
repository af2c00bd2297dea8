import { mkdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildClient, expectChromium, launchChromium } from "./browser-rig.ts";
import { MSG_IMPULSE, MSG_MOVE, MSG_SPAWN } from "../../shared/net/index.ts";
import { avatarBodyId } from "../../shared/sim/index.ts";
import { admin, createRoom, joinRoom, startTestServer, type TestRoom, type TestServer, waitForState } from "../server/helpers.ts";

/**
 * The replay viewer end to end: a real server serving a fresh build of the client, two SDK players
 * driving an arena room for 60 s of ticks (3600 at 60 Hz) with a few hundred inputs, then Debian's
 * chromium opening `/replay/<roomId>`. The viewer re-simulates the recording in the browser and must
 * reproduce the server's hash at every tick and every keyframe; scrubbing to ticks in random order
 * (backwards too) is timed; a copy with one input changed, opened through the page's file picker, must
 * show the diverging tick and highlight the diverging bodies. Waits are for conditions, never sleeps.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const ARTIFACTS = join(ROOT, "test-artifacts");
const TICKS = 3600;
const WAIT = { timeout: 300_000, polling: 250 } as const;

interface Summary {
  ticks: number;
  verifiedTo: number;
  verified: boolean;
  ticksMatched: number;
  ticksMismatched: number;
  keyframesInFile: number;
  keyframesChecked: number;
  keyframesMatched: number;
  checkpoints: number;
  inputTicks: number;
  divergence: { tick: number; line: number; keyframeTick: number | null; bodies: string[] } | null;
  simError: string | null;
}
interface ReplayHooks {
  state: string;
  error: string | null;
  summary(): Summary | null;
  seek(tick: number): { tick: number; hash: string; recorded: string; ms: number };
  tick: number;
  playing: boolean;
  highlighted(): string[];
  meshCount(): number;
}
type Hooked = typeof globalThis & { __replay: ReplayHooks };

let dist: string;
let srv: TestServer;
let browser: Browser;
let roomId: string;
let replayText: string;
let sessions: string[];
/** The page of the first test, verified already: the scrubbing test reuses it. */
let viewer: { page: Page; errors: string[] } | null = null;

/** Each player sends an input on every patch: walking a changing direction, now and then a jump, a spawn or a push. */
function drive(room: TestRoom, phase: number): void {
  room.onStateChange((state) => {
    const t = state.tick;
    if (t >= TICKS) return;
    const k = Math.floor(t / 40) + phase;
    if (t % 300 < 3 + phase) room.send(MSG_SPAWN, { shape: k % 2 === 0 ? "sphere" : "box", size: 0.25, velocity: [0, 2, 1] });
    else if (t % 450 < 3) room.send(MSG_IMPULSE, { bodyId: `box${k % 150}`, impulse: [1, 5, -1] });
    else room.send(MSG_MOVE, { vx: 4 * ((k % 5) - 2) * 0.5, vz: 3 * ((k % 3) - 1), jump: k % 7 === 0 });
  });
}

async function openPage(path: string): Promise<{ page: Page; errors: string[] }> {
  const page = await browser.newPage({ viewport: { width: 960, height: 600 } });
  const errors: string[] = [];
  page.on("pageerror", (err) => errors.push(err.message));
  await page.goto(`${srv.url}${path}`);
  await page.waitForFunction(() => (globalThis as Hooked).__replay !== undefined, undefined, WAIT);
  return { page, errors };
}

const summary = (page: Page) => page.evaluate(() => (globalThis as Hooked).__replay.summary());

/** Waits until the viewer has re-simulated the whole recording. */
async function verified(page: Page): Promise<Summary> {
  await page.waitForFunction(() => (globalThis as Hooked).__replay.summary()?.verified === true, undefined, WAIT);
  return (await summary(page))!;
}

beforeAll(async () => {
  expectChromium();
  dist = await buildClient("replay-viewer");
  srv = await startTestServer({ clientDir: dist });
  roomId = await createRoom(srv.url, { scenario: "arena" });
  const a = await joinRoom(srv.url, roomId);
  const b = await joinRoom(srv.url, roomId);
  sessions = [a.sessionId, b.sessionId];
  drive(a, 0);
  drive(b, 1);
  await waitForState(a, `tick ${TICKS}`, (s) => s.tick >= TICKS, 240_000);
  await a.leave();
  await b.leave();
  // Disposing the room closes its recording (end line); the replay stays downloadable.
  expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBeLessThan(300);
  const res = await fetch(`${srv.url}/rooms/${roomId}/replay`);
  expect(res.status).toBe(200);
  replayText = await res.text();
  browser = await launchChromium();
}, 400_000);

afterAll(async () => {
  await browser?.close();
  await srv?.close();
  if (dist) rmSync(dist, { recursive: true, force: true });
});

describe("replay viewer in a real browser", () => {
  it("re-simulates a 60 s arena room and reproduces the server's hash at every tick and keyframe", async () => {
    const { page, errors } = await openPage(`/replay/${roomId}`);
    const started = Date.now();
    const s = await verified(page);
    const lines = replayText.trim().split("\n");
    const keyframeLines = lines.filter((l) => l.includes('"type":"keyframe"')).length;
    console.log(
      `viewer verified ${s.ticks} ticks in ${((Date.now() - started) / 1000).toFixed(1)} s: ${s.ticksMatched} tick hashes matched, ` +
        `${s.keyframesMatched}/${s.keyframesChecked} keyframes matched (${keyframeLines} in the file), ${s.inputTicks} ticks with inputs, ${s.checkpoints} checkpoints`,
    );
    expect(s.simError).toBeNull();
    expect(s.divergence).toBeNull();
    expect(s.ticks).toBeGreaterThanOrEqual(TICKS);
    expect(s.ticksMatched).toBe(s.ticks);
    expect(s.ticksMismatched).toBe(0);
    expect(s.keyframesInFile).toBe(keyframeLines);
    expect(s.keyframesChecked).toBe(keyframeLines);
    expect(s.keyframesMatched).toBe(keyframeLines);
    expect(keyframeLines).toBeGreaterThanOrEqual(TICKS / 600);
    expect(s.inputTicks).toBeGreaterThan(500);
    // The page shows the verdict and the hash of the tick shown, equal to the recorded one.
    await page.waitForFunction(() => document.getElementById("replay-status")?.className === "ok", undefined, WAIT);
    const last = JSON.parse(lines.filter((l) => l.startsWith('{"t":')).at(-1)!) as { t: number; h: string };
    await page.evaluate((t) => (globalThis as Hooked).__replay.seek(t), last.t);
    await page.waitForFunction(
      (h) => document.querySelector('[data-field="replayed hash"]')?.textContent === h && document.querySelector('[data-field="recorded hash"]')?.textContent === h,
      last.h,
      WAIT,
    );
    expect(errors).toEqual([]);
    viewer = { page, errors };
  }, 400_000);

  it("scrubs to any tick (random order, backwards included) from its checkpoints", async () => {
    const { page, errors } = viewer ?? (await openPage(`/replay/${roomId}`));
    const s = await verified(page);
    const recorded = replayText
      .trim()
      .split("\n")
      .filter((l) => l.startsWith('{"t":'))
      .map((l) => (JSON.parse(l) as { h: string }).h);
    const targets = [3000, 120, s.ticks, 1799, 1800, 61, 2511, 0, 3599, 907, 2222, 15, 3333, 1, 600];
    const timings: string[] = [];
    let slowest = 0;
    for (const t of targets) {
      const r = await page.evaluate((tick) => (globalThis as Hooked).__replay.seek(tick), t);
      timings.push(`${t}: ${r.ms.toFixed(0)} ms`);
      slowest = Math.max(slowest, r.ms);
      expect(r.tick).toBe(t);
      if (t > 0) expect(r.hash).toBe(recorded[t - 1]);
      // The scene shows the bodies of that tick.
      expect(await page.evaluate(() => (globalThis as Hooked).__replay.meshCount())).toBeGreaterThan(200);
    }
    console.log(`scrub timings (seek + draw + render, ${s.checkpoints} checkpoints): ${timings.join(", ")}; slowest ${slowest.toFixed(0)} ms`);
    // Loose bound (no timing assertions on a shared machine): a seek re-simulating from the start would take ~10x longer.
    expect(slowest).toBeLessThan(10_000);
    // The controls: a tick forward, two back, then play at 4x until it has moved on, and pause.
    const tickIs = (t: number) => page.waitForFunction((x) => (globalThis as Hooked).__replay.tick === x, t, WAIT);
    await page.evaluate(() => (globalThis as Hooked).__replay.seek(1000));
    await page.click("#step-forward");
    await tickIs(1001);
    await page.click("#step-back");
    await page.click("#step-back");
    await tickIs(999);
    await page.selectOption("#speed", "4");
    await page.click("#play");
    await page.waitForFunction(() => (globalThis as Hooked).__replay.tick > 1030, undefined, WAIT);
    await page.click("#play");
    await page.waitForFunction(() => !(globalThis as Hooked).__replay.playing, undefined, WAIT);
    const paused = await page.evaluate(() => (globalThis as Hooked).__replay.tick);
    await page.waitForFunction(
      (t) => document.getElementById("tick-label")?.textContent?.startsWith(`tick ${t} / `) && document.getElementById("tick-label")?.textContent?.includes("4×"),
      paused,
      WAIT,
    );
    console.log(`controls: step forward/back, then 4x playback from tick 999 paused at tick ${paused}`);
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "replay-viewer.png") });
    expect(errors).toEqual([]);
    await page.close();
  }, 400_000);

  it("shows the diverging tick and highlights the diverging bodies of a replay with one input changed", async () => {
    const lines = replayText.split("\n");
    // A move of the first player in the middle of the recording, its velocity changed.
    const index = lines.findIndex((l) => {
      if (!l.startsWith('{"t":')) return false;
      const line = JSON.parse(l) as { t: number; i?: { type: string; session?: string }[] };
      // Exactly one move of that player in the tick (a second one would override the changed one).
      return line.t > 1500 && (line.i ?? []).filter((i) => i.type === "move" && i.session === sessions[0]).length === 1;
    });
    expect(index).toBeGreaterThan(0);
    const line = JSON.parse(lines[index]) as { t: number; i: { type: string; session?: string; vx?: number }[] };
    const move = line.i.find((i) => i.type === "move" && i.session === sessions[0])!;
    move.vx = (move.vx ?? 0) + 2.5;
    lines[index] = JSON.stringify(line);
    const tampered = lines.join("\n");

    const { page, errors } = await openPage("/replay/");
    expect(await page.isVisible("#drop")).toBe(true);
    await page.setInputFiles("#file", { name: "tampered.ndjson", mimeType: "application/x-ndjson", buffer: Buffer.from(tampered) });
    const s = await verified(page);
    console.log(
      `tampered move at tick ${line.t}: viewer reports divergence at tick ${s.divergence?.tick}, ` +
        `${s.divergence?.bodies.length} bodies differ at keyframe ${s.divergence?.keyframeTick}: ${s.divergence?.bodies.slice(0, 8).join(", ")}`,
    );
    expect(s.divergence).not.toBeNull();
    const d = s.divergence!;
    expect(d.tick).toBe(line.t);
    expect(d.line).toBe(index + 1);
    expect(d.keyframeTick).toBeGreaterThanOrEqual(line.t);
    expect(d.bodies).toContain(avatarBodyId(sessions[0]));
    expect(s.ticksMatched).toBeGreaterThanOrEqual(line.t - 1);
    expect(s.ticksMismatched).toBeGreaterThan(0);

    // Before the divergence nothing is highlighted; from it on, exactly the bodies that differ.
    await page.evaluate((t) => (globalThis as Hooked).__replay.seek(t), line.t - 1);
    expect(await page.evaluate(() => (globalThis as Hooked).__replay.highlighted())).toEqual([]);
    await page.evaluate((t) => (globalThis as Hooked).__replay.seek(t), line.t + 30);
    expect(await page.evaluate(() => (globalThis as Hooked).__replay.highlighted())).toEqual([...d.bodies].sort());
    await page.waitForFunction((t) => document.getElementById("replay-status")?.textContent?.includes(`DIVERGED at tick ${t}`), line.t, WAIT);
    const report = await page.textContent("#replay-divergence");
    expect(report).toContain(`first diverging tick: ${line.t} (line ${index + 1})`);
    expect(report).toContain(avatarBodyId(sessions[0]));
    mkdirSync(ARTIFACTS, { recursive: true });
    await page.screenshot({ path: join(ARTIFACTS, "replay-viewer-diverged.png") });
    expect(errors).toEqual([]);
    await page.close();
  }, 400_000);

  it("says clearly what is wrong with a bad file or an unknown room", async () => {
    const { page } = await openPage("/replay/");
    await page.setInputFiles("#file", { name: "broken.ndjson", mimeType: "application/x-ndjson", buffer: Buffer.from(`${replayText.split("\n")[0]}\n{"t":1,"h":"zz"}\n`) });
    await page.waitForFunction(() => (globalThis as Hooked).__replay.state === "error", undefined, WAIT);
    expect(await page.evaluate(() => (globalThis as Hooked).__replay.error)).toBe('broken.ndjson: line 2: h: expected a lowercase hex hash (then ":" and 8 hex digits for a game with fields)');
    await page.close();

    const missing = await openPage("/replay/no-such-room");
    await missing.page.waitForFunction(() => (globalThis as Hooked).__replay.state === "error", undefined, WAIT);
    expect(await missing.page.evaluate(() => (globalThis as Hooked).__replay.error)).toMatch(/^no replay for room no-such-room: HTTP 404/);
    await missing.page.close();
  }, 120_000);
});
