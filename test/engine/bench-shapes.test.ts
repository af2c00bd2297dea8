import RAPIER from "@dimforge/rapier3d-compat";
import { beforeAll, describe, expect, it } from "vitest";
import { shapeVolume } from "../../bench/adapters/common.ts";
import { unsupportedShapes } from "../../bench/adapters/index.ts";
import { OurEngine } from "../../bench/adapters/ours.ts";
import { colliderDesc, RAPIER_COMPAT, RapierEngine } from "../../bench/adapters/rapier.ts";
import { capsuleMassProperties, cylinderMassProperties } from "../../shared/engine/geometry/mass-properties.ts";
import { HeightField } from "../../shared/engine/geometry/heightfield.ts";
import type { BodyDef, HeightfieldShapeDef, Vec3Tuple } from "../../shared/engine/types.ts";
import { MAX_BODY_RADIUS, shapes1000 } from "../../shared/scenarios/builtins/shapes1000.ts";
import { createPrng, getBuiltinScenario, type Scenario, validateScenario } from "../../shared/scenarios/index.ts";
import { shapeVolumeOf } from "../../shared/scenarios/validate-shapes.ts";

/**
 * The benchmark's Rapier side of the new shapes: that Rapier's height field, built by the bench adapter
 * from our row-major samples, is the same surface as ours (not transposed or mirrored), that masses come
 * out as density x volume like ours, and the shapes1000 scene's own promises (valid, 250 of each kind,
 * no body starting in contact, a terrain both engines triangulate alike).
 */

beforeAll(async () => {
  await RAPIER.init();
});

/** Rapier's surface height at world (x, z): a ray straight down onto one collider; NaN on a miss. */
function rapierHeight(collider: RAPIER.Collider, x: number, z: number): number {
  const top = 100;
  const toi = collider.castRay(new RAPIER.Ray({ x, y: top, z }, { x: 0, y: -1, z: 0 }), 1000, true);
  return toi < 0 ? Number.NaN : top - toi;
}

/** A fixed collider of `shape` at `position`, built by the bench adapter's own shape mapping. */
function rapierField(world: RAPIER.World, shape: HeightfieldShapeDef, position: Vec3Tuple): RAPIER.Collider {
  const desc = colliderDesc<RAPIER.RigidBodyDesc, RAPIER.ColliderDesc, RAPIER.RigidBody>(RAPIER, shape);
  desc.setTranslation(position[0], position[1], position[2]);
  return world.createCollider(desc);
}

function ourField(shape: HeightfieldShapeDef): HeightField {
  return new HeightField(shape.heights, shape.rows, shape.cols, shape.size[0], shape.size[1]);
}

/** Quantized random heights (exact in 32-bit floats), no symmetry: a transposed or mirrored field differs. */
function randomField(rows: number, cols: number, size: [number, number], seed: number): HeightfieldShapeDef {
  const prng = createPrng(seed);
  const heights: number[] = [];
  for (let i = 0; i < rows * cols; i++) heights.push(Math.round(prng.range(-1, 1) * 256) / 256);
  return { type: "heightfield", heights, rows, cols, size };
}

describe("Rapier height field in the bench adapter", () => {
  // 5 rows (along z) by 7 columns (along x) over 6 m (x) by 4 m (z), off the origin.
  const shape = randomField(5, 7, [6, 4], 7);
  const position: Vec3Tuple = [1, 0.5, -2];
  const ours = ourField(shape);
  const dx = shape.size[0] / (shape.cols - 1);
  const dz = shape.size[1] / (shape.rows - 1);
  const localX = (c: number) => -shape.size[0] / 2 + c * dx;
  const localZ = (r: number) => -shape.size[1] / 2 + r * dz;

  it("has our samples where ours has them: every sample, the corners, and along every cell edge", () => {
    const world = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
    const collider = rapierField(world, shape, position);
    let checked = 0;
    // Every point is moved 1 µm along x and z, toward the inside at the border: a vertical ray exactly on
    // a sample line can miss Rapier's field. Off a cell edge the two triangulations differ by the move
    // times the cell's twist (hA + hD - hB - hC, below 4 m here): under 1e-5 m.
    const nudge = (v: number, half: number) => (v + 1e-6 < half ? v + 1e-6 : v - 1e-6);
    const check = (x: number, z: number) => {
      const px = nudge(x, 3);
      const pz = nudge(z, 2);
      const expected = position[1] + ours.heightAt(px, pz);
      expect(rapierHeight(collider, position[0] + px, position[2] + pz), `local (${x}, ${z})`).toBeCloseTo(expected, 4);
      checked++;
    };
    for (let r = 0; r < shape.rows; r++) {
      for (let c = 0; c < shape.cols; c++) check(localX(c), localZ(r));
    }
    // Points on cell edges (a quarter and three quarters along each), where any triangulation agrees.
    for (let r = 0; r < shape.rows; r++) {
      for (let c = 0; c + 1 < shape.cols; c++) {
        for (const f of [0.25, 0.75]) check(localX(c) + f * dx, localZ(r));
      }
    }
    for (let c = 0; c < shape.cols; c++) {
      for (let r = 0; r + 1 < shape.rows; r++) {
        for (const f of [0.25, 0.75]) check(localX(c), localZ(r) + f * dz);
      }
    }
    expect(checked).toBe(35 + 2 * 30 + 2 * 28);
    world.free();
  });

  it("splits each cell along the other diagonal: from its low-x high-z to its high-x low-z corner", () => {
    const world = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
    const collider = rapierField(world, shape, position);
    const h = (r: number, c: number) => shape.heights[r * shape.cols + c];
    let differs = 0;
    for (let r = 0; r + 1 < shape.rows; r++) {
      for (let c = 0; c + 1 < shape.cols; c++) {
        const x = localX(c) + 0.5 * dx;
        const z = localZ(r) + 0.5 * dz;
        // The centre lies on both diagonals' midpoints: Rapier's is (B + C) / 2, ours (A + D) / 2.
        const rapier = rapierHeight(collider, position[0] + x, position[2] + z) - position[1];
        expect(rapier, `cell (${r}, ${c})`).toBeCloseTo((h(r, c + 1) + h(r + 1, c)) / 2, 4);
        expect(ours.heightAt(x, z)).toBeCloseTo((h(r, c) + h(r + 1, c + 1)) / 2, 12);
        if (Math.abs(rapier - ours.heightAt(x, z)) > 1e-3) differs++;
      }
    }
    expect(differs).toBeGreaterThan(10);
    world.free();
  });

  it("holds dropped boxes at the height of the plateau under them, in each corner, in Rapier and ours", async () => {
    // 6 rows x 7 columns, 2 m cells; each corner cell is a flat plateau of its own height, the rest 0.
    const rows = 6;
    const cols = 7;
    const heights = new Array<number>(rows * cols).fill(0);
    const plateaus = [
      { r: 0, c: 0, h: 1 },
      { r: 0, c: cols - 2, h: 2 },
      { r: rows - 2, c: 0, h: 3 },
      { r: rows - 2, c: cols - 2, h: 4 },
    ];
    for (const p of plateaus) {
      for (const [dr, dc] of [
        [0, 0],
        [0, 1],
        [1, 0],
        [1, 1],
      ]) {
        heights[(p.r + dr) * cols + p.c + dc] = p.h;
      }
    }
    const field: HeightfieldShapeDef = { type: "heightfield", heights, rows, cols, size: [12, 10] };
    const origin: Vec3Tuple = [2, -1, 3];
    const half = 0.25;
    const bodies: BodyDef[] = [{ id: "field", type: "static", shape: field, position: origin }];
    for (const [i, p] of plateaus.entries()) {
      // The middle of the plateau cell.
      const x = origin[0] - 6 + (p.c + 0.5) * 2;
      const z = origin[2] - 5 + (p.r + 0.5) * 2;
      bodies.push({ id: `box${i}`, type: "dynamic", shape: { type: "box", halfExtents: [half, half, half] }, position: [x, 6, z] });
    }
    const scenario: Scenario = { name: "plateaus", bodies };
    expect(validateScenario(scenario).ok).toBe(true);
    for (const engine of [new RapierEngine(RAPIER_COMPAT), new OurEngine()]) {
      await engine.load(scenario, { sleep: false });
      for (let i = 0; i < 180; i++) engine.step();
      for (const [i, p] of plateaus.entries()) {
        const y = engine.position(`box${i}`)[1];
        expect(Math.abs(y - (origin[1] + p.h + half)), `${engine.name}: box${i} on plateau ${p.h}: y ${y}`).toBeLessThan(0.01);
      }
      engine.dispose();
    }
  });
});

describe("shapes1000", () => {
  const scenario = shapes1000();
  const terrain = scenario.bodies[0];
  const field = terrain.shape as HeightfieldShapeDef;

  it("is valid and unchanged by validation; a static terrain and 250 each of four kinds", () => {
    expect(validateScenario(scenario)).toEqual({ ok: true, scenario });
    expect(shapes1000()).toEqual(scenario);
    expect(terrain.type).toBe("static");
    expect(field.type).toBe("heightfield");
    const kinds: Record<string, number> = {};
    for (const b of scenario.bodies.slice(1)) {
      expect(b.type).toBe("dynamic");
      kinds[b.shape.type] = (kinds[b.shape.type] ?? 0) + 1;
    }
    expect(kinds).toEqual({ capsule: 250, cylinder: 250, hull: 250, compound: 250 });
    // The bench reads it from the registry once it is listed there; until then from its own file.
    const registered = getBuiltinScenario("shapes1000");
    if (registered) expect(registered).toEqual(scenario);
  });

  it("starts with every body inside its bounding radius, apart from the others and above the terrain", () => {
    const ours = ourField(field);
    const reach = (v: Vec3Tuple) => Math.sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
    const dynamic = scenario.bodies.slice(1);
    for (const b of dynamic) {
      const s = b.shape;
      let radius = 0;
      if (s.type === "capsule") radius = s.halfHeight + s.radius;
      else if (s.type === "cylinder") radius = Math.sqrt(s.halfHeight * s.halfHeight + s.radius * s.radius);
      else if (s.type === "hull") radius = Math.max(...s.points.map(reach));
      else if (s.type === "compound") {
        for (const child of s.children) {
          const p = child.position ?? [0, 0, 0];
          const cs = child.shape;
          // Child rotations only turn a bar onto x: bound each child by its own bounding sphere.
          const r =
            cs.type === "sphere"
              ? cs.radius
              : cs.type === "box"
                ? reach(cs.halfExtents)
                : cs.type === "cylinder"
                  ? Math.sqrt(cs.halfHeight * cs.halfHeight + cs.radius * cs.radius)
                  : Number.POSITIVE_INFINITY;
          radius = Math.max(radius, reach(p) + r);
        }
      }
      expect(radius, b.id).toBeLessThanOrEqual(MAX_BODY_RADIUS);
      expect(b.position[1] - MAX_BODY_RADIUS - ours.heightAt(b.position[0], b.position[2]), b.id).toBeGreaterThan(2);
    }
    let closest = Number.POSITIVE_INFINITY;
    for (let i = 0; i < dynamic.length; i++) {
      for (let j = i + 1; j < dynamic.length; j++) {
        const a = dynamic[i].position;
        const b = dynamic[j].position;
        closest = Math.min(closest, reach([a[0] - b[0], a[1] - b[1], a[2] - b[2]]));
      }
    }
    expect(closest).toBeGreaterThan(2 * MAX_BODY_RADIUS);
  });

  it("has a terrain whose cells are flat, so Rapier's and our triangulations give the same surface", () => {
    const h = (r: number, c: number) => field.heights[r * field.cols + c];
    for (let r = 0; r + 1 < field.rows; r++) {
      for (let c = 0; c + 1 < field.cols; c++) expect(h(r, c) + h(r + 1, c + 1)).toBe(h(r, c + 1) + h(r + 1, c));
    }
    const world = new RAPIER.World({ x: 0, y: -9.81, z: 0 });
    const collider = rapierField(world, field, terrain.position);
    const ours = ourField(field);
    const prng = createPrng(3);
    for (let i = 0; i < 300; i++) {
      const x = prng.range(-29.99, 29.99);
      const z = prng.range(-29.99, 29.99);
      expect(rapierHeight(collider, x, z), `(${x}, ${z})`).toBeCloseTo(terrain.position[1] + ours.heightAt(x, z), 4);
    }
    world.free();
  });

  it("gets density x volume as its mass in Rapier, as in ours, for every kind", async () => {
    const engine = new RapierEngine(RAPIER_COMPAT);
    await engine.load(scenario, { sleep: false });
    // The first two of each kind (both compound variants: a dumbbell, an L).
    for (const kind of ["capsule", "cylinder", "hull", "compound"]) {
      for (const id of [`${kind}0`, `${kind}1`]) {
        const b = scenario.bodies.find((x) => x.id === id)!;
        const expected = (b.density ?? 1) * shapeVolumeOf(b.shape);
        expect(Math.abs(engine.mass(id) / expected - 1), id).toBeLessThan(1e-5);
      }
    }
    engine.dispose();
  });

  it("takes a given mass whole, for a single shape and for a compound", async () => {
    const compound = scenario.bodies.find((b) => b.id === "compound0")!;
    const capsule = scenario.bodies.find((b) => b.id === "capsule0")!;
    const small: Scenario = {
      name: "masses",
      bodies: [
        { ...compound, density: undefined, mass: 3 },
        { ...capsule, density: undefined, mass: 2 },
      ],
    };
    const engine = new RapierEngine(RAPIER_COMPAT);
    await engine.load(small, { sleep: false });
    expect(engine.mass("compound0")).toBeCloseTo(3, 5);
    expect(engine.mass("capsule0")).toBeCloseTo(2, 5);
    engine.dispose();
  });
});

describe("bench adapter helpers", () => {
  it("capsule and cylinder volumes match our mass properties", () => {
    const body = (shape: BodyDef["shape"]): BodyDef => ({ id: "b", type: "dynamic", shape, position: [0, 0, 0] });
    expect(shapeVolume(body({ type: "capsule", radius: 0.3, halfHeight: 0.7 }))).toBeCloseTo(capsuleMassProperties(0.3, 0.7).volume, 12);
    expect(shapeVolume(body({ type: "cylinder", radius: 0.3, halfHeight: 0.7 }))).toBeCloseTo(cylinderMassProperties(0.3, 0.7).volume, 12);
  });

  it("cannon-es is left out of scenes with shapes its adapter does not build, and only those", () => {
    expect(unsupportedShapes("cannon-es", shapes1000())).toEqual(["heightfield", "capsule", "cylinder", "hull", "compound"]);
    for (const name of ["pile1000", "rain2000", "pyramid20"]) expect(unsupportedShapes("cannon-es", getBuiltinScenario(name)!)).toEqual([]);
    expect(unsupportedShapes("rapier", shapes1000())).toEqual([]);
    expect(unsupportedShapes("ours", shapes1000())).toEqual([]);
  });
});
