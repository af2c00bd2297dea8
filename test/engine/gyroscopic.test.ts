import { describe, expect, it } from "vitest";
import { World } from "../../shared/engine/index.ts";

/** A free box (half extents 0.1, 0.4, 0.8: Ix > Iy > Iz... ordered so y is the intermediate axis). */
function spinning(w: number[]) {
  const world = new World({ gravity: [0, 0, 0], sleep: false });
  const h = world.createBody({
    id: "t",
    type: "dynamic",
    shape: { type: "box", halfExtents: [0.1, 0.4, 0.8] },
    position: [0, 0, 0],
    angularVelocity: w as [number, number, number],
  });
  return { world, h };
}

describe("gyroscopic term (implicit)", () => {
  it("a box spun about its intermediate axis flips (Dzhanibekov effect)", () => {
    // Mostly about body y (intermediate inertia) with a tiny perturbation.
    const { world, h } = spinning([0.01, 6, 0]);
    let flipped = false;
    for (let i = 0; i < 600; i++) {
      world.step();
      const q = world.getRotation(h);
      // Body y axis in world: R[:,1]; it starts along +y and flips towards -y.
      const yy = 1 - 2 * (q[0] * q[0] + q[2] * q[2]);
      if (yy < -0.9) flipped = true;
    }
    expect(flipped).toBe(true);
  });

  it("a free spinning box never gains energy", () => {
    const { world } = spinning([0.01, 6, 0.2]);
    let e = world.kineticEnergy();
    for (let i = 0; i < 1200; i++) {
      world.step();
      const next = world.kineticEnergy();
      expect(next).toBeLessThanOrEqual(e * (1 + 1e-12));
      e = next;
    }
    expect(e).toBeGreaterThan(0.5 * spinning([0.01, 6, 0.2]).world.kineticEnergy());
  });

  it("spinning about a principal axis of a major/minor inertia stays stable", () => {
    const { world, h } = spinning([0, 0, 6]);
    for (let i = 0; i < 600; i++) world.step();
    const w = world.getAngularVelocity(h);
    expect(Math.abs(w[2])).toBeCloseTo(6, 6);
  });
});
