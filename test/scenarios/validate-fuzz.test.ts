import { describe, expect, it } from "vitest";
import { createPrng, type Prng } from "../../shared/scenarios/prng.ts";
import { validateScenario } from "../../shared/scenarios/validate.ts";

/** A valid scenario touching every field, so mutations can reach every branch of the validator. */
function richScenario(): Record<string, unknown> {
  return {
    name: "fuzz",
    description: "every field",
    world: {
      gravity: [0, -9.81, 0],
      tickRate: 60,
      velocityIterations: 4,
      relaxIterations: 1,
      positionCorrection: {
        method: "soft",
        slop: 0.005,
        percent: 0.2,
        iterations: 1,
        contactHertz: 30,
        dampingRatio: 10,
        maxPushVelocity: 3,
      },
      restitutionThreshold: 1,
      warmStarting: true,
      sleep: true,
      sleepTime: 0.5,
      sleepLinearThreshold: 0.05,
      sleepAngularThreshold: 0.05,
      ccd: true,
      bounds: { min: [-50, -50, -50], max: [50, 50, 50] },
    },
    bodies: [
      { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] },
      {
        id: "s",
        type: "dynamic",
        shape: { type: "sphere", radius: 0.5 },
        position: [0, 2, 0],
        rotation: [0, 0, 0, 2],
        linearVelocity: [1, 0, 0],
        angularVelocity: [0, 1, 0],
        mass: 2,
        friction: 0.5,
        restitution: 0.3,
        linearDamping: 0.1,
        angularDamping: 0.1,
      },
      {
        id: "k",
        type: "kinematic",
        shape: { type: "box", halfExtents: [1, 1, 1] },
        position: [3, 1, 0],
        rotation: [0.1, 0.2, 0.3, 0.9],
        density: 3,
      },
    ],
  };
}

const GARBAGE: unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  0,
  -0,
  -1,
  0.5,
  1.5,
  65,
  1e-320,
  1e6,
  -1e308,
  1.7e308,
  "",
  "x",
  "sphere",
  "box",
  "dynamic",
  "projection",
  "ground",
  null,
  undefined,
  true,
  false,
  [],
  [1, 2],
  [0, 0, 0],
  [1e200, 1e200, 1e200, 1e200],
  [0, 0, 0, 0],
  [Number.NaN, 0, 0],
  {},
  { type: "box" },
  { type: "sphere", radius: -1 },
  { min: [1, 1, 1], max: [0, 0, 0] },
  Symbol("s"),
  () => 1,
  10n,
];

const KEYS = ["__proto__", "constructor", "toString", "extra", "radius", "id", "0", "length"];

type Container = Record<string, unknown> | unknown[];

/** Every object and array in the tree, with the keys it holds. */
function containers(root: unknown, out: Container[] = []): Container[] {
  if (typeof root !== "object" || root === null) return out;
  out.push(root as Container);
  for (const value of Object.values(root)) containers(value, out);
  return out;
}

/** Deep copy of plain data that, unlike structuredClone, passes functions, symbols and bigints through. */
function clone(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clone);
  if (typeof value !== "object" || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    Object.defineProperty(out, key, { value: clone(v), enumerable: true, configurable: true, writable: true });
  }
  return out;
}

function pick<T>(prng: Prng, list: readonly T[]): T {
  return list[prng.int(list.length)];
}

function mutate(prng: Prng, root: Record<string, unknown>): void {
  const target = pick(prng, containers(root));
  const keys = Object.keys(target);
  const action = prng.int(6);
  if (action === 0 || keys.length === 0) {
    // Add a key (unknown, or a prototype name) or append an element.
    if (Array.isArray(target)) target.push(pick(prng, GARBAGE));
    else Object.defineProperty(target, pick(prng, KEYS), { value: pick(prng, GARBAGE), enumerable: true, configurable: true, writable: true });
  } else if (action === 1) {
    const key = pick(prng, keys);
    if (Array.isArray(target)) target.splice(Number(key), 1);
    else delete target[key];
  } else if (action === 2) {
    // Replace with a copy of another node, e.g. a body where a vector belongs.
    const donor = pick(prng, containers(root));
    (target as Record<string, unknown>)[pick(prng, keys)] = clone(donor);
  } else if (action === 3) {
    const key = pick(prng, keys);
    const value = (target as Record<string, unknown>)[key];
    if (typeof value === "number") (target as Record<string, unknown>)[key] = value * prng.range(-1e3, 1e3);
    else (target as Record<string, unknown>)[key] = pick(prng, GARBAGE);
  } else {
    (target as Record<string, unknown>)[pick(prng, keys)] = pick(prng, GARBAGE);
  }
}

function allNumbersFinite(value: unknown): boolean {
  if (typeof value === "number") return Number.isFinite(value);
  if (typeof value !== "object" || value === null) return true;
  return Object.values(value).every(allNumbersFinite);
}

describe("validateScenario fuzz", () => {
  it("never throws on 2000 random mutations and returns a finite scenario or issues", () => {
    const prng = createPrng(20240601);
    let okCount = 0;
    for (let round = 0; round < 2000; round++) {
      const input = richScenario();
      const mutations = 1 + prng.int(3);
      for (let m = 0; m < mutations; m++) mutate(prng, input);

      const before = clone(input);
      let result: ReturnType<typeof validateScenario>;
      try {
        result = validateScenario(input);
      } catch (err) {
        throw new Error(`round ${round}: validateScenario threw ${String(err)}`);
      }
      expect(input, `round ${round}: input mutated`).toEqual(before);
      if (result.ok) {
        okCount++;
        expect(allNumbersFinite(result.scenario), `round ${round}`).toBe(true);
        for (const body of result.scenario.bodies) {
          if (!body.rotation) continue;
          const [x, y, z, w] = body.rotation;
          expect(Math.abs(x * x + y * y + z * z + w * w - 1), `round ${round}`).toBeLessThan(1e-12);
        }
        // Its output is valid as well and unchanged by a second pass.
        expect(validateScenario(result.scenario)).toEqual(result);
      } else {
        expect(result.issues.length, `round ${round}`).toBeGreaterThan(0);
        expect(result.issues.length).toBeLessThanOrEqual(101);
        for (const issue of result.issues) {
          expect(typeof issue.path).toBe("string");
          expect(typeof issue.message).toBe("string");
          expect(issue.message.length).toBeGreaterThan(0);
        }
      }
    }
    // The mutations must not be so destructive that every round fails, nor so mild that none does.
    expect(okCount).toBeGreaterThan(20);
    expect(okCount).toBeLessThan(1900);
  });
});
