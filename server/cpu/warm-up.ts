import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";

let warmed = false;

/**
 * Runs a hundred and fifty ticks of the built-in arena (with an avatar and spawns) before the server accepts rooms, so
 * that the first rooms of a fresh process do not pay for compiling the engine: their first ticks would
 * take several times their real cost, and the CPU budget would count that against them. Once per process.
 */
export function warmEngine(): void {
  if (warmed) return;
  warmed = true;
  const scenario = getBuiltinScenario("arena");
  if (!scenario) return;
  const sim = new RoomSim(scenario, { maxBodies: 1000 });
  sim.enqueue({ type: "join", session: "warm-up" });
  sim.enqueue({ type: "input", session: "warm-up", name: "spawn", message: { shape: "sphere", size: 0.5 } });
  sim.enqueue({ type: "input", session: "warm-up", name: "spawn", message: { shape: "box", size: 0.5 } });
  for (let i = 0; i < 150; i++) sim.step();
}
