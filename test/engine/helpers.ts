import type { BodyDef, WorldSettingsPatch } from "../../shared/engine/index.ts";
import { World } from "../../shared/engine/index.ts";
import { getBuiltinScenario, loadScenario, type LoadedScenario } from "../../shared/scenarios/index.ts";

export const GROUND: BodyDef = {
  id: "ground",
  type: "static",
  shape: { type: "box", halfExtents: [50, 0.5, 50] },
  position: [0, -0.5, 0],
};

/** A world with the given settings and bodies. */
export function worldWith(settings: WorldSettingsPatch, bodies: BodyDef[]): World {
  const w = new World(settings);
  for (const b of bodies) w.createBody(b);
  return w;
}

export function builtin(name: string, overrides: WorldSettingsPatch = {}): LoadedScenario & { ids: string[] } {
  const sc = getBuiltinScenario(name);
  if (!sc) throw new Error(`no builtin ${name}`);
  return { ...loadScenario(sc, overrides), ids: sc.bodies.map((b) => b.id) };
}

export function steps(w: World, n: number): void {
  for (let i = 0; i < n; i++) w.step();
}

export function horizontal(a: readonly number[], b: readonly number[]): number {
  return Math.hypot(a[0] - b[0], a[2] - b[2]);
}
