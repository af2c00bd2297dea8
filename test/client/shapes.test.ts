import { mkdirSync, } from "node:fs";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DoubleSide, FrontSide, MeshBasicMaterial, type Object3D, Quaternion, Raycaster, Vector3 } from "three";
import { ShapeGeometries, shapeReach } from "../../client/src/render/shape-geometry.ts";
import { SnapshotBuffer } from "../../client/src/net/snapshot-buffer.ts";
import { createEnergyReading, EnergyMeter, massProperties } from "../../client/src/sim/energy.ts";
import { type BodyDef, BodyTypeCode, type QuatTuple, type ShapeDef, ShapeTypeCode, type Vec3Tuple, World } from "../../shared/engine/index.ts";
import { kindOf, shapeDescriptor } from "../../shared/net/index.ts";
import { getBuiltinScenario, type Scenario } from "../../shared/scenarios/index.ts";
import { createRoom, type TestServer } from "../server/helpers.ts";
import { type BrowserRig, startBrowserRig } from "./browser-rig.ts";

/**
 * Every shape in the browser: a real server (rooms over the admin API) serving a fresh client build,
 * Debian's chromium. The page's three.js scene is caught through three's devtools hook (every Scene
 * announces itself to `__THREE_DEVTOOLS__` when one exists), so the test reads the scene as rendered:
 * one object per body, named by its id, built from the body's shape with the right geometry. The HUD
 * shows each sensor's count.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const ARTIFACTS = join(ROOT, "test-artifacts", "shapes");
const WAIT = { timeout: 90_000, polling: 250 } as const;

/** The three.js geometry class (or Group, for a compound) each shape is drawn with. */
const GEOMETRY: Record<BodyDef["shape"]["type"], string> = {
  sphere: "SphereGeometry",
  box: "BoxGeometry",
  capsule: "CapsuleGeometry",
  cylinder: "CylinderGeometry",
  hull: "BufferGeometry",
  compound: "Group",
  mesh: "BufferGeometry",
  heightfield: "BufferGeometry",
};

interface DrawnBody {
  id: string;
  shape: string;
  geometry: string;
  children: string[];
  triangles: number;
  transparent: boolean;
}
type Hooked = typeof globalThis & {
  __physics: { joined: boolean; bodyCount(): number; meshCount(): number };
  __scenes: { children: unknown[] }[];
};

let rig: BrowserRig;
let srv: TestServer;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  rig = await startBrowserRig("shapes");
  ({ srv, browser } = rig);
  mkdirSync(ARTIFACTS, { recursive: true });
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** A page joined to `roomId` whose scene draws every body of the room; the page's Scenes are kept in `__scenes`. */
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

/** The scene's body objects (named by body id), with their geometry. */
function drawn(page: Page, ids: string[]): Promise<DrawnBody[]> {
  return page.evaluate((ids) => {
    type Node = {
      name: string;
      type: string;
      userData: { shape?: string };
      geometry?: { type: string; index: { count: number } | null; attributes: { position: { count: number } } };
      material?: { transparent: boolean };
      children: Node[];
    };
    const scene = (globalThis as unknown as { __scenes: Node[] }).__scenes[0];
    const wanted = new Set(ids);
    const triangles = (n: Node) => (n.geometry ? (n.geometry.index?.count ?? n.geometry.attributes.position.count) / 3 : 0);
    return scene.children
      .filter((o) => wanted.has(o.name))
      .map((o) => ({
        id: o.name,
        shape: o.userData.shape ?? "",
        geometry: o.geometry ? o.geometry.type : o.type,
        children: o.children.map((c) => c.geometry?.type ?? c.type),
        triangles: triangles(o) + o.children.reduce((n, c) => n + triangles(c), 0),
        transparent: (o.material ?? o.children[0]?.material)?.transparent === true,
      }));
  }, ids);
}

/** What the HUD's sensors row says. */
function sensorsText(page: Page): Promise<string> {
  return page.evaluate(() => document.querySelector<HTMLElement>('#hud dd[data-key="sensors"]')?.textContent ?? "");
}

/** Every body of the scenario drawn with its shape's geometry; sensors translucent. */
async function checkShapes(page: Page, scenario: Scenario): Promise<DrawnBody[]> {
  const ids = scenario.bodies.map((b) => b.id);
  const objects = await drawn(page, ids);
  const byId = new Map(objects.map((o) => [o.id, o]));
  for (const def of scenario.bodies) {
    const o = byId.get(def.id);
    expect(o, `${def.id} is drawn`).toBeDefined();
    expect(o!.shape, def.id).toBe(def.shape.type);
    expect(o!.geometry, def.id).toBe(GEOMETRY[def.shape.type]);
    expect(o!.transparent, `${def.id} translucent iff a sensor`).toBe(def.sensor === true);
    if (def.shape.type === "compound") {
      expect(o!.children, def.id).toEqual(def.shape.children.map((c) => GEOMETRY[c.shape.type]));
    }
    if (def.shape.type === "mesh") expect(o!.triangles, def.id).toBe(def.shape.indices.length);
    if (def.shape.type === "heightfield") expect(o!.triangles, def.id).toBe(2 * (def.shape.rows - 1) * (def.shape.cols - 1));
  }
  return objects;
}

describe("every shape drawn in the browser", () => {
  it(
    "playground: one object per body with its shape's geometry, and the zone's count in the HUD",
    async () => {
      const scenario = getBuiltinScenario("playground")!;
      expect(scenario, "the playground scenario").toBeDefined();
      const kinds = new Set(scenario.bodies.map((b) => b.shape.type));
      expect([...kinds].sort()).toEqual(["box", "capsule", "compound", "cylinder", "heightfield", "hull", "mesh", "sphere"]);
      const roomId = await createRoom(srv.url, { scenario: "playground" });
      const page = await open(roomId);
      const objects = await checkShapes(page, scenario);
      console.log(`playground: ${objects.length} bodies drawn: ${[...new Set(objects.map((o) => `${o.shape}→${o.geometry}`))].join(", ")}`);
      // The zone shows from the start, then counts the bodies rolling into the basin.
      await page.waitForFunction(() => /\bzone: \d+/.test(document.querySelector('#hud dd[data-key="sensors"]')?.textContent ?? ""), undefined, WAIT);
      await page.waitForFunction(() => /\bzone: [1-9]/.test(document.querySelector('#hud dd[data-key="sensors"]')?.textContent ?? ""), undefined, WAIT);
      console.log(`HUD sensors: "${await sensorsText(page)}"`);
      await page.screenshot({ path: join(ARTIFACTS, "playground.png") });
      await page.close();
    },
    240_000,
  );

  it(
    "a custom scenario with one body of every shape; its sensor reads 0, 1 while a ball drifts through it, then 0",
    async () => {
      const scenario = {
        name: "every-shape",
        // No gravity: the drifting ball keeps its speed (everything else rests where it is).
        world: { sleep: false, gravity: [0, 0, 0] },
        camera: { position: [0, 9, 16], target: [0, 1, 0] },
        bodies: [
          { id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] },
          { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.3 }, position: [-6, 0.3, 4] },
          { id: "pill", type: "dynamic", shape: { type: "capsule", radius: 0.3, halfHeight: 0.4 }, position: [-4, 0.7, 0] },
          { id: "drum", type: "dynamic", shape: { type: "cylinder", radius: 0.4, halfHeight: 0.3 }, position: [-2, 0.3, 0] },
          {
            id: "gem",
            type: "dynamic",
            shape: { type: "hull", points: [[0.5, 0, 0], [-0.5, 0, 0], [0, 0.5, 0], [0, -0.5, 0], [0, 0, 0.5], [0, 0, -0.5]] },
            position: [0, 0.5, 0],
          },
          {
            id: "dumbbell",
            type: "dynamic",
            shape: {
              type: "compound",
              children: [
                { shape: { type: "sphere", radius: 0.3 }, position: [-0.6, 0, 0] },
                { shape: { type: "sphere", radius: 0.3 }, position: [0.6, 0, 0] },
                { shape: { type: "cylinder", radius: 0.1, halfHeight: 0.45 }, rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2] },
              ],
            },
            position: [2, 0.3, 0],
          },
          {
            id: "pyramid",
            type: "static",
            shape: {
              type: "mesh",
              vertices: [[-1, 0, -1], [1, 0, -1], [1, 0, 1], [-1, 0, 1], [0, 1, 0]],
              indices: [[0, 4, 1], [1, 4, 2], [2, 4, 3], [3, 4, 0]],
            },
            position: [5, 0, 0],
          },
          {
            id: "bumps",
            type: "static",
            shape: { type: "heightfield", rows: 4, cols: 5, size: [4, 3], heights: [0, 0.1, 0.2, 0.1, 0, 0.1, 0.3, 0.4, 0.3, 0.1, 0.1, 0.3, 0.4, 0.3, 0.1, 0, 0.1, 0.2, 0.1, 0] },
            position: [0, 0, -5],
          },
          { id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 1, 1] }, position: [6, 1, 5] },
          { id: "drifter", type: "dynamic", shape: { type: "sphere", radius: 0.25 }, position: [6, 1, -5], linearVelocity: [0, 0, 1] },
        ],
      } as Scenario;
      const roomId = await createRoom(srv.url, { scenario });
      const page = await open(roomId);
      await checkShapes(page, scenario);
      // The ball reaches the zone (z 4..6) about 8.75 s after the room starts (on this page's join) and
      // leaves it 2.5 s later.
      const seen = await page.evaluate(async () => {
        const texts: string[] = [];
        const cell = () => document.querySelector('#hud dd[data-key="sensors"]')?.textContent ?? "";
        const deadline = performance.now() + 60_000;
        while (performance.now() < deadline) {
          const t = cell();
          if (texts.at(-1) !== t) texts.push(t);
          if (t === "zone: 0" && texts.includes("zone: 1")) break;
          await new Promise((r) => setTimeout(r, 50));
        }
        return texts;
      });
      console.log(`HUD sensors over time: ${JSON.stringify(seen)}`);
      expect(seen.filter((t) => t !== "")).toEqual(["zone: 0", "zone: 1", "zone: 0"]);
      await page.screenshot({ path: join(ARTIFACTS, "every-shape.png") });
      await page.close();
      expect(pageErrors).toEqual([]);
    },
    240_000,
  );
});

/**
 * Rays at a shape from six axis directions and eight diagonals (or straight down only), on a 7 x 7 grid
 * across its reach (offsets that avoid edges).
 */
function probeRays(center: Vec3Tuple, reach: number, downOnly: boolean): { origin: Vector3; direction: Vector3 }[] {
  const rays: { origin: Vector3; direction: Vector3 }[] = [];
  const directions: Vector3[] = [];
  for (const axis of [0, 1, 2]) for (const sign of [1, -1]) directions.push(new Vector3().setComponent(axis, sign));
  for (const x of [1, -1]) for (const y of [1, -1]) for (const z of [1, -1]) directions.push(new Vector3(x, y, z).normalize());
  const c = new Vector3(...center);
  for (const d of downOnly ? [new Vector3(0, -1, 0)] : directions) {
    // Two axes across the ray.
    const u = new Vector3(d.y, d.z, d.x).cross(d).normalize();
    const v = d.clone().cross(u);
    for (let i = 0; i < 7; i++) {
      for (let j = 0; j < 7; j++) {
        const a = (i / 6 - 0.5) * 1.8 * reach + 0.0137 * reach;
        const b = (j / 6 - 0.5) * 1.8 * reach + 0.0291 * reach;
        const origin = c.clone().addScaledVector(d, -3 * reach - 1).addScaledVector(u, a).addScaledVector(v, b);
        rays.push({ origin, direction: d });
      }
    }
  }
  return rays;
}

describe("the drawn geometry is the engine's", () => {
  const ROTATION: QuatTuple = [0.1825742, 0.3651484, 0.5477226, 0.7302967];
  const cases: { name: string; shape: ShapeDef; type: BodyDef["type"]; exact: boolean }[] = [
    { name: "hull (a rock)", shape: getBuiltinScenario("playground")!.bodies.find((b) => b.id === "rock0")!.shape, type: "dynamic", exact: true },
    { name: "hull (off its origin)", shape: { type: "hull", points: [[0, 0, 0], [1.2, 0, 0], [0, 1.2, 0], [0, 0, 1.2], [0.9, 0.9, 0.9]] }, type: "dynamic", exact: true },
    { name: "mesh (the ramp)", shape: getBuiltinScenario("playground")!.bodies.find((b) => b.id === "ramp")!.shape, type: "static", exact: true },
    { name: "heightfield (the hill)", shape: getBuiltinScenario("playground")!.bodies.find((b) => b.id === "hill")!.shape, type: "static", exact: true },
    { name: "compound (a dumbbell)", shape: getBuiltinScenario("playground")!.bodies.find((b) => b.id === "dumbbell0")!.shape, type: "dynamic", exact: false },
    { name: "capsule", shape: { type: "capsule", radius: 0.3, halfHeight: 0.5 }, type: "dynamic", exact: false },
    { name: "cylinder", shape: { type: "cylinder", radius: 0.4, halfHeight: 0.3 }, type: "dynamic", exact: false },
  ];
  for (const c of cases) {
    it(`${c.name}: rays hit the three.js object where they hit the engine's body`, () => {
      const world = new World({ gravity: [0, 0, 0] });
      const position: Vec3Tuple = [1.5, 2, -0.5];
      // Height fields cannot turn (static, axis-aligned by definition): the others are turned to check the pose.
      const rotation: QuatTuple = c.shape.type === "heightfield" ? [0, 0, 0, 1] : ROTATION;
      const handle = world.createBody({ id: "it", type: c.type, shape: c.shape, position, rotation });
      // The object is placed with the body's public (reference) pose, as the client gets it on the wire.
      const object: Object3D = new ShapeGeometries().create(c.shape, new MeshBasicMaterial({ side: c.exact ? FrontSide : DoubleSide }));
      object.position.set(...world.getPosition(handle));
      object.quaternion.copy(new Quaternion(...world.getRotation(handle)));
      object.updateMatrixWorld(true);
      const reach = shapeReach(c.shape);
      const center = new Vector3(...position);
      const raycaster = new Raycaster();
      let both = 0;
      const disagree: string[] = [];
      // A height field is a surface seen from above: the engine treats what lies under it as solid, which
      // no drawn surface shows, so it is probed straight down only.
      const downOnly = c.shape.type === "heightfield";
      for (const { origin, direction } of probeRays([center.x, center.y, center.z], reach, downOnly)) {
        const hit = world.raycast(origin.toArray(), direction.toArray(), 10 * reach + 10);
        raycaster.set(origin, direction);
        const drawn = raycaster.intersectObject(object, true)[0];
        if (!hit && !drawn) continue;
        if (hit && drawn) {
          both++;
          // Polyhedra are drawn exactly (float32 corners); curved shapes within their tessellation (most
          // for rays that graze them).
          const tolerance = c.exact ? 1e-4 * Math.max(1, reach) : 0.1 * reach;
          if (Math.abs(hit.distance - drawn.distance) > tolerance) disagree.push(`distance ${hit.distance.toFixed(4)} vs ${drawn.distance.toFixed(4)}`);
        } else if (c.exact) {
          disagree.push(`${hit ? "engine" : "three.js"} only, from ${origin.toArray().map((v) => v.toFixed(2))} along ${direction.toArray().map((v) => v.toFixed(2))}`);
        }
      }
      expect(both).toBeGreaterThan(downOnly ? 20 : 30);
      expect(disagree.slice(0, 5)).toEqual([]);
    });
  }
});

describe("kinetic energy of the new shapes (client estimate)", () => {
  /** Two snapshots 50 ms apart of one dynamic body: moving `dx` along x and turned by `angle` about y between them. */
  function energyOf(shape: ShapeDef, dx: number, angle: number): number {
    const buffer = new SnapshotBuffer();
    const kind = kindOf(BodyTypeCode.DYNAMIC, ShapeTypeCode[shape.type.toUpperCase() as keyof typeof ShapeTypeCode]);
    const s = Math.sin(angle / 2);
    const c = Math.cos(angle / 2);
    buffer.begin(0);
    Object.assign(buffer.push("it", kind, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, false), { shape: shapeDescriptor(shape) });
    buffer.end();
    buffer.begin(50);
    buffer.push("it", kind, 0, 0, 0, dx, 1, 0, 0, s, 0, c, false);
    buffer.end();
    return new EnergyMeter().measure(buffer, createEnergyReading()).kinetic;
  }

  it("a capsule: ½ m v² moving, ½ I ω² spinning about its axis (the engine's mass properties)", () => {
    const capsule: ShapeDef = { type: "capsule", radius: 0.3, halfHeight: 0.5 };
    const props = massProperties(capsule)!;
    expect(energyOf(capsule, 0.05, 0)).toBeCloseTo(0.5 * props.volume * 1 * 1, 6);
    expect(energyOf(capsule, 0, 0.1)).toBeCloseTo(0.5 * props.inertia[1] * 2 * 2, 6);
  });

  it("a hull whose centre of mass is off its origin: spinning about the origin moves the centre of mass too", () => {
    const hull: ShapeDef = { type: "hull", points: [[0, 0, 0], [1.2, 0, 0], [0, 1.2, 0], [0, 0, 1.2]] };
    const props = massProperties(hull)!;
    const e = energyOf(hull, 0, 0.1);
    // More than the spin about the centre of mass alone: the centre of mass travels on a circle.
    const spinOnly = 0.5 * props.inertia[1] * 2 * 2;
    expect(e).toBeGreaterThan(spinOnly * 1.1);
    const r = Math.hypot(props.center[0], props.center[2]);
    expect(e).toBeLessThan(spinOnly + 0.5 * props.volume * (2 * r) ** 2 * 1.01);
  });
});
