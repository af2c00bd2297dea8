import type { BenchEngine } from "./adapters/index.ts";
import {
  add,
  anchorGap,
  type LocalJoint,
  length,
  localJoints,
  normalize,
  poseOf,
  quatMul,
  rotate,
  rotationBetween,
  scenarioJoints,
  sub,
} from "./adapters/joints.ts";
import type { BodyDef, JointDef, QuatTuple, Vec3Tuple } from "../shared/engine/types.ts";
import type { Scenario } from "../shared/scenarios/format.ts";

/**
 * The chain-stretch figure of the reference bench: how far a jointed chain's links pull apart, in % of the
 * chain's rest length, in every engine alike (read from body poses through BenchEngine, not from any
 * engine's joint state).
 *
 * The chain is the path of joints from the one that hangs it (a joint to the world, or to a static body)
 * through each next joint of the body reached, in scenario order: for the `chain` scene, the links down to
 * the wrecking ball. Its rest length is the path through the joints' anchors at creation; its stretch the
 * sum of the anchor gaps of those joints (each link is rigid, so the chain is longer by exactly that).
 */

/** The chain's joints in order from the hanging point down, and the bodies below each (same length). */
export function chainPath(scenario: Scenario): { joints: JointDef[]; bodies: string[] } {
  const all = scenarioJoints(scenario);
  const statics = new Set(scenario.bodies.filter((b) => b.type !== "dynamic").map((b) => b.id));
  const fixedSide = (id: string | null) => id === null || statics.has(id);
  const root = all.find((j) => fixedSide(j.bodyB) !== fixedSide(j.bodyA));
  if (!root) throw new Error(`scene ${scenario.name}: no joint hangs a chain from the world or a static body`);
  const joints: JointDef[] = [];
  const bodies: string[] = [];
  const used = new Set<JointDef>();
  let joint: JointDef | undefined = root;
  let current: string = fixedSide(root.bodyA) ? (root.bodyB as string) : root.bodyA;
  while (joint) {
    used.add(joint);
    joints.push(joint);
    bodies.push(current);
    const at = current;
    joint = all.find((j) => !used.has(j) && (j.bodyA === at || j.bodyB === at) && j.type !== "distance");
    if (joint) current = joint.bodyA === at ? (joint.bodyB as string) : joint.bodyA;
  }
  return { joints, bodies };
}

/** The chain's rest length, m: the path through its joints' world anchors at creation. */
export function chainRestLength(scenario: Scenario): number {
  const { joints } = chainPath(scenario);
  let total = 0;
  for (let k = 1; k < joints.length; k++) total += length(sub(joints[k].anchor, joints[k - 1].anchor));
  return total;
}

/** Measures the chain's stretch in an engine loaded with `scenario`, in % of its rest length. */
export function chainStretchMeter(scenario: Scenario): (engine: BenchEngine) => number {
  const ids = new Set(chainPath(scenario).joints.map((j) => j.id));
  const joints: LocalJoint[] = localJoints(scenario).filter((j) => ids.has(j.def.id));
  const rest = chainRestLength(scenario);
  return (engine) => {
    let gaps = 0;
    for (const j of joints) gaps += anchorGap(engine, j);
    return (100 * gaps) / rest;
  };
}

/**
 * The scene re-posed so the chain hangs straight down from its hanging point, at rest, with only the
 * chain's bodies and what it hangs from left (no ground: a long chain must not end up resting on it): each body is turned (shortest arc) so that the line from its
 * upper joint's anchor to its lower one (the last body: to its own position) points straight down, and
 * placed so its upper anchor sits on the previous body's lower one. Joint anchors (and hinge / slider axes,
 * turned with the joint's upper body) follow. From there the chain only has to take up its own load.
 */
export function hangChainStraight(scenario: Scenario): Scenario {
  const { joints, bodies } = chainPath(scenario);
  const byId = new Map(scenario.bodies.map((b) => [b.id, b]));
  const local = localJoints({ ...scenario, joints } as Scenario);
  // The chain's bodies and whatever it hangs from; no ground or wall for the hanging chain to rest on.
  const keep = new Set<string>(bodies);
  for (const j of joints) for (const id of [j.bodyA, j.bodyB]) if (id !== null) keep.add(id);
  const out: Scenario = structuredClone(scenario);
  out.bodies = out.bodies.filter((b) => keep.has(b.id));
  const placed = new Map(out.bodies.map((b) => [b.id, b]));
  const newJoints: JointDef[] = [];
  const turns = new Map<string, QuatTuple>();
  const down: Vec3Tuple = [0, -1, 0];
  let top: Vec3Tuple = joints[0].anchor;
  for (let k = 0; k < bodies.length; k++) {
    const id = bodies[k];
    const def = byId.get(id) as BodyDef;
    const pose = poseOf(def);
    // The body's upper anchor (joint k) and lower anchor (joint k + 1, or its own origin), in its frame.
    const upper = localAnchorOn(local[k], id);
    const lower = k + 1 < joints.length ? localAnchorOn(local[k + 1], id) : ([0, 0, 0] as Vec3Tuple);
    const span = rotate(pose.rotation, sub(lower, upper));
    const turn: QuatTuple = length(span) > 1e-9 ? rotationBetween(normalize(span), down) : [0, 0, 0, 1];
    const rotation = quatMul(turn, pose.rotation);
    const position = sub(top, rotate(rotation, upper));
    const body = placed.get(id) as BodyDef;
    body.position = position;
    body.rotation = rotation;
    body.linearVelocity = [0, 0, 0];
    body.angularVelocity = [0, 0, 0];
    turns.set(id, turn);
    const j = structuredClone(joints[k]);
    j.anchor = top;
    // An axis is attached to the joint's body A: it turns with that body (a static one does not turn).
    const turnA = turns.get(j.bodyA);
    if (j.axis && turnA) j.axis = rotate(turnA, j.axis);
    newJoints.push(j);
    top = add(position, rotate(rotation, lower));
  }
  (out as Scenario & { joints: JointDef[] }).joints = newJoints;
  return out;
}

/** The joint's anchor on body `id`, in that body's frame. */
function localAnchorOn(j: LocalJoint, id: string): Vec3Tuple {
  return j.def.bodyA === id ? j.anchorA : j.anchorB;
}
