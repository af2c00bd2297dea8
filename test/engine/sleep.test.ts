import { describe, expect, it } from "vitest";
import { builtin, steps } from "./helpers.ts";

describe("islands and sleeping", () => {
  it("stack10 with sleep on is all asleep within 1 s of settling and the top box never moves after", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    const top = w.handleOf("box9");
    let asleepAt = -1;
    for (let i = 1; i <= 120 && asleepAt < 0; i++) {
      w.step();
      if (w.awakeBodyCount === 0) asleepAt = i;
    }
    // The stack starts at rest, so it has settled at once: asleep within 60 ticks (sleepTime is 0.5 s).
    expect(asleepAt).toBeGreaterThan(0);
    expect(asleepAt).toBeLessThanOrEqual(60);
    const p = w.getPosition(top);
    const q = w.getRotation(top);
    steps(w, 600);
    expect(w.getPosition(top)).toEqual(p);
    expect(w.getRotation(top)).toEqual(q);
    expect(w.getLinearVelocity(top)).toEqual([0, 0, 0]);
  });

  it("a sleeping stack costs no solver work and no contact updates", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 60);
    expect(w.awakeBodyCount).toBe(0);
    const hash = w.stateHash();
    steps(w, 10);
    expect(w.stateHash()).toBe(hash);
    expect(w.lastStepStats.constraints).toBe(0);
    expect(w.lastStepStats.narrowPairs).toBe(0);
  });

  it("an awake body touching the island wakes all of it", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 60);
    w.createBody({ id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.3 }, position: [0, 10.5, 0], linearVelocity: [0, -3, 0] });
    let woke = false;
    for (let i = 0; i < 30 && !woke; i++) {
      w.step();
      woke = !w.isSleeping(w.handleOf("box0"));
    }
    expect(woke).toBe(true);
    expect(w.isSleeping(w.handleOf("box5"))).toBe(false);
  });

  it("an impulse on any body wakes its island", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 60);
    w.applyImpulse(w.handleOf("box9"), [0.1, 0, 0]);
    expect(w.isSleeping(w.handleOf("box0"))).toBe(false);
    expect(w.awakeBodyCount).toBe(10);
  });

  it("removing a body under a sleeping stack makes the stack fall", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 60);
    const y = w.getPosition(w.handleOf("box9"))[1];
    w.removeBody(w.handleOf("box0"));
    steps(w, 60);
    expect(w.getPosition(w.handleOf("box9"))[1]).toBeLessThan(y - 0.9);
  });

  it("turning sleep off wakes everything", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 60);
    w.updateSettings({ sleep: false });
    expect(w.awakeBodyCount).toBe(10);
  });
});
