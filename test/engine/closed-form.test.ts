import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, World } from "../../shared/engine/index.ts";
import { builtin, GROUND, steps, worldWith } from "./helpers.ts";

describe("closed-form checks", () => {
  it("free fall follows semi-implicit Euler exactly", () => {
    const w = new World({ sleep: false });
    const h = w.createBody({ id: "b", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 100, 0] });
    steps(w, 60);
    // n sub-steps of length k: v = -g n k, y = y0 - g k² n(n+1)/2
    const n = 60 * DEFAULT_SETTINGS.velocityIterations;
    const k = 1 / 60 / DEFAULT_SETTINGS.velocityIterations;
    expect(w.getLinearVelocity(h)[1]).toBeCloseTo(-9.81 * n * k, 10);
    expect(w.getPosition(h)[1]).toBeCloseTo(100 - (9.81 * k * k * n * (n + 1)) / 2, 10);
    // ... and is within 1 % of the continuous ½ g t² after one second.
    expect(100 - w.getPosition(h)[1]).toBeCloseTo(0.5 * 9.81, 1);
  });

  for (const ccd of [true, false]) {
    it(`a sphere with e=0.5 leaves the ground at e times its closing speed (ccd ${ccd})`, () => {
      const w = worldWith({ sleep: false, ccd }, [
        GROUND,
        { id: "s", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 3.3, 0], restitution: 0.5 },
      ]);
      const h = w.handleOf("s");
      let before = 0;
      let after = 0;
      for (let i = 0; i < 120; i++) {
        const v0 = w.getLinearVelocity(h)[1];
        w.step();
        const v1 = w.getLinearVelocity(h)[1];
        if (v0 < 0 && v1 > 0) {
          before = v0;
          after = v1;
          break;
        }
      }
      expect(before).toBeLessThan(-5);
      expect(after / -before).toBeGreaterThan(0.5 * 0.97);
      expect(after / -before).toBeLessThan(0.5 * 1.03);
    });
  }

  it("head-on equal spheres with e=1 swap velocities and conserve momentum", () => {
    const w = worldWith({ gravity: [0, 0, 0], sleep: false }, [
      { id: "a", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [-2, 0, 0], linearVelocity: [3, 0, 0], restitution: 1 },
      { id: "b", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [2, 0, 0], linearVelocity: [-3, 0, 0], restitution: 1 },
    ]);
    const a = w.handleOf("a");
    const b = w.handleOf("b");
    for (let i = 0; i < 120; i++) {
      w.step();
      const p = w.getLinearVelocity(a)[0] * w.getMass(a) + w.getLinearVelocity(b)[0] * w.getMass(b);
      expect(Math.abs(p)).toBeLessThan(1e-9);
    }
    expect(w.getLinearVelocity(a)[0]).toBeCloseTo(-3, 6);
    expect(w.getLinearVelocity(b)[0]).toBeCloseTo(3, 6);
  });

  it("a box on a 20° slope holds with μ=0.5 and slides with a = g(sinθ - μcosθ) at μ=0.2", () => {
    const { world: w } = builtin("friction-ramp");
    const grip = w.handleOf("grip");
    const slide = w.handleOf("slide");
    const sin = Math.sin((20 * Math.PI) / 180);
    const cos = Math.cos((20 * Math.PI) / 180);
    const along = (p: readonly number[]) => p[0] * cos + p[1] * sin; // ramp's up-slope direction
    const g0 = along(w.getPosition(grip));
    const speed = () => {
      const v = w.getLinearVelocity(slide);
      return -(v[0] * cos + v[1] * sin);
    };
    steps(w, 30);
    const v1 = speed();
    steps(w, 60);
    const v2 = speed();
    steps(w, 30);
    expect(Math.abs(along(w.getPosition(grip)) - g0)).toBeLessThan(0.01);
    const expected = 9.81 * (sin - 0.2 * cos);
    expect((v2 - v1) / 1).toBeGreaterThan(expected * 0.95);
    expect((v2 - v1) / 1).toBeLessThan(expected * 1.05);
  });
});
