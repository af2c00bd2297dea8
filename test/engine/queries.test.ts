import { describe, expect, it } from "vitest";
import { BOX, DYNAMIC, KINEMATIC, SPHERE, STATIC } from "../../shared/engine/dynamics/body-store.ts";
import {
  type Aabb,
  type BodyDef,
  BodyTypeCode,
  type BodyView,
  ENGINE_CONSTANTS,
  MATERIAL_LIMITS,
  type QuatTuple,
  ShapeTypeCode,
  type Vec3Tuple,
  World,
} from "../../shared/engine/index.ts";
import { KIND_DYNAMIC, KIND_KINEMATIC, KIND_STATIC, kindOf, KIND_BOX } from "../../shared/net/index.ts";
import { createPrng } from "../../shared/scenarios/index.ts";
import { GROUND, steps, worldWith } from "./helpers.ts";

const M = ENGINE_CONSTANTS.aabbMargin;
const box = (id: string, position: Vec3Tuple, half: Vec3Tuple = [0.5, 0.5, 0.5], extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "dynamic",
  shape: { type: "box", halfExtents: half },
  position,
  ...extra,
});
const ball = (id: string, position: Vec3Tuple, radius = 0.5, extra: Partial<BodyDef> = {}): BodyDef => ({
  id,
  type: "dynamic",
  shape: { type: "sphere", radius },
  position,
  ...extra,
});

/** What queryAabb must return: every live body whose getAabb overlaps the box, in slot order. */
function bruteForce(w: World, min: readonly number[], max: readonly number[]): number[] {
  const out: number[] = [];
  const a: Aabb = { min: [0, 0, 0], max: [0, 0, 0] };
  for (const h of w.handles()) {
    w.getAabb(h, a);
    let hit = true;
    for (let k = 0; k < 3; k++) if (a.min[k] > max[k] || a.max[k] < min[k]) hit = false;
    if (hit) out.push(h);
  }
  return out;
}

describe("material setters", () => {
  const cases = [
    ["Friction", MATERIAL_LIMITS.maxFriction],
    ["Restitution", MATERIAL_LIMITS.maxRestitution],
    ["LinearDamping", MATERIAL_LIMITS.maxDamping],
    ["AngularDamping", MATERIAL_LIMITS.maxDamping],
  ] as const;
  for (const [name, max] of cases) {
    it(`set${name} accepts [0, ${max}] and refuses the rest, leaving the value`, () => {
      const w = worldWith({}, [box("b", [0, 0, 0], [0.5, 0.5, 0.5], { friction: 0.3, restitution: 0.2, linearDamping: 0.1, angularDamping: 0.1 })]);
      const h = w.handleOf("b");
      const set = (v: number) => w[`set${name}`](h, v);
      const get = () => w[`get${name}`](h);
      for (const v of [0, max / 2, max]) {
        set(v);
        expect(get()).toBe(v);
      }
      set(0.05);
      for (const bad of [-1e-9, max + 1e-9, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, "0.5" as unknown as number]) {
        expect(() => set(bad)).toThrow(RangeError);
        expect(get()).toBe(0.05);
      }
      w.removeBody(h);
      expect(() => set(0.1)).toThrow(/unknown body handle/);
      expect(() => get()).toThrow(/unknown body handle/);
    });
  }

  it("uses the scenario validator's ranges and does not wake a sleeping body", () => {
    const w = worldWith({}, [GROUND, box("b", [0, 0.5, 0])]);
    const h = w.handleOf("b");
    for (let i = 0; i < 600 && !w.isSleeping(h); i++) w.step();
    expect(w.isSleeping(h)).toBe(true);
    w.setFriction(h, 1.5);
    w.setRestitution(h, 0.5);
    expect(w.isSleeping(h)).toBe(true);
    expect([w.getFriction(h), w.getRestitution(h), w.getLinearDamping(h), w.getAngularDamping(h)]).toEqual([1.5, 0.5, 0, 0]);
  });
});

describe("getAabb and getBoundingRadius", () => {
  it("are the broad-phase box (shape bounds plus the margin) and the bounding sphere", () => {
    const s = Math.SQRT1_2;
    const q: QuatTuple = [0, 0, s, s]; // 90° about z: the x and y extents swap
    const w = worldWith({}, [ball("ball", [1, 2, 3], 0.25), box("crate", [-1, 0, 0], [1, 0.5, 0.25], { rotation: q })]);
    const b = w.getAabb(w.handleOf("ball"));
    expect(b.min).toEqual([1 - 0.25 - M, 2 - 0.25 - M, 3 - 0.25 - M]);
    expect(b.max).toEqual([1 + 0.25 + M, 2 + 0.25 + M, 3 + 0.25 + M]);
    const out: Aabb = { min: [0, 0, 0], max: [0, 0, 0] };
    const c = w.getAabb(w.handleOf("crate"), out);
    expect(c).toBe(out);
    const expected = [-1 - 0.5 - M, -1 - M, -0.25 - M, -1 + 0.5 + M, 1 + M, 0.25 + M];
    const got = [...c.min, ...c.max];
    for (let k = 0; k < 6; k++) expect(got[k]).toBeCloseTo(expected[k], 12);
    expect(w.getBoundingRadius(w.handleOf("ball"))).toBe(0.25);
    expect(w.getBoundingRadius(w.handleOf("crate"))).toBeCloseTo(Math.hypot(1, 0.5, 0.25), 14);
    // setTransform refreshes the box.
    w.setTransform(w.handleOf("ball"), [10, 0, 0]);
    expect(w.getAabb(w.handleOf("ball")).min[0]).toBe(10 - 0.25 - M);
    expect(() => w.getAabb(12345)).toThrow(/unknown body handle/);
  });
});

/** queryAabb: what it finds, result order, the out array and the visitor. */
function queryAabbBasicsTests(): void {
  it("finds bodies before the first step, after it, just created, and never removed ones", () => {
    const w = worldWith({ gravity: [0, 0, 0] }, [GROUND, box("a", [0, 1, 0]), box("far", [30, 1, 0]), ball("b", [2, 1, 0])]);
    const ids = (hs: number[]) => hs.map((h) => w.idOf(h));
    // Nothing is placed in the grid before the first step.
    expect(ids(w.queryAabb([-1, 0, -1], [3, 1.5, 1]))).toEqual(["ground", "a", "b"]);
    expect(ids(w.queryAabb([-1, 0.5, -1], [3, 1.5, 1]))).toEqual(["a", "b"]);
    steps(w, 2);
    expect(ids(w.queryAabb([-1, 0, -1], [3, 1.5, 1]))).toEqual(["ground", "a", "b"]);
    expect(ids(w.queryAabb([29, 0.9, -0.1], [29.6, 1, 0.1]))).toEqual(["far"]);
    // Created since the last step: not in any grid column yet.
    w.createBody(box("new", [0.5, 3, 0]));
    expect(ids(w.queryAabb([0, 2.9, 0], [0.1, 3, 0.1]))).toEqual(["new"]);
    // Removed: a placed body and a pending one.
    w.removeBody(w.handleOf("a"));
    w.removeBody(w.handleOf("new"));
    expect(ids(w.queryAabb([-1, 0, -1], [3, 3.5, 1]))).toEqual(["ground", "b"]);
    // The freed slot reused by a new body (pending), then a step places it.
    w.createBody(ball("again", [0, 1, 0]));
    expect(ids(w.queryAabb([-0.1, 0.9, -0.1], [0.1, 1.1, 0.1]))).toEqual(["again"]);
    w.step();
    expect(ids(w.queryAabb([-0.1, 0.9, -0.1], [0.1, 1.1, 0.1]))).toEqual(["again"]);
    // Touching counts (closed intervals); a gap does not.
    const edge = w.getAabb(w.handleOf("far")).min[0];
    expect(ids(w.queryAabb([edge - 1, 1, 0], [edge, 1, 0]))).toEqual(["far"]);
    expect(ids(w.queryAabb([edge - 1, 1, 0], [edge - 1e-9, 1, 0]))).toEqual([]);
  });

  it("returns handles in slot order, reuses the out array, and visits with early stop", () => {
    const w = worldWith({ gravity: [0, 0, 0] }, [box("a", [0, 0, 0]), box("b", [1, 0, 0]), box("c", [2, 0, 0])]);
    w.step();
    // c's slot freed and reused: slot order, not creation order.
    w.removeBody(w.handleOf("a"));
    w.createBody(box("d", [3, 0, 0]));
    const out = [99, 98, 97, 96, 95];
    const got = w.queryAabb([-10, -10, -10], [10, 10, 10], out);
    expect(got).toBe(out);
    expect(got.map((h) => w.idOf(h))).toEqual(["d", "b", "c"]);
    const seen: string[] = [];
    const ret = w.queryAabb([-10, -10, -10], [10, 10, 10], (h) => {
      seen.push(w.idOf(h)!);
      return seen.length < 2;
    });
    expect(ret).toBeUndefined();
    expect(seen).toEqual(["d", "b"]);
    // The visitor may change the world: handles were collected first.
    const removed: string[] = [];
    w.queryAabb([-10, -10, -10], [10, 10, 10], (h) => {
      removed.push(w.idOf(h)!);
      w.removeBody(h);
    });
    expect(removed).toEqual(["d", "b", "c"]);
    expect(w.bodyCount).toBe(0);
    expect(() => w.queryAabb([Number.NaN, 0, 0], [1, 1, 1])).toThrow(/not NaN/);
    expect(w.queryAabb([Number.NEGATIVE_INFINITY, 0, 0], [Number.POSITIVE_INFINITY, 1, 1])).toEqual([]);
  });
}

/** queryAabb: against a brute-force scan through a churning world. */
function queryAabbScanTests(): void {
  it("matches a scan of every body's getAabb through steps, moves, teleports, creations and removals", () => {
    const rng = createPrng(7);
    const wall = (id: string, position: Vec3Tuple, half: Vec3Tuple): BodyDef => ({ id, type: "static", shape: { type: "box", halfExtents: half }, position });
    const defs: BodyDef[] = [GROUND, wall("w1", [12, 2, 0], [0.5, 2, 12]), wall("w2", [-12, 2, 0], [0.5, 2, 12])];
    for (let i = 0; i < 150; i++) {
      const p: Vec3Tuple = [rng.range(-10, 10), rng.range(0.5, 12), rng.range(-10, 10)];
      defs.push(i % 3 === 0 ? ball(`d${i}`, p, rng.range(0.1, 0.6)) : box(`d${i}`, p, [rng.range(0.1, 0.8), rng.range(0.1, 0.8), rng.range(0.1, 0.8)]));
    }
    for (let i = 0; i < 6; i++) {
      defs.push({ id: `k${i}`, type: "kinematic", shape: { type: "box", halfExtents: [0.4, 0.9, 0.4] }, position: [rng.range(-8, 8), 1, rng.range(-8, 8)] });
    }
    // CCD off: bodies move out of their boxes within a step, which raycast must account for.
    const w = worldWith({ ccd: false }, defs);
    let spawned = 0;
    const check = () => {
      for (let q = 0; q < 25; q++) {
        const c = [rng.range(-14, 14), rng.range(-1, 14), rng.range(-14, 14)];
        const size = q % 5 === 0 ? rng.range(5, 40) : rng.range(0, 2);
        const min = [c[0] - size, c[1] - size, c[2] - size];
        const max = [c[0] + rng.range(0, size * 2), c[1] + size, c[2] + size];
        expect(w.queryAabb(min, max)).toEqual(bruteForce(w, min, max));
      }
      for (let r = 0; r < 25; r++) {
        const o = [rng.range(-14, 14), rng.range(0, 14), rng.range(-14, 14)];
        const d = [rng.range(-1, 1), rng.range(-1, 0.2), rng.range(-1, 1)];
        const len = rng.range(0, 20);
        const finite = w.raycast(o, d, len);
        const all = w.raycast(o, d);
        expect(finite).toEqual(all !== null && all.distance <= len ? all : null);
      }
    };
    check();
    for (let tick = 0; tick < 90; tick++) {
      for (let i = 0; i < 6; i++) {
        const k = w.handleOf(`k${i}`);
        // Long moves: a kinematic body's box leaves the grid columns it was placed in until the next step.
        if (i % 2 === 0) w.moveCharacter(k, [rng.range(-2, 2), rng.range(-0.1, 0.1), rng.range(-2, 2)]);
        else if (tick % 7 === 0) {
          const p = w.getPosition(k);
          w.moveKinematic(k, [p[0] + rng.range(-3, 3), p[1], p[2] + rng.range(-3, 3)]);
        }
      }
      if (tick % 10 === 3) {
        const live = w.handles().filter((h) => w.getType(h) === "dynamic");
        w.removeBody(live[Math.floor(rng.range(0, live.length))]);
        w.createBody(box(`s${spawned++}`, [rng.range(-9, 9), rng.range(3, 8), rng.range(-9, 9)], [0.3, 0.3, 0.3], { linearVelocity: [0, -30, 0] }));
      }
      if (tick % 15 === 8) {
        const live = w.handles().filter((h) => w.getType(h) === "dynamic");
        w.setTransform(live[0], [rng.range(-9, 9), rng.range(1, 9), rng.range(-9, 9)]);
      }
      check();
      w.step();
      check();
    }
  });
}

/** queryAabb: far bodies, and no queries from a skip callback. */
function queryAabbIsolationTests(): void {
  it("keeps character moves and raycasts independent of bodies far away", () => {
    const w = worldWith({ gravity: [0, 0, 0] }, [
      GROUND,
      { id: "me", type: "kinematic", shape: { type: "box", halfExtents: [0.4, 0.9, 0.4] }, position: [0, 1, 0] },
      { id: "wall", type: "static", shape: { type: "box", halfExtents: [0.5, 2, 5] }, position: [2, 2, 0] },
    ]);
    w.step();
    const me = w.handleOf("me");
    // A wall created after the step (not in the grid yet) still blocks the character.
    w.createBody({ id: "late", type: "static", shape: { type: "box", halfExtents: [5, 2, 0.5] }, position: [0, 2, -2] });
    w.moveCharacter(me, [0, 0, -2]);
    expect(w.getPosition(me)[2]).toBeCloseTo(-1.5 + 0.4, 9);
    w.moveCharacter(me, [3, 0, 0]);
    expect(w.getPosition(me)[0]).toBeCloseTo(1.5 - 0.4, 9);
    expect(w.raycast([1.1, 1, 5], [0, 0, -1], 10)?.id).toBe("me");
    expect(w.raycast([0, 10, -2], [0, -1, 0], 100)?.id).toBe("late");
  });

  it("refuses queries from a raycast's skip callback", () => {
    const w = worldWith({}, [GROUND]);
    expect(() => w.raycast([0, 5, 0], [0, -1, 0], 10, () => w.queryAabb([0, 0, 0], [1, 1, 1]).length > 0)).toThrow(/skip callback/);
    expect(w.raycast([0, 5, 0], [0, -1, 0], 10)?.id).toBe("ground");
  });
}

describe("queryAabb", () => {
  queryAabbBasicsTests();
  queryAabbScanTests();
  queryAabbIsolationTests();
});

describe("codes and the read-only view", () => {
  it("the exported codes are the engine's and the network's", () => {
    expect([BodyTypeCode.STATIC, BodyTypeCode.KINEMATIC, BodyTypeCode.DYNAMIC]).toEqual([STATIC, KINEMATIC, DYNAMIC]);
    expect([ShapeTypeCode.SPHERE, ShapeTypeCode.BOX]).toEqual([SPHERE, BOX]);
    expect([KIND_STATIC, KIND_KINEMATIC, KIND_DYNAMIC]).toEqual([STATIC, KINEMATIC, DYNAMIC]);
    expect(kindOf(BodyTypeCode.DYNAMIC, ShapeTypeCode.BOX)).toBe(KIND_DYNAMIC | KIND_BOX);
    expect(kindOf(BodyTypeCode.KINEMATIC, ShapeTypeCode.SPHERE)).toBe(KIND_KINEMATIC);
  });

  it("shows every body's state by slot, live, and is current again after growth", () => {
    const w = worldWith({ gravity: [0, -10, 0], sleep: false }, [GROUND, ball("b", [0, 5, 0], 0.25)]);
    const v: BodyView = w.view();
    const slot = v.slotOf(w.handleOf("b"));
    expect([v.slotCount, v.alive[slot], v.type[slot], v.shape[slot], v.half[slot * 3]]).toEqual([2, 1, BodyTypeCode.DYNAMIC, ShapeTypeCode.SPHERE, 0.25]);
    expect(v.idOf(slot)).toBe("b");
    expect(v.handleOf(slot)).toBe(w.handleOf("b"));
    expect(v.slotOf(12345)).toBe(-1);
    w.step();
    // Values are live between creations and removals.
    expect(v.pos[slot * 3 + 1]).toBe(w.getPosition(w.handleOf("b"))[1]);
    expect(v.vel[slot * 3 + 1]).toBeLessThan(0);
    expect([...v.rot].slice(slot * 4, slot * 4 + 4)).toEqual(w.getRotation(w.handleOf("b")));
    for (let i = 0; i < 200; i++) w.createBody(ball(`x${i}`, [i, 20, 0]));
    const again = w.view();
    expect(again.slotCount).toBe(202);
    expect(again.pos[201 * 3]).toBe(199);
    expect(again.angVel.length).toBeGreaterThanOrEqual(202 * 3);
    expect(again.sleeping[201]).toBe(0);
  });

  it("is read-only at the type level", () => {
    const v = new World().view();
    // Never called: the @ts-expect-error lines are checked by `tsc -p .`.
    const writes = () => {
      // @ts-expect-error no index setter
      v.pos[0] = 1;
      // @ts-expect-error readonly field
      v.slotCount = 3;
      // @ts-expect-error no mutating typed-array methods
      v.alive.fill(0);
      // @ts-expect-error no writable sub-views
      v.vel.subarray(0, 3);
    };
    expect(typeof writes).toBe("function");
  });
});
