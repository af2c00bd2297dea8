import type { BodyDef, JointDef, QuatTuple, ShapeDef, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { builtinBounds, camera, centred, ground, REFERENCE_RESTITUTION, staticBox } from "./common.ts";
import { add, rotate } from "./joint-geometry.ts";

/**
 * Stairs descending toward +x: a 3 m landing at x -3..0, then steps 1 m deep and 0.4 m high, the last
 * step down to the ground at x = 7. Each is a static box standing on the ground.
 */
export const STAIR_STEPS = 8;
const STEP_RISE = 0.4;
const STEP_RUN = 1;
const LANDING_LENGTH = 3;
const STAIR_HALF_WIDTH = 6;
export const LANDING_TOP = STAIR_STEPS * STEP_RISE;

export const RAGDOLLS = 10;
/** Ragdolls are dropped in 2 rows (x) of 5 (z), their centres this far apart: each fits a 0.95 m sphere. */
const ROW_X = [-1.5, 1];
const COLUMN_SPACING = 2.2;
const DROP_HEIGHTS = [5.2, 6.4];
/** Friction of every limb: cloth on stone, enough to stop a ragdoll sliding down the steps. */
const RAGDOLL_FRICTION = 0.8;
/** A little damping so limbs stop flopping and the pile can fall asleep. */
const LIMB_ANGULAR_DAMPING = 0.5;

/**
 * One ragdoll standing at attention, facing +z, its origin half way up (feet at y -0.9, head top 0.88):
 * parts and masses (65 kg in all, a person's proportions), then joints.
 */
interface Part {
  name: string;
  shape: ShapeDef;
  at: Vec3Tuple;
  mass: number;
}
const capsule = (radius: number, halfHeight: number): ShapeDef => ({ type: "capsule", radius, halfHeight });
const PARTS: readonly Part[] = [
  { name: "torso", shape: { type: "box", halfExtents: [0.18, 0.3, 0.1] }, at: [0, 0.3, 0], mass: 25 },
  { name: "head", shape: { type: "sphere", radius: 0.12 }, at: [0, 0.76, 0], mass: 5 },
  { name: "upper-arm-left", shape: capsule(0.06, 0.1), at: [-0.26, 0.42, 0], mass: 2 },
  { name: "lower-arm-left", shape: capsule(0.05, 0.1), at: [-0.26, 0.09, 0], mass: 1.5 },
  { name: "upper-arm-right", shape: capsule(0.06, 0.1), at: [0.26, 0.42, 0], mass: 2 },
  { name: "lower-arm-right", shape: capsule(0.05, 0.1), at: [0.26, 0.09, 0], mass: 1.5 },
  { name: "upper-leg-left", shape: capsule(0.07, 0.15), at: [-0.1, -0.23, 0], mass: 7 },
  { name: "lower-leg-left", shape: capsule(0.06, 0.15), at: [-0.1, -0.69, 0], mass: 4 },
  { name: "upper-leg-right", shape: capsule(0.07, 0.15), at: [0.1, -0.23, 0], mass: 7 },
  { name: "lower-leg-right", shape: capsule(0.06, 0.15), at: [0.1, -0.69, 0], mass: 4 },
];

/** Elbows and knees bend one way only, up to 2.4 rad (137°), from straight. */
const BEND: [number, number] = [0, 2.4];
/** A joint: `a` moves relative to its base `b` (the part nearer the torso). */
interface Link {
  name: string;
  type: "ball" | "hinge";
  a: string;
  b: string;
  at: Vec3Tuple;
  /**
   * Hinge axis: A's positive turn about it is the joint's bend. Elbows bend the forearm forward (+z),
   * a turn about -x; knees bend the shin backward (-z), a turn about +x.
   */
  axis?: Vec3Tuple;
}
const LINKS: readonly Link[] = [
  { name: "neck", type: "ball", a: "head", b: "torso", at: [0, 0.62, 0] },
  { name: "shoulder-left", type: "ball", a: "upper-arm-left", b: "torso", at: [-0.26, 0.58, 0] },
  { name: "elbow-left", type: "hinge", a: "lower-arm-left", b: "upper-arm-left", at: [-0.26, 0.25, 0], axis: [-1, 0, 0] },
  { name: "shoulder-right", type: "ball", a: "upper-arm-right", b: "torso", at: [0.26, 0.58, 0] },
  { name: "elbow-right", type: "hinge", a: "lower-arm-right", b: "upper-arm-right", at: [0.26, 0.25, 0], axis: [-1, 0, 0] },
  { name: "hip-left", type: "ball", a: "upper-leg-left", b: "torso", at: [-0.1, 0, 0] },
  { name: "knee-left", type: "hinge", a: "lower-leg-left", b: "upper-leg-left", at: [-0.1, -0.465, 0], axis: [1, 0, 0] },
  { name: "hip-right", type: "ball", a: "upper-leg-right", b: "torso", at: [0.1, 0, 0] },
  { name: "knee-right", type: "hinge", a: "lower-leg-right", b: "upper-leg-right", at: [0.1, -0.465, 0], axis: [1, 0, 0] },
];

/**
 * How each ragdoll lies as it falls (exact unit quaternions): on its side head uphill (90° about +z),
 * on its side head downhill (-90° about +z), face down head toward +z (90° about +x), and on its side
 * head toward +z facing downhill (120° about (1, 1, 1), which turns x to y, y to z and z to x).
 */
const POSES: readonly QuatTuple[] = [
  [0, 0, Math.SQRT1_2, Math.SQRT1_2],
  [0, 0, -Math.SQRT1_2, Math.SQRT1_2],
  [Math.SQRT1_2, 0, 0, Math.SQRT1_2],
  [0.5, 0.5, 0.5, 0.5],
];

/** Rounded to nanometres: the rotated offsets come out as 0.30000000000000004 and 2.2e-16, not 0.3 and 0. */
function tidy(v: Vec3Tuple): Vec3Tuple {
  return [Math.round(v[0] * 1e9) / 1e9 + 0, Math.round(v[1] * 1e9) / 1e9 + 0, Math.round(v[2] * 1e9) / 1e9 + 0];
}

function ragdoll(n: number, centre: Vec3Tuple, pose: QuatTuple, bodies: BodyDef[], joints: JointDef[]): void {
  const id = (part: string) => `ragdoll${n}-${part}`;
  for (const part of PARTS) {
    bodies.push({
      id: id(part.name),
      type: "dynamic",
      shape: structuredClone(part.shape),
      position: tidy(add(centre, rotate(pose, part.at))),
      rotation: [...pose],
      mass: part.mass,
      friction: RAGDOLL_FRICTION,
      restitution: REFERENCE_RESTITUTION,
      angularDamping: LIMB_ANGULAR_DAMPING,
    });
  }
  for (const link of LINKS) {
    const joint: JointDef = { id: id(link.name), type: link.type, bodyA: id(link.a), bodyB: id(link.b), anchor: tidy(add(centre, rotate(pose, link.at))) };
    if (link.axis) {
      joint.axis = tidy(rotate(pose, link.axis));
      joint.limits = [...BEND];
    }
    joints.push(joint);
  }
}

function stairs(): BodyDef[] {
  const out = [staticBox("landing", [LANDING_LENGTH / 2, LANDING_TOP / 2, STAIR_HALF_WIDTH], [-LANDING_LENGTH / 2, LANDING_TOP / 2, 0])];
  for (let i = 1; i < STAIR_STEPS; i++) {
    const top = LANDING_TOP - i * STEP_RISE;
    out.push(staticBox(`step${i}`, [STEP_RUN / 2, top / 2, STAIR_HALF_WIDTH], [(i - 0.5) * STEP_RUN, top / 2, 0]));
  }
  return out;
}

/**
 * Ten ragdolls (a box torso, a sphere head, capsule arms and legs: 10 parts, 65 kg) with ball-jointed
 * neck, shoulders and hips and hinged elbows and knees limited to bend one way, dropped in four poses
 * onto a flight of stairs. They tumble down and come to rest.
 */
export function ragdolls(): Scenario {
  const bodies: BodyDef[] = [ground(), ...stairs()];
  const joints: JointDef[] = [];
  for (let n = 0; n < RAGDOLLS; n++) {
    const row = n % 2;
    const column = (n - row) / 2;
    const centre: Vec3Tuple = [ROW_X[row], DROP_HEIGHTS[(row + column) % 2], centred(column, RAGDOLLS / 2, COLUMN_SPACING)];
    ragdoll(n, centre, POSES[n % POSES.length], bodies, joints);
  }
  return {
    name: "ragdolls",
    description:
      "Ten ragdolls (box torso, sphere head, capsule limbs; ball-jointed neck, shoulders and hips, elbows and knees hinged with one-way limits) dropped onto a flight of stairs, where they tumble down and come to rest.",
    world: { bounds: builtinBounds() },
    bodies,
    joints,
    camera: camera([12, 9, 16], [2, 1.5, 0]),
    spawn: [9, 1, 4],
  };
}
