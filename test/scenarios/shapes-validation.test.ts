import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { ShapeDef } from "../../shared/engine/types.ts";
import { getBuiltinScenario } from "../../shared/scenarios/builtins/index.ts";
import { TERRAIN_SAMPLES, TERRAIN_SIZE, terrainHeight } from "../../shared/scenarios/builtins/playground.ts";
import { createPrng } from "../../shared/scenarios/prng.ts";
import type { ScenarioIssue } from "../../shared/scenarios/format.ts";
import { parseScenarioJson, validateScenario } from "../../shared/scenarios/validate.ts";
import { SHAPE_LIMITS } from "../../shared/scenarios/validate-shapes.ts";

/** The scenario format's capsule, cylinder, hull, compound, mesh and height field shapes. */
type Json = Record<string, unknown>;

function body(shape: unknown, extra: Json = {}): Json {
  return { id: "b", type: "dynamic", shape, position: [0, 0, 0], ...extra };
}

function scenario(...bodies: Json[]): Json {
  return { name: "shapes", bodies };
}

function issuesOf(input: unknown): ScenarioIssue[] {
  const result = validateScenario(input);
  if (result.ok) throw new Error("expected validation to fail");
  return result.issues;
}

/** The one issue a single bad body gives. */
function only(shape: unknown, extra: Json = {}): ScenarioIssue {
  const issues = issuesOf(scenario(body(shape, extra)));
  expect(issues).toHaveLength(1);
  return issues[0];
}

const CUBE = [
  [-1, -1, -1],
  [1, -1, -1],
  [1, 1, -1],
  [-1, 1, -1],
  [-1, -1, 1],
  [1, -1, 1],
  [1, 1, 1],
  [-1, 1, 1],
];
const TETRAHEDRON = [
  [0, 0, 0],
  [1, 0, 0],
  [0, 1, 0],
  [0, 0, 1],
];
/** A unit square in y = 0 as two triangles. */
const SQUARE = {
  type: "mesh",
  vertices: [
    [0, 0, 0],
    [1, 0, 0],
    [1, 0, 1],
    [0, 0, 1],
  ],
  indices: [
    [0, 2, 1],
    [0, 3, 2],
  ],
};

function field(rows: number, cols: number, heights = new Array<number>(rows * cols).fill(0)): Json {
  return { type: "heightfield", heights, rows, cols, size: [10, 10] };
}

function dumbbell(bar: Json = { type: "cylinder", radius: 0.1, halfHeight: 0.5 }): Json {
  return {
    type: "compound",
    children: [
      { shape: { type: "sphere", radius: 0.3 }, position: [-0.6, 0, 0] },
      { shape: { type: "sphere", radius: 0.3 }, position: [0.6, 0, 0] },
      { shape: bar, rotation: [0, 0, 1, 1] },
    ],
  };
}

describe("new shapes: accepted", () => {
  it.each([
    ["capsule", body({ type: "capsule", radius: 0.3, halfHeight: 0.5 })],
    ["cylinder", body({ type: "cylinder", radius: 0.5, halfHeight: 0.25 })],
    ["hull (cube corners)", body({ type: "hull", points: CUBE })],
    ["hull (tetrahedron)", body({ type: "hull", points: TETRAHEDRON })],
    ["compound of every convex kind", body({ type: "compound", children: [
      { shape: { type: "sphere", radius: 1 } },
      { shape: { type: "box", halfExtents: [1, 1, 1] }, position: [2, 0, 0] },
      { shape: { type: "capsule", radius: 0.5, halfHeight: 1 }, position: [0, 2, 0], rotation: [0, 0, 0, 1] },
      { shape: { type: "cylinder", radius: 0.5, halfHeight: 1 }, position: [0, 0, 2] },
      { shape: { type: "hull", points: TETRAHEDRON }, position: [-2, 0, 0] },
    ] })],
    ["static mesh", body(SQUARE, { type: "static" })],
    ["kinematic mesh", body(SQUARE, { type: "kinematic", linearVelocity: [1, 0, 0] })],
    ["static mesh sensor", body(SQUARE, { type: "static", sensor: true })],
    ["static heightfield", body(field(2, 3, [0, 1, 2, 3, 4, 5]), { type: "static" })],
    ["heightfield sensor with collision groups", body(field(2, 2), { type: "static", sensor: true, collisionGroups: { memberships: 1, filter: 2 } })],
  ])("%s", (_name, b) => {
    const input = scenario(b);
    expect(validateScenario(input)).toEqual({ ok: true, scenario: input });
  });

  it("accepts the limits: 256 hull points, 64 children, 1024 x 2 samples", () => {
    const ring = Array.from({ length: 256 }, (_, i) => [i % 2 === 0 ? 1 : -1, (i % 16) / 4, Math.floor(i / 16) / 4]);
    const children = Array.from({ length: 64 }, (_, i) => ({ shape: { type: "sphere", radius: 0.1 }, position: [i, 0, 0] }));
    const input = scenario(
      body({ type: "hull", points: ring }, { id: "h" }),
      body({ type: "compound", children }, { id: "c" }),
      body(field(1024, 2), { id: "f", type: "static" }),
    );
    expect(validateScenario(input)).toEqual({ ok: true, scenario: input });
  });

  it("normalises a compound child's rotation as it normalises a body's", () => {
    const result = validateScenario(scenario(body(dumbbell())));
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    const shape = result.scenario.bodies[0].shape;
    if (shape.type !== "compound") throw new Error("shape");
    const half = 1 / Math.sqrt(2);
    expect(shape.children[2].rotation).toEqual([0, 0, half, half]);
    expect(issuesOf(scenario(body({ type: "compound", children: [{ shape: { type: "sphere", radius: 1 }, rotation: [0, 0, 0, 0] }] })))).toEqual([
      { path: "bodies[0].shape.children[0].rotation", message: "must not be a zero quaternion" },
    ]);
  });

  it("lists every shape type for an unknown one", () => {
    expect(only({ type: "cone", radius: 1 })).toEqual({
      path: "bodies[0].shape.type",
      message: 'must be one of "sphere", "box", "capsule", "cylinder", "hull", "compound", "mesh", "heightfield"',
    });
  });
});

describe("new shapes: each bad input gives one issue naming the field", () => {
  it("capsule and cylinder sizes are held to the sphere and box limits", () => {
    expect(only({ type: "capsule", radius: 0, halfHeight: 1 })).toEqual({ path: "bodies[0].shape.radius", message: "must be > 0" });
    expect(only({ type: "capsule", radius: 1 })).toEqual({ path: "bodies[0].shape.halfHeight", message: "is required" });
    expect(only({ type: "cylinder", radius: 1, halfHeight: 1001 })).toEqual({ path: "bodies[0].shape.halfHeight", message: "must be <= 1000" });
    expect(only({ type: "cylinder", radius: 0.0005, halfHeight: 1 })).toEqual({ path: "bodies[0].shape.radius", message: "must be >= 0.001" });
    expect(only({ type: "cylinder", radius: 1, halfHeight: 1, halfExtents: [1, 1, 1] })).toEqual({
      path: "bodies[0].shape",
      message: 'unknown key "halfExtents"',
    });
  });

  it("a hull with 3 points", () => {
    expect(only({ type: "hull", points: TETRAHEDRON.slice(0, 3) })).toEqual({
      path: "bodies[0].shape.points",
      message: "a convex hull needs at least 4 points that are not all in one plane; got 3",
    });
  });

  it("a coplanar hull", () => {
    const flat = CUBE.map(([x, y]) => [x, y, 0.5]);
    expect(only({ type: "hull", points: flat })).toEqual({
      path: "bodies[0].shape.points",
      message: "a convex hull needs at least 4 points that are not all in one plane",
    });
  });

  it("a hull too small to have a finite inertia", () => {
    const speck = TETRAHEDRON.map((p) => p.map((x) => x * 1e-4));
    expect(only({ type: "hull", points: speck })).toEqual({
      path: "bodies[0].shape.points",
      message: "must enclose at least 1e-9 m³ (a 0.001 m cube), got 1.667e-13 m³",
    });
  });

  it("a hull with more than 256 points, or a point out of range", () => {
    const many = Array.from({ length: 257 }, (_, i) => [i, i * i, i * i * i]);
    expect(only({ type: "hull", points: many })).toEqual({ path: "bodies[0].shape.points", message: "at most 256 points, got 257" });
    const far = CUBE.map((p) => [...p]);
    far[2][1] = 2000;
    expect(only({ type: "hull", points: far })).toEqual({ path: "bodies[0].shape.points[2][1]", message: "must be <= 1000" });
  });

  it("a mesh index out of range", () => {
    const mesh = { ...SQUARE, indices: [[0, 2, 1], [0, 4, 2]] };
    expect(only(mesh, { type: "static" })).toEqual({
      path: "bodies[0].shape.indices[1][1]",
      message: "must be < 4, the number of vertices",
    });
  });

  it("a mesh with a NaN vertex (through the API with a JS object) and an overflowing one (JSON text)", async () => {
    const nan = { ...SQUARE, vertices: [[0, 0, 0], [Number.NaN, 0, 0], [1, 0, 1], [0, 0, 1]] };
    const expected = { path: "bodies[0].shape.vertices[1][0]", message: "must be a finite number" };
    expect(only(nan, { type: "static" })).toEqual(expected);
    // JSON has no NaN; 1e999 parses to Infinity.
    const text = JSON.stringify(scenario(body(SQUARE, { type: "static" }))).replace("[1,0,0]", "[1e999,0,0]");
    const parsed = parseScenarioJson(text);
    expect(parsed.ok ? [] : parsed.issues).toEqual([expected]);
    // The admin API's route (POST /rooms) resolves its `scenario` field through resolveScenario (which
    // loads the engine, so it is imported here only).
    const { resolveScenario } = await import("../../server/scenario-input.ts");
    const resolved = resolveScenario(scenario(body(nan, { type: "static" })));
    expect(resolved.ok ? [] : resolved.issues).toEqual([{ ...expected, path: `scenario.${expected.path}` }]);
  });

  it("a mesh with a repeated index, a degenerate triangle, no triangles, or too many", () => {
    expect(only({ ...SQUARE, indices: [[0, 0, 1]] }, { type: "static" })).toEqual({
      path: "bodies[0].shape.indices[0]",
      message: "must name three different vertices",
    });
    const line = { ...SQUARE, vertices: [[0, 0, 0], [1, 0, 0], [2, 0, 0]], indices: [[0, 1, 2]] };
    expect(only(line, { type: "static" })).toEqual({ path: "bodies[0].shape.indices[0]", message: "is degenerate: its corners lie on one line" });
    expect(only({ ...SQUARE, indices: [] }, { type: "static" })).toEqual({ path: "bodies[0].shape.indices", message: "needs at least 1 triangle, got 0" });
    const tooMany = new Array(SHAPE_LIMITS.maxMeshTriangles + 1).fill([0, 1, 2]);
    expect(only({ ...SQUARE, indices: tooMany }, { type: "static" })).toEqual({
      path: "bodies[0].shape.indices",
      message: "at most 131072 triangles, got 131073",
    });
  });

  it("a dynamic mesh", () => {
    expect(only(SQUARE)).toEqual({ path: "bodies[0].type", message: "a mesh body must be static or kinematic" });
    // Reported with the mesh's own problems, not instead of them.
    expect(issuesOf(scenario(body({ ...SQUARE, indices: [[0, 1, 4]] })))).toEqual([
      { path: "bodies[0].shape.indices[0][2]", message: "must be < 4, the number of vertices" },
      { path: "bodies[0].type", message: "a mesh body must be static or kinematic" },
    ]);
  });

  it("heightfield heights length ≠ rows × cols", () => {
    expect(only(field(3, 4, [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]), { type: "static" })).toEqual({
      path: "bodies[0].shape.heights",
      message: "must hold rows × cols = 12 heights, got 11",
    });
  });

  it("a heightfield that is not static, too small, or with a bad size or height", () => {
    expect(only(field(2, 2), { type: "kinematic" })).toEqual({ path: "bodies[0].type", message: "a heightfield body must be static" });
    expect(only(field(2, 2))).toEqual({ path: "bodies[0].type", message: "a heightfield body must be static" });
    expect(only(field(1, 4, [0, 0, 0, 0]), { type: "static" })).toEqual({ path: "bodies[0].shape.rows", message: "must be >= 2" });
    expect(only(field(2, 1025, [0]), { type: "static" })).toEqual({ path: "bodies[0].shape.cols", message: "must be <= 1024" });
    expect(only({ ...field(2, 2), size: [10, 0] }, { type: "static" })).toEqual({ path: "bodies[0].shape.size[1]", message: "must be > 0" });
    expect(only({ ...field(2, 2), size: [10] }, { type: "static" })).toEqual({ path: "bodies[0].shape.size", message: "must have exactly 2 elements, got 1" });
    expect(only(field(2, 2, [0, 1, 2e5, 3]), { type: "static" })).toEqual({ path: "bodies[0].shape.heights[2]", message: "must be <= 100000" });
  });

  it("a compound with 0 children and with 65", () => {
    expect(only({ type: "compound", children: [] })).toEqual({ path: "bodies[0].shape.children", message: "needs at least 1 child, got 0" });
    const children = Array.from({ length: 65 }, () => ({ shape: { type: "sphere", radius: 0.1 } }));
    expect(only({ type: "compound", children })).toEqual({ path: "bodies[0].shape.children", message: "at most 64 children, got 65" });
  });

  it("a nested compound, mesh or heightfield", () => {
    expect(only(dumbbell(dumbbell()))).toEqual({
      path: "bodies[0].shape.children[2].shape.type",
      message: 'a compound\'s child must be a convex shape (one of "sphere", "box", "capsule", "cylinder", "hull"), not a compound',
    });
    expect(only(dumbbell(SQUARE)).path).toBe("bodies[0].shape.children[2].shape.type");
    expect(only(dumbbell(field(2, 2))).message).toMatch(/not a heightfield$/);
  });

  it("a bad child: its own problems at its own path", () => {
    expect(only(dumbbell({ type: "hull", points: TETRAHEDRON.slice(1) }))).toEqual({
      path: "bodies[0].shape.children[2].shape.points",
      message: "a convex hull needs at least 4 points that are not all in one plane; got 3",
    });
    const moved = { type: "compound", children: [{ shape: { type: "sphere", radius: 1 }, position: [0, 1001, 0], scale: 2 }] };
    expect(issuesOf(scenario(body(moved)))).toEqual([
      { path: "bodies[0].shape.children[0]", message: 'unknown key "scale"' },
      { path: "bodies[0].shape.children[0].position[1]", message: "must be <= 1000" },
    ]);
  });

  it("dynamic shapes go through the mass checks: a huge capsule is too heavy", () => {
    expect(only({ type: "capsule", radius: 1000, halfHeight: 1000 }, { density: 1e5 })).toEqual({
      path: "bodies[0].density",
      message: 'gives "b" a mass of 1.0471975511965976e15 kg, more than 1e15 kg',
    });
    const hull = body({ type: "hull", points: TETRAHEDRON }, { id: "tiny", density: 1e-6 });
    const heavy = body({ type: "cylinder", radius: 1, halfHeight: 1 }, { id: "heavy", density: 1e3 });
    const issues = issuesOf(scenario(hull, heavy));
    expect(issues).toHaveLength(1);
    expect(issues[0].path).toBe("bodies[1].density");
    expect(issues[0].message).toMatch(/^"heavy" \(6283 kg\) is more than 1e6 times as heavy as the lightest dynamic body, "tiny" \(bodies\[0\], 1\.667e-7 kg\)/);
  });
});

describe("the playground built-in", () => {
  it("validates unchanged and survives a JSON round trip", () => {
    const s = getBuiltinScenario("playground");
    if (!s) throw new Error("no playground");
    expect(validateScenario(s)).toEqual({ ok: true, scenario: s });
    expect(parseScenarioJson(JSON.stringify(s))).toEqual({ ok: true, scenario: s });
  });

  it("holds every new shape, the sensor zone and 30 to 40 bodies", () => {
    const s = getBuiltinScenario("playground")!;
    const count = (type: string) => s.bodies.filter((b) => b.shape.type === type).length;
    expect(s.bodies.length).toBeGreaterThanOrEqual(30);
    expect(s.bodies.length).toBeLessThanOrEqual(40);
    expect(count("heightfield")).toBe(1);
    expect(count("mesh")).toBe(1);
    expect(count("capsule")).toBeGreaterThanOrEqual(6);
    expect(count("cylinder")).toBeGreaterThanOrEqual(6);
    expect(count("hull")).toBeGreaterThanOrEqual(6);
    expect(count("compound")).toBe(4);
    const zone = s.bodies.find((b) => b.id === "zone");
    expect(zone).toMatchObject({ type: "static", sensor: true, shape: { type: "box" } });
  });
});

/** Radius of a sphere about the shape's origin that holds it (convex and compound shapes). */
function reach(shape: ShapeDef): number {
  const length = (p: readonly number[]) => Math.sqrt(p[0] * p[0] + p[1] * p[1] + p[2] * p[2]);
  switch (shape.type) {
    case "sphere":
      return shape.radius;
    case "box":
      return length(shape.halfExtents);
    case "capsule":
      return shape.radius + shape.halfHeight;
    case "cylinder":
      return Math.sqrt(shape.radius * shape.radius + shape.halfHeight * shape.halfHeight);
    case "hull":
      return Math.max(...shape.points.map(length));
    case "compound":
      return Math.max(...shape.children.map((c) => length(c.position ?? [0, 0, 0]) + reach(c.shape)));
    default:
      throw new Error(`no reach for ${shape.type}`);
  }
}

describe("the playground's layout", () => {
  const s = getBuiltinScenario("playground")!;
  const hill = s.bodies.find((b) => b.id === "hill")!;
  const half = TERRAIN_SIZE / 2;

  it("its height field samples the terrain function, row by row along z", () => {
    if (hill.shape.type !== "heightfield") throw new Error("hill");
    const { rows, cols, heights, size } = hill.shape;
    expect([rows, cols, size]).toEqual([TERRAIN_SAMPLES, TERRAIN_SAMPLES, [TERRAIN_SIZE, TERRAIN_SIZE]]);
    expect(hill.position).toEqual([0, 0, 0]);
    const step = TERRAIN_SIZE / (TERRAIN_SAMPLES - 1);
    expect(heights[0]).toBe(terrainHeight(-half, -half));
    expect(heights[cols - 1]).toBe(terrainHeight(half, -half));
    expect(heights[cols]).toBe(terrainHeight(-half, -half + step));
    expect(Math.min(...heights)).toBeGreaterThan(0);
  });

  it("the zone holds the terrain's lowest point, where things roll to", () => {
    let low = [0, Number.POSITIVE_INFINITY, 0];
    for (let x = -half; x <= half; x += 0.25) {
      for (let z = -half; z <= half; z += 0.25) if (terrainHeight(x, z) < low[1]) low = [x, terrainHeight(x, z), z];
    }
    const zone = s.bodies.find((b) => b.id === "zone")!;
    if (zone.shape.type !== "box") throw new Error("zone");
    for (let k = 0; k < 3; k++) expect(Math.abs(low[k] - zone.position[k])).toBeLessThan(zone.shape.halfExtents[k]);
  });

  it("falling bodies start apart, above the terrain and inside it", () => {
    const falling = s.bodies.filter((b) => b.type === "dynamic");
    expect(falling.length).toBeGreaterThanOrEqual(24);
    for (let i = 0; i < falling.length; i++) {
      const a = falling[i];
      const r = reach(a.shape);
      const [x, y, z] = a.position;
      expect(Math.abs(x) + r, a.id).toBeLessThan(half);
      expect(Math.abs(z) + r, a.id).toBeLessThan(half);
      // Clear of the terrain anywhere under its bounding sphere.
      for (let dx = -r; dx <= r; dx += r / 4) {
        for (let dz = -r; dz <= r; dz += r / 4) expect(y - r, a.id).toBeGreaterThan(terrainHeight(x + dx, z + dz));
      }
      for (let j = i + 1; j < falling.length; j++) {
        const b = falling[j];
        const d = [0, 1, 2].map((k) => a.position[k] - b.position[k]);
        expect(Math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]), `${a.id} ${b.id}`).toBeGreaterThan(r + reach(b.shape));
      }
    }
  });

  it("simulates: nothing leaves the terrain or the world, and bodies roll into the zone", async () => {
    // Loads the engine, so imported here only.
    const { loadScenario } = await import("../../shared/scenarios/load.ts");
    const { world, handles } = loadScenario(s);
    const entered = new Set<string>();
    for (let t = 0; t < 900; t++) {
      world.step();
      expect(world.removedLastStep).toEqual([]);
      world.forEachEvent((e) => {
        if (e.type === "sensorEnter" && e.a === "zone") entered.add(e.b);
      });
    }
    for (let i = 0; i < s.bodies.length; i++) {
      const p = world.getPosition(handles[i]);
      expect(p.every(Number.isFinite), s.bodies[i].id).toBe(true);
      expect(Math.max(Math.abs(p[0]), Math.abs(p[2])), s.bodies[i].id).toBeLessThan(half);
    }
    console.log(`playground: ${entered.size} bodies entered the zone in 15 s`);
    expect(entered.size).toBeGreaterThan(0);
  });
});

describe("the README's scenario format section", () => {
  it("every JSON example in it passes the validator", () => {
    const readme = readFileSync(join(import.meta.dirname, "../../README.md"), "utf8");
    const start = readme.indexOf("#### Scenario format");
    const section = readme.slice(start, readme.indexOf("\n### ", start));
    const blocks = [...section.matchAll(/```json\n([\s\S]*?)\n```/g)].map((m) => m[1]);
    expect(blocks.length).toBeGreaterThanOrEqual(2);
    for (const block of blocks) {
      const result = validateScenario(JSON.parse(block));
      expect(result.ok ? [] : result.issues).toEqual([]);
    }
  });
});

describe("new shapes: fuzz", () => {
  const GARBAGE: unknown[] = [Number.NaN, Number.POSITIVE_INFINITY, 0, -1, 0.5, 3, 1e6, -1e308, "", "hull", "compound", "mesh", null, undefined, true, [], [0, 0, 0], [1, 2], [Number.NaN, 0, 0], {}, { type: "hull" }, { shape: { type: "sphere", radius: 1 } }];

  function rich(): Json {
    return scenario(
      body({ type: "capsule", radius: 0.3, halfHeight: 0.5 }, { id: "c" }),
      body({ type: "cylinder", radius: 0.5, halfHeight: 0.2 }, { id: "y" }),
      body({ type: "hull", points: CUBE.map((p) => [...p]) }, { id: "h" }),
      body(dumbbell({ type: "hull", points: TETRAHEDRON.map((p) => [...p]) }), { id: "d" }),
      body(structuredClone(SQUARE), { id: "m", type: "kinematic" }),
      body(field(3, 2, [0, 1, 2, 3, 4, 5]), { id: "f", type: "static" }),
    );
  }

  function nodes(root: unknown, out: (Json | unknown[])[] = []): (Json | unknown[])[] {
    if (typeof root !== "object" || root === null) return out;
    out.push(root as Json);
    for (const v of Object.values(root)) nodes(v, out);
    return out;
  }

  it("never throws on 1500 random mutations, and what it accepts it accepts again unchanged", () => {
    const prng = createPrng(77);
    const pick = <T>(list: readonly T[]): T => list[prng.int(list.length)];
    let accepted = 0;
    for (let round = 0; round < 1500; round++) {
      const input = rich();
      for (let m = 0; m < 1 + prng.int(2); m++) {
        const target = pick(nodes(input)) as Json;
        const keys = Object.keys(target);
        if (keys.length === 0) continue;
        const key = pick(keys);
        const action = prng.int(4);
        if (action === 0) delete target[key];
        else if (action === 1 && typeof target[key] === "number") target[key] = (target[key] as number) * prng.range(-3, 3);
        else if (action === 2) target[key] = structuredClone(pick(nodes(input)));
        else target[key] = pick(GARBAGE);
      }
      let result: ReturnType<typeof validateScenario>;
      try {
        result = validateScenario(input);
      } catch (err) {
        throw new Error(`round ${round}: validateScenario threw ${String(err)}`);
      }
      if (!result.ok) {
        expect(result.issues.length, `round ${round}`).toBeGreaterThan(0);
        continue;
      }
      accepted++;
      expect(validateScenario(result.scenario), `round ${round}`).toEqual(result);
    }
    expect(accepted).toBeGreaterThan(20);
    expect(accepted).toBeLessThan(1400);
  });
});
