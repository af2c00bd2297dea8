import { mkdirSync, } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JointDef } from "../../shared/engine/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { admin, createRoom, type TestServer } from "../server/helpers.ts";
import { type BrowserRig, startBrowserRig } from "./browser-rig.ts";

/**
 * Joints drawn in the browser: a real server serving a fresh client build, Debian's chromium. The page's
 * three.js scene is caught through three's devtools hook (as in shapes.test.ts) to read the one
 * LineSegments object all joints are drawn with, and the page's `jointLines()` hook says which of its
 * vertices belong to which joint: a line between the two anchors, an arm from each body's origin to its
 * anchor, and a hinge's axis. The anchors are where the bodies are drawn: a swinging box's anchor stays
 * on its pivot while its origin sweeps around it.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const ARTIFACTS = join(ROOT, "test-artifacts", "joints");
const WAIT = { timeout: 90_000, polling: 250 } as const;

/** Pivot of the swinging box: 1.5 m along +x from where the box is released (the pendulum starts level). */
const PIVOT: [number, number, number] = [-0.5, 3.5, -3];
/** Most the weight may hang below the swinging box (rope limits [0, ROPE]). */
const ROPE = 0.5;

const scene: Scenario & { joints: JointDef[] } = {
  name: "joint-draw-test",
  world: { sleep: false },
  camera: { position: [0, 4, 9], target: [0, 2, -2] },
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] },
    { id: "door", type: "dynamic", shape: { type: "box", halfExtents: [0.05, 1, 0.75] }, position: [2.5, 1.1, -0.25] },
    { id: "swing", type: "dynamic", shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] }, position: [-2, 3.5, -3] },
    { id: "weight", type: "dynamic", shape: { type: "sphere", radius: 0.15 }, position: [-2, 2.95, -3] },
  ],
  joints: [
    { id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [2.5, 1.1, -1], axis: [0, 1, 0] },
    { id: "pivot", type: "ball", bodyA: "swing", bodyB: null, anchor: PIVOT },
    { id: "rope", type: "distance", bodyA: "swing", bodyB: "weight", anchor: [-2, 3.3, -3], anchorB: [-2, 3.1, -3], limits: [0, ROPE] },
  ],
};

/** Vertices per joint: link + arm A (+ arm B when B is a body) (+ axis for a hinge). */
const VERTICES: Record<string, number> = { hinge: 6, pivot: 4, rope: 6 };

interface DrawnJoint {
  id: string;
  vertices: number[][];
}
type Hooked = typeof globalThis & {
  __physics: { joined: boolean; bodyCount(): number; meshCount(): number; jointCount(): number; jointLines(): DrawnJoint[] };
  __scenes: { children: { name: string; geometry?: { drawRange: { count: number } } }[] }[];
};

/** The room of the live test, whose recording the replay test opens. */
let liveRoom = "";
type ReplayHooked = typeof globalThis & {
  __replay: { summary(): { verified: boolean; ticks: number; ticksMismatched: number } | null; seek(tick: number): unknown; jointLines(): DrawnJoint[] };
};

let rig: BrowserRig;
let srv: TestServer;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  rig = await startBrowserRig("joints");
  ({ srv, browser } = rig);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** A page joined to `roomId` with every body drawn; the page's Scenes are kept in `__scenes`. */
async function open(roomId: string): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 800, height: 500 } });
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.addInitScript(() => {
    const hooked = globalThis as unknown as { __THREE_DEVTOOLS__: EventTarget; __scenes: unknown[] };
    hooked.__scenes = [];
    hooked.__THREE_DEVTOOLS__ = new EventTarget();
    hooked.__THREE_DEVTOOLS__.addEventListener("observe", (e) => {
      const o = (e as CustomEvent).detail as { isScene?: boolean };
      if (o?.isScene) hooked.__scenes.push(o);
    });
  });
  await page.goto(`${srv.url}/?room=${roomId}`, { waitUntil: "domcontentloaded", timeout: WAIT.timeout });
  await page.waitForFunction(
    () => {
      const p = (globalThis as Hooked).__physics;
      return p?.joined && p.bodyCount() > 0 && p.meshCount() === p.bodyCount();
    },
    undefined,
    WAIT,
  );
  return page;
}

/** The joints drawn in one frame, and the vertex count the scene's "joints" object draws in that frame. */
function drawnJoints(page: Page): Promise<{ joints: DrawnJoint[]; drawRange: number; objects: number }> {
  return page.evaluate(() => {
    const h = globalThis as Hooked;
    const lines = h.__scenes[0].children.filter((o) => o.name === "joints");
    return { joints: h.__physics.jointLines(), drawRange: lines[0]?.geometry?.drawRange.count ?? -1, objects: lines.length };
  });
}

function distance(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
}

describe("joints drawn in the browser", () => {
  it(
    "every joint is drawn between its anchors, which follow the bodies; a joint gone from the room is no longer drawn",
    async () => {
      const roomId = await createRoom(srv.url, { scenario: scene });
      liveRoom = roomId;
      const page = await open(roomId);
      await page.waitForFunction(() => (globalThis as Hooked).__physics.jointLines().length === 3, undefined, WAIT);

      const first = await drawnJoints(page);
      expect(first.objects).toBe(1);
      expect(first.joints.map((j) => j.id)).toEqual(["hinge", "pivot", "rope"]);
      for (const j of first.joints) expect(j.vertices.length, j.id).toBe(VERTICES[j.id]);
      // The geometry three.js draws is exactly these vertices.
      expect(first.drawRange).toBe(first.joints.reduce((n, j) => n + j.vertices.length, 0));
      const byId = new Map(first.joints.map((j) => [j.id, j.vertices]));
      // The door's hinge: both anchors on the hinge's world point, and a vertical axis segment through it.
      const hinge = byId.get("hinge")!;
      expect(distance(hinge[0], [2.5, 1.1, -1])).toBeLessThan(0.01);
      expect(distance(hinge[1], [2.5, 1.1, -1])).toBeLessThan(1e-6);
      const [axisFrom, axisTo] = hinge.slice(4);
      expect(Math.abs(axisTo[1] - axisFrom[1])).toBeCloseTo(0.7, 2);
      expect(Math.hypot(axisTo[0] - axisFrom[0], axisTo[2] - axisFrom[2])).toBeLessThan(0.01);
      expect(distance([(axisFrom[0] + axisTo[0]) / 2, (axisFrom[1] + axisTo[1]) / 2, (axisFrom[2] + axisTo[2]) / 2], hinge[0])).toBeLessThan(1e-5);
      // The HUD counts them.
      await page.waitForFunction(() => document.querySelector('#hud dd[data-key="joints"]')?.textContent === "3", undefined, WAIT);

      // The box swings about its pivot: sample the drawn lines over a second and a half of frames.
      const samples = await page.evaluate(async () => {
        const h = globalThis as Hooked;
        const out: DrawnJoint[][] = [];
        // A second and a half of frames, and at least 12 of them: software WebGL on a loaded machine can
        // draw fewer than 8 a second (at most 10 s).
        const start = performance.now();
        while ((performance.now() < start + 1500 || out.length < 12) && performance.now() < start + 10_000) {
          await new Promise((r) => requestAnimationFrame(r));
          out.push(h.__physics.jointLines());
        }
        return out;
      });
      expect(samples.length).toBeGreaterThan(10);
      let sweep = 0;
      let worstPivot = 0;
      let longestRope = 0;
      const origin0 = samples[0].find((j) => j.id === "pivot")!.vertices[2];
      for (const frame of samples) {
        const pivot = frame.find((j) => j.id === "pivot")!.vertices;
        const rope = frame.find((j) => j.id === "rope")!.vertices;
        // pivot: [A's anchor, the world point, the box's origin, A's anchor].
        worstPivot = Math.max(worstPivot, distance(pivot[0], PIVOT));
        expect(distance(pivot[1], PIVOT)).toBeLessThan(1e-6);
        sweep = Math.max(sweep, distance(pivot[2], origin0));
        // The box's origin stays 1.5 m from the pivot (its anchor's distance in the box's frame).
        expect(distance(pivot[2], PIVOT)).toBeCloseTo(1.5, 1);
        // The rope's ends are on the box and the weight (arms start at their origins) and never farther apart than the rope.
        expect(distance(rope[2], pivot[2])).toBeLessThan(1e-5);
        longestRope = Math.max(longestRope, distance(rope[0], rope[1]));
      }
      console.log(`swing: origin swept ${sweep.toFixed(2)} m; drawn anchor off its pivot by at most ${(worstPivot * 1000).toFixed(1)} mm; rope drawn up to ${longestRope.toFixed(3)} m`);
      expect(sweep).toBeGreaterThan(0.5);
      // Interpolating a turning body's position and rotation separately puts its anchor off the arc by a
      // few millimetres between snapshots; a wrong local anchor would put it metres off.
      expect(worstPivot).toBeLessThan(0.05);
      // The engine keeps this rope within 12 mm of its length. The drawn one is longer when a snapshot is
      // late: the client then extrapolates each body along its own velocity (for up to 50 ms), and the
      // weight whipping round the box at a few m/s has a relative acceleration of tens of m/s² that the
      // straight lines miss (0.58 m drawn on a loaded CI machine). A wrong anchor (a body's origin, or
      // the other body's anchor) would be 0.15 to 0.35 m off.
      expect(longestRope).toBeLessThan(ROPE + 0.1);
      await page.screenshot({ path: join(ARTIFACTS, "joints.png") });

      // The same scene without its rope, through the admin API: the rope is no longer drawn.
      const res = await admin(srv.url, "POST", `/rooms/${roomId}/scenario`, { scenario: { ...scene, joints: scene.joints.filter((j) => j.id !== "rope") } });
      expect(res.status).toBe(200);
      await page.waitForFunction(() => (globalThis as Hooked).__physics.jointLines().map((j) => j.id).join() === "hinge,pivot", undefined, WAIT);
      const after = await drawnJoints(page);
      expect(after.drawRange).toBe(VERTICES.hinge + VERTICES.pivot);
      expect(await page.evaluate(() => (globalThis as Hooked).__physics.jointCount())).toBe(2);
      await page.close();
      expect(pageErrors).toEqual([]);
    },
    240_000,
  );

  it(
    "the replay viewer draws the recorded room's joints: three early on, two after the reload without the rope",
    async () => {
      expect(liveRoom, "the live test's room").not.toBe("");
      // Disposing the room closes its recording; the replay stays downloadable.
      expect((await admin(srv.url, "DELETE", `/rooms/${liveRoom}`)).status).toBeLessThan(300);
      const page = await browser.newPage({ viewport: { width: 800, height: 500 } });
      page.on("pageerror", (err) => pageErrors.push(err.message));
      await page.goto(`${srv.url}/replay/${liveRoom}`);
      await page.waitForFunction(() => (globalThis as ReplayHooked).__replay?.summary()?.verified === true, undefined, WAIT);
      const summary = await page.evaluate(() => (globalThis as ReplayHooked).__replay.summary()!);
      expect(summary.ticksMismatched).toBe(0);
      const at = (tick: number) =>
        page.evaluate((t) => {
          const r = (globalThis as ReplayHooked).__replay;
          r.seek(t);
          return r.jointLines();
        }, tick);
      const early = await at(30);
      expect(early.map((j) => j.id)).toEqual(["hinge", "pivot", "rope"]);
      const pivot = early.find((j) => j.id === "pivot")!.vertices;
      // The viewer draws the engine's own poses (no quantization, no interpolation): the swinging box's
      // anchor is on its pivot up to what the joint gives while swinging (3.5 mm measured at tick 30).
      expect(distance(pivot[0], PIVOT)).toBeLessThan(0.01);
      expect(distance(pivot[2], PIVOT)).toBeCloseTo(1.5, 2);
      const late = await at(summary.ticks);
      expect(late.map((j) => j.id)).toEqual(["hinge", "pivot"]);
      // And back again: scrubbing to before the reload brings the rope back.
      expect((await at(30)).map((j) => j.id)).toEqual(["hinge", "pivot", "rope"]);
      await page.close();
      expect(pageErrors).toEqual([]);
    },
    240_000,
  );
});
