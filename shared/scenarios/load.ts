import { World } from "../engine/index.ts";
import type { WorldSettingsPatch } from "../engine/types.ts";
import type { Scenario } from "./format.ts";

export interface LoadedScenario {
  world: World;
  /** Body handles in scenario order. */
  handles: number[];
  /** Joint handles in scenario order (empty without joints). */
  jointHandles: number[];
}

/**
 * Builds a world from a (validated) scenario: its world settings, then `overrides`, then every body in
 * scenario order, then every joint in scenario order (joints name their bodies, so they come last).
 * Tests, benchmarks, the simulator CLI and rooms all load scenes through here.
 */
export function loadScenario(scenario: Scenario, overrides: WorldSettingsPatch = {}): LoadedScenario {
  const world = new World(mergeSettings(scenario.world ?? {}, overrides));
  const handles = scenario.bodies.map((def) => world.createBody(def));
  const jointHandles = (scenario.joints ?? []).map((def) => world.createJoint(def));
  return { world, handles, jointHandles };
}

/** Deep-merges two settings patches (positionCorrection merged field by field). */
export function mergeSettings(base: WorldSettingsPatch, over: WorldSettingsPatch): WorldSettingsPatch {
  const merged: WorldSettingsPatch = { ...base, ...over };
  if (base.positionCorrection || over.positionCorrection) {
    merged.positionCorrection = { ...base.positionCorrection, ...over.positionCorrection };
  }
  return merged;
}
