import { getBuiltinScenario, loadScenario } from "../../shared/scenarios/index.ts";

/**
 * A deterministic workout for the whole engine: the arena scene (sleeping on, CCD on), a kinematic
 * character walking a scripted path through the bodies, a fast projectile, impulses and a removal.
 * Returns the state hash after every tick. Runs unchanged in Node and (bundled) in a browser.
 */
export function scriptedHashes(ticks: number): string[] {
  const scenario = getBuiltinScenario("arena");
  if (!scenario) throw new Error("arena scenario missing");
  const { world } = loadScenario(scenario);
  const me = world.createBody({ id: "walker", type: "kinematic", shape: { type: "box", halfExtents: [0.4, 0.9, 0.4] }, position: [-15, 0.9, -15] });
  const out: string[] = [world.stateHash()];
  for (let t = 1; t <= ticks; t++) {
    // Walk a square path, 5 m/s, changing direction every 120 ticks.
    const leg = Math.floor(t / 120) % 4;
    const d = 5 / 60;
    const delta = leg === 0 ? [d, -0.01, d * 0.5] : leg === 1 ? [d * 0.5, -0.01, -d] : leg === 2 ? [-d, -0.01, -d * 0.5] : [-d * 0.5, -0.01, d];
    world.moveCharacter(me, delta);
    if (t === 30) {
      world.createBody({ id: "bullet", type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [-19, 1, 0], linearVelocity: [300, 0, 3] });
    }
    if (t % 50 === 0) {
      const target = world.handleOf(`box${t % 150}`);
      if (target >= 0) world.applyImpulse(target, [0.5, 4, -0.25], world.getPosition(target));
    }
    if (t === 200) world.removeBody(world.handleOf("ball3"));
    world.step();
    out.push(world.stateHash());
  }
  return out;
}

/**
 * The new shapes' workout: the playground scene (a height field, a mesh ramp, capsules, cylinders, hulls,
 * compounds and a sensor) with a capsule character walking over the hill, a hull thrown into the pile
 * and a compound removed mid-run. Returns the state hash after every tick.
 */
export function playgroundHashes(ticks: number): string[] {
  const scenario = getBuiltinScenario("playground");
  if (!scenario) throw new Error("playground scenario missing");
  const { world } = loadScenario(scenario);
  const me = world.createBody({ id: "walker", type: "kinematic", shape: { type: "capsule", radius: 0.3, halfHeight: 0.6 }, position: [-12, 6, -12] });
  const out: string[] = [world.stateHash()];
  let removed = false;
  for (let t = 1; t <= ticks; t++) {
    world.moveCharacter(me, [0.06, -0.05, 0.05]);
    if (t === 60) {
      world.createBody({
        id: "thrown",
        type: "dynamic",
        shape: { type: "hull", points: [[0, 0.4, 0], [0.35, -0.2, 0.1], [-0.3, -0.2, 0.25], [0.05, -0.25, -0.35], [0.2, 0.1, -0.2]] },
        position: [-6, 8, 0],
        linearVelocity: [8, 0, 1],
        angularVelocity: [1, 2, 0],
      });
    }
    if (!removed && t >= 200) {
      // The first compound in the scene, whatever its id.
      const compound = scenario.bodies.find((b) => b.shape.type === "compound");
      if (compound) world.removeBody(world.handleOf(compound.id));
      removed = true;
    }
    world.step();
    out.push(world.stateHash());
  }
  return out;
}
