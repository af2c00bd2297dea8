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

/**
 * The joints' workout: the chain (ball joints swinging a wrecking ball into a wall), the ragdolls (hinges
 * with limits and ball joints, falling asleep), the cart (hinge motors up a ramp) and the bridge, stepped
 * side by side; in the chain's world a slider with a motor and a spring are added at run time and a link
 * is cut. Returns, after every tick, the four state hashes joined by ":".
 */
export function jointHashes(ticks: number): string[] {
  const worlds = ["chain", "ragdolls", "cart", "bridge"].map((name) => {
    const scenario = getBuiltinScenario(name);
    if (!scenario) throw new Error(`${name} scenario missing`);
    return loadScenario(scenario).world;
  });
  const chain = worlds[0];
  const hash = () => worlds.map((w) => w.stateHash()).join(":");
  const out: string[] = [hash()];
  for (let t = 1; t <= ticks; t++) {
    if (t === 60) {
      chain.createBody({ id: "carriage", type: "dynamic", shape: { type: "box", halfExtents: [0.3, 0.2, 0.3] }, position: [0, 8, 12] });
      chain.createBody({ id: "bob", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [2, 8, 12] });
      chain.createJoint({ id: "rail", type: "slider", bodyA: "carriage", bodyB: null, anchor: [0, 8, 12], axis: [1, 0, 0.5], limits: [-2, 2], motor: { targetVelocity: 1.5, maxForce: 80 } });
      chain.createJoint({ id: "spring", type: "distance", bodyA: "bob", bodyB: "carriage", anchor: [2, 8, 12], anchorB: [0, 8, 12], limits: [1.5, 1.5], spring: { frequency: 2, dampingRatio: 0.2 } });
    }
    if (t === 150) chain.removeJoint(chain.jointHandleOf("joint15"));
    for (const w of worlds) w.step();
    out.push(hash());
  }
  return out;
}
