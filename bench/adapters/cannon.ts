import * as CANNON from "cannon-es";
import type { BodyDef } from "../../shared/engine/types.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";
import {
  bodyMass,
  combineFriction,
  combineRestitution,
  frictionOf,
  resolveWorld,
  restitutionOf,
  unitRotation,
  vec,
} from "./common.ts";
import { type LocalJoint, localJoints, scenarioJoints } from "./joints.ts";
import type { BenchEngine } from "./types.ts";

/**
 * The shape types this adapter builds. cannon-es has no capsule, and its convex polyhedron, height field
 * and trimesh need conventions of their own (faces given by hand, a z-up field); the reference bench
 * shows "n/a" for cannon-es on scenes with any other shape instead of running them.
 */
export const CANNON_SHAPES: readonly string[] = ["sphere", "box"];

/**
 * Why the adapter cannot build a scenario joint, or null when it can. cannon-es has point-to-point, lock
 * and hinge constraints; its hinge has no limits, its slider and distance-between-anchors joints do not
 * exist (its DistanceConstraint joins the bodies' centres), so those scenes show "n/a" for cannon-es.
 */
export function cannonJointGap(j: { type: string; limits?: unknown }): string | null {
  if (j.type === "fixed" || j.type === "ball") return null;
  if (j.type === "hinge") return j.limits ? "hinge limits" : null;
  return `${j.type} joints`;
}

/** The joint features of `scenario` this adapter cannot build (empty: it can run the scene). */
export function unsupportedCannonJoints(scenario: Scenario): string[] {
  const out = new Set<string>();
  for (const j of scenarioJoints(scenario)) {
    const gap = cannonJointGap(j);
    if (gap) out.add(gap);
  }
  return [...out];
}

function cannonShape(def: BodyDef): CANNON.Shape {
  const s = def.shape;
  if (s.type === "sphere") return new CANNON.Sphere(s.radius);
  if (s.type === "box") return new CANNON.Box(new CANNON.Vec3(s.halfExtents[0], s.halfExtents[1], s.halfExtents[2]));
  throw new Error(`cannon-es adapter: body ${def.id}: ${s.type} shapes are not supported`);
}

/**
 * cannon-es 0.20 reference adapter.
 *
 * Settings a typical user has: `new World()` with its defaults: GSSolver with 10 iterations,
 * NaiveBroadphase (O(n^2) pair test; the default, and what our earlier reference measurements used: see
 * `broadphase` below for SAP), no CCD (cannon-es has none), quaternion normalisation every step.
 * `world.step(dt)` with a single argument: exactly one internal step, no accumulator/interpolation.
 *
 * Materials: one `CANNON.Material` per distinct (friction, restitution) pair in the scenario, with
 * friction/restitution left at -1 so cannon-es does not multiply them, plus one `ContactMaterial` for
 * every pair of those materials carrying our combined values: friction sqrt(muA * muB), restitution
 * max(eA, eB). That reproduces our combine rules exactly (ContactMaterial stiffness/relaxation stay at
 * the cannon-es defaults 1e7 / 3, the same as the world's default contact material).
 *
 * Damping: when a body gives linearDamping/angularDamping it is converted so the per-step factor
 * matches ours (ours v *= 1/(1 + h c), cannon-es v *= (1 - d)^h, so d = 1 - (1 + h c)^(-1/h)). When
 * the scenario leaves it out, cannon-es keeps its own default 0.01 (a typical user's setting, and what
 * our earlier reference measurements used: with it stack10 sleeps at step 211 and drifts 15.9 m exactly as there;
 * with 0 it is 208 and 11 m). The built-in scenes give no damping; Rapier's default is 0 like ours.
 *
 * Sleeping: `world.allowSleep = opts.sleep`, body sleep parameters at cannon-es defaults
 * (sleepSpeedLimit 0.1 m/s, sleepTimeLimit 1 s).
 */
export class CannonEngine implements BenchEngine {
  name = "cannon-es";
  /** "naive" (cannon-es default) or "sap" (SAPBroadphase, which its examples use for big scenes). */
  broadphase: "naive" | "sap";
  private world: CANNON.World | null = null;
  private dt = 1 / 60;
  private byId = new Map<string, CANNON.Body>();
  private dynamics: CANNON.Body[] = [];

  constructor(opts: { broadphase?: "naive" | "sap" } = {}) {
    this.broadphase = opts.broadphase ?? "naive";
    if (this.broadphase !== "naive") this.name = `cannon-es-${this.broadphase}`;
  }

  load(scenario: Scenario, opts: { sleep: boolean }): void {
    this.dispose();
    const w = resolveWorld(scenario);
    const world = new CANNON.World();
    world.gravity.set(w.gravity[0], w.gravity[1], w.gravity[2]);
    world.allowSleep = opts.sleep;
    if (this.broadphase === "sap") world.broadphase = new CANNON.SAPBroadphase(world);
    this.dt = w.dt;

    // Materials: one per distinct (friction, restitution), a ContactMaterial for every pair.
    const materials = new Map<string, { mat: CANNON.Material; mu: number; e: number }>();
    const materialOf = (def: BodyDef): CANNON.Material => {
      const mu = frictionOf(def);
      const e = restitutionOf(def);
      const key = `${mu}|${e}`;
      let m = materials.get(key);
      if (!m) {
        const mat = new CANNON.Material({ friction: -1, restitution: -1 });
        m = { mat, mu, e };
        for (const other of materials.values()) {
          world.addContactMaterial(
            new CANNON.ContactMaterial(mat, other.mat, {
              friction: combineFriction(mu, other.mu),
              restitution: combineRestitution(e, other.e),
            }),
          );
        }
        world.addContactMaterial(
          new CANNON.ContactMaterial(mat, mat, { friction: combineFriction(mu, mu), restitution: combineRestitution(e, e) }),
        );
        materials.set(key, m);
      }
      return m.mat;
    };

    const h = w.dt;
    const damping = (c: number): number => 1 - (1 + h * c) ** (-1 / h);

    for (const def of scenario.bodies) {
      const shape = cannonShape(def);
      const type =
        def.type === "dynamic" ? CANNON.Body.DYNAMIC : def.type === "kinematic" ? CANNON.Body.KINEMATIC : CANNON.Body.STATIC;
      const q = unitRotation(def);
      const body = new CANNON.Body({
        type,
        mass: def.type === "dynamic" ? bodyMass(def) : 0,
        material: materialOf(def),
        position: new CANNON.Vec3(def.position[0], def.position[1], def.position[2]),
        quaternion: new CANNON.Quaternion(q[0], q[1], q[2], q[3]),
      });
      if (def.linearDamping !== undefined) body.linearDamping = damping(def.linearDamping);
      if (def.angularDamping !== undefined) body.angularDamping = damping(def.angularDamping);
      body.addShape(shape);
      if (def.type !== "static") {
        const v = vec(def.linearVelocity);
        const av = vec(def.angularVelocity);
        body.velocity.set(v[0], v[1], v[2]);
        body.angularVelocity.set(av[0], av[1], av[2]);
      }
      world.addBody(body);
      this.byId.set(def.id, body);
      if (def.type === "dynamic") this.dynamics.push(body);
    }
    this.world = world;
    let ground: CANNON.Body | null = null;
    for (const j of localJoints(scenario)) {
      if (j.def.bodyB === null && !ground) {
        ground = new CANNON.Body({ type: CANNON.Body.STATIC, mass: 0 });
        world.addBody(ground);
      }
      world.addConstraint(this.constraint(j, ground));
    }
  }

  /**
   * One scenario joint as a cannon-es constraint at cannon-es defaults (maxForce 1e6 on its equations):
   * ball = PointToPointConstraint, fixed = LockConstraint (it locks the pose the bodies have at creation),
   * hinge = HingeConstraint with the motor enabled when the joint has one (setMotorSpeed, setMotorMaxForce).
   * Pivots are relative to the body position, which is the centre of mass for cannon-es' spheres and
   * boxes. `collideConnected` maps 1:1 (cannon-es' own default is true, ours false). A world-side joint
   * attaches to a static, shapeless body at the origin.
   */
  private constraint(j: LocalJoint, ground: CANNON.Body | null): CANNON.Constraint {
    const def = j.def;
    const gap = cannonJointGap(def);
    if (gap) throw new Error(`cannon-es adapter: joint ${def.id}: ${gap} are not supported`);
    const a = this.body(def.bodyA);
    const b = def.bodyB === null ? ground! : this.body(def.bodyB);
    const v = (x: [number, number, number]) => new CANNON.Vec3(x[0], x[1], x[2]);
    let c: CANNON.Constraint;
    if (def.type === "ball") c = new CANNON.PointToPointConstraint(a, v(j.anchorA), b, v(j.anchorB));
    else if (def.type === "fixed") c = new CANNON.LockConstraint(a, b);
    else {
      const hinge = new CANNON.HingeConstraint(a, b, { pivotA: v(j.anchorA), pivotB: v(j.anchorB), axisA: v(j.axisA), axisB: v(j.axisB) });
      if (def.motor) {
        hinge.enableMotor();
        // cannon-es' motor row drives B's spin relative to A the other way round from ours.
        hinge.setMotorSpeed(-def.motor.targetVelocity);
        hinge.setMotorMaxForce(def.motor.maxForce);
      }
      c = hinge;
    }
    c.collideConnected = def.collideConnected === true;
    return c;
  }

  step(): void {
    this.world!.step(this.dt);
  }

  private body(id: string): CANNON.Body {
    const b = this.byId.get(id);
    if (!b) throw new Error(`cannon-es adapter: no body "${id}"`);
    return b;
  }

  position(id: string): [number, number, number] {
    const p = this.body(id).position;
    return [p.x, p.y, p.z];
  }

  rotation(id: string): [number, number, number, number] {
    const q = this.body(id).quaternion;
    return [q.x, q.y, q.z, q.w];
  }

  sleepingCount(): number {
    let n = 0;
    for (const b of this.dynamics) if (b.sleepState === CANNON.Body.SLEEPING) n++;
    return n;
  }

  dynamicCount(): number {
    return this.dynamics.length;
  }

  dispose(): void {
    this.world = null;
    this.byId.clear();
    this.dynamics = [];
  }
}
