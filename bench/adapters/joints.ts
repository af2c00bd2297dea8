import type { BodyDef, JointDef, QuatTuple, Vec3Tuple } from "../../shared/engine/types.ts";
import type { Scenario } from "../../shared/scenarios/format.ts";
import { unitRotation } from "./common.ts";
import type { BenchEngine } from "./types.ts";

/**
 * Scenario joints as the reference adapters need them. A JointDef gives its anchor and axis in world space
 * at creation; Rapier and cannon-es want them in each body's own frame. The body frame is the one the
 * scenario places (`position` is the shape's reference point, which is also where both adapters put the
 * Rapier / cannon-es body origin: Rapier keeps its centre of mass separately, so a hull's or compound's
 * off-origin centre of mass does not move the frame). This file is plain bench code, run once at load:
 * any Math is fine here.
 */

/** The scenario's joints (none when it has no `joints` field). */
export function scenarioJoints(scenario: Scenario): readonly JointDef[] {
  return (scenario as Scenario & { joints?: readonly JointDef[] }).joints ?? [];
}

// ------------------------------------------------------------------ small vector and quaternion helpers

export const sub = (a: Vec3Tuple, b: Vec3Tuple): Vec3Tuple => [a[0] - b[0], a[1] - b[1], a[2] - b[2]];
export const add = (a: Vec3Tuple, b: Vec3Tuple): Vec3Tuple => [a[0] + b[0], a[1] + b[1], a[2] + b[2]];
export const dot = (a: Vec3Tuple, b: Vec3Tuple): number => a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
export const cross = (a: Vec3Tuple, b: Vec3Tuple): Vec3Tuple => [
  a[1] * b[2] - a[2] * b[1],
  a[2] * b[0] - a[0] * b[2],
  a[0] * b[1] - a[1] * b[0],
];
export const length = (a: Vec3Tuple): number => Math.sqrt(dot(a, a));

export function normalize(a: Vec3Tuple): Vec3Tuple {
  const n = length(a);
  if (!(n > 0)) throw new Error("zero-length axis");
  return [a[0] / n, a[1] / n, a[2] / n];
}

export function quatMul(a: QuatTuple, b: QuatTuple): QuatTuple {
  return [
    a[3] * b[0] + a[0] * b[3] + a[1] * b[2] - a[2] * b[1],
    a[3] * b[1] - a[0] * b[2] + a[1] * b[3] + a[2] * b[0],
    a[3] * b[2] + a[0] * b[1] - a[1] * b[0] + a[2] * b[3],
    a[3] * b[3] - a[0] * b[0] - a[1] * b[1] - a[2] * b[2],
  ];
}

export const quatConj = (q: QuatTuple): QuatTuple => [-q[0], -q[1], -q[2], q[3]];

/** q v q*. */
export function rotate(q: QuatTuple, v: Vec3Tuple): Vec3Tuple {
  const u: Vec3Tuple = [q[0], q[1], q[2]];
  const t = cross(u, v);
  const t2: Vec3Tuple = [2 * t[0], 2 * t[1], 2 * t[2]];
  const c = cross(u, t2);
  return [v[0] + q[3] * t2[0] + c[0], v[1] + q[3] * t2[1] + c[1], v[2] + q[3] * t2[2] + c[2]];
}

export const inverseRotate = (q: QuatTuple, v: Vec3Tuple): Vec3Tuple => rotate(quatConj(q), v);

/** The shortest-arc rotation taking unit vector `from` onto unit vector `to` (a half turn about some normal when opposite). */
export function rotationBetween(from: Vec3Tuple, to: Vec3Tuple): QuatTuple {
  const c = dot(from, to);
  if (c < -1 + 1e-12) {
    // Opposite: half turn about any axis normal to `from`.
    const other: Vec3Tuple = Math.abs(from[0]) < 0.9 ? [1, 0, 0] : [0, 1, 0];
    const n = normalize(cross(from, other));
    return [n[0], n[1], n[2], 0];
  }
  const a = cross(from, to);
  const w = 1 + c;
  const n = Math.sqrt(a[0] * a[0] + a[1] * a[1] + a[2] * a[2] + w * w);
  return [a[0] / n, a[1] / n, a[2] / n, w / n];
}

// ------------------------------------------------------------------ world-space definition to body frames

export interface Pose {
  position: Vec3Tuple;
  rotation: QuatTuple;
}

const WORLD_POSE: Pose = { position: [0, 0, 0], rotation: [0, 0, 0, 1] };

/**
 * A joint in each body's frame. B's side is in world space when `bodyB` is null (the adapters attach it to
 * a fixed body at the origin with no rotation, whose frame is the world's).
 *
 * `frameA` / `frameB`: the joint frame (its x axis the hinge / slider axis; for the other types the world
 * axes) as seen from each body. Both describe the same world-space frame at creation, so a hinge angle or a
 * slider travel counts from 0 at the creation pose, and a fixed or slider joint keeps the creation's
 * relative rotation.
 */
export interface LocalJoint {
  def: JointDef;
  anchorA: Vec3Tuple;
  anchorB: Vec3Tuple;
  axisA: Vec3Tuple;
  axisB: Vec3Tuple;
  frameA: QuatTuple;
  frameB: QuatTuple;
  /** Distance joints: the anchors' distance at creation, m. 0 otherwise. */
  restDistance: number;
}

export function poseOf(def: BodyDef): Pose {
  return { position: [def.position[0], def.position[1], def.position[2]], rotation: unitRotation(def) };
}

export function localJoint(def: JointDef, bodies: ReadonlyMap<string, BodyDef>): LocalJoint {
  const a = bodies.get(def.bodyA);
  if (!a) throw new Error(`joint ${def.id}: no body "${def.bodyA}"`);
  const b = def.bodyB === null ? null : bodies.get(def.bodyB);
  if (b === undefined) throw new Error(`joint ${def.id}: no body "${def.bodyB}"`);
  const pa = poseOf(a);
  const pb = b ? poseOf(b) : WORLD_POSE;
  const worldAnchorB = def.type === "distance" ? (def.anchorB ?? (b ? pb.position : def.anchor)) : def.anchor;
  const axis = def.type === "hinge" || def.type === "slider" ? normalize(def.axis ?? [1, 0, 0]) : ([1, 0, 0] as Vec3Tuple);
  const frame = rotationBetween([1, 0, 0], axis);
  return {
    def,
    anchorA: inverseRotate(pa.rotation, sub(def.anchor, pa.position)),
    anchorB: inverseRotate(pb.rotation, sub(worldAnchorB, pb.position)),
    axisA: inverseRotate(pa.rotation, axis),
    axisB: inverseRotate(pb.rotation, axis),
    frameA: quatMul(quatConj(pa.rotation), frame),
    frameB: quatMul(quatConj(pb.rotation), frame),
    restDistance: def.type === "distance" ? length(sub(worldAnchorB, def.anchor)) : 0,
  };
}

/** Every joint of the scenario in body frames, in scenario order. */
export function localJoints(scenario: Scenario): LocalJoint[] {
  const bodies = new Map(scenario.bodies.map((b) => [b.id, b]));
  return scenarioJoints(scenario).map((j) => localJoint(j, bodies));
}

/** The distance joint's [lo, hi] (default: the distance at creation, a rod). */
export function distanceLimits(j: LocalJoint): [number, number] {
  return j.def.limits ? [j.def.limits[0], j.def.limits[1]] : [j.restDistance, j.restDistance];
}

// ------------------------------------------------------------------ measuring joints through BenchEngine

/** Where a joint's anchor on one side is in world space now, from the engine's body pose. */
function worldAnchor(engine: BenchEngine, bodyId: string | null, local: Vec3Tuple): Vec3Tuple {
  if (bodyId === null) return local;
  return add(engine.position(bodyId), rotate(engine.rotation(bodyId), local));
}

/**
 * The gap between the two anchors of a joint that holds them together (fixed, ball, hinge), m: the joint's
 * positional error, read from body poses only, so it means the same in every engine.
 */
export function anchorGap(engine: BenchEngine, j: LocalJoint): number {
  return length(sub(worldAnchor(engine, j.def.bodyA, j.anchorA), worldAnchor(engine, j.def.bodyB, j.anchorB)));
}
