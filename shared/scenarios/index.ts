/** Public surface of the scenario module: the format, its validation, the seeded PRNG and the built-in scenes. */
export type { Scenario, ScenarioCamera, ScenarioIssue } from "./format.ts";
export {
  DEFAULT_SCENARIO_LIMITS,
  formatIssues,
  MAX_REPORTED_ISSUES,
  minRestitutionThreshold,
  PHYSICAL_LIMITS,
  parseScenarioJson,
  ROOT_PATH,
  type ScenarioLimits,
  type ScenarioValidation,
  validateScenario,
} from "./validate.ts";
export { createPrng, type Prng } from "./prng.ts";
export { BUILTIN_SCENARIOS, builtinNames, getBuiltinScenario } from "./builtins/index.ts";
export { type LoadedScenario, loadScenario, mergeSettings } from "./load.ts";
