import type { BodyDef, WorldSettingsPatch } from "../engine/types.ts";

/**
 * A scenario: a named world description. The same JSON is accepted by the simulator CLI, the admin API
 * (`POST /rooms`) and room join options, and every built-in scene exports to it.
 */
export interface Scenario {
  /** Short name, used in URLs and replay headers. */
  name: string;
  description?: string;
  /** Every field optional; absent fields take the engine defaults (shared/engine/config.ts). */
  world?: WorldSettingsPatch;
  /** Bodies in creation order; `id`s are unique strings. */
  bodies: BodyDef[];
}

/** One validation problem: a JSON path such as `bodies[3].shape.radius` and what is wrong there. */
export interface ScenarioIssue {
  path: string;
  message: string;
}
