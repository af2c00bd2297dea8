import { describe, expect, it } from "vitest";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { AVATAR, RoomSim, type SimInput } from "../../shared/sim/index.ts";

const flat: Scenario = {
  name: "flat",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0] },
    { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [3, 0.5, 0] },
  ],
};

/** Runs a script of inputs keyed by the tick they are queued before; returns every tick's hash. */
function run(scenario: Scenario, script: Map<number, SimInput[]>, ticks: number): { sim: RoomSim; hashes: string[] } {
  const sim = new RoomSim(structuredClone(scenario));
  const hashes: string[] = [];
  for (let t = 1; t <= ticks; t++) {
    for (const input of script.get(t) ?? []) sim.enqueue(input);
    hashes.push(sim.step().hash);
  }
  return { sim, hashes };
}

const script = new Map<number, SimInput[]>([
  [1, [{ type: "join", session: "p1" }, { type: "join", session: "p2" }]],
  [5, [{ type: "move", session: "p1", vx: 4, vz: 0 }]],
  [30, [{ type: "input", session: "p2", name: "spawn", message: { shape: "sphere", size: 0.3, velocity: [0, 2, 1] } }]],
  [60, [{ type: "input", session: "p2", name: "impulse", message: { bodyId: "crate", impulse: [0, 3, 0] } }]],
  [90, [{ type: "move", session: "p2", vx: 0, vz: 5, jump: true }]],
  [120, [{ type: "settings", patch: { gravity: [0, -5, 0], friction: 0.1 } }]],
  [150, [{ type: "leave", session: "p1" }]],
]);

/** RoomSim: determinism and avatars. */
function determinismAndAvatarTests(): void {
  it("is a pure function of scenario and timed inputs (same hashes in two runs)", () => {
    const a = run(flat, script, 240);
    const b = run(flat, script, 240);
    expect(a.hashes).toEqual(b.hashes);
    expect(new Set(a.hashes).size).toBeGreaterThan(100);
  });

  it("diverges exactly at the tick of a changed input", () => {
    const base = run(flat, script, 120).hashes;
    const changed = new Map(script);
    changed.set(60, [{ type: "input", session: "p2", name: "impulse", message: { bodyId: "crate", impulse: [0, 3.5, 0] } }]);
    const other = run(flat, changed, 120).hashes;
    expect(other.slice(0, 59)).toEqual(base.slice(0, 59));
    expect(other[59]).not.toBe(base[59]);
  });

  it("spawns avatars at free spots on the ground, walks them, and lets them stand and jump", () => {
    const { sim } = run(flat, new Map([[1, [{ type: "join", session: "a" }, { type: "join", session: "b" }]]]), 60);
    const [a, b] = sim.avatars;
    const pa = sim.world.getPosition(a.handle);
    const pb = sim.world.getPosition(b.handle);
    expect(pa[1]).toBeCloseTo(AVATAR.halfExtents[1], 2);
    expect(a.grounded).toBe(true);
    expect(Math.hypot(pa[0] - pb[0], pa[2] - pb[2])).toBeGreaterThan(0.8); // not inside each other
    sim.enqueue({ type: "move", session: "a", vx: 0, vz: -30 }); // clamped to maxSpeed
    sim.step();
    expect(Math.hypot(a.vx, a.vz)).toBeCloseTo(AVATAR.maxSpeed, 9);
    const z0 = sim.world.getPosition(a.handle)[2];
    for (let i = 0; i < 60; i++) sim.step();
    expect(z0 - sim.world.getPosition(a.handle)[2]).toBeCloseTo(AVATAR.maxSpeed, 1);
    sim.enqueue({ type: "move", session: "a", vx: 0, vz: 0, jump: true });
    let top = 0;
    for (let i = 0; i < 90; i++) {
      sim.step();
      top = Math.max(top, sim.world.getPosition(a.handle)[1]);
    }
    // v²/2g = 5.5² / 19.62 ≈ 1.54 m above standing height (Euler integration: within a few cm).
    expect(top - AVATAR.halfExtents[1]).toBeGreaterThan(1.4);
    expect(top - AVATAR.halfExtents[1]).toBeLessThan(1.7);
    expect(sim.world.getPosition(a.handle)[1]).toBeCloseTo(AVATAR.halfExtents[1], 2);
    expect(a.grounded).toBe(true);
  });

  it("an avatar shoves a dynamic box and can stand on one", () => {
    // Spawned at the origin (the scenario's spawn point), 3 m short of the crate, walking toward it.
    const toCrate: Scenario = { ...flat, spawn: [0, 1, 0] };
    const { sim } = run(toCrate, new Map([[1, [{ type: "join", session: "a" }]], [10, [{ type: "move", session: "a", vx: 3, vz: 0 }]]]), 120);
    expect(sim.world.getPosition(sim.world.handleOf("crate"))[0]).toBeGreaterThan(3.5);
    const onBox: Scenario = {
      name: "on-box",
      bodies: [
        flat.bodies[0],
        { id: "big", type: "dynamic", shape: { type: "box", halfExtents: [1, 0.5, 1] }, position: [0, 0.5, 0], mass: 50 },
      ],
    };
    const stand = run(onBox, new Map([[1, [{ type: "join", session: "a" }]]]), 1).sim;
    // The first free spot is off the box; drop the avatar onto it from above instead.
    stand.world.setTransform(stand.avatars[0].handle, [0, 3, 0]);
    for (let i = 0; i < 120; i++) stand.step();
    expect(stand.world.getPosition(stand.avatars[0].handle)[1]).toBeGreaterThan(1 + AVATAR.halfExtents[1] - 0.05);
  });
}

/** RoomSim: settings, ignored inputs and scenario reloads. */
function settingsInputsAndLoadTests(): void {
  it("applies settings as a room-level material override and restores own materials", () => {
    const { sim } = run(flat, new Map([[1, [{ type: "settings", patch: { friction: 0.9, restitution: 0.4, velocityIterations: 8 } }]]]), 2);
    const crate = sim.world.handleOf("crate");
    expect(sim.world.getFriction(crate)).toBe(0.9);
    expect(sim.world.getRestitution(crate)).toBe(0.4);
    expect(sim.roomSettings()).toMatchObject({ friction: 0.9, restitution: 0.4, velocityIterations: 8 });
    sim.enqueue({ type: "join", session: "late" });
    sim.step();
    expect(sim.world.getFriction(sim.avatars[0].handle)).toBe(0.9);
    sim.enqueue({ type: "settings", patch: { friction: null, restitution: null } });
    sim.step();
    expect(sim.world.getFriction(crate)).toBe(0.5);
    expect(sim.world.getRestitution(crate)).toBe(0);
  });

  it("ignores inputs that cannot apply, deterministically", () => {
    const sim = new RoomSim(structuredClone(flat), { maxBodies: 4 });
    sim.enqueue({ type: "move", session: "ghost", vx: 1, vz: 1 });
    sim.enqueue({ type: "input", session: "ghost", name: "impulse", message: { bodyId: "nope", impulse: [1, 1, 1] } });
    sim.enqueue({ type: "input", session: "ghost", name: "impulse", message: { bodyId: "ground", impulse: [1, 1, 1] } });
    sim.enqueue({ type: "join", session: "a" });
    sim.enqueue({ type: "join", session: "a" });
    sim.enqueue({ type: "input", session: "a", name: "spawn", message: { shape: "box", size: 0.2 } });
    sim.enqueue({ type: "input", session: "a", name: "spawn", message: { shape: "box", size: 0.2 } }); // over maxBodies
    sim.step();
    expect(sim.avatars.length).toBe(1);
    expect(sim.world.bodyCount).toBe(4);
  });

  it("reloads a scenario and gives current players new avatars", () => {
    const sim = new RoomSim(structuredClone(flat));
    sim.enqueue({ type: "join", session: "a" });
    sim.step();
    const generation = sim.worldGeneration;
    sim.enqueue({ type: "load", scenario: getBuiltinScenario("stack10")! });
    sim.step();
    expect(sim.worldGeneration).toBe(generation + 1);
    expect(sim.scenario.name).toBe("stack10");
    expect(sim.world.bodyCount).toBe(12);
    expect(sim.world.handleOf("avatar-a")).toBeGreaterThanOrEqual(0);
    expect(sim.tick).toBe(2);
  });
}

describe("RoomSim", () => {
  determinismAndAvatarTests();
  settingsInputsAndLoadTests();
});
