/**
 * Plain, JSON-friendly definitions the world is built from. Scenarios, the admin API and tests all create
 * bodies through these, so there is exactly one way to describe a body.
 *
 * Conventions: SI units (metres, kilograms, seconds, radians), right-handed, +y up,
 * quaternions stored [x, y, z, w].
 */

export type Vec3Tuple = [number, number, number];
export type QuatTuple = [number, number, number, number];

export type BodyType = "static" | "kinematic" | "dynamic";

/**
 * Numeric body type codes, as stored per slot (BodyView.type) and carried by the network schema. The
 * definitions above use the names; these are for readers of the engine's arrays.
 */
export const BodyTypeCode = Object.freeze({ STATIC: 0, KINEMATIC: 1, DYNAMIC: 2 } as const);
export type BodyTypeCode = (typeof BodyTypeCode)[keyof typeof BodyTypeCode];

/** Numeric shape codes, as stored per slot (BodyView.shape). */
export const ShapeTypeCode = Object.freeze({
  SPHERE: 0,
  BOX: 1,
  CAPSULE: 2,
  CYLINDER: 3,
  HULL: 4,
  COMPOUND: 5,
  MESH: 6,
  HEIGHTFIELD: 7,
} as const);
export type ShapeTypeCode = (typeof ShapeTypeCode)[keyof typeof ShapeTypeCode];

export interface SphereShapeDef {
  type: "sphere";
  /** Radius in metres, > 0. */
  radius: number;
}

export interface BoxShapeDef {
  type: "box";
  /** Half extents in metres along the body's local x, y, z, each > 0. */
  halfExtents: Vec3Tuple;
}

/** The segment from (0, -halfHeight, 0) to (0, halfHeight, 0) swept by a sphere of `radius` (Rapier's convention). */
export interface CapsuleShapeDef {
  type: "capsule";
  radius: number;
  /** Half the length of the inner segment (the capsule is 2·(halfHeight + radius) tall), > 0. */
  halfHeight: number;
}

/** A solid circular cylinder along the local y axis, centred on the origin. */
export interface CylinderShapeDef {
  type: "cylinder";
  radius: number;
  halfHeight: number;
}

/** The convex hull of 4 to 256 points in the body's frame, computed at creation. */
export interface HullShapeDef {
  type: "hull";
  points: Vec3Tuple[];
}

/** A convex shape a compound is made of. */
export type ConvexShapeDef = SphereShapeDef | BoxShapeDef | CapsuleShapeDef | CylinderShapeDef | HullShapeDef;

export interface CompoundChildDef {
  shape: ConvexShapeDef;
  /** Child origin in the body's frame. Default 0. */
  position?: Vec3Tuple;
  /** Child orientation in the body's frame [x, y, z, w]. Default identity. */
  rotation?: QuatTuple;
}

/** 1 to 64 convex children; mass, centre of mass and inertia are those of their union. */
export interface CompoundShapeDef {
  type: "compound";
  children: CompoundChildDef[];
}

/** A triangle mesh (static and kinematic bodies only). Triangles wind counter-clockwise seen from outside. */
export interface MeshShapeDef {
  type: "mesh";
  vertices: Vec3Tuple[];
  indices: [number, number, number][];
}

/**
 * A height field (static bodies only): rows x cols samples, row-major, the row index along z and the
 * column index along x, spanning size[0] by size[1] metres centred on the body's position. The surface
 * at a sample is position.y + heights[r * cols + c]; each cell is two triangles.
 */
export interface HeightfieldShapeDef {
  type: "heightfield";
  heights: number[];
  rows: number;
  cols: number;
  size: [number, number];
}

export type ShapeDef = ConvexShapeDef | CompoundShapeDef | MeshShapeDef | HeightfieldShapeDef;

export interface BodyDef {
  /** Caller's id (scenario id). Unique within a world. */
  id: string;
  type: BodyType;
  shape: ShapeDef;
  /**
   * World position of the body's reference point (its shape's origin), metres. For spheres, boxes,
   * capsules and cylinders that is the centre of mass; a hull or compound's centre of mass may lie elsewhere.
   */
  position: Vec3Tuple;
  /** Orientation quaternion [x, y, z, w]; normalised on creation. Default identity. */
  rotation?: QuatTuple;
  /** m/s. Default 0. Ignored for static bodies. */
  linearVelocity?: Vec3Tuple;
  /** rad/s, world space. Default 0. Ignored for static bodies. */
  angularVelocity?: Vec3Tuple;
  /** kg. Wins over density when both are given. Dynamic bodies only. */
  mass?: number;
  /** kg/m³. Used when mass is absent; default 1. Dynamic bodies only. */
  density?: number;
  /** Coulomb friction coefficient, combined as sqrt(μA·μB). Default 0.5. */
  friction?: number;
  /** Coefficient of restitution in [0, 1], combined as max(eA, eB). Default 0. */
  restitution?: number;
  /** Linear damping per second (v *= 1 / (1 + h·c)). Default 0. */
  linearDamping?: number;
  /** Angular damping per second. Default 0. */
  angularDamping?: number;
  /**
   * 16-bit masks (Rapier's rule): A and B collide only when (A.memberships & B.filter) != 0 and
   * (B.memberships & A.filter) != 0. Default: every bit in both.
   */
  collisionGroups?: CollisionGroups;
  /** A sensor never produces contact forces and is never pushed; it reports overlaps as events. */
  sensor?: boolean;
}

export interface CollisionGroups {
  /** Groups the body belongs to, 0..0xffff. */
  memberships: number;
  /** Groups the body collides with, 0..0xffff. */
  filter: number;
}

export type PositionCorrectionMethod = "soft" | "projection";

export interface PositionCorrectionSettings {
  /**
   * "soft" (default): Box2D v3-style soft step. Each velocity iteration is a sub-step that integrates
   * velocities, solves contacts with a spring-damper bias, integrates positions and then relaxes without
   * bias. Stiff and stable for stacks, no separate position pass.
   * "projection": the classic positional-correction pass (Catto's "linear projection"): the velocity
   * solve has no positional bias; after integrating positions every manifold's deepest penetration is
   * pushed apart linearly, max(depth - slop, 0) * percent / (invMassA + invMassB), split by inverse mass.
   */
  method: PositionCorrectionMethod;
  /** Penetration allowed before correction, metres. Projection: only depth beyond it is corrected. Soft: resting overlap. */
  slop: number;
  /** Fraction of the remaining penetration removed per pass (projection only), 0..1. */
  percent: number;
  /** Projection passes per tick (projection only). */
  iterations: number;
  /** Soft contact stiffness in Hz (soft only); capped at a quarter of the sub-step rate. */
  contactHertz: number;
  /** Soft contact damping ratio (soft only). */
  dampingRatio: number;
  /** Largest velocity the soft bias may use to push bodies apart, m/s (soft only). */
  maxPushVelocity: number;
}

/** An axis-aligned box, metres. */
export interface Aabb {
  min: Vec3Tuple;
  max: Vec3Tuple;
}

export interface WorldBounds {
  min: Vec3Tuple;
  max: Vec3Tuple;
}

export interface WorldSettings {
  /** m/s². */
  gravity: Vec3Tuple;
  /** Fixed steps per second; dt = 1 / tickRate. */
  tickRate: number;
  /**
   * Velocity iterations per tick. With the soft method each iteration is one sub-step
   * (as Rapier counts them); with projection, Gauss-Seidel passes over the contacts in one step.
   */
  velocityIterations: number;
  /** Relax (bias-free) iterations after each sub-step, soft method only. */
  relaxIterations: number;
  positionCorrection: PositionCorrectionSettings;
  /** Restitution applies only when the closing speed is above this, m/s. */
  restitutionThreshold: number;
  /** Seed each contact with the previous tick's accumulated impulses. */
  warmStarting: boolean;
  /** Allow islands of resting bodies to sleep. */
  sleep: boolean;
  /** Seconds an island must stay below the thresholds before it sleeps. */
  sleepTime: number;
  /** Linear speed below which a body counts as resting, m/s. */
  sleepLinearThreshold: number;
  /** Angular speed below which a body counts as resting, rad/s. */
  sleepAngularThreshold: number;
  /** Continuous collision: speculative contacts that cover the distance swept in a tick. */
  ccd: boolean;
  /** Bodies whose centre leaves these bounds are removed. Default none. */
  bounds: WorldBounds | null;
}

/** Every settings field optional, nested objects too: what scenarios and the admin API send. */
export type WorldSettingsPatch = Partial<Omit<WorldSettings, "positionCorrection">> & {
  positionCorrection?: Partial<PositionCorrectionSettings>;
};

// ---------------------------------------------------------------- joints

export type JointType = "fixed" | "ball" | "hinge" | "slider" | "distance";

/** Numeric joint type codes, as stored per joint (JointInfo readers and the network schema). */
export const JointTypeCode = Object.freeze({ FIXED: 0, BALL: 1, HINGE: 2, SLIDER: 3, DISTANCE: 4 } as const);
export type JointTypeCode = (typeof JointTypeCode)[keyof typeof JointTypeCode];

/**
 * A velocity motor on a hinge (about its axis: rad/s and N·m) or a slider (along its axis: m/s and N).
 * The motor drives the relative velocity towards `targetVelocity` with at most `maxForce`.
 */
export interface JointMotorDef {
  targetVelocity: number;
  /** >= 0. */
  maxForce: number;
}

/** A soft distance constraint: a spring-damper at `frequency` Hz (> 0) with `dampingRatio` (>= 0). */
export interface JointSpringDef {
  frequency: number;
  dampingRatio: number;
}

/**
 * A joint between two bodies, or a body and the world (`bodyB: null`). Anchors and axes are given in
 * world space at creation; each body keeps them in its own frame from then on. B is the base: angles,
 * travel, limits and motors measure A relative to B (a door is A, its frame or the world is B).
 *
 * - `fixed`: the relative pose is locked.
 * - `ball`: the anchors coincide; rotation is free.
 * - `hinge`: the anchors coincide; the bodies turn relative to each other only about `axis`. `limits`
 *   [lo, hi] in radians (within [-π, π]) relative to the creation pose, measured as A's turn relative to
 *   B about the axis (right-handed); `motor` in rad/s and N·m.
 * - `slider`: no relative rotation; the anchors move apart only along `axis` (attached to A). `limits` in
 *   metres of A's travel relative to B from the creation pose; `motor` in m/s and N.
 * - `distance`: keeps the distance between A's anchor (`anchor`) and B's (`anchorB`, default B's
 *   position, required when B is the world) within `limits` (default: the distance at creation). A rope
 *   is [0, L], a rod [L, L]. With `spring`, the limits are held by a spring-damper instead of rigidly.
 */
export interface JointDef {
  /** Caller's id. Unique among a world's joints. */
  id: string;
  type: JointType;
  /** Body ids. `bodyB` null: the world. The two must differ, and at least one must be dynamic. */
  bodyA: string;
  bodyB: string | null;
  /** World-space anchor at creation (on A, and on B except for distance joints), metres. */
  anchor: Vec3Tuple;
  /** Distance joints only: B's anchor in world space at creation. */
  anchorB?: Vec3Tuple;
  /** Hinge and slider: the axis in world space at creation (any length > 0). */
  axis?: Vec3Tuple;
  /** Hinge (radians), slider (metres), distance (metres, 0 <= lo <= hi). lo <= hi. */
  limits?: [number, number];
  /** Hinge and slider only. */
  motor?: JointMotorDef;
  /** Distance joints only. */
  spring?: JointSpringDef;
  /** Whether the two bodies still collide with each other. Default false. */
  collideConnected?: boolean;
  /** The joint breaks (is removed, with a `jointBreak` event) when its force exceeds this, N. Default never. */
  breakForce?: number;
  /** Same for its torque, N·m. Default never. */
  breakTorque?: number;
}

/** What `World.jointReaction` reports: the force and torque the joint applied on body A during the last step. */
export interface JointReaction {
  /** N, world space. */
  force: Vec3Tuple;
  /** N·m, world space, about the anchor. */
  torque: Vec3Tuple;
}

/**
 * A joint as readers see it (`World.getJoint`, `World.forEachJoint`): its definition's identity plus its
 * anchors and axis in each body's reference frame (the frame `getPosition`/`getRotation` report), which is
 * what a client needs to draw it under interpolated body poses. For the world side, "local" is world space.
 */
export interface JointInfo {
  handle: number;
  id: string;
  type: JointType;
  bodyA: string;
  bodyB: string | null;
  /** A's anchor in A's reference frame. */
  localAnchorA: Vec3Tuple;
  /** B's anchor in B's reference frame (world space when B is the world). */
  localAnchorB: Vec3Tuple;
  /** The axis in A's reference frame (hinge and slider; [1, 0, 0] otherwise). */
  localAxisA: Vec3Tuple;
}
