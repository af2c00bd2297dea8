import type { BodyDef, JointDef, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { builtinBounds, camera, ground, REFERENCE_FRICTION, REFERENCE_RESTITUTION, staticBox } from "./common.ts";
import { addScaled, normalise, rotationBetween } from "./joint-geometry.ts";

export const BRIDGE_PLANKS = 20;
/** Hinge to hinge along a plank, metres: each plank is 1 cm shorter at each end than its hinges. */
export const PLANK_PITCH = 0.5;
export const PLANK_HALF_EXTENTS: Vec3Tuple = [0.24, 0.05, 1];
const PLANK_MASS = 10;
/**
 * Plank k starts with slope SAG_SLOPE × (k - 9.5): a chain of equal weights hangs with its slope growing
 * by the same step from link to link (constant horizontal tension, each link carrying the weight below
 * it), so the bridge starts in the pose it hangs in, 30° at the ends, instead of taut and straight (a
 * straight chain of hinges can only sag by stretching its joints).
 */
const SAG_SLOPE = 0.06;
/** Height of the end hinges, on the top edge of each abutment, metres. */
export const BRIDGE_HEIGHT = 4;
const ABUTMENT_HALF_EXTENTS: Vec3Tuple = [1, BRIDGE_HEIGHT / 2, 1.5];
export const CRATE_MASS = 40;
/** The crate's bottom starts this far above the bridge's lowest hinge, metres. */
const CRATE_DROP = 1.5;

/** Hinge points P0..P20 across the gap (z = 0), centred on x = 0. */
export function bridgeHinges(): Vec3Tuple[] {
  const points: Vec3Tuple[] = [[0, 0, 0]];
  for (let k = 0; k < BRIDGE_PLANKS; k++) {
    const direction = normalise([1, SAG_SLOPE * (k - (BRIDGE_PLANKS - 1) / 2), 0]);
    points.push(addScaled(points[k], direction, PLANK_PITCH));
  }
  const span = points[BRIDGE_PLANKS][0];
  return points.map((p) => [p[0] - span / 2 + 0, p[1] + BRIDGE_HEIGHT, 0]);
}

function plank(k: number, from: Vec3Tuple, to: Vec3Tuple): BodyDef {
  const direction = normalise([to[0] - from[0], to[1] - from[1], 0]);
  return {
    id: `plank${k}`,
    type: "dynamic",
    shape: { type: "box", halfExtents: [...PLANK_HALF_EXTENTS] },
    position: addScaled(from, direction, PLANK_PITCH / 2),
    rotation: rotationBetween([1, 0, 0], direction),
    mass: PLANK_MASS,
    friction: 0.8,
    restitution: REFERENCE_RESTITUTION,
  };
}

/** A hinge across the bridge (its width, z) at `anchor`: bodyA hangs from bodyB, the base. */
function hinge(id: string, bodyA: string, bodyB: string, anchor: Vec3Tuple): JointDef {
  return { id, type: "hinge", bodyA, bodyB, anchor, axis: [0, 0, 1] };
}

/**
 * A rope bridge: 20 planks (2 m wide, 10 kg) hinged edge to edge about the bridge's width axis, the end
 * planks hinged to the top edges of two static abutments 9.3 m apart, hanging in a chain's natural sag,
 * with a 40 kg crate dropped on its middle. Players start on the west abutment and can walk across.
 */
export function bridge(): Scenario {
  const points = bridgeHinges();
  const first = points[0];
  const last = points[BRIDGE_PLANKS];
  const bodies: BodyDef[] = [
    ground(),
    staticBox("abutment-west", ABUTMENT_HALF_EXTENTS, [first[0] - ABUTMENT_HALF_EXTENTS[0], BRIDGE_HEIGHT / 2, 0]),
    staticBox("abutment-east", ABUTMENT_HALF_EXTENTS, [last[0] + ABUTMENT_HALF_EXTENTS[0], BRIDGE_HEIGHT / 2, 0]),
  ];
  const joints: JointDef[] = [hinge("hinge0", "plank0", "abutment-west", first)];
  for (let k = 0; k < BRIDGE_PLANKS; k++) {
    bodies.push(plank(k, points[k], points[k + 1]));
    const next = k + 1 < BRIDGE_PLANKS ? `plank${k + 1}` : "abutment-east";
    joints.push(hinge(`hinge${k + 1}`, next, `plank${k}`, points[k + 1]));
  }
  let lowest = BRIDGE_HEIGHT;
  for (const p of points) lowest = Math.min(lowest, p[1]);
  bodies.push({
    id: "crate",
    type: "dynamic",
    shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] },
    position: [0, lowest + CRATE_DROP + 0.5, 0],
    mass: CRATE_MASS,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  });
  return {
    name: "bridge",
    description:
      "A rope bridge of 20 hinged 10 kg planks hanging between two abutments, with a 40 kg crate dropped on its middle: the hinges must hold the crate without stretching apart. Walk across from the west abutment.",
    world: { bounds: builtinBounds() },
    bodies,
    joints,
    camera: camera([-2, 7, 14], [0, 3, 0]),
    spawn: [first[0] - 1, BRIDGE_HEIGHT + 1, 0],
  };
}
