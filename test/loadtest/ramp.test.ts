import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { LoadRun } from "../../loadtest/run.ts";
import { buildStageResult, type StageWindow } from "../../loadtest/stage-result.ts";
import type { StageResult } from "../../loadtest/types.ts";
import { shortRun } from "./options.ts";

/**
 * The capacity ramp's policy (LoadRun.findCapacity): which room counts it measures in which phase,
 * where it stops, where it ramps down to, and what the report concludes. The two stages that need a
 * server (fleet.setRooms, measureStage) are replaced by a script of stage outcomes; everything else is
 * the real run (its noise probe included), against an address nothing listens on.
 */
const dir = join(import.meta.dirname, "fixtures");
const { bystanderRoomId: _, ...window } = JSON.parse(readFileSync(join(dir, "window.json"), "utf8")) as StageWindow & { bystanderRoomId: string };
const base = buildStageResult(readFileSync(join(dir, "metrics-before.prom"), "utf8"), readFileSync(join(dir, "metrics-after.prom"), "utf8"), window);

type Outcome = "held" | "failed" | "busy";

async function ramp(steps: number[], outcome: (rooms: number, phase: StageResult["phase"]) => Outcome) {
  const options = shortRun({ url: "http://127.0.0.1:9", adminToken: "unused", rooms: 0, clients: 8, seconds: 1, warmupSeconds: 0, findCapacity: true, steps, overloadSteps: 1 });
  const run = await LoadRun.start(options);
  const calls: string[] = [];
  let rooms = 0;
  run.fleet.setRooms = async (n) => {
    rooms = n;
    calls.push(`set ${n}`);
  };
  run.measureStage = async (phase) => {
    const o = outcome(rooms, phase);
    const stage: StageResult = { ...structuredClone(base), phase, rooms, clientsPerRoom: 8, players: rooms * 8, held: o === "held", reasons: o === "held" ? [] : ["late patches"], contaminated: o === "busy" };
    run.stages.push(stage);
    calls.push(`${phase} ${rooms}`);
    return stage;
  };
  try {
    await run.findCapacity();
  } finally {
    await run.teardown();
  }
  return { calls, report: await run.finish() };
}

describe("capacity ramp (LoadRun.findCapacity)", () => {
  it("ramps until a stage fails, runs one overload stage, then ramps down to ≤ 60% of the capacity and measures recovery", async () => {
    const { calls, report } = await ramp([2, 4, 8, 12, 16, 20], (n, phase) => (phase === "recovery" || n <= 8 ? "held" : "failed"));
    expect(calls).toEqual(["set 2", "ramp 2", "set 4", "ramp 4", "set 8", "ramp 8", "set 12", "ramp 12", "set 16", "overload 16", "set 4", "recovery 4"]);
    expect(report.kind).toBe("capacity");
    expect(report.capacity?.rooms).toBe(8);
    expect(report.capacityIsLowerBound).toBe(false);
    expect(report.degradation).toEqual({ overloadStages: 2, noCrash: true, noLostClients: true, recovered: true });
    expect(report.verdict).toBe(
      "8 rooms × 8 clients (64 players): tick-loop p99 1.68 ms, tick p99 1.633 ms, patch interval p99 51.8 ms; past capacity: no crash, no lost clients, recovered after ramping down",
    );
  });

  it("a failure only while other processes were busy is inconclusive: the ramp goes on", async () => {
    const { calls, report } = await ramp([2, 4, 8], (n) => (n === 4 ? "busy" : "held"));
    expect(calls).toEqual(["set 2", "ramp 2", "set 4", "ramp 4", "set 8", "ramp 8"]);
    expect(report.stages.map((s) => s.inconclusive)).toEqual([false, true, false]);
    expect(report.capacityIsLowerBound).toBe(true);
    expect(report.degradation).toBeNull();
    expect(report.verdict).toMatch(/^≥ 8 rooms × 8 clients .* \(inconclusive under other processes' load: 4 rooms\)$/);
  });

  it("when the first stage fails there is no capacity, and recovery is measured at half the first step", async () => {
    const { calls, report } = await ramp([4, 8, 12], () => "failed");
    expect(calls).toEqual(["set 4", "ramp 4", "set 8", "overload 8", "set 2", "recovery 2"]);
    expect(report.capacity).toBeNull();
    expect(report.degradation?.recovered).toBe(false);
    expect(report.verdict).toBe("no stage held");
  });
});
