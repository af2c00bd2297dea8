import { describe, expect, it } from "vitest";
import { GameTester } from "physics-rooms/game";
import soccer from "../../games/soccer.ts";
import { validateScenario } from "../../shared/scenarios/validate.ts";

const BALL_RADIUS = 0.4;

function ballOf(t: GameTester): number {
  return t.sim.world.handleOf("ball");
}

function ballPosition(t: GameTester): number[] {
  return t.sim.world.getPosition(ballOf(t));
}

/** Puts the ball off the avatars' kickoff line (z = 1.5) and sends it along x at `vx` m/s. */
function shoot(t: GameTester, vx: number): void {
  const world = t.sim.world;
  world.setTransform(ballOf(t), [0, BALL_RADIUS, 1.5]);
  world.setLinearVelocity(ballOf(t), [vx, 0, 0]);
}

/** Steps until the score changes (at most `limit` ticks); answers the ticks taken. */
function untilScoreChanges(t: GameTester, limit = 600): number {
  const before = `${t.state.red}-${t.state.blue}`;
  for (let i = 1; i <= limit; i++) {
    t.step();
    if (`${t.state.red}-${t.state.blue}` !== before) return i;
  }
  return -1;
}

describe("soccer", () => {
  it("builds a valid pitch with two goal sensors and a ball", () => {
    const v = validateScenario(soccer.scenario);
    expect(v.ok).toBe(true);
    const t = new GameTester(soccer);
    expect([...t.sim.sensorCounts().keys()]).toEqual(["goal-east", "goal-west"]);
    expect(ballPosition(t)).toEqual([0, BALL_RADIUS, 0]);
  });

  it("puts players in alternating teams, each on their own half", () => {
    const t = new GameTester(soccer);
    for (const s of ["a", "b", "c", "d", "e"]) t.join(s);
    t.step(2);
    expect(["a", "b", "c", "d", "e"].map((s) => t.player(s)?.state.team)).toEqual(["red", "blue", "red", "blue", "red"]);
    for (const p of t.sim.players) {
      const x = t.sim.world.getPosition(t.sim.world.handleOf(p.avatarId))[0];
      if (p.state.team === "red") expect(x).toBeLessThan(0);
      else expect(x).toBeGreaterThan(0);
    }
    // A leaver's seat goes to the next player: b leaves, f joins blue.
    t.leave("b");
    t.join("f");
    t.step();
    expect(t.player("f")?.state.team).toBe("blue");
    expect(t.hookErrors).toEqual([]);
  });

  it("a ball sent into the east goal scores once for red and goes back to the centre", () => {
    const t = new GameTester(soccer);
    t.join("a");
    t.join("b");
    t.step(2);
    shoot(t, 12);
    expect(untilScoreChanges(t)).toBeGreaterThan(0);
    expect([t.state.red, t.state.blue]).toEqual([1, 0]);
    const p = ballPosition(t);
    expect(Math.abs(p[0]) + Math.abs(p[2])).toBeLessThan(0.05);
    t.step(300);
    expect([t.state.red, t.state.blue]).toEqual([1, 0]);
    // Nobody touched the ball: no player is credited.
    expect([t.player("a")?.state.goals, t.player("b")?.state.goals]).toEqual([0, 0]);
    // And into the west goal: blue.
    shoot(t, -12);
    expect(untilScoreChanges(t)).toBeGreaterThan(0);
    expect([t.state.red, t.state.blue]).toEqual([1, 1]);
    expect(t.hookErrors).toEqual([]);
  });

  it("a red player walking the ball into the east goal is credited", () => {
    const t = new GameTester(soccer);
    t.join("a");
    t.step(2);
    t.move("a", 6, 0);
    expect(untilScoreChanges(t, 900)).toBeGreaterThan(0);
    expect([t.state.red, t.state.blue]).toEqual([1, 0]);
    expect(t.player("a")?.state.goals).toBe(1);
    // Kickoff: the scorer is back on the red half, the ball on the centre spot.
    expect(t.sim.world.getPosition(t.sim.world.handleOf("avatar-a"))[0]).toBeLessThan(-4);
    expect(t.state.lastTouch).toBe("");
  });

  it("ends after three goals; later goals do not count; reset starts a new match", () => {
    const t = new GameTester(soccer);
    t.join("a");
    t.step(2);
    const ctx = t.sim.runtime.ctx;
    const player = t.player("a")!;
    expect(soccer.inputs.reset.check?.(ctx, player, {})).toBe("the match is still on");
    for (let goal = 1; goal <= 3; goal++) {
      shoot(t, 12);
      expect(untilScoreChanges(t)).toBeGreaterThan(0);
      expect(t.state.red).toBe(goal);
    }
    expect(t.state.status).toBe("over");
    expect(t.state.winner).toBe("red");
    shoot(t, -12);
    expect(untilScoreChanges(t)).toBe(-1);
    expect([t.state.red, t.state.blue, t.state.winner]).toEqual([3, 0, "red"]);
    // The ball still came back to the centre.
    expect(Math.abs(ballPosition(t)[0])).toBeLessThan(0.05);
    expect(soccer.inputs.reset.check?.(ctx, player, {})).toBeNull();
    t.input("a", "reset");
    t.step();
    expect(t.state).toMatchObject({ red: 0, blue: 0, winner: "", status: "playing" });
    expect(t.sim.world.getPosition(t.sim.world.handleOf("avatar-a"))[0]).toBeLessThan(0);
    expect(t.hookErrors).toEqual([]);
  });

  it("a ball shoved out of the pitch comes back to the centre", () => {
    const t = new GameTester(soccer);
    t.step();
    t.sim.world.setTransform(ballOf(t), [0, 3, 12]);
    t.step(2);
    const [x, y, z] = ballPosition(t);
    expect([x, z]).toEqual([0, 0]);
    expect(y).toBeCloseTo(BALL_RADIUS, 3);
  });

  it("is deterministic: the same inputs give the same hashes", () => {
    const run = (): string[] => {
      const t = new GameTester(soccer, { seed: 7 });
      const hashes: string[] = [];
      t.join("a");
      t.join("b");
      t.step(2);
      t.move("a", 6, 0.5);
      t.move("b", -3, 1, true);
      for (let i = 0; i < 600; i++) {
        if (i === 200) t.move("b", 6, 0);
        hashes.push(t.step());
      }
      expect(t.hookErrors).toEqual([]);
      return hashes;
    };
    const first = run();
    expect(run()).toEqual(first);
    expect(new Set(first).size).toBeGreaterThan(100);
  });
});
