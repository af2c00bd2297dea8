import type RapierCompat from "@dimforge/rapier3d-compat";
import type RapierSimdCompat from "@dimforge/rapier3d-simd-compat";
import type { BodyDef, ConvexShapeDef, JointDef, ShapeDef } from "../../shared/engine/types.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";
import { bodyMass, flatPoints, frictionOf, heightfieldColumnMajor, resolveWorld, restitutionOf, unitRotation, vec } from "./common.ts";
import { distanceLimits, type LocalJoint, localJoints } from "./joints.ts";
import type { BenchEngine } from "./types.ts";

// The part of a Rapier JS module the adapter uses, written out so that both builds (different packages
// and versions, whose classes are nominally distinct) are checked against one shape. The module's own
// classes come in as type parameters: BD its RigidBodyDesc, CD its ColliderDesc, B its RigidBody.
interface RVec {
  x: number;
  y: number;
  z: number;
}
interface RQuat extends RVec {
  w: number;
}
interface RBodyDesc {
  setTranslation(x: number, y: number, z: number): unknown;
  setRotation(q: RQuat): unknown;
  setLinvel(x: number, y: number, z: number): unknown;
  setAngvel(v: RVec): unknown;
  setLinearDamping(damping: number): unknown;
  setAngularDamping(damping: number): unknown;
  setCcdEnabled(enabled: boolean): unknown;
  setCanSleep(canSleep: boolean): unknown;
}
interface RColliderDesc {
  setTranslation(x: number, y: number, z: number): unknown;
  setRotation(q: RQuat): unknown;
  setFriction(friction: number): unknown;
  setFrictionCombineRule(rule: number): unknown;
  setRestitution(restitution: number): unknown;
  setRestitutionCombineRule(rule: number): unknown;
  setMass(mass: number): unknown;
  setDensity(density: number): unknown;
}
interface RBody {
  mass(): number;
  recomputeMassPropertiesFromColliders(): void;
  translation(): RVec;
  rotation(): RQuat;
  isSleeping(): boolean;
}
/** Integration parameters set explicitly, so both builds are known to run with the same ones. */
interface RIntegrationParameters {
  numSolverIterations: number;
  numInternalPgsIterations: number;
  normalizedAllowedLinearError: number;
  normalizedPredictionDistance: number;
  lengthUnit: number;
  maxCcdSubsteps: number;
}
/** A created collider: only what the mass of a compound given by `mass` needs. */
interface RCollider {
  volume(): number;
  setDensity(density: number): void;
}
/** A created impulse joint. The unit-axis part (revolute, prismatic) is RUnitJoint. */
interface RJoint {
  handle: number;
  setContactsEnabled(enabled: boolean): void;
  setLocalFrame1(anchor: RVec, rotation: RQuat): void;
  setLocalFrame2(anchor: RVec, rotation: RQuat): void;
}
interface RUnitJoint extends RJoint {
  setLimits(min: number, max: number): void;
  configureMotorVelocity(targetVelocity: number, factor: number): void;
  setMotorMaxForce(maxForce: number): void;
}
/** A joint descriptor (the module's JointData; opaque here). */
type RJointData = object;
interface RWorld<BD, CD, B> {
  timestep: number;
  /** contact_natural_frequency is write-only in Rapier's API (no getter). */
  integrationParameters: RIntegrationParameters & { contact_natural_frequency: number };
  createRigidBody(desc: BD): B;
  createCollider(desc: CD, parent: B): RCollider;
  createImpulseJoint(data: RJointData, parent1: B, parent2: B, wakeUp: boolean): RJoint;
  step(): void;
  free(): void;
}
/** A Rapier 3D JS module: `@dimforge/rapier3d-compat` or `@dimforge/rapier3d-simd-compat`. */
interface RapierModule<BD extends RBodyDesc, CD extends RColliderDesc, B extends RBody> {
  init(): Promise<void>;
  version(): string;
  World: new (gravity: RVec) => RWorld<BD, CD, B>;
  RigidBodyDesc: { dynamic(): BD; kinematicVelocityBased(): BD; fixed(): BD };
  ColliderDesc: {
    ball(radius: number): CD;
    cuboid(hx: number, hy: number, hz: number): CD;
    capsule(halfHeight: number, radius: number): CD;
    cylinder(halfHeight: number, radius: number): CD;
    convexHull(points: Float32Array): CD | null;
    trimesh(vertices: Float32Array, indices: Uint32Array, flags?: number): CD;
    heightfield(nrows: number, ncols: number, heights: Float32Array, scale: RVec, flags?: number): CD;
  };
  CoefficientCombineRule: { Multiply: number; Max: number };
  JointData: {
    fixed(anchor1: RVec, frame1: RQuat, anchor2: RVec, frame2: RQuat): RJointData;
    spherical(anchor1: RVec, anchor2: RVec): RJointData;
    revoluteWithAxes(anchor1: RVec, anchor2: RVec, axis1: RVec, axis2: RVec): RJointData;
    prismatic(anchor1: RVec, anchor2: RVec, axis: RVec): RJointData;
    rope(length: number, anchor1: RVec, anchor2: RVec): RJointData;
    spring(restLength: number, stiffness: number, damping: number, anchor1: RVec, anchor2: RVec): RJointData;
  };
  HeightFieldFlags: { FIX_INTERNAL_EDGES: number };
  TriMeshFlags: { FIX_INTERNAL_EDGES: number };
}

/**
 * One shape's collider descriptor (not yet placed or given a material).
 * - capsule, cylinder: Rapier's take (halfHeight, radius), along local y like ours.
 * - hull: Rapier computes the hull of the points itself (`convexHull`; null for a degenerate set, which
 *   scenario validation already refuses).
 * - mesh: `trimesh` with FIX_INTERNAL_EDGES, the counterpart of our active-edge filtering.
 * - heightfield: Rapier's `nrows` / `ncols` count cells (samples - 1), its heights are a column-major
 *   (rows + 1) x (cols + 1) matrix whose row index runs along z and column index along x, and `scale`
 *   is the field's whole x / z size, centred on the collider: the same layout as ours once the row-major
 *   heights are re-ordered (heightfieldColumnMajor). Rapier splits each cell along the other diagonal
 *   (from its low-x high-z to its high-x low-z corner; ours runs low-x low-z to high-x high-z), so the
 *   two surfaces agree exactly only where a cell's corners are coplanar (every cell of shapes1000's
 *   terrain). FIX_INTERNAL_EDGES as for meshes.
 */
export function colliderDesc<BD extends RBodyDesc, CD extends RColliderDesc, B extends RBody>(
  R: RapierModule<BD, CD, B>,
  shape: ShapeDef | ConvexShapeDef,
): CD {
  switch (shape.type) {
    case "sphere":
      return R.ColliderDesc.ball(shape.radius);
    case "box":
      return R.ColliderDesc.cuboid(shape.halfExtents[0], shape.halfExtents[1], shape.halfExtents[2]);
    case "capsule":
      return R.ColliderDesc.capsule(shape.halfHeight, shape.radius);
    case "cylinder":
      return R.ColliderDesc.cylinder(shape.halfHeight, shape.radius);
    case "hull": {
      const cd = R.ColliderDesc.convexHull(flatPoints(shape.points));
      if (!cd) throw new Error(`Rapier could not build the hull of ${shape.points.length} points (degenerate)`);
      return cd;
    }
    case "mesh":
      return R.ColliderDesc.trimesh(
        flatPoints(shape.vertices),
        Uint32Array.from(shape.indices.flat()),
        R.TriMeshFlags.FIX_INTERNAL_EDGES,
      );
    case "heightfield":
      return R.ColliderDesc.heightfield(
        shape.rows - 1,
        shape.cols - 1,
        heightfieldColumnMajor(shape),
        { x: shape.size[0], y: 1, z: shape.size[1] },
        R.HeightFieldFlags.FIX_INTERNAL_EDGES,
      );
    case "compound":
      throw new Error("a compound is made of one collider per child (RapierEngine.createColliders)");
  }
}

/** One Rapier build: its engine name and its package, imported and initialised on first use. */
export interface RapierBuild<BD extends RBodyDesc, CD extends RColliderDesc, B extends RBody> {
  /** Engine name (table column, `--engines` value). */
  readonly name: string;
  /** Imports the package and loads its WASM module, once per process. */
  init(): Promise<RapierModule<BD, CD, B>>;
}

function rapierBuild<BD extends RBodyDesc, CD extends RColliderDesc, B extends RBody>(
  name: string,
  importModule: () => Promise<RapierModule<BD, CD, B>>,
): RapierBuild<BD, CD, B> {
  let ready: Promise<RapierModule<BD, CD, B>> | null = null;
  return {
    name,
    init: () => {
      ready ??= importModule().then(async (R) => {
        await R.init();
        return R;
      });
      return ready;
    },
  };
}

/** @dimforge/rapier3d-compat: WASM, no SIMD. */
export const RAPIER_COMPAT = rapierBuild<RapierCompat.RigidBodyDesc, RapierCompat.ColliderDesc, RapierCompat.RigidBody>(
  "rapier",
  async () => (await import("@dimforge/rapier3d-compat")).default,
);
/** @dimforge/rapier3d-simd-compat: WASM with the 128-bit SIMD instructions (the same Rust code). */
export const RAPIER_SIMD_COMPAT = rapierBuild<
  RapierSimdCompat.RigidBodyDesc,
  RapierSimdCompat.ColliderDesc,
  RapierSimdCompat.RigidBody
>("rapier-simd", async () => (await import("@dimforge/rapier3d-simd-compat")).default);

/**
 * The integration parameters both builds run with, set explicitly on every world: Rapier 0.21's defaults
 * (4 solver iterations, 1 internal PGS iteration, lengthUnit 1, ...), which 0.20 shares. Setting them
 * instead of relying on each build's defaults keeps the two columns on the same settings if a future
 * version changes a default. `contact_natural_frequency` (30 Hz, Rapier's default) has no getter, so it
 * is set but not read back; the derived `contact_erp` is equal in both builds.
 */
export const RAPIER_PARAMS: Readonly<RIntegrationParameters> = {
  numSolverIterations: 4,
  numInternalPgsIterations: 1,
  normalizedAllowedLinearError: 0.005,
  normalizedPredictionDistance: 0.02,
  lengthUnit: 1,
  maxCcdSubsteps: 1,
};
const CONTACT_NATURAL_FREQUENCY = 30;

/**
 * Why the Rapier adapter cannot build a scenario joint, or null when it can: Rapier's rope limits only the
 * maximum distance (its coupled-axes limit has no minimum), and its spring has one rest length, no slack.
 */
export function rapierJointGap(j: JointDef): string | null {
  if (j.type !== "distance") return null;
  const limits = j.limits;
  if (j.spring) return limits && limits[0] !== limits[1] ? "distance springs with slack" : null;
  return limits && limits[0] === 0 ? null : "distance lower limits";
}

/** Rapier velocity-motor factor for a rigid, force-bounded motor (RapierEngine.createJoint). */
export const MOTOR_FACTOR = 1e6;

/**
 * Rapier reference adapter (WASM), one class for both builds: `new RapierEngine(RAPIER_COMPAT)` is
 * @dimforge/rapier3d-compat 0.21 (non-SIMD), `new RapierEngine(RAPIER_SIMD_COMPAT)` is
 * @dimforge/rapier3d-simd-compat 0.20 (WASM SIMD; no 0.21 of it is published). Everything below is the
 * same for both: the scene, the integration parameters, the material and mass mapping.
 *
 * Settings a typical user has: `new World(gravity)` with the default IntegrationParameters (4 solver
 * iterations, 1 internal PGS iteration, lengthUnit 1; written out in RAPIER_PARAMS),
 * `world.timestep = 1/tickRate`, one `world.step()` per tick with no event queue.
 *
 * Friction: our rule is sqrt(muA * muB). Rapier has no geometric mean, but it has Multiply, so each
 * collider gets friction sqrt(mu) with CoefficientCombineRule.Multiply: sqrt(muA) * sqrt(muB) =
 * sqrt(muA * muB), i.e. exactly our rule (equal to Rapier's default Average when all bodies share one
 * friction, as in every reference scene). Restitution: CoefficientCombineRule.Max = our max(eA, eB).
 * All colliders use the same rules, so Rapier's rule-priority tie-break never kicks in.
 *
 * Mass: `ColliderDesc.setMass(mass)` when the body has `mass`, else `setDensity(density ?? 1)` (Rapier
 * computes the inertia, and for hulls and compounds the centre of mass, from the shape either way); a
 * compound is one collider per child on the body, its mass the sum of theirs, as ours. Damping maps 1:1
 * (Rapier also does v *= 1/(1 + h c)). Kinematic bodies are velocity-based.
 *
 * Sleeping: Rapier bodies can sleep by default (default activation thresholds); with
 * `opts.sleep === false` every body gets `setCanSleep(false)`.
 * CCD: `setCcdEnabled(true)` on dynamic bodies only when `scenario.world.ccd === true`.
 */
export class RapierEngine<BD extends RBodyDesc, CD extends RColliderDesc, B extends RBody> implements BenchEngine {
  readonly name: string;
  private world: RWorld<BD, CD, B> | null = null;
  private byId = new Map<string, B>();
  private dynamics: B[] = [];
  private ground: B | null = null;
  private readonly build: RapierBuild<BD, CD, B>;

  constructor(build: RapierBuild<BD, CD, B>) {
    this.build = build;
    this.name = build.name;
  }

  async load(scenario: Scenario, opts: { sleep: boolean }): Promise<void> {
    const R = await this.build.init();
    this.dispose();
    const w = resolveWorld(scenario);
    const world = new R.World({ x: w.gravity[0], y: w.gravity[1], z: w.gravity[2] });
    world.timestep = w.dt;
    const ip = world.integrationParameters;
    Object.assign(ip, RAPIER_PARAMS);
    ip.contact_natural_frequency = CONTACT_NATURAL_FREQUENCY;
    for (const [k, v] of Object.entries(RAPIER_PARAMS) as [keyof RIntegrationParameters, number][]) {
      if (ip[k] !== Math.fround(v)) throw new Error(`${this.name} ${R.version()}: integrationParameters.${k} = ${ip[k]}, not ${v}`);
    }

    for (const def of scenario.bodies) {
      const desc =
        def.type === "dynamic"
          ? R.RigidBodyDesc.dynamic()
          : def.type === "kinematic"
            ? R.RigidBodyDesc.kinematicVelocityBased()
            : R.RigidBodyDesc.fixed();
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

      this.createColliders(R, world, def, body);

      this.byId.set(def.id, body);
      if (def.type === "dynamic") this.dynamics.push(body);
    }
    this.world = world;
    for (const j of localJoints(scenario)) this.createJoint(R, world, j, opts.sleep);
  }

  /**
   * One scenario joint as a Rapier impulse joint (Rapier's own defaults otherwise: its joint ERP and
   * softness, no multibody). Anchors and the joint frame go in each body's frame (joints.ts: both frames are
   * the same world frame at creation, so hinge angles and slider travel count from the creation pose).
   * - fixed: `JointData.fixed` with those frames.
   * - ball: `spherical`.
   * - hinge: `revoluteWithAxes` (revolute, B's turn relative to A about the axis), then both local frames
   *   set whole: Rapier would otherwise complete each body's axis into a frame on its own, and two bodies
   *   created at different rotations would start at a non-zero angle. Limits: `setLimits` (radians).
   * - slider: `prismatic`, frames as for the hinge (its locked rotation is the creation's relative
   *   rotation). Limits: `setLimits` (metres of B's anchor along A's axis).
   * - motor (hinge, slider): `configureMotorVelocity(target, MOTOR_FACTOR)` plus `setMotorMaxForce`. Rapier's
   *   motor is a spring-damper row (stiffness 0, damping = factor) in its default acceleration-based model:
   *   softness 1 / (dt x factor) of the row's effective mass, impulse clamped to maxForce x dt. A factor of
   *   1e6 makes that softness 1.7e-5 at 60 Hz, i.e. the same rigid, force-bounded velocity row as ours.
   * - distance: `rope` for [0, L]. Rapier has no rigid lower distance limit (its rope keeps only the
   *   maximum: a rod [L, L] is refused, rapierJointGap). With `spring`, Rapier's spring joint (force-based: N/m and N s/m) at the rest length L = lo = hi, stiffness
   *   m (2 pi f)^2 and damping 2 zeta m (2 pi f) with m the pair's reduced mass (the one dynamic body's mass
   *   against the world or a non-dynamic body); a spring with lo < hi (ours: slack between the limits) has
   *   no Rapier counterpart and is refused.
   * - collideConnected false (the default): `setContactsEnabled(false)`, Rapier's own default being true.
   * - breakForce / breakTorque: Rapier's impulse joints do not break; ignored.
   * - bodyB null: a fixed body at the origin (no collider) stands for the world.
   */
  private createJoint(R: RapierModule<BD, CD, B>, world: RWorld<BD, CD, B>, j: LocalJoint, sleep: boolean): void {
    const def = j.def;
    const a = this.body(def.bodyA);
    const b = def.bodyB === null ? this.worldBody(R, world, sleep) : this.body(def.bodyB);
    const v = (x: [number, number, number]): RVec => ({ x: x[0], y: x[1], z: x[2] });
    const q = (x: [number, number, number, number]): RQuat => ({ x: x[0], y: x[1], z: x[2], w: x[3] });
    let joint: RJoint;
    switch (def.type) {
      case "fixed":
        joint = world.createImpulseJoint(R.JointData.fixed(v(j.anchorA), q(j.frameA), v(j.anchorB), q(j.frameB)), a, b, true);
        break;
      case "ball":
        joint = world.createImpulseJoint(R.JointData.spherical(v(j.anchorA), v(j.anchorB)), a, b, true);
        break;
      case "hinge":
      case "slider": {
        const data =
          def.type === "hinge"
            ? R.JointData.revoluteWithAxes(v(j.anchorA), v(j.anchorB), v(j.axisA), v(j.axisB))
            : R.JointData.prismatic(v(j.anchorA), v(j.anchorB), v(j.axisA));
        const unit = world.createImpulseJoint(data, a, b, true) as RUnitJoint;
        unit.setLocalFrame1(v(j.anchorA), q(j.frameA));
        unit.setLocalFrame2(v(j.anchorB), q(j.frameB));
        if (def.limits) unit.setLimits(def.limits[0], def.limits[1]);
        if (def.motor) {
          unit.configureMotorVelocity(def.motor.targetVelocity, MOTOR_FACTOR);
          unit.setMotorMaxForce(def.motor.maxForce);
        }
        joint = unit;
        break;
      }
      case "distance": {
        const [lo, hi] = distanceLimits(j);
        if (def.spring) {
          if (lo !== hi) throw new Error(`${this.name} adapter: joint ${def.id}: ${rapierJointGap(def)}`);
          const m = this.reducedMass(def.bodyA, def.bodyB);
          const omega = 2 * Math.PI * def.spring.frequency;
          const data = R.JointData.spring(hi, m * omega * omega, 2 * def.spring.dampingRatio * m * omega, v(j.anchorA), v(j.anchorB));
          joint = world.createImpulseJoint(data, a, b, true);
        } else {
          if (lo > 0) throw new Error(`${this.name} adapter: joint ${def.id}: ${rapierJointGap(def)}`);
          joint = world.createImpulseJoint(R.JointData.rope(hi, v(j.anchorA), v(j.anchorB)), a, b, true);
        }
        break;
      }
    }
    joint.setContactsEnabled(def.collideConnected === true);
  }

  /** The pair's reduced mass for a spring: m_A m_B / (m_A + m_B), or the dynamic one's mass alone. */
  private reducedMass(idA: string, idB: string | null): number {
    const dyn = (id: string | null) => (id !== null && this.dynamics.includes(this.body(id)) ? this.body(id).mass() : 0);
    const ma = dyn(idA);
    const mb = dyn(idB);
    return ma > 0 && mb > 0 ? (ma * mb) / (ma + mb) : ma + mb;
  }

  /** The fixed body standing for the world in joints with `bodyB: null`: at the origin, unrotated, no collider. */
  private worldBody(R: RapierModule<BD, CD, B>, world: RWorld<BD, CD, B>, sleep: boolean): B {
    if (!this.ground) {
      const desc = R.RigidBodyDesc.fixed();
      if (!sleep) desc.setCanSleep(false);
      this.ground = world.createRigidBody(desc);
    }
    return this.ground;
  }

  /**
   * The body's colliders: one for a single shape, one per child for a compound (each placed with its
   * child position and rotation), all with the body's material. Mass: see the class comment; a compound
   * given by `mass` gets density mass / (sum of its children's volumes, as Rapier computes them), the
   * sum our engine uses too (overlaps counted twice).
   */
  private createColliders(R: RapierModule<BD, CD, B>, world: RWorld<BD, CD, B>, def: BodyDef, body: B): void {
    const descs: CD[] = [];
    if (def.shape.type === "compound") {
      for (const child of def.shape.children) {
        const cd = colliderDesc(R, child.shape);
        const p = vec(child.position);
        const q = child.rotation ?? [0, 0, 0, 1];
        cd.setTranslation(p[0], p[1], p[2]);
        cd.setRotation({ x: q[0], y: q[1], z: q[2], w: q[3] });
        descs.push(cd);
      }
    } else descs.push(colliderDesc(R, def.shape));
    const single = descs.length === 1;
    const colliders: RCollider[] = [];
    for (const cd of descs) {
      cd.setFriction(Math.sqrt(frictionOf(def)));
      cd.setFrictionCombineRule(R.CoefficientCombineRule.Multiply);
      cd.setRestitution(restitutionOf(def));
      cd.setRestitutionCombineRule(R.CoefficientCombineRule.Max);
      if (def.type === "dynamic") {
        if (def.mass !== undefined && single) cd.setMass(bodyMass(def));
        else cd.setDensity(def.mass !== undefined ? 1 : (def.density ?? 1));
      }
      colliders.push(world.createCollider(cd, body));
    }
    if (def.type === "dynamic" && def.mass !== undefined && !single) {
      let volume = 0;
      for (const c of colliders) volume += c.volume();
      for (const c of colliders) c.setDensity(def.mass / volume);
      // Rapier would apply the new densities at the next step; now, so the body is complete when created.
      body.recomputeMassPropertiesFromColliders();
    }
  }

  step(): void {
    this.world!.step();
  }

  private body(id: string): B {
    const b = this.byId.get(id);
    if (!b) throw new Error(`${this.name} adapter: no body "${id}"`);
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

  /** The body's mass as Rapier computed it, kg (not part of BenchEngine: for checking the mass mapping). */
  mass(id: string): number {
    return this.body(id).mass();
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
    this.ground = null;
  }
}
