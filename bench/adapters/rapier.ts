import RAPIER from "@dimforge/rapier3d-compat";
import type { Scenario } from "../../shared/scenarios/format.ts";
import { bodyMass, frictionOf, resolveWorld, restitutionOf, unitRotation, vec } from "./common.ts";
import type { BenchEngine } from "./types.ts";

let ready: Promise<void> | null = null;
/** Loads the WASM module once per process. */
export function initRapier(): Promise<void> {
  if (!ready) ready = RAPIER.init();
  return ready;
}

/**
 * @dimforge/rapier3d-compat 0.21 (WASM, non-SIMD) reference adapter.
 *
 * Settings a typical user has: `new World(gravity)` with the default IntegrationParameters (4 solver
 * iterations, 1 internal PGS iteration, lengthUnit 1), `world.timestep = 1/tickRate`, one
 * `world.step()` per tick with no event queue.
 *
 * Friction: our rule is sqrt(muA * muB). Rapier has no geometric mean, but it has Multiply, so each
 * collider gets friction sqrt(mu) with CoefficientCombineRule.Multiply: sqrt(muA) * sqrt(muB) =
 * sqrt(muA * muB), i.e. exactly our rule (equal to Rapier's default Average when all bodies share one
 * friction, as in every reference scene). Restitution: CoefficientCombineRule.Max = our max(eA, eB).
 * All colliders use the same rules, so Rapier's rule-priority tie-break never kicks in.
 *
 * Mass: `ColliderDesc.setMass(mass)` when the body has `mass`, else `setDensity(density ?? 1)` (Rapier
 * computes the inertia from the shape either way). Damping maps 1:1 (Rapier also does
 * v *= 1/(1 + h c)). Kinematic bodies are velocity-based.
 *
 * Sleeping: Rapier bodies can sleep by default (default activation thresholds); with
 * `opts.sleep === false` every body gets `setCanSleep(false)`.
 * CCD: `setCcdEnabled(true)` on dynamic bodies only when `scenario.world.ccd === true`.
 */
export class RapierEngine implements BenchEngine {
  name = "rapier";
  private world: RAPIER.World | null = null;
  private byId = new Map<string, RAPIER.RigidBody>();
  private dynamics: RAPIER.RigidBody[] = [];

  async load(scenario: Scenario, opts: { sleep: boolean }): Promise<void> {
    await initRapier();
    this.dispose();
    const w = resolveWorld(scenario);
    const world = new RAPIER.World({ x: w.gravity[0], y: w.gravity[1], z: w.gravity[2] });
    world.timestep = w.dt;

    for (const def of scenario.bodies) {
      const desc =
        def.type === "dynamic"
          ? RAPIER.RigidBodyDesc.dynamic()
          : def.type === "kinematic"
            ? RAPIER.RigidBodyDesc.kinematicVelocityBased()
            : RAPIER.RigidBodyDesc.fixed();
      const q = unitRotation(def);
      desc.setTranslation(def.position[0], def.position[1], def.position[2]);
      desc.setRotation({ x: q[0], y: q[1], z: q[2], w: q[3] });
      if (def.type !== "static") {
        const v = vec(def.linearVelocity);
        const av = vec(def.angularVelocity);
        desc.setLinvel(v[0], v[1], v[2]);
        desc.setAngvel({ x: av[0], y: av[1], z: av[2] });
      }
      if (def.type === "dynamic") {
        desc.setLinearDamping(def.linearDamping ?? 0);
        desc.setAngularDamping(def.angularDamping ?? 0);
        if (w.ccd) desc.setCcdEnabled(true);
      }
      if (!opts.sleep) desc.setCanSleep(false);
      const body = world.createRigidBody(desc);

      const cd =
        def.shape.type === "sphere"
          ? RAPIER.ColliderDesc.ball(def.shape.radius)
          : RAPIER.ColliderDesc.cuboid(def.shape.halfExtents[0], def.shape.halfExtents[1], def.shape.halfExtents[2]);
      cd.setFriction(Math.sqrt(frictionOf(def)));
      cd.setFrictionCombineRule(RAPIER.CoefficientCombineRule.Multiply);
      cd.setRestitution(restitutionOf(def));
      cd.setRestitutionCombineRule(RAPIER.CoefficientCombineRule.Max);
      if (def.type === "dynamic") {
        if (def.mass !== undefined) cd.setMass(bodyMass(def));
        else cd.setDensity(def.density ?? 1);
      }
      world.createCollider(cd, body);

      this.byId.set(def.id, body);
      if (def.type === "dynamic") this.dynamics.push(body);
    }
    this.world = world;
  }

  step(): void {
    this.world!.step();
  }

  private body(id: string): RAPIER.RigidBody {
    const b = this.byId.get(id);
    if (!b) throw new Error(`rapier adapter: no body "${id}"`);
    return b;
  }

  position(id: string): [number, number, number] {
    const p = this.body(id).translation();
    return [p.x, p.y, p.z];
  }

  rotation(id: string): [number, number, number, number] {
    const q = this.body(id).rotation();
    return [q.x, q.y, q.z, q.w];
  }

  sleepingCount(): number {
    let n = 0;
    for (const b of this.dynamics) if (b.isSleeping()) n++;
    return n;
  }

  dynamicCount(): number {
    return this.dynamics.length;
  }

  dispose(): void {
    if (this.world) this.world.free();
    this.world = null;
    this.byId.clear();
    this.dynamics = [];
  }
}
