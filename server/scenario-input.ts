import { builtinNames, formatIssues, getBuiltinScenario, type Scenario, type ScenarioIssue, validateScenario } from "../shared/scenarios/index.ts";

export type ScenarioResolution =
  | { ok: true; scenario: Scenario }
  | { ok: false; message: string; issues: ScenarioIssue[] };

/**
 * A scenario from untrusted input: a built-in name or scenario JSON (an object). Problems are reported
 * with paths prefixed by `prefix` (e.g. `scenario.bodies[3].shape.radius`), so the admin API's 400
 * names the exact field.
 */
export function resolveScenario(input: unknown, prefix = "scenario", maxBodies?: number): ScenarioResolution {
  if (typeof input === "string") {
    const scenario = getBuiltinScenario(input);
    if (scenario) return { ok: true, scenario };
    const issue = { path: prefix, message: `unknown built-in scenario "${input.slice(0, 64)}" (known: ${builtinNames().join(", ")})` };
    return { ok: false, message: `${issue.path}: ${issue.message}`, issues: [issue] };
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    const issue = { path: prefix, message: "must be a built-in scenario name or a scenario object" };
    return { ok: false, message: `${issue.path}: ${issue.message}`, issues: [issue] };
  }
  const result = validateScenario(input, maxBodies !== undefined ? { maxBodies } : undefined);
  if (result.ok) return { ok: true, scenario: result.scenario };
  const issues = result.issues.map((i) => ({
    path: i.path === "(root)" ? prefix : i.path.startsWith("[") ? `${prefix}${i.path}` : `${prefix}.${i.path}`,
    message: i.message,
  }));
  return { ok: false, message: formatIssues(issues), issues };
}
