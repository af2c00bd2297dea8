import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { BodyDef, QuatTuple, Vec3Tuple, WorldBounds } from "../../shared/engine/types.ts";
import {
  BUILTIN_SCENARIOS,
  builtinNames,
  getBuiltinScenario,
  loadScenario,
  parseScenarioJson,
  type Scenario,
  validateScenario,
} from "../../shared/scenarios/index.ts";
import { AVATAR } from "../../shared/sim/avatar.ts";

const NAMES = [
  "stack10",
  "pyramid20",
  "pile1000",
  "heap1000",
  "rain2000",
  "positional-correction",
  "bounce",
  "friction-ramp",
  "failure-lab",
  "fiedler-cubes",
  "arena",
  "playground",
  "shapes1000",
  "bridge",
  "chain",
  "ragdolls",
  "cart",
];

/** world.bounds of every built-in scene. */
const BOUNDS: WorldBounds = { min: [-500, -100, -500], max: [500, 500, 500] };

const GROUND: BodyDef = {
  id: "ground",
  type: "static",
  shape: { type: "box", halfExtents: [100, 0.5, 100] },
  position: [0, -0.5, 0],
  friction: 0.5,
  restitution: 0,
};

function scene(name: string): Scenario {
  const s = getBuiltinScenario(name);
  if (!s) throw new Error(`no builtin ${name}`);
  return s;
}

function body(s: Scenario, id: string): BodyDef {
  const b = s.bodies.find((x) => x.id === id);
  if (!b) throw new Error(`no body ${id}`);
  return b;
}

function dynamic(s: Scenario): BodyDef[] {
  return s.bodies.filter((b) => b.type === "dynamic");
}

function isUnitBox(b: BodyDef): boolean {
  return b.shape.type === "box" && b.shape.halfExtents.every((h) => h === 0.5);
}

/** Rotates v by the inverse of unit quaternion q: world to local. */
function inverseRotate(q: QuatTuple, v: Vec3Tuple): Vec3Tuple {
  const [x, y, z, w] = [-q[0], -q[1], -q[2], q[3]];
  // v' = v + 2w (u x v) + 2 u x (u x v), u = (x, y, z)
  const c1 = [y * v[2] - z * v[1], z * v[0] - x * v[2], x * v[1] - y * v[0]];
  const c2 = [y * c1[2] - z * c1[1], z * c1[0] - x * c1[2], x * c1[1] - y * c1[0]];
  return [v[0] + 2 * w * c1[0] + 2 * c2[0], v[1] + 2 * w * c1[1] + 2 * c2[1], v[2] + 2 * w * c1[2] + 2 * c2[2]];
}

describe("builtin registry", () => {
  it("lists every scene", () => {
    expect(builtinNames()).toEqual(NAMES);
    expect(Object.keys(BUILTIN_SCENARIOS)).toEqual(NAMES);
  });

  it("returns undefined for unknown names, including prototype keys", () => {
    expect(getBuiltinScenario("nope")).toBeUndefined();
    expect(getBuiltinScenario("constructor")).toBeUndefined();
    expect(getBuiltinScenario("toString")).toBeUndefined();
    expect(getBuiltinScenario("__proto__")).toBeUndefined();
  });

  for (const name of NAMES) {
    describe(name, () => {
      it("is valid, and validation returns it unchanged (bit for bit)", () => {
        const s = scene(name);
        expect(s.name).toBe(name);
        expect(validateScenario(s)).toEqual({ ok: true, scenario: s });
      });

      it("survives a JSON round trip exactly", () => {
        const s = scene(name);
        expect(parseScenarioJson(JSON.stringify(s))).toEqual({ ok: true, scenario: s });
      });

      it("is deterministic and fresh on every call", () => {
        const a = scene(name);
        const b = scene(name);
        expect(b).toEqual(a);
        expect(b).not.toBe(a);
        a.bodies[0].position[0] = 12345;
        a.bodies.pop();
        expect(scene(name)).toEqual(b);
      });

      it("has a short description", () => {
        const d = scene(name).description ?? "";
        expect(d.length).toBeGreaterThan(20);
        expect(d.length).toBeLessThanOrEqual(400);
      });

      it("uses the reference ground and material where it has a ground", () => {
        const s = scene(name);
        const g = s.bodies.find((b) => b.id === "ground");
        if (g) expect(g).toEqual(GROUND);
        for (const b of dynamic(s)) {
          if (b.mass === undefined) expect(b.density).toBe(1);
          else expect(b.density).toBeUndefined();
        }
      });
    });
  }
});

describe("world bounds", () => {
  /** Scenes cheap enough to run for seconds in a test; the rest are checked by their start positions. */
  const CHEAP = ["stack10", "positional-correction", "bounce", "friction-ramp", "failure-lab", "fiedler-cubes", "arena"];

  it("every built-in carries the same bounds, and its bodies start far inside them", () => {
    for (const name of NAMES) {
      const s = scene(name);
      expect(s.world?.bounds, name).toEqual(BOUNDS);
      for (const b of s.bodies) {
        for (let k = 0; k < 3; k++) {
          expect(b.position[k] - BOUNDS.min[k], `${name} ${b.id}`).toBeGreaterThanOrEqual(99.5);
          expect(BOUNDS.max[k] - b.position[k], `${name} ${b.id}`).toBeGreaterThanOrEqual(99.5);
        }
      }
    }
  });

  it("fit the room: avatars respawn (y < -50) above the floor, and spawn (y <= 100) below the ceiling", () => {
    expect(BOUNDS.min[1]).toBeLessThan(AVATAR.respawnBelowY);
    expect(BOUNDS.max[1]).toBeGreaterThan(AVATAR.spawnProbeY * 2);
  });

  it("remove no body during a normal run (the cheap scenes, 5 s each)", () => {
    for (const name of CHEAP) {
      const { world } = loadScenario(scene(name));
      const bodies = world.bodyCount;
      for (let i = 0; i < 300; i++) {
        world.step();
        expect(world.removedLastStep, name).toEqual([]);
      }
      expect(world.bodyCount, name).toBe(bodies);
    }
  });

  it("remove a body that leaves them, and only that one", () => {
    const { world } = loadScenario(scene("arena"));
    const bodies = world.bodyCount;
    const h = world.handleOf("ball7");
    world.setLinearVelocity(h, [0, 390, 0]);
    const removed: string[] = [];
    for (let i = 0; i < 240 && removed.length === 0; i++) {
      world.step();
      for (const r of world.removedLastStep) removed.push(`${r.id}:${r.reason}`);
    }
    expect(removed).toEqual(["ball7:bounds"]);
    expect(world.handleOf("ball7")).toBe(-1);
    expect(world.bodyCount).toBe(bodies - 1);
  });
});

/** scene geometry: stack10, pyramid20, pile1000 and heap1000. */
function stackAndPileGeometryTests(): void {
  it("stack10: ten unit boxes exactly touching, box0 at the bottom", () => {
    const s = scene("stack10");
    expect(s.world).toEqual({ sleep: false, bounds: BOUNDS });
    expect(s.bodies).toHaveLength(11);
    for (let i = 0; i < 10; i++) {
      const b = body(s, `box${i}`);
      expect(isUnitBox(b)).toBe(true);
      expect(b.position).toEqual([0, 0.5 + i, 0]);
      expect(b).toMatchObject({ friction: 0.5, restitution: 0, density: 1 });
      expect(b.rotation).toBeUndefined();
    }
  });

  it("pyramid20: 210 boxes, row r holds 20 - r centred on x = 0", () => {
    const s = scene("pyramid20");
    expect(s.world).toEqual({ sleep: false, bounds: BOUNDS });
    expect(dynamic(s)).toHaveLength(210);
    expect(s.bodies).toHaveLength(211);
    expect(body(s, "p0_0").position).toEqual([-9.5, 0.5, 0]);
    expect(body(s, "p0_19").position).toEqual([9.5, 0.5, 0]);
    expect(body(s, "p19_0").position).toEqual([0, 19.5, 0]);
    for (let r = 0; r < 20; r++) {
      const row = dynamic(s).filter((b) => b.id.startsWith(`p${r}_`));
      expect(row).toHaveLength(20 - r);
      for (let i = 0; i < row.length; i++) {
        expect(body(s, `p${r}_${i}`).position).toEqual([(i - (20 - r - 1) / 2) * 1.0, 0.5 + r, 0]);
      }
    }
  });

  it("pile1000: 1000 unit boxes turned about y on a 1.5 m grid from y = 3, none overlapping", () => {
    const s = scene("pile1000");
    expect(s.world).toEqual({ sleep: false, bounds: BOUNDS });
    const boxes = dynamic(s);
    expect(boxes).toHaveLength(1000);
    expect(boxes.every(isUnitBox)).toBe(true);
    const xs = boxes.map((b) => b.position[0]);
    const ys = boxes.map((b) => b.position[1]);
    expect([Math.min(...xs), Math.max(...xs)]).toEqual([-6.75, 6.75]);
    expect([Math.min(...ys), Math.max(...ys)]).toEqual([3, 16.5]);
    const rotations = new Set<string>();
    for (const b of boxes) {
      const q = b.rotation!;
      expect(q[0]).toBe(0);
      expect(q[2]).toBe(0);
      expect(Math.abs(q[1] * q[1] + q[3] * q[3] - 1)).toBeLessThan(1e-15);
      // A yawed unit box reaches at most √2/2 < 0.75 horizontally: neighbours 1.5 m apart cannot touch.
      const c = q[3] * q[3] - q[1] * q[1];
      const sn = 2 * q[1] * q[3];
      expect(0.5 * (Math.abs(c) + Math.abs(sn))).toBeLessThan(0.75);
      rotations.add(q.join(","));
    }
    expect(rotations.size).toBe(1000);
    expect(boxes[0].rotation).toEqual([0, 0.742983143130172, 0, 0.6693101291810922]);
  });

  it("heap1000: 1000 tumbled unit boxes on a 1.8 m grid, bounding spheres apart", () => {
    const s = scene("heap1000");
    const boxes = dynamic(s);
    expect(boxes).toHaveLength(1000);
    expect(boxes.every(isUnitBox)).toBe(true);
    // Bounding-sphere radius √3/2 ≈ 0.866 < 0.9 = half the spacing.
    const xs = [...new Set(boxes.map((b) => b.position[0]))].sort((a, b) => a - b);
    expect(xs[1] - xs[0]).toBeCloseTo(1.8, 12);
    expect(Math.sqrt(3) / 2).toBeLessThan(0.9);
    expect(new Set(boxes.map((b) => b.rotation!.join(","))).size).toBe(1000);
    expect(boxes[0].rotation).toEqual([0.3220256497122115, 0.006951244593546275, 0.8413432576135492, 0.4340422606086298]);
  });
}

/** scene geometry: rain2000, positional-correction and bounce. */
function rainAndSmallScenesGeometryTests(): void {
  it("rain2000: 2000 spheres of radius 0.5 on a 20 x 5 x 20 grid, 1.2 m apart, from y = 2", () => {
    const s = scene("rain2000");
    expect(s.world).toEqual({ sleep: false, bounds: BOUNDS });
    const balls = dynamic(s);
    expect(balls).toHaveLength(2000);
    expect(balls.every((b) => b.shape.type === "sphere" && b.shape.radius === 0.5 && !b.rotation)).toBe(true);
    const axis = (k: number) => [...new Set(balls.map((b) => b.position[k]))].sort((a, b) => a - b);
    expect(axis(0)).toHaveLength(20);
    expect(axis(1)).toHaveLength(5);
    expect(axis(2)).toHaveLength(20);
    expect(axis(1)[0]).toBe(2);
    expect(axis(0)[0]).toBeCloseTo(-11.4, 12);
    expect(axis(0)[19]).toBeCloseTo(11.4, 12);
    expect(axis(0)[1] - axis(0)[0]).toBeCloseTo(1.2, 12);
  });

  it("positional-correction: two unit spheres overlapping 0.5 m, slop 0.05, 40 % per pass", () => {
    const s = scene("positional-correction");
    expect(s.world).toEqual({
      gravity: [0, 0, 0],
      velocityIterations: 1,
      positionCorrection: { method: "projection", slop: 0.05, percent: 0.4, iterations: 1 },
      sleep: false,
      bounds: BOUNDS,
    });
    expect(s.bodies.map((b) => [b.id, b.type, b.shape, b.position, b.mass])).toEqual([
      ["a", "dynamic", { type: "sphere", radius: 1 }, [0, 0, 0], 1],
      ["b", "dynamic", { type: "sphere", radius: 1 }, [1.5, 0, 0], 1],
    ]);
  });

  it("bounce: three spheres from y = 5 with restitution 0, 0.5, 0.9", () => {
    const s = scene("bounce");
    expect(s.world).toEqual({ sleep: false, bounds: BOUNDS });
    expect(dynamic(s).map((b) => [b.id, b.position, b.restitution, b.shape])).toEqual([
      ["e0", [-2, 5, 0], 0, { type: "sphere", radius: 0.5 }],
      ["e05", [0, 5, 0], 0.5, { type: "sphere", radius: 0.5 }],
      ["e09", [2, 5, 0], 0.9, { type: "sphere", radius: 0.5 }],
    ]);
  });
}

/** scene geometry: friction-ramp, failure-lab and fiedler-cubes. */
function rampLabAndCubesGeometryTests(): void {
  it("friction-ramp: boxes rest on a 20° ramp descending toward -x, effective μ 0.5 and 0.2", () => {
    const s = scene("friction-ramp");
    expect(s.world).toEqual({ sleep: false, bounds: BOUNDS });
    const ramp = body(s, "ramp");
    const q: QuatTuple = [0, 0, 0.17364817766693033, 0.984807753012208];
    expect(ramp).toMatchObject({ type: "static", shape: { type: "box", halfExtents: [5, 0.25, 2] }, rotation: q, friction: 1 });
    // The +x end is higher: the ramp descends toward -x.
    const tip = inverseRotate([-q[0], -q[1], -q[2], q[3]], [5, 0, 0]);
    expect(tip[1]).toBeCloseTo(5 * 0.3420201433256687, 12);
    expect(tip[0]).toBeGreaterThan(0);
    // The ramp clears the ground.
    const lowCorner = inverseRotate([-q[0], -q[1], -q[2], q[3]], [-5, -0.25, 0]);
    expect(ramp.position[1] + lowCorner[1]).toBeGreaterThan(0);

    const grip = body(s, "grip");
    const slide = body(s, "slide");
    expect(Math.sqrt(ramp.friction! * grip.friction!)).toBeCloseTo(0.5, 15);
    expect(Math.sqrt(ramp.friction! * slide.friction!)).toBeCloseTo(0.2, 15);
    for (const b of [grip, slide]) {
      expect(isUnitBox(b)).toBe(true);
      expect(b.rotation).toEqual(q);
      const local = inverseRotate(q, [
        b.position[0] - ramp.position[0],
        b.position[1] - ramp.position[1],
        b.position[2] - ramp.position[2],
      ]);
      // Bottom face (local y - 0.5) on the ramp's top face (local y 0.25), within the ramp's extent.
      expect(local[1]).toBeCloseTo(0.75, 12);
      expect(Math.abs(local[0]) + 0.5).toBeLessThanOrEqual(5);
      expect(Math.abs(local[2]) + 0.5).toBeLessThanOrEqual(2);
    }
    expect(slide.position[2] - grip.position[2]).toBe(1.5);
    expect(slide.position[0]).toBe(grip.position[0]);
    expect(slide.position[1]).toBe(grip.position[1]);
  });

  it("failure-lab: a static platform for players beside (not in) the line of fire, with the spawn point above it", () => {
    const s = scene("failure-lab");
    const platform = body(s, "platform");
    expect(platform.type).toBe("static");
    if (platform.shape.type !== "box") throw new Error("shape");
    const [hx, hy, hz] = platform.shape.halfExtents;
    const [x, y, z] = platform.position;
    // The bullet (radius 0.1) flies along y = 1, z = 0 from x = 0; the wall stands at z -1..1.
    expect(z - hz).toBeGreaterThan(2);
    expect(y + hy).toBe(0);
    const spawn = s.spawn!;
    expect(Math.abs(spawn[0] - x)).toBeLessThan(hx);
    expect(Math.abs(spawn[2] - z)).toBeLessThan(hz);
    expect(spawn[1]).toBeGreaterThan(y + hy);
  });

  it("failure-lab: the wall's near face is 7.5 m from the bullet's surface", () => {
    const s = scene("failure-lab");
    expect(s.world).toEqual({ gravity: [0, 0, 0], sleep: false, ccd: true, bounds: BOUNDS });
    expect(s.bodies).toHaveLength(3);
    const bullet = body(s, "bullet");
    const wall = body(s, "wall");
    expect(bullet).toMatchObject({ type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [0, 1, 0], density: 1 });
    expect(bullet.linearVelocity).toEqual([300, 0, 0]);
    expect(wall).toMatchObject({ type: "static", shape: { type: "box", halfExtents: [0.05, 1, 1] }, position: [7.65, 1, 0] });
    if (bullet.shape.type !== "sphere" || wall.shape.type !== "box") throw new Error("shapes");
    const nearFace = wall.position[0] - wall.shape.halfExtents[0];
    const surface = bullet.position[0] + bullet.shape.radius;
    expect(nearFace - surface).toBeCloseTo(7.5, 12);
    expect(2 * wall.shape.halfExtents[0]).toBeCloseTo(0.1, 15);
    // The bullet is level with the wall's centre and within its face.
    expect(bullet.position[1]).toBe(wall.position[1]);
    // One 60 Hz tick moves the bullet 5 m: far more than the wall's thickness.
    expect(300 / 60).toBeGreaterThan(2 * wall.shape.halfExtents[0] + 2 * bullet.shape.radius);
  });

  it("fiedler-cubes: 900 unit boxes resting on the ground in a 30 x 30 grid, 1.5 m apart", () => {
    const s = scene("fiedler-cubes");
    expect(s.world).toEqual({ bounds: BOUNDS });
    expect(s.bodies).toHaveLength(901);
    const boxes = dynamic(s);
    expect(boxes).toHaveLength(900);
    expect(boxes.every((b) => isUnitBox(b) && b.position[1] === 0.5 && !b.rotation)).toBe(true);
    expect(body(s, "c0_0").position).toEqual([-21.75, 0.5, -21.75]);
    expect(body(s, "c29_29").position).toEqual([21.75, 0.5, 21.75]);
    expect(body(s, "c1_0").position[0] - body(s, "c0_0").position[0]).toBe(1.5);
    expect(body(s, "c0_1").position[2] - body(s, "c0_0").position[2]).toBe(1.5);
    const sumX = boxes.reduce((acc, b) => acc + b.position[0], 0);
    expect(Math.abs(sumX)).toBeLessThan(1e-9);
  });
}

/** scene geometry: arena. */
function arenaGeometryTests(): void {
  it("arena: 150 boxes and 50 spheres resting inside four walls without overlaps", () => {
    const s = scene("arena");
    expect(s.world).toEqual({ bounds: BOUNDS });
    const statics = s.bodies.filter((b) => b.type === "static");
    expect(statics.map((b) => b.id)).toEqual(["ground", "wall-north", "wall-south", "wall-east", "wall-west"]);
    expect(s.bodies).toHaveLength(205);
    const bodies = dynamic(s);
    expect(bodies).toHaveLength(200);
    expect(bodies.filter(isUnitBox)).toHaveLength(150);
    expect(bodies.filter((b) => b.shape.type === "sphere" && b.shape.radius === 0.5)).toHaveLength(50);

    // Walls: 1 m thick, 2 m high, standing on the ground, inner faces at ±20.
    for (const w of statics.slice(1)) {
      if (w.shape.type !== "box") throw new Error("wall shape");
      const he = w.shape.halfExtents;
      expect(he[1]).toBe(1);
      expect(w.position[1]).toBe(1);
      expect(Math.min(he[0], he[2])).toBe(0.5);
      const axis = he[0] === 0.5 ? 0 : 2;
      expect(Math.abs(w.position[axis]) - 0.5).toBe(20);
      expect(he[2 - axis]).toBeGreaterThanOrEqual(20);
    }

    // Footprint radius in the ground plane: a yawed unit box reaches √0.5 from its centre.
    const reach = (b: BodyDef) => (b.shape.type === "box" ? Math.SQRT1_2 : 0.5);
    for (let i = 0; i < bodies.length; i++) {
      const a = bodies[i];
      expect(a.position[1]).toBe(0.5);
      expect(a.friction).toBe(0.5);
      expect(Math.abs(a.position[0]) + reach(a)).toBeLessThan(20);
      expect(Math.abs(a.position[2]) + reach(a)).toBeLessThan(20);
      if (a.rotation) {
        // Yaw only, so the box sits flat on the ground.
        expect(a.rotation[0]).toBe(0);
        expect(a.rotation[2]).toBe(0);
      }
      for (let j = i + 1; j < bodies.length; j++) {
        const b = bodies[j];
        const dx = a.position[0] - b.position[0];
        const dz = a.position[2] - b.position[2];
        expect(Math.sqrt(dx * dx + dz * dz)).toBeGreaterThan(reach(a) + reach(b));
      }
    }
  });
}

describe("scene geometry", () => {
  stackAndPileGeometryTests();
  rainAndSmallScenesGeometryTests();
  rampLabAndCubesGeometryTests();
  arenaGeometryTests();
});

describe("shared/scenarios sources", () => {
  const root = join(import.meta.dirname, "../../shared/scenarios");
  const files = readdirSync(root, { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
  /** Source without comments (which may name the very functions that are banned). */
  const code = (file: string) =>
    readFileSync(join(root, file), "utf8")
      .replace(/\/\*[\s\S]*?\*\//g, "")
      .replace(/(^|[^:])\/\/.*$/gm, "$1");

  it("use no randomness or transcendental functions whose bits differ between engines", () => {
    expect(files.length).toBeGreaterThan(5);
    for (const file of files) {
      const text = code(file);
      expect(text, file).not.toMatch(/Math\.(random|sin|cos|tan|asin|acos|atan2?|pow|exp|expm1|log\w*|hypot|cbrt)\b/);
      expect(text, file).not.toMatch(/[\w)\]]\s*\*\*\s*[\w(]/);
    }
  });

  it("import nothing from Node, the DOM or outside shared/", () => {
    for (const file of files) {
      const text = code(file);
      for (const m of text.matchAll(/from\s+"([^"]+)"/g)) {
        expect(m[1], file).toMatch(/^\.\.?\//);
        expect(m[1], file).not.toMatch(/server|client/);
      }
      expect(text, file).not.toMatch(/\b(window|document|process|Buffer|require)\b/);
    }
  });
});
