import { describe, expect, it } from "vitest";
import { GameTester } from "physics-rooms/game";
import tower from "../../games/tower.ts";
import { validateScenario } from "../../shared/scenarios/validate.ts";

const BOX = 0.5;
const ROUND_TICKS = 120 * 60;

/** The player's boxes in the world (ids `t-<session>-<n>`). */
function boxesOf(t: GameTester, session: string): number[] {
  return t.sim.world.handles().filter((h) => t.sim.world.idOf(h)?.startsWith(`t-${session}-`));
}

/** Drops `n` boxes, one every `every` ticks (the input's own limit is 2 a second). */
function dropMany(t: GameTester, session: string, n: number, every = 40): void {
  for (let i = 0; i < n; i++) {
    t.input(session, "drop");
    t.step(every);
  }
}

describe("tower", () => {
  it("builds a valid scenario", () => {
    expect(validateScenario(tower.scenario).ok).toBe(true);
  });

  it("drop spends the budget and stops at 0 without a hook error", () => {
    const t = new GameTester(tower);
    t.join("a");
    t.step(2);
    const ctx = t.sim.runtime.ctx;
    const a = t.player("a")!;
    expect(tower.inputs.drop.check?.(ctx, a, {})).toBeNull();
    dropMany(t, "a", 20, 30);
    expect(a.state.boxes).toBe(0);
    expect(boxesOf(t, "a")).toHaveLength(20);
    expect(tower.inputs.drop.check?.(ctx, a, {})).toBe("no boxes left");
    dropMany(t, "a", 3, 30);
    t.input("a", "dropAt", { x: -3, z: -3 });
    t.step();
    expect(a.state.boxes).toBe(0);
    expect(boxesOf(t, "a")).toHaveLength(20);
    expect(t.hookErrors).toEqual([]);
  });

  it("a stack of n boxes at rest measures n box sizes", () => {
    const t = new GameTester(tower);
    t.join("a");
    t.step(2);
    const n = 8;
    dropMany(t, "a", n);
    t.step(120);
    const height = t.player("a")!.state.height as number;
    expect(Math.abs(height - n * BOX)).toBeLessThan(0.04);
    expect(t.state.best).toBe(height);
    expect(t.state.leader).toBe("a");
    // They stacked: one column in front of the avatar (facing +x).
    const avatar = t.sim.world.getPosition(t.sim.world.handleOf("avatar-a"));
    for (const h of boxesOf(t, "a")) {
      const p = t.sim.world.getPosition(h);
      expect(Math.abs(p[0] - (avatar[0] + 0.75))).toBeLessThan(0.05);
      expect(Math.abs(p[2] - avatar[2])).toBeLessThan(0.05);
    }
  });

  it("dropAt puts a box in the build area; outside it the schema refuses", () => {
    const t = new GameTester(tower);
    t.join("a");
    t.step(2);
    t.input("a", "dropAt", { x: -4, z: 2 });
    t.step(90);
    const [box] = boxesOf(t, "a");
    const p = t.sim.world.getPosition(box);
    expect([p[0], p[2]].map((v) => Math.round(v * 100) / 100)).toEqual([-4, 2]);
    expect(t.player("a")!.state.height).toBeCloseTo(BOX, 1);
    expect(() => t.input("a", "dropAt", { x: 11, z: 0 })).toThrow();
  });

  it("counts down from the first join; after 2 minutes the taller player wins", () => {
    const t = new GameTester(tower);
    t.step(30);
    expect(t.state.secondsLeft).toBe(120);
    t.join("a");
    t.join("b");
    t.step(2);
    // b walks off along +z (and then faces that way) to build apart from a.
    t.move("b", 0, 6);
    t.step(40);
    t.move("b", 0, 0);
    t.step(5);
    dropMany(t, "a", 5);
    dropMany(t, "b", 3);
    t.step(60 * 10);
    expect(t.state.status).toBe("building");
    expect(t.state.secondsLeft).toBeLessThan(120);
    expect(t.player("a")!.state.height).toBeCloseTo(5 * BOX, 1);
    expect(t.player("b")!.state.height).toBeCloseTo(3 * BOX, 1);
    const started = t.state.startTick as number;
    t.step(started + ROUND_TICKS - t.tick - 1);
    expect(t.state.status).toBe("building");
    expect(t.state.secondsLeft).toBe(1);
    t.step();
    expect(t.state).toMatchObject({ status: "over", winner: "a", leader: "a", secondsLeft: 0 });
    // Over: no more drops; reset starts a new round with full budgets.
    const ctx = t.sim.runtime.ctx;
    expect(tower.inputs.drop.check?.(ctx, t.player("a")!, {})).toBe("the round is over");
    t.input("a", "reset");
    t.step();
    expect(t.state).toMatchObject({ status: "building", winner: "", secondsLeft: 120 });
    expect(t.player("b")!.state.boxes).toBe(20);
    expect(boxesOf(t, "a")).toHaveLength(0);
    expect(t.hookErrors).toEqual([]);
  });

  it("is deterministic: the same inputs give the same hashes", () => {
    const run = (): string[] => {
      const t = new GameTester(tower, { seed: 3 });
      const hashes: string[] = [];
      t.join("a");
      t.join("b");
      t.step(2);
      t.move("b", -4, 3);
      for (let i = 0; i < 900; i++) {
        if (i % 30 === 0) t.input("a", "drop");
        if (i === 60) t.move("b", 0, 0);
        if (i % 45 === 0) t.input("b", "drop");
        hashes.push(t.step());
      }
      expect(t.hookErrors).toEqual([]);
      return hashes;
    };
    const first = run();
    expect(run()).toEqual(first);
  });
});
