import { describe, expect, it } from "vitest";
import { solverPasses } from "../../server/cpu/cost-model.ts";
import { bodyCapForBudget, RoomCpuBudget } from "../../server/cpu/room-budget.ts";
import { resolveSettings, type WorldSettingsPatch } from "../../shared/engine/index.ts";

/** Charges `seconds` of ticks at `tickRate`, each `ms` long, starting at wall time `t0`; returns the actions and the end time. */
function run(budget: RoomCpuBudget, tickRate: number, ms: number, seconds: number, t0: number): { actions: string[]; t: number } {
  const actions: string[] = [];
  let t = t0;
  for (let i = 0; i < seconds * tickRate; i++) {
    t += 1000 / tickRate;
    if (!budget.shouldStep()) continue;
    const action = budget.charge(ms, t);
    if (action !== "none") actions.push(`${action}@${Math.round((t - t0) / 1000)}s`);
  }
  return { actions, t };
}

describe("a room's CPU budget", () => {
  it("derives the body cap from the budget, the tick rate and the solver passes the engine runs", () => {
    const settings = (patch: WorldSettingsPatch) => solverPasses(resolveSettings(patch));
    // Soft contacts, 4 velocity + 1 relax iterations: 4 body passes, 4 x (2 + 1) constraint passes.
    expect(solverPasses(resolveSettings({}))).toEqual({ body: 4, constraint: 12 });
    expect(bodyCapForBudget(150, 60, settings({}))).toBe(258);
    expect(bodyCapForBudget(150, 120, settings({ velocityIterations: 64 }))).toBe(14);
    // Projection: one body pass; 1 warm start + velocity solves + position projections per constraint.
    const projection = settings({ velocityIterations: 1, positionCorrection: { method: "projection", iterations: 64 } });
    expect(projection).toEqual({ body: 1, constraint: 66 });
    expect(bodyCapForBudget(150, 60, projection)).toBe(80);
    // Twice the budget, twice the bodies; never below one.
    expect(bodyCapForBudget(300, 60, settings({}))).toBe(516);
    expect(bodyCapForBudget(1, 1000, settings({ velocityIterations: 64 }))).toBe(1);
  });

  it("slows a player room over budget for 2 s, and closes it if at half speed it still uses over three quarters", () => {
    // 4 ms per tick at 60 Hz: 240 ms/s against 150. At half speed: 120 ms/s, over 0.75 x 150 = 112.5.
    const budget = new RoomCpuBudget(150, 60, true);
    expect(run(budget, 60, 4, 6, 0).actions).toEqual(["slow@2s", "close@4s"]);
    expect(budget.state).toBe("closed");
  });

  it("keeps a slowed room that fits at half speed, and runs it at full speed again after 5 quiet seconds", () => {
    const budget = new RoomCpuBudget(150, 60, true);
    const hot = run(budget, 60, 4, 2.1, 0);
    expect(hot.actions).toEqual(["slow@2s"]);
    // 3 ms per tick: 90 ms/s at half speed, under the three quarters (not closed), over half (not recovered).
    const warm = run(budget, 60, 3, 4, hot.t);
    expect(warm.actions).toEqual([]);
    expect(budget.state).toBe("slowed");
    // 1 ms per tick: 30 ms/s at half speed, under half the budget for 5 s.
    const cool = run(budget, 60, 1, 6, warm.t);
    expect(cool.actions).toEqual(["recover@5s"]);
    expect(budget.state).toBe("normal");
    expect(budget.overrunSeconds).toBe(2);
  });

  it("steps every other timer tick while slowed", () => {
    const budget = new RoomCpuBudget(150, 60, true);
    run(budget, 60, 4, 3, 0);
    const steps = Array.from({ length: 10 }, () => budget.shouldStep());
    expect(steps.filter(Boolean).length).toBe(5);
  });

  it("slows at once on three long ticks within a second, but not on one (a GC pause proves nothing)", () => {
    const one = new RoomCpuBudget(150, 60, true);
    expect(one.charge(30, 10)).toBe("none");
    expect(one.charge(0.5, 20)).toBe("none");
    expect(one.state).toBe("normal");
    const three = new RoomCpuBudget(150, 60, true);
    expect(three.charge(30, 10)).toBe("none");
    expect(three.charge(30, 30)).toBe("none");
    expect(three.charge(30, 50)).toBe("slow");
  });

  it("only reports an admin room: counts its overrun seconds, never slows or closes it", () => {
    const budget = new RoomCpuBudget(150, 60, false);
    const { actions } = run(budget, 60, 10, 6, 0);
    expect(actions).toEqual([]);
    expect(budget.state).toBe("normal");
    expect(budget.overrunSeconds).toBeGreaterThanOrEqual(5);
    expect(budget.shed()).toBe("none");
  });

  it("sheds on the process's word: slowed at once, then closed", () => {
    const budget = new RoomCpuBudget(150, 60, true);
    expect(budget.shed()).toBe("slow");
    expect(budget.shed()).toBe("close");
    expect(budget.shed()).toBe("none");
  });
});
