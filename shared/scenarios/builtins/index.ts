import type { Scenario } from "../format.ts";
import { arena } from "./arena.ts";
import { bounce } from "./bounce.ts";
import { bridge } from "./bridge.ts";
import { cart } from "./cart.ts";
import { chain } from "./chain.ts";
import { failureLab } from "./failure-lab.ts";
import { fiedlerCubes } from "./fiedler-cubes.ts";
import { frictionRamp } from "./friction-ramp.ts";
import { heap1000 } from "./heap1000.ts";
import { pile1000 } from "./pile1000.ts";
import { playground } from "./playground.ts";
import { positionalCorrection } from "./positional-correction.ts";
import { pyramid20 } from "./pyramid20.ts";
import { ragdolls } from "./ragdolls.ts";
import { rain2000 } from "./rain2000.ts";
import { shapes1000 } from "./shapes1000.ts";
import { stack10 } from "./stack10.ts";

/**
 * The scene library shared by tests, benchmarks, rooms and the client. Each entry builds a fresh scenario,
 * deterministic (seeded), valid under validateScenario and unchanged by it.
 */
export const BUILTIN_SCENARIOS: Readonly<Record<string, () => Scenario>> = Object.freeze({
  stack10,
  pyramid20,
  pile1000,
  heap1000,
  rain2000,
  "positional-correction": positionalCorrection,
  bounce,
  "friction-ramp": frictionRamp,
  "failure-lab": failureLab,
  "fiedler-cubes": fiedlerCubes,
  arena,
  playground,
  shapes1000,
  bridge,
  chain,
  ragdolls,
  cart,
});

/** Names of the built-in scenes, in registry order. */
export function builtinNames(): string[] {
  return Object.keys(BUILTIN_SCENARIOS);
}

/** A fresh copy of the named built-in scene, or undefined for an unknown name. */
export function getBuiltinScenario(name: string): Scenario | undefined {
  return Object.hasOwn(BUILTIN_SCENARIOS, name) ? BUILTIN_SCENARIOS[name]() : undefined;
}
