import { parentPort } from "node:worker_threads";
import { getBuiltinScenario, type Scenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";
import { estimateTickUs, solverPasses } from "./cost-model.ts";

/**
 * The sandbox side of the admission probe (server/cpu/probe.ts): runs a scenario's first ticks in this
 * worker thread and reports each tick's estimated cost (from the engine's work counts). The main thread
 * never steps an untried scenario; if a tick here takes seconds, the main thread terminates this worker
 * and refuses the room.
 */
export interface ProbeRequest {
  id: number;
  scenario: Scenario;
  ticks: number;
  maxBodies: number;
  /** Ticks in one simulated second (the window the budget is judged over). */
  windowTicks: number;
  /** Stop early once one window's estimated cost passes this, microseconds (the verdict is already clear). */
  stopAboveUs: number;
}

export type ProbeReply =
  | { type: "ready" }
  | {
      type: "result";
      id: number;
      /** Estimated cost of each tick run, microseconds. */
      tickUs: number[];
      /** Set when building or stepping the world threw. */
      error?: string;
    };

function run(request: ProbeRequest): ProbeReply {
  const tickUs: number[] = [];
  try {
    const sim = new RoomSim(request.scenario, { maxBodies: request.maxBodies });
    const passes = solverPasses(sim.world.settings);
    let window = 0;
    // Up to `ticks`, but no further once everything sleeps: a settled world costs nothing more.
    for (let i = 0; i < request.ticks && window <= request.stopAboveUs; i++) {
      sim.step();
      const us = estimateTickUs(sim.world.lastStepStats, passes);
      tickUs.push(us);
      window += us;
      if (i >= request.windowTicks) window -= tickUs[i - request.windowTicks];
      if (sim.world.awakeBodyCount === 0) break;
    }
    return { type: "result", id: request.id, tickUs };
  } catch (err) {
    return { type: "result", id: request.id, tickUs, error: (err as Error).message.slice(0, 200) };
  }
}

// Warm the JIT before the first probe, so that the first probe's time limit is not spent compiling.
{
  const warm = getBuiltinScenario("arena");
  if (warm) {
    const sim = new RoomSim(warm, { maxBodies: 1000 });
    for (let i = 0; i < 120; i++) sim.step();
  }
}
parentPort?.on("message", (request: ProbeRequest) => parentPort?.postMessage(run(request)));
parentPort?.postMessage({ type: "ready" } satisfies ProbeReply);
