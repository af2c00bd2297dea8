import type { BodyDef, JointDef, Vec3Tuple, WorldSettingsPatch } from "../engine/types.ts";

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
  /**
   * Joints, created after every body, in this order; `id`s are unique among joints (a joint may share an
   * id with a body). Each names its bodies by id, `bodyB: null` being the world; anchors and axes are
   * world space at creation (see JointDef in shared/engine/types.ts for each type's fields). Validation
   * also refuses joints that could do nothing (both bodies static or kinematic) and fields a type does
   * not have (an axis on a ball joint, a spring on a hinge).
   */
  joints?: JointDef[];
  /**
   * Where a client's camera starts when it joins: its position and the point it looks at, metres. Without
   * it a client frames the scene's dynamic bodies itself. A hint only: it never affects the simulation.
   */
  camera?: ScenarioCamera;
  /**
   * Where avatars appear: the search for a free spot starts here and puts the avatar on the static surface
   * below this point (or at the point itself when nothing static is below). Without it the search starts
   * at the middle of the dynamic bodies.
   */
  spawn?: Vec3Tuple;
}

export interface ScenarioCamera {
  position: Vec3Tuple;
  target: Vec3Tuple;
}

/** One validation problem: a JSON path such as `bodies[3].shape.radius` and what is wrong there. */
export interface ScenarioIssue {
  path: string;
  message: string;
}
