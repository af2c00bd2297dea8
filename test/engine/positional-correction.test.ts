import { describe, expect, it } from "vitest";
import type { BodyDef } from "../../shared/engine/index.ts";
import { builtin, worldWith } from "./helpers.ts";

/** The positional-correction case: spheres r=1 at x=0 and 1.5 (penetration 0.5), projection slop 0.05, percent 0.4. */
const settings = {
  gravity: [0, 0, 0] as [number, number, number],
  velocityIterations: 1,
  sleep: false,
  positionCorrection: { method: "projection" as const, slop: 0.05, percent: 0.4, iterations: 1 },
};
const sphere = (id: string, x: number, type: BodyDef["type"] = "dynamic"): BodyDef => ({
  id,
  type,
  shape: { type: "sphere", radius: 1 },
  position: [x, 0, 0],
  mass: 1,
});

describe("projection positional correction (classic linear projection)", () => {
  it("moves A to -0.09 and B to 1.59 after one tick, velocities stay 0", () => {
    const { world: w } = builtin("positional-correction");
    w.step();
    const a = w.handleOf("a");
    const b = w.handleOf("b");
    expect(w.getPosition(a)[0]).toBeCloseTo(-0.09, 12);
    expect(w.getPosition(b)[0]).toBeCloseTo(1.59, 12);
    expect(w.getPosition(a)[1]).toBe(0);
    expect(w.getLinearVelocity(a)).toEqual([0, 0, 0]);
    expect(w.getLinearVelocity(b)).toEqual([0, 0, 0]);
  });

  it("leaves a penetration below the slop alone", () => {
    const w = worldWith(settings, [sphere("a", 0), sphere("b", 1.97)]);
    w.step();
    expect(w.getPosition(w.handleOf("a"))[0]).toBe(0);
    expect(w.getPosition(w.handleOf("b"))[0]).toBe(1.97);
  });

  it("never moves a static partner; the dynamic body takes the whole 0.18", () => {
    const w = worldWith(settings, [sphere("wall", 0, "static"), sphere("b", 1.5)]);
    w.step();
    expect(w.getPosition(w.handleOf("wall"))[0]).toBe(0);
    expect(w.getPosition(w.handleOf("b"))[0]).toBeCloseTo(1.68, 12);
  });

  it("skips pairs whose inverse masses sum to zero", () => {
    const w = worldWith(settings, [sphere("k", 0, "kinematic"), sphere("s", 1.5, "static")]);
    w.step();
    expect(w.getPosition(w.handleOf("k"))[0]).toBe(0);
    expect(w.getPosition(w.handleOf("s"))[0]).toBe(1.5);
  });
});
