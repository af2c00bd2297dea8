import { describe, expect, it } from "vitest";
import type { BodyDef } from "../../shared/engine/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";

/** A 2 x 1 x 2 m sensor on the ground and a ball above it; the ball bounces out sideways when `kick`ed. */
function scene(extra: BodyDef[] = []): Scenario {
  return {
    name: "sensor-drop",
    world: { sleep: false },
    bodies: [
      { id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] },
      { id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 0.5, 1] }, position: [0, 0.5, 0] },
      { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.25 }, position: [0, 3, 0] },
      ...extra,
    ],
  } as Scenario;
}

function countAfter(sim: RoomSim, id: string, ticks: number): number {
  for (let i = 0; i < ticks; i++) sim.step();
  return sim.sensorCounts().get(id)!;
}

describe("RoomSim.sensorCounts", () => {
  it("a ball dropped into a sensor counts 0, then 1; rolled out, 0 again", () => {
    const sim = new RoomSim(scene());
    expect([...sim.sensorCounts()]).toEqual([["zone", 0]]);
    expect(countAfter(sim, "zone", 10)).toBe(0);
    let ticks = 0;
    while (sim.sensorCounts().get("zone") === 0 && ticks < 120) {
      sim.step();
      ticks++;
    }
    expect(sim.sensorCounts().get("zone")).toBe(1);
    // Resting in it, it stays counted once.
    expect(countAfter(sim, "zone", 60)).toBe(1);
    // Pushed hard sideways, it leaves.
    const ball = sim.world.handleOf("ball");
    sim.world.applyImpulse(ball, [0.5, 0, 0]);
    let out = 0;
    while (sim.sensorCounts().get("zone") !== 0 && out < 240) {
      sim.step();
      out++;
    }
    expect(sim.sensorCounts().get("zone")).toBe(0);
    expect(sim.world.getPosition(ball)[0]).toBeGreaterThan(1);
  });

  it("counts several bodies, and a body removed inside the sensor leaves the count", () => {
    const sim = new RoomSim(scene([{ id: "ball2", type: "dynamic", shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] }, position: [0.5, 4, 0.5] }]));
    expect(countAfter(sim, "zone", 150)).toBe(2);
    sim.world.removeBody(sim.world.handleOf("ball2"));
    expect(countAfter(sim, "zone", 1)).toBe(1);
  });

  it("a reload starts every sensor at 0 again, and a restored snapshot keeps the counts", () => {
    // A player (standing well away from the zone) sends the restart: a game input needs a player.
    const sim = new RoomSim({ ...scene(), spawn: [8, 1, 8] });
    sim.enqueue({ type: "join", session: "p" });
    expect(countAfter(sim, "zone", 150)).toBe(1);
    const snap = sim.snapshot();
    const restored = new RoomSim(scene());
    restored.restore(snap);
    expect(restored.sensorCounts().get("zone")).toBe(1);
    expect(countAfter(restored, "zone", 30)).toBe(1);
    sim.enqueue({ type: "input", session: "p", name: "restart", message: {} });
    sim.step();
    expect(sim.sensorCounts().get("zone")).toBe(0);
  });

  it("is the same, tick for tick, in two runs (deterministic)", () => {
    const run = () => {
      const sim = new RoomSim(scene([{ id: "ball2", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [0.9, 5, 0] }]));
      const counts: number[] = [];
      for (let i = 0; i < 200; i++) {
        sim.step();
        counts.push(sim.sensorCounts().get("zone")!);
      }
      return counts;
    };
    const a = run();
    expect(a).toEqual(run());
    expect(Math.max(...a)).toBe(2);
  });
});
