import { afterAll, describe, expect, it } from "vitest";
import { ScenarioProbe } from "../../server/cpu/probe.ts";
import { resolveScenario } from "../../server/scenario-input.ts";
import { getBuiltinScenario, type Scenario } from "../../shared/scenarios/index.ts";
import { spherePile } from "../hostile/attack.ts";

const probe = new ScenarioProbe();
afterAll(() => probe.close());

function scenario(input: unknown): Scenario {
  const r = resolveScenario(input, "scenario");
  if (!r.ok) throw new Error(r.message);
  return r.scenario;
}

describe("the scenario probe (a real worker thread)", () => {
  it("admits the built-in arena within a player budget, refuses an overlapping pile, and says why", async () => {
    const arena = await probe.probe("arena", scenario(getBuiltinScenario("arena")), 60, 150 / 60, 258);
    expect(arena.ok).toBe(true);
    const pile = await probe.probe("pile", scenario(spherePile(200)), 60, 150 / 60, 258);
    expect(pile).toMatchObject({ ok: false, judged: true });
    expect(pile.ok ? "" : pile.reason).toMatch(/^too expensive for this room's CPU budget: a tick costs [\d.]+ ms \(limit 5\.0 ms\)$/);
  });

  it("answers the same scenario asked for twice at once with one run, and remembers a judged verdict", async () => {
    const sc = scenario(spherePile(120, {}, 1.05, "block"));
    const first = probe.probe("block", sc, 60, 150 / 60, 258);
    const second = probe.probe("block", sc, 60, 150 / 60, 258);
    expect(second).toBe(first);
    const verdict = await first;
    expect(verdict.ok).toBe(true);
    // From the cache now: the very same verdict object, without a new run.
    expect(await probe.probe("block", sc, 60, 150 / 60, 258)).toBe(verdict);
  });
});
