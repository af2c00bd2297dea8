import { describe, expect, it } from "vitest";
import { CONTACT_POINT_STRIDE, P_IMPULSE, POINT_STRIDE } from "../../shared/engine/dynamics/contact-store.ts";
import { World } from "../../shared/engine/index.ts";
import { worldInternals } from "../../shared/engine/internal.ts";
import { getBuiltinScenario, loadScenario } from "../../shared/scenarios/index.ts";

/**
 * World snapshots are exact: run a scripted world, snapshot it at tick k, keep going; restore the
 * snapshot (into a fresh world and into a world with another history) and run the same script from k:
 * every later state hash must be identical. The script covers what carries state from one step to the
 * next: sleeping islands, warm-started contacts (accumulated impulses), a kinematic character and a
 * kinematic body on targets, bodies created and removed (reused slots), a fast CCD projectile, a sensor
 * and a body with collision groups; the contact and sensor events of every tick are compared as well.
 */

/** One tick of the script: what happens before step t (the same for every run). */
function scriptTick(world: World, t: number): void {
  const walker = world.handleOf("walker");
  const leg = Math.floor(t / 90) % 4;
  const d = 4 / 60;
  const delta = leg === 0 ? [d, -0.01, d * 0.5] : leg === 1 ? [d * 0.5, -0.01, -d] : leg === 2 ? [-d, -0.01, -d * 0.5] : [-d * 0.5, -0.01, d];
  world.moveCharacter(walker, delta);
  const lift = world.handleOf("lift");
  const p = world.getPosition(lift);
  world.moveKinematic(lift, [p[0], 0.6 + (t % 120 < 60 ? t % 60 : 60 - (t % 60)) * 0.01, p[2]]);
  if (t === 25) {
    world.createBody({ id: "bullet", type: "dynamic", shape: { type: "sphere", radius: 0.1 }, position: [-19, 1, 0], linearVelocity: [250, 0, 2] });
  }
  if (t % 40 === 0) {
    const target = world.handleOf(`box${t % 150}`);
    if (target >= 0) world.applyImpulse(target, [0.4, 3, -0.2], world.getPosition(target));
  }
  if (t === 150) world.removeBody(world.handleOf("ball3"));
  if (t === 160) world.createBody({ id: "late", type: "dynamic", shape: { type: "box", halfExtents: [0.3, 0.3, 0.3] }, position: [2, 4, 2] });
}

function arenaWorld(): World {
  const scenario = getBuiltinScenario("arena");
  if (!scenario) throw new Error("arena scenario missing");
  const { world } = loadScenario(scenario);
  world.createBody({ id: "walker", type: "kinematic", shape: { type: "box", halfExtents: [0.4, 0.9, 0.4] }, position: [-15, 0.9, -15] });
  world.createBody({ id: "lift", type: "kinematic", shape: { type: "box", halfExtents: [1, 0.1, 1] }, position: [6, 0.6, 6] });
  // A sensor zone on the walker's path (overlap state carried in its contacts) and a ball that only meets the ground.
  world.createBody({ id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [3, 2, 3] }, position: [-11, 1, -13] });
  world.createBody({
    id: "ghost",
    type: "dynamic",
    shape: { type: "sphere", radius: 0.4 },
    position: [-3, 3, -3],
    collisionGroups: { memberships: 0x0002, filter: 0x0001 },
  });
  return world;
}

/** Runs the script from the world's current tick to `end`: the hash and the contact/sensor events after every step. */
function runTo(world: World, end: number): string[] {
  const out: string[] = [];
  for (let t = world.tick + 1; t <= end; t++) {
    scriptTick(world, t);
    world.step();
    const events: string[] = [];
    world.forEachEvent((e) => events.push(JSON.stringify(e)));
    out.push(`${world.stateHash()} ${events.join(" ")}`);
  }
  return out;
}

/** Counts that show the snapshot tick holds the state worth testing. */
function stateAt(world: World): { sleeping: number; warmContacts: number; kinematic: number } {
  const { bodies, contacts } = worldInternals(world);
  let sleeping = 0;
  for (let s = 0; s < bodies.slotCount; s++) if (bodies.alive[s] && bodies.sleeping[s]) sleeping++;
  let warmContacts = 0;
  for (let c = 0; c < contacts.count; c++) {
    for (let k = 0; k < contacts.pointCount[c]; k++) if (contacts.points[c * CONTACT_POINT_STRIDE + k * POINT_STRIDE + P_IMPULSE] !== 0) warmContacts++;
  }
  return { sleeping, warmContacts, kinematic: bodies.kinematicCount };
}

describe("world snapshots", () => {
  const END = 420;
  for (const k of [1, 170, 300]) {
    it(`continues bit for bit after restoring a snapshot taken at tick ${k}`, () => {
      const original = arenaWorld();
      runTo(original, k);
      const state = stateAt(original);
      const snap = original.snapshot();
      const expected = runTo(original, END);

      const fresh = World.fromSnapshot(snap);
      expect(fresh.tick).toBe(k);
      const fromFresh = runTo(fresh, END);

      // A world with a different history (other bodies, other capacities) takes the state over too.
      const used = arenaWorld();
      runTo(used, 37);
      used.createBody({ id: "extra", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 9, 0] });
      used.restore(snap);
      const fromUsed = runTo(used, END);

      // The snapshot is not aliased: restoring it a second time gives the same run again.
      const again = World.fromSnapshot(snap);
      const fromAgain = runTo(again, END);

      const events = expected.join(" ").match(/"type":"\w+"/g)?.length ?? 0;
      console.log(
        `snapshot at tick ${k}: ${state.sleeping} sleeping, ${state.warmContacts} warm-started points, ${state.kinematic} kinematic; ${expected.length} ticks and ${events} events compared`,
      );
      if (k >= 170) {
        expect(state.sleeping).toBeGreaterThan(0);
        expect(state.warmContacts).toBeGreaterThan(0);
      }
      expect(fromFresh).toEqual(expected);
      expect(fromUsed).toEqual(expected);
      expect(fromAgain).toEqual(expected);
      expect(fresh.getPosition(fresh.handleOf("walker"))).toEqual(original.getPosition(original.handleOf("walker")));
    });
  }

  it("holds only plain data and typed arrays (could be written out)", () => {
    const world = arenaWorld();
    runTo(world, 30);
    const snap = world.snapshot();
    const kinds = new Set<string>();
    const walk = (v: unknown): void => {
      if (v === null || typeof v !== "object") return;
      if (ArrayBuffer.isView(v)) return;
      const proto = Object.getPrototypeOf(v);
      kinds.add(Array.isArray(v) ? "array" : proto === Object.prototype ? "object" : String(proto?.constructor?.name));
      for (const x of Object.values(v)) walk(x);
    };
    walk(snap);
    expect([...kinds].sort()).toEqual(["array", "object"]);
    // structuredClone (what a worker or a file would do) keeps it exact.
    const copy = World.fromSnapshot(structuredClone(snap));
    expect(runTo(copy, 90)).toEqual(runTo(world, 90));
  });

  it("refuses a snapshot of another format", () => {
    const world = arenaWorld();
    const snap = { ...world.snapshot(), format: 99 };
    expect(() => new World().restore(snap)).toThrow(/format 99/);
  });
});
