import { describe, expect, it } from "vitest";
import { builtin, horizontal, steps } from "./helpers.ts";

describe("stacking at the default settings, sleeping off", () => {
  it("stack10 after 20 s: top box drifts < 5 mm sideways and sinks < 3 cm", () => {
    const { world: w } = builtin("stack10", { sleep: false });
    const top = w.handleOf("box9");
    const p0 = w.getPosition(top);
    steps(w, 1200);
    const p = w.getPosition(top);
    expect(horizontal(p, p0)).toBeLessThan(0.005);
    expect(p0[1] - p[1]).toBeLessThan(0.03);
    expect(p0[1] - p[1]).toBeGreaterThan(-0.001);
  });

  it("pyramid20 stands after 600 ticks with the top box within 2 cm", () => {
    const { world: w, ids } = builtin("pyramid20", { sleep: false });
    const top = w.handleOf(ids[ids.length - 1]);
    const p0 = w.getPosition(top);
    steps(w, 600);
    const p = w.getPosition(top);
    expect(Math.hypot(p[0] - p0[0], p[1] - p0[1], p[2] - p0[2])).toBeLessThan(0.02);
    // Standing: every box is still close to its start.
    for (const id of ids.slice(1)) {
      const h = w.handleOf(id);
      expect(w.getPosition(h)[1]).toBeGreaterThan(0.4);
    }
  });
});
