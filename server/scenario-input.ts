import {
  builtinNames,
  formatIssues,
  getBuiltinScenario,
  type Scenario,
  type ScenarioIssue,
  type ScenarioLimits,
  validateScenario,
} from "../shared/scenarios/index.ts";

export type ScenarioResolution =
  | { ok: true; scenario: Scenario }
  | { ok: false; message: string; issues: ScenarioIssue[] };

/** Server policy on top of the scenario format's own limits (shared/scenarios/validate.ts). */
export interface ScenarioCaps {
  /** Most bodies. Default: the format's limit (20000). */
  maxBodies?: number;
  /** Highest world.tickRate, steps per second (CPU per room grows with it). Default: the format's (1000). */
  maxTickRate?: number;
  /** Largest scenario JSON (UTF-8 bytes of its compact serialisation). Default 3.5 MiB. */
  maxJsonBytes?: number;
  /** Most hull points, all hulls together (counted before validation builds any). Default: no cap. */
  maxHullPoints?: number;
  /** Most mesh triangles, all meshes together (counted before validation). Default: no cap. */
  maxMeshTriangles?: number;
  /** Most joints (counted before validation). Default: the format's limit (20000). */
  maxJoints?: number;
}

/**
 * Hull points (hull bodies and compound children) and mesh triangles of a raw scenario, counted without
 * trusting its shape, with the path of the first hull and mesh.
 */
function costlyGeometry(input: object): { count: number; first: string; triangles: number; firstMesh: string } {
  let count = 0;
  let first = "";
  let triangles = 0;
  let firstMesh = "";
  const bodies = (input as { bodies?: unknown }).bodies;
  if (!Array.isArray(bodies)) return { count, first, triangles, firstMesh };
  const visit = (shape: unknown, path: string) => {
    if (shape === null || typeof shape !== "object") return;
    const s = shape as { type?: unknown; points?: unknown; children?: unknown; indices?: unknown };
    if (s.type === "mesh" && Array.isArray(s.indices)) {
      triangles += s.indices.length;
      if (firstMesh === "") firstMesh = `${path}.indices`;
    } else if (s.type === "hull" && Array.isArray(s.points)) {
      count += s.points.length;
      if (first === "") first = `${path}.points`;
    } else if (s.type === "compound" && Array.isArray(s.children)) {
      s.children.forEach((child, i) => {
        if (child !== null && typeof child === "object") visit((child as { shape?: unknown }).shape, `${path}.children[${i}].shape`);
      });
    }
  };
  bodies.forEach((body, i) => {
    if (body !== null && typeof body === "object") visit((body as { shape?: unknown }).shape, `bodies[${i}].shape`);
  });
  return { count, first, triangles, firstMesh };
}

/** Default JSON size cap: under the admin API's 4 MiB body limit, so the 400 names the field. */
export const DEFAULT_MAX_SCENARIO_JSON_BYTES = 3.5 * 1024 * 1024;

function fail(path: string, message: string): ScenarioResolution {
  const issue = { path, message };
  return { ok: false, message: `${issue.path}: ${issue.message}`, issues: [issue] };
}

/**
 * A scenario from untrusted input: a built-in name or scenario JSON (an object). Problems are reported
 * with paths prefixed by `prefix` (e.g. `scenario.bodies[3].shape.radius`), so the admin API's 400
 * names the exact field.
 */
export function resolveScenario(input: unknown, prefix = "scenario", caps: ScenarioCaps = {}): ScenarioResolution {
  if (typeof input === "string") {
    const scenario = getBuiltinScenario(input);
    if (scenario) return checkTickRate(scenario, prefix, caps);
    return fail(prefix, `unknown built-in scenario "${input.slice(0, 64)}" (known: ${builtinNames().join(", ")})`);
  }
  if (input === null || typeof input !== "object" || Array.isArray(input)) {
    return fail(prefix, "must be a built-in scenario name or a scenario object");
  }
  const maxJsonBytes = caps.maxJsonBytes ?? DEFAULT_MAX_SCENARIO_JSON_BYTES;
  let bytes: number;
  try {
    bytes = Buffer.byteLength(JSON.stringify(input));
  } catch {
    return fail(prefix, "is not serialisable as JSON");
  }
  if (bytes > maxJsonBytes) return fail(prefix, `scenario JSON is ${bytes} bytes, at most ${maxJsonBytes} allowed`);
  if (caps.maxHullPoints !== undefined || caps.maxMeshTriangles !== undefined) {
    const g = costlyGeometry(input);
    if (caps.maxHullPoints !== undefined && g.count > caps.maxHullPoints) {
      return fail(`${prefix}.${g.first}`, `the scenario's hulls have ${g.count} points in all, at most ${caps.maxHullPoints} allowed in this room`);
    }
    if (caps.maxMeshTriangles !== undefined && g.triangles > caps.maxMeshTriangles) {
      return fail(`${prefix}.${g.firstMesh}`, `the scenario's meshes have ${g.triangles} triangles in all, at most ${caps.maxMeshTriangles} allowed in this room`);
    }
  }
  const joints = (input as { joints?: unknown }).joints;
  if (caps.maxJoints !== undefined && Array.isArray(joints) && joints.length > caps.maxJoints) {
    return fail(`${prefix}.joints`, `the scenario has ${joints.length} joints, at most ${caps.maxJoints} allowed in this room`);
  }
  const limits: Partial<ScenarioLimits> = {};
  if (caps.maxBodies !== undefined) limits.maxBodies = caps.maxBodies;
  if (caps.maxJoints !== undefined) limits.maxJoints = caps.maxJoints;
  const result = validateScenario(input, limits);
  if (!result.ok) {
    const issues = result.issues.map((i) => ({
      path: i.path === "(root)" ? prefix : i.path.startsWith("[") ? `${prefix}${i.path}` : `${prefix}.${i.path}`,
      message: i.message,
    }));
    return { ok: false, message: formatIssues(issues), issues };
  }
  return checkTickRate(result.scenario, prefix, caps);
}

function checkTickRate(scenario: Scenario, prefix: string, caps: ScenarioCaps): ScenarioResolution {
  const rate = scenario.world?.tickRate;
  if (caps.maxTickRate !== undefined && rate !== undefined && rate > caps.maxTickRate) {
    return fail(`${prefix}.world.tickRate`, `must be <= ${caps.maxTickRate} in this room`);
  }
  return { ok: true, scenario };
}
