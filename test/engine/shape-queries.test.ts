import { describe, expect, it } from "vitest";
import type { BodyDef, QuatTuple, Vec3Tuple } from "../../shared/engine/index.ts";
import type { CollisionGroups, ConvexShapeDef } from "../../shared/engine/types.ts";
import { queryCounters } from "../../shared/engine/world/queries.ts";
import { createPrng } from "../../shared/scenarios/index.ts";
import { GROUND, worldWith } from "./helpers.ts";

const S45 = Math.sqrt(0.5);
/** 90° about z (local y turns to -x) and about y (local x turns to -z). */
const ABOUT_Z: QuatTuple = [0, 0, S45, S45];
const ABOUT_Y: QuatTuple = [0, S45, 0, S45];

const fixed = (id: string, shape: BodyDef["shape"], position: Vec3Tuple, extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "static",
  shape,
  position,
  ...extra,
});

function expectVec(got: readonly number[] | undefined, want: readonly number[], digits = 9): void {
  expect(got).toBeDefined();
  for (let k = 0; k < 3; k++) expect(got![k]).toBeCloseTo(want[k], digits);
}

function unit(v: readonly number[]): Vec3Tuple {
  const l = Math.hypot(v[0], v[1], v[2]);
  return [v[0] / l, v[1] / l, v[2] / l];
}

/** A square pyramid: base ±1 in x and z at y = 0, apex (0, 2, 0). */
const PYRAMID: ConvexShapeDef = {
  type: "hull",
  points: [
    [-1, 0, -1],
    [1, 0, -1],
    [1, 0, 1],
    [-1, 0, 1],
    [0, 2, 0],
  ],
};

/** Height field whose surface is the plane y = 0.25 x (local), 3 x 3 samples over 4 x 4 m. */
const SLOPE: BodyDef["shape"] = { type: "heightfield", rows: 3, cols: 3, size: [4, 4], heights: [-0.5, 0, 0.5, -0.5, 0, 0.5, -0.5, 0, 0.5] };
const SLOPE_NORMAL = unit([-0.25, 1, 0]);

describe("raycast against every shape", () => {
  it("capsule: side, end cap, rotated, from inside", () => {
    const w = worldWith({ gravity: [0, 0, 0] }, [
      fixed("cap", { type: "capsule", radius: 0.5, halfHeight: 1 }, [0, 2, 0]),
      fixed("lying", { type: "capsule", radius: 0.5, halfHeight: 1 }, [10, 2, 0], { rotation: ABOUT_Z }),
    ]);
    const side = w.raycast([-5, 2.3, 0], [1, 0, 0], 20);
    expect(side?.id).toBe("cap");
    expect(side!.distance).toBeCloseTo(4.5, 12);
    expectVec(side!.normal, [-1, 0, 0]);
    const top = w.raycast([0.2, 10, 0], [0, -1, 0], 20);
    const yHit = 3 + Math.sqrt(0.25 - 0.04);
    expect(top!.distance).toBeCloseTo(10 - yHit, 12);
    expectVec(top!.normal, [0.4, Math.sqrt(0.21) / 0.5, 0]);
    expectVec(top!.point, [0.2, yHit, 0]);
    // Lying along x: the side from above at y = 2.5, the rounded end from +x at x = 10 + 1.5.
    const down = w.raycast([10.7, 6, 0], [0, -2, 0], 20);
    expect(down?.id).toBe("lying");
    expect(down!.distance).toBeCloseTo(3.5, 12);
    expectVec(down!.normal, [0, 1, 0]);
    const end = w.raycast([15, 2, 0], [-1, 0, 0], 20);
    expect(end!.distance).toBeCloseTo(15 - 11.5, 12);
    expectVec(end!.normal, [1, 0, 0]);
    const inside = w.raycast([0, 2.9, 0.1], [0, 0, 1], 20);
    expect(inside?.distance).toBe(0);
    expectVec(inside!.normal, [0, 0, -1]);
    expect(w.raycast([0.6, 10, 0], [0, -1, 0], 20)).toBeNull();
  });

  it("cylinder: side, cap, rim edge, rotated, from inside", () => {
    const w = worldWith({ gravity: [0, 0, 0] }, [
      fixed("cyl", { type: "cylinder", radius: 1, halfHeight: 0.5 }, [5, 0.5, 0]),
      fixed("roller", { type: "cylinder", radius: 1, halfHeight: 0.5 }, [20, 1, 0], { rotation: ABOUT_Z }),
    ]);
    const side = w.raycast([1, 0.3, 0.5], [1, 0, 0], 20);
    expect(side!.distance).toBeCloseTo(4 - Math.sqrt(0.75), 12);
    expectVec(side!.normal, [-Math.sqrt(0.75), 0, 0.5]);
    const cap = w.raycast([5.3, 5, 0.2], [0, -1, 0], 20);
    expect(cap!.distance).toBeCloseTo(4, 12);
    expectVec(cap!.normal, [0, 1, 0]);
    const bottom = w.raycast([5.3, -5, 0.2], [0, 1, 0], 20);
    expect(bottom!.distance).toBeCloseTo(5, 12);
    expectVec(bottom!.normal, [0, -1, 0]);
    // Aimed at the rim point (6, 1, 0) at 45°: both faces meet there.
    const rim = w.raycast([7, 2, 0], [-1, -1, 0], 20);
    expect(rim!.distance).toBeCloseTo(Math.SQRT2, 9);
    expect([rim!.normal[0], rim!.normal[1]].map((x) => Math.round(x * 1e6) / 1e6).sort()).toEqual([0, 1]);
    // Just beside the rim: passes above the cap edge and enters through the side.
    const past = w.raycast([7.01, 2, 0], [-1, -1, 0], 20);
    expect(past!.distance).toBeCloseTo(1.01 * Math.SQRT2, 9);
    expectVec(past!.normal, [1, 0, 0]);
    // Axis along x: from above the curved side at y = 2, from +x the cap at x = 20.5.
    const over = w.raycast([20.2, 6, 0], [0, -1, 0], 20);
    expect(over!.distance).toBeCloseTo(4, 12);
    expectVec(over!.normal, [0, 1, 0]);
    const face = w.raycast([25, 1.3, 0.2], [-1, 0, 0], 20);
    expect(face!.distance).toBeCloseTo(4.5, 12);
    expectVec(face!.normal, [1, 0, 0]);
    const inside = w.raycast([5, 0.5, 0], [0, 1, 0], 20);
    expect(inside?.distance).toBe(0);
    expect(w.raycast([6.2, 5, 0], [0, -1, 0], 20)).toBeNull();
  });

  it("hull: face planes, static and dynamic (centre of mass away from the shape's origin)", () => {
    for (const type of ["static", "dynamic"] as const) {
      const w = worldWith({ gravity: [0, 0, 0] }, [{ id: "pyr", type, shape: PYRAMID, position: [0, 0, 0] }]);
      const base = w.raycast([0.5, -5, 0.2], [0, 1, 0], 20);
      expect(base!.distance).toBeCloseTo(5, 12);
      expectVec(base!.normal, [0, -1, 0]);
      // Face through (1, 0, ±1) and the apex: 2x + y = 2.
      const face = w.raycast([5, 0.5, 0.1], [-1, 0, 0], 20);
      expect(face!.distance).toBeCloseTo(4.25, 12);
      expectVec(face!.normal, unit([2, 1, 0]));
      expect(w.raycast([0, 0.5, 0], [1, 0, 0], 20)?.distance).toBe(0);
      expect(w.raycast([1.1, 5, 0], [0, -1, 0], 20)).toBeNull();
    }
    // Turned 90° about y: the +x face now faces -z.
    const w = worldWith({ gravity: [0, 0, 0] }, [fixed("pyr", PYRAMID, [0, 0, 0], { rotation: ABOUT_Y })]);
    const turned = w.raycast([0.1, 0.5, -5], [0, 0, 1], 20);
    expect(turned!.distance).toBeCloseTo(4.25, 12);
    expectVec(turned!.normal, unit([0, 1, -2]));
  });

  it("compound: the nearest child, each in its pose", () => {
    const shape: BodyDef["shape"] = {
      type: "compound",
      children: [
        { shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [-2, 0, 0] },
        { shape: { type: "sphere", radius: 0.5 }, position: [2, 0, 0] },
        { shape: { type: "capsule", radius: 0.25, halfHeight: 0.5 }, position: [0, 0, 0], rotation: ABOUT_Z },
      ],
    };
    for (const type of ["static", "dynamic"] as const) {
      // Turned 90° about y: the sphere child sits at world (0, 1, -2), the box child at (0, 1, 2).
      const w = worldWith({ gravity: [0, 0, 0] }, [{ id: "c", type, shape, position: [0, 1, 0], rotation: ABOUT_Y }]);
      const sphere = w.raycast([0, 1, -10], [0, 0, 1], 20);
      expect(sphere!.distance).toBeCloseTo(7.5, 9);
      expectVec(sphere!.normal, [0, 0, -1]);
      const box = w.raycast([0.2, 10, 2.2], [0, -1, 0], 20);
      expect(box!.distance).toBeCloseTo(8.5, 9);
      expectVec(box!.normal, [0, 1, 0]);
      // The capsule child lies along world z (the body's x turned): its side from above at y = 1.25.
      const capsule = w.raycast([0, 5, 0.3], [0, -1, 0], 20);
      expect(capsule!.distance).toBeCloseTo(3.75, 9);
      expectVec(capsule!.normal, [0, 1, 0]);
      // Along z through every child: the sphere first; from inside the box child: 0.
      expect(w.raycast([0, 1, 10], [0, 0, -1], 20)!.distance).toBeCloseTo(7.5, 9);
      expect(w.raycast([0, 1, 2], [1, 0, 0], 20)!.distance).toBe(0);
      expect(w.raycast([0, 1, -1.2], [1, 0, 0], 20)).toBeNull();
    }
  });

  it("mesh: a two-sided surface in the body's pose", () => {
    const quad: BodyDef["shape"] = {
      type: "mesh",
      vertices: [
        [-1, 0, -1],
        [1, 0, -1],
        [1, 0, 1],
        [-1, 0, 1],
      ],
      indices: [
        [0, 2, 1],
        [0, 3, 2],
      ],
    };
    const w = worldWith({ gravity: [0, 0, 0] }, [fixed("m", quad, [0, 2, 0]), fixed("wall", quad, [10, 2, 0], { rotation: ABOUT_Z })]);
    const above = w.raycast([0.3, 5, 0.1], [0, -1, 0], 20);
    expect(above!.distance).toBeCloseTo(3, 12);
    expectVec(above!.normal, [0, 1, 0]);
    const below = w.raycast([0.3, -5, 0.1], [0, 1, 0], 20);
    expect(below!.distance).toBeCloseTo(7, 12);
    expectVec(below!.normal, [0, -1, 0]);
    // Standing up (the quad's plane is x = 10): hit from +x.
    const side = w.raycast([15, 2.5, 0.5], [-1, 0, 0], 20);
    expect(side?.id).toBe("wall");
    expect(side!.distance).toBeCloseTo(5, 12);
    expectVec(side!.normal, [1, 0, 0]);
    expect(w.raycast([1.5, 5, 0], [0, -1, 0], 20)).toBeNull();
  });

  it("height field: the surface under the ray, both sides", () => {
    const w = worldWith({ gravity: [0, 0, 0] }, [fixed("hf", SLOPE, [10, 0, 10])]);
    const down = w.raycast([10.7, 5, 10.3], [0, -1, 0], 20);
    expect(down!.distance).toBeCloseTo(5 - 0.175, 12);
    expectVec(down!.normal, SLOPE_NORMAL);
    const up = w.raycast([9.4, -5, 11.3], [0, 1, 0], 20);
    expect(up!.distance).toBeCloseTo(5 - 0.15, 12);
    expectVec(up!.normal, SLOPE_NORMAL.map((x) => -x));
    expect(w.raycast([12.5, 5, 10], [0, -1, 0], 20)).toBeNull();
  });
});

describe("collision groups in queries", () => {
  const g = (memberships: number, filter: number): CollisionGroups => ({ memberships, filter });
  const build = () =>
    worldWith({ gravity: [0, 0, 0] }, [
      fixed("a", { type: "sphere", radius: 0.5 }, [2, 0, 0], { collisionGroups: g(0b001, 0xffff) }),
      fixed("b", { type: "sphere", radius: 0.5 }, [4, 0, 0], { collisionGroups: g(0b010, 0xffff) }),
      fixed("c", { type: "sphere", radius: 0.5 }, [6, 0, 0], { collisionGroups: g(0b100, 0b001) }),
      fixed("none", { type: "sphere", radius: 0.5 }, [1, 0, 0], { collisionGroups: g(0, 0) }),
    ]);

  it("raycast considers only bodies whose groups collide with the query's; without groups, every body", () => {
    const w = build();
    expect(w.raycast([0, 0, 0], [1, 0, 0], 10)?.id).toBe("none");
    expect(w.raycast([0, 0, 0], [1, 0, 0], 10, undefined, g(0xffff, 0xffff))?.id).toBe("a");
    expect(w.raycast([0, 0, 0], [1, 0, 0], 10, undefined, g(0xffff, 0b110))?.id).toBe("b");
    // c's filter lets only group 1 in: a query of group 2 does not see it.
    expect(w.raycast([0, 0, 0], [1, 0, 0], 10, undefined, g(0b010, 0b100))).toBeNull();
    expect(w.raycast([0, 0, 0], [1, 0, 0], 10, undefined, g(0b001, 0b100))?.id).toBe("c");
    expect(w.raycast([0, 0, 0], [1, 0, 0], Number.POSITIVE_INFINITY, (h) => w.idOf(h) === "c", g(0b001, 0b100))).toBeNull();
    expect(() => w.raycast([0, 0, 0], [1, 0, 0], 10, undefined, g(0x10000, 1))).toThrow(RangeError);
  });

  it("queryAabb reports only bodies whose groups collide with the query's, with both overloads", () => {
    const w = build();
    const ids = (hs: number[]) => hs.map((h) => w.idOf(h));
    expect(ids(w.queryAabb([-1, -1, -1], [7, 1, 1]))).toEqual(["a", "b", "c", "none"]);
    expect(ids(w.queryAabb([-1, -1, -1], [7, 1, 1], [], g(0xffff, 0b011)))).toEqual(["a", "b"]);
    expect(ids(w.queryAabb([-1, -1, -1], [7, 1, 1], undefined, g(0b001, 0b100)))).toEqual(["c"]);
    const seen: number[] = [];
    w.queryAabb([-1, -1, -1], [7, 1, 1], (h) => seen.push(h), g(0xffff, 0b110));
    expect(ids(seen)).toEqual(["b", "c"]);
  });
});

describe("castShape", () => {
  it("a sphere dropped onto a box floor stops at the analytic distance, normal +y", () => {
    const w = worldWith({}, [GROUND]);
    const hit = w.castShape({ type: "sphere", radius: 0.5 }, { position: [0.3, 5, -0.2] }, [0, -3, 0], 10);
    expect(hit?.id).toBe("ground");
    expect(hit!.distance).toBeCloseTo(4.5, 3);
    expect(hit!.distance).toBeLessThanOrEqual(4.5 + 1e-9);
    expectVec(hit!.normal, [0, 1, 0], 6);
    expectVec(hit!.point, [0.3, 0, -0.2], 3);
    expect(w.castShape({ type: "sphere", radius: 0.5 }, { position: [0.3, 5, -0.2] }, [0, -1, 0], 4.4)).toBeNull();
    expect(w.castShape({ type: "sphere", radius: 0.5 }, { position: [0.3, 5, -0.2] }, [0, 1, 0], 10)).toBeNull();
    expect(() => w.castShape({ type: "sphere", radius: 0.5 }, { position: [0, 5, 0] }, [0, 0, 0], 10)).toThrow(/zero/);
  });

  it("a box and a hull cast down land flat; a capsule cast sideways stops at a wall", () => {
    const w = worldWith({}, [GROUND, fixed("wall", { type: "box", halfExtents: [0.5, 2, 2] }, [3, 2, 0])]);
    const box = w.castShape({ type: "box", halfExtents: [0.4, 0.3, 0.2] }, { position: [-5, 4, 0], rotation: ABOUT_Y }, [0, -1, 0], 10);
    expect(box!.distance).toBeCloseTo(3.7, 3);
    expectVec(box!.normal, [0, 1, 0], 6);
    const hull = w.castShape(PYRAMID, { position: [-5, 4, 3] }, [0, -1, 0], 10);
    expect(hull!.distance).toBeCloseTo(4, 3);
    expectVec(hull!.normal, [0, 1, 0], 6);
    const capsule = w.castShape({ type: "capsule", radius: 0.3, halfHeight: 0.6 }, { position: [0, 1, 0] }, [1, 0, 0], 10);
    expect(capsule?.id).toBe("wall");
    expect(capsule!.distance).toBeCloseTo(2.2, 3);
    expect(capsule!.distance).toBeLessThanOrEqual(2.2 + 1e-9);
    expectVec(capsule!.normal, [-1, 0, 0], 6);
    expect(capsule!.point[0]).toBeCloseTo(2.5, 3);
    // Lying capsule moving diagonally: the rounded end touches the wall's face.
    const lying = w.castShape({ type: "capsule", radius: 0.3, halfHeight: 0.6 }, { position: [0, 1, 0], rotation: ABOUT_Z }, [1, 0, 1], 10);
    expect(lying!.distance).toBeCloseTo((2.5 - 0.9) * Math.SQRT2, 3);
    expectVec(lying!.normal, [-1, 0, 0], 6);
  });

  it("hits a height field's surface and a mesh's triangles", () => {
    const w = worldWith({}, [fixed("hf", SLOPE, [10, 0, 10])]);
    const r = 0.5;
    const hit = w.castShape({ type: "sphere", radius: r }, { position: [10.7, 5, 10.3] }, [0, -1, 0], 10);
    expect(hit?.id).toBe("hf");
    expect(hit!.distance).toBeCloseTo(5 - 0.25 * 0.7 - r * Math.hypot(0.25, 1), 3);
    expectVec(hit!.normal, SLOPE_NORMAL, 5);
    const box = w.castShape({ type: "box", halfExtents: [0.2, 0.2, 0.2] }, { position: [9.5, 5, 9.5] }, [0, -1, 0], 10);
    // The box's lowest corner on the uphill side (x + 0.2) meets the plane y = 0.25 x.
    expect(box!.distance).toBeCloseTo(5 - 0.2 - 0.25 * (-0.5 + 0.2), 3);
    expect(w.castShape({ type: "sphere", radius: r }, { position: [14, 5, 10] }, [0, -1, 0], 10)).toBeNull();
  });

  it("hits a compound's child, honours skip and groups, and gives distance 0 with the separating normal when it starts overlapping", () => {
    const w = worldWith({}, [
      GROUND,
      fixed(
        "c",
        {
          type: "compound",
          children: [
            { shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [-2, 0, 0] },
            { shape: { type: "sphere", radius: 0.5 }, position: [2, 0, 0] },
          ],
        },
        [0, 3, 0],
        { collisionGroups: { memberships: 2, filter: 0xffff } },
      ),
    ]);
    const sphere = { type: "sphere", radius: 0.25 } as const;
    const child = w.castShape(sphere, { position: [2, 8, 0] }, [0, -1, 0], 10);
    expect(child?.id).toBe("c");
    expect(child!.distance).toBeCloseTo(8 - 3.5 - 0.25, 3);
    expectVec(child!.normal, [0, 1, 0], 6);
    const gap = w.castShape(sphere, { position: [0, 8, 0] }, [0, -1, 0], 10);
    expect(gap?.id).toBe("ground");
    expect(gap!.distance).toBeCloseTo(7.75, 3);
    const skipped = w.castShape(sphere, { position: [2, 8, 0] }, [0, -1, 0], 10, { skip: (h) => w.idOf(h) === "c" });
    expect(skipped?.id).toBe("ground");
    expect(w.castShape(sphere, { position: [2, 8, 0] }, [0, -1, 0], 10, { groups: { memberships: 1, filter: 1 } })?.id).toBe("ground");
    expect(() => w.castShape(sphere, { position: [2, 8, 0] }, [0, -1, 0], 10, { skip: () => w.raycast([0, 0, 0], [1, 0, 0], 1) !== null })).toThrow(
      /skip callback/,
    );
    const start = w.castShape({ type: "sphere", radius: 0.5 }, { position: [5, 0.2, 0] }, [1, 0, 0], 10);
    expect(start?.id).toBe("ground");
    expect(start!.distance).toBe(0);
    expectVec(start!.normal, [0, 1, 0], 6);
    // Resting on the floor (touching, not overlapping) and cast along it or away: no hit.
    for (const y of [0.5, 0.5 + 5e-5]) {
      expect(w.castShape({ type: "sphere", radius: 0.5 }, { position: [5, y, 0] }, [1, 0, 0], 10)).toBeNull();
      expect(w.castShape({ type: "sphere", radius: 0.5 }, { position: [5, y, 0] }, [0, 1, 0], 10)).toBeNull();
      expect(w.castShape({ type: "sphere", radius: 0.5 }, { position: [5, y, 0] }, [1, -1, 0], 10)?.distance).toBe(0);
    }
  });
});

describe("castShape agrees with overlap", () => {
  it("over random shape pairs: nothing overlaps before the hit, the shapes touch at it, a miss never overlaps", () => {
    const rng = createPrng(11);
    const r = () => rng.range(0, 1);
    const quat = (): QuatTuple => {
      const q = [r() - 0.5, r() - 0.5, r() - 0.5, r() - 0.5];
      const l = Math.hypot(...q);
      return [q[0] / l, q[1] / l, q[2] / l, q[3] / l];
    };
    const convex: (() => ConvexShapeDef)[] = [
      () => ({ type: "sphere", radius: 0.2 + r() }),
      () => ({ type: "box", halfExtents: [0.2 + r(), 0.2 + r(), 0.2 + r()] }),
      () => ({ type: "capsule", radius: 0.2 + 0.5 * r(), halfHeight: 0.2 + r() }),
      () => ({ type: "cylinder", radius: 0.2 + 0.5 * r(), halfHeight: 0.2 + r() }),
      () => ({ type: "hull", points: Array.from({ length: 8 }, (): Vec3Tuple => [2 * r() - 1, 2 * r() - 1, 2 * r() - 1]) }),
    ];
    const targets: (() => BodyDef["shape"])[] = [
      ...convex,
      () => ({ type: "compound", children: [{ shape: convex[1](), position: [-1, 0, 0] }, { shape: convex[3](), position: [1, 0, 0], rotation: quat() }] }),
      () => ({ type: "heightfield", rows: 5, cols: 5, size: [4, 4], heights: Array.from({ length: 25 }, () => r() - 0.5) }),
    ];
    let hits = 0;
    for (let trial = 0; trial < 350; trial++) {
      const shape = targets[trial % targets.length]();
      const level = shape.type === "heightfield";
      const w = worldWith({ gravity: [0, 0, 0] }, [
        { id: "t", type: level || trial % 2 === 1 ? "static" : "dynamic", shape, position: [0, 0, 0], rotation: level ? undefined : quat() },
      ]);
      const q = convex[trial % convex.length]();
      const rotation = quat();
      const start = [8 * r() - 4, 3 + 2 * r(), 8 * r() - 4];
      const dir = [r() - 0.5 - start[0], r() - 0.5 - start[1], r() - 0.5 - start[2]];
      const u = unit(dir);
      const at = (t: number) => ({ position: start.map((x, k) => x + u[k] * t), rotation });
      const hit = w.castShape(q, { position: start, rotation }, dir, 20);
      const end = hit === null ? 20 : hit.distance - 1e-4;
      for (let t = 0; t < end; t += 0.01) expect(w.overlap(q, at(t))).toEqual([]);
      if (hit === null) continue;
      hits++;
      expect(w.overlap(q, at(hit.distance - 1e-4))).toEqual([]);
      expect(w.overlap(q, at(hit.distance + 2e-3))).toEqual([w.handleOf("t")]);
    }
    expect(hits).toBeGreaterThan(300);
  });
});

describe("overlap", () => {
  const build = () =>
    worldWith({ gravity: [0, 0, 0] }, [
      fixed("a", { type: "sphere", radius: 0.5 }, [1.2, 0, 0]),
      fixed("b", { type: "box", halfExtents: [0.5, 0.5, 0.5] }, [0, 0, 1.4], { collisionGroups: { memberships: 2, filter: 0xffff } }),
      fixed("near", { type: "sphere", radius: 0.5 }, [0, 1.55, 0]),
      fixed("nearBox", { type: "box", halfExtents: [0.5, 0.5, 0.5] }, [0, 0, -1.55]),
      fixed("far", { type: "sphere", radius: 0.5 }, [30, 0, 0]),
      fixed("cyl", { type: "cylinder", radius: 0.5, halfHeight: 0.5 }, [-1.45, 0, 0]),
      fixed("hf", SLOPE, [0, -1.2, 0]),
    ]);
  const ball = { type: "sphere", radius: 1 } as const;

  it("finds exactly the bodies the shape overlaps (not those merely near), in slot order, honouring groups", () => {
    const w = build();
    const ids = (hs: number[]) => hs.map((h) => w.idOf(h));
    expect(ids(w.overlap(ball, { position: [0, 0, 0] }))).toEqual(["a", "b", "cyl"]);
    expect(ids(w.overlap(ball, { position: [0, 0, 0] }, [], { groups: { memberships: 1, filter: 1 } }))).toEqual(["a", "cyl"]);
    // Lower, the ball reaches the height field (surface y = -1.2 + 0.25 x under it).
    expect(ids(w.overlap(ball, { position: [0, -0.3, 0] }))).toContain("hf");
    expect(ids(w.overlap(ball, { position: [0, -0.3, 0] }))).not.toContain("near");
    const box: ConvexShapeDef = { type: "box", halfExtents: [0.5, 0.5, 0.5] };
    expect(ids(w.overlap(box, { position: [0, 0, -0.55] }))).toEqual(["nearBox"]);
    expect(ids(w.overlap(box, { position: [0, 0, -0.6], rotation: ABOUT_Y }))).toEqual(["nearBox"]);
    const seen: number[] = [];
    w.overlap(ball, { position: [0, 0, 0] }, (h) => {
      seen.push(h);
      return false;
    });
    expect(ids(seen)).toEqual(["a"]);
  });
});

describe("queries stay local", () => {
  it("visit only the bodies near the query in a world of 2000", () => {
    const defs: BodyDef[] = [];
    for (let i = 0; i < 2000; i++) {
      const x = (i % 50) * 4;
      const z = Math.floor(i / 50) * 4;
      const shape: BodyDef["shape"] = i % 2 === 0 ? { type: "sphere", radius: 0.5 } : { type: "capsule", radius: 0.4, halfHeight: 0.5 };
      defs.push(fixed(`b${i}`, shape, [x, 1, z]));
    }
    const w = worldWith({}, defs);
    w.step();
    queryCounters.exactTests = 0;
    const hit = w.castShape({ type: "sphere", radius: 0.3 }, { position: [40, 5, 40] }, [0, -1, 0], 10);
    expect(hit?.id).toBe(`b${10 * 50 + 10}`);
    expect(queryCounters.exactTests).toBeLessThan(20);
    queryCounters.exactTests = 0;
    expect(w.raycast([42, 1, 40], [1, 0, 0], 3)?.id).toBe(`b${10 * 50 + 11}`);
    expect(queryCounters.exactTests).toBeLessThan(10);
    queryCounters.exactTests = 0;
    expect(w.overlap({ type: "box", halfExtents: [3, 3, 3] }, { position: [40, 1, 40] }).length).toBe(1);
    expect(queryCounters.exactTests).toBeLessThan(20);
  });
});
