import type { BodyDef, JointDef, QuatTuple, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { builtinBounds, camera, ground, REFERENCE_FRICTION, REFERENCE_RESTITUTION, staticBox } from "./common.ts";
import { addScaled } from "./joint-geometry.ts";

/**
 * The ramp rises along +x at the angle whose direction is (24, 7)/25 (16.26°, a grade of 0.29). Its
 * quaternion about +z has tan(θ/2) = 7 / (25 + 24) = 1/7, so it is (0, 0, 1, 7) normalised.
 */
const RAMP_DIRECTION: Vec3Tuple = [24 / 25, 7 / 25, 0];
const RAMP_NORMAL: Vec3Tuple = [-7 / 25, 24 / 25, 0];
const RAMP_ROTATION: QuatTuple = [0, 0, 1 / Math.sqrt(50), 7 / Math.sqrt(50)];
const RAMP_HALF_EXTENTS: Vec3Tuple = [5, 0.25, 2.5];
/** The ramp's top surface meets the ground (y = 0) here. */
export const RAMP_FOOT_X = 0;
/** Top of the ramp and of the plateau it leads to, metres: 10 m × 7/25. */
export const RAMP_TOP = 2 * RAMP_HALF_EXTENTS[0] * RAMP_DIRECTION[1];
const PLATEAU_LENGTH = 8;

export const WHEEL_RADIUS = 0.35;
const WHEEL_HALF_WIDTH = 0.1;
const WHEEL_MASS = 3;
/** Wheels on rubber: with the ramp's μ 1 the pair grips at sqrt(1.5 × 1) ≈ 1.22, four times the grade. */
const WHEEL_FRICTION = 1.5;
/** A cylinder's axis is its local y: 90° about x turns it onto the axle (z). */
const WHEEL_ROTATION: QuatTuple = [Math.SQRT1_2, 0, 0, Math.SQRT1_2];
const CHASSIS_HALF_EXTENTS: Vec3Tuple = [1, 0.15, 0.55];
const CHASSIS_MASS = 40;
/** Axles 1.4 m apart; wheels 5 cm clear of the chassis' sides. */
const AXLE_X = 0.7;
const WHEEL_Z = CHASSIS_HALF_EXTENTS[2] + 0.05 + WHEEL_HALF_WIDTH;
/** Where the chassis starts (centre x), on flat ground before the ramp. */
export const CART_START_X = -4;
/** Driving speed on flat ground, m/s: the wheels' motor target is -CART_SPEED / radius about +z. */
export const CART_SPEED = 2;
/**
 * Motor torque per wheel, N·m. Climbing needs (40 + 4 × 3) kg × 9.81 × 7/25 × 0.35 m / 4 ≈ 12.5 N·m a
 * wheel; 40 leaves room to accelerate and to roll over the ramp's foot and crest.
 */
export const WHEEL_MAX_TORQUE = 40;

function wheel(id: string, position: Vec3Tuple): BodyDef {
  return {
    id,
    type: "dynamic",
    shape: { type: "cylinder", radius: WHEEL_RADIUS, halfHeight: WHEEL_HALF_WIDTH },
    position,
    rotation: [...WHEEL_ROTATION],
    mass: WHEEL_MASS,
    friction: WHEEL_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  };
}

/**
 * A cart: a 40 kg box chassis on four 3 kg cylinder wheels, each on a hinge along its axle driven by a
 * motor (2 m/s, 40 N·m), starting on flat ground and driving up a 16° ramp (a rotated static box, μ 1)
 * onto a plateau, where a kerb stops it.
 */
export function cart(): Scenario {
  // The ramp's centre: half its length up the slope from its foot, half its thickness below the surface.
  const rampCentre = addScaled(addScaled([RAMP_FOOT_X, 0, 0], RAMP_DIRECTION, RAMP_HALF_EXTENTS[0]), RAMP_NORMAL, -RAMP_HALF_EXTENTS[1]);
  const crestX = RAMP_FOOT_X + 2 * RAMP_HALF_EXTENTS[0] * RAMP_DIRECTION[0];
  const chassisY = WHEEL_RADIUS + 0.05;
  const bodies: BodyDef[] = [
    ground(),
    { ...staticBox("ramp", RAMP_HALF_EXTENTS, rampCentre, [...RAMP_ROTATION]), friction: 1 },
    { ...staticBox("plateau", [PLATEAU_LENGTH / 2, RAMP_TOP / 2, RAMP_HALF_EXTENTS[2]], [crestX + PLATEAU_LENGTH / 2, RAMP_TOP / 2, 0]), friction: 1 },
    staticBox("kerb", [0.25, 0.25, RAMP_HALF_EXTENTS[2]], [crestX + PLATEAU_LENGTH - 0.25, RAMP_TOP + 0.25, 0]),
    {
      id: "chassis",
      type: "dynamic",
      shape: { type: "box", halfExtents: [...CHASSIS_HALF_EXTENTS] },
      position: [CART_START_X, chassisY, 0],
      mass: CHASSIS_MASS,
      friction: REFERENCE_FRICTION,
      restitution: REFERENCE_RESTITUTION,
    },
  ];
  const joints: JointDef[] = [];
  for (const [name, x, z] of [
    ["front-left", AXLE_X, -WHEEL_Z],
    ["front-right", AXLE_X, WHEEL_Z],
    ["rear-left", -AXLE_X, -WHEEL_Z],
    ["rear-right", -AXLE_X, WHEEL_Z],
  ] as const) {
    const centre: Vec3Tuple = [CART_START_X + x, WHEEL_RADIUS, z];
    bodies.push(wheel(`wheel-${name}`, centre));
    joints.push({
      id: `axle-${name}`,
      type: "hinge",
      // B is the base a hinge's motor turns A against: the wheel (A) on the chassis (B).
      bodyA: `wheel-${name}`,
      bodyB: "chassis",
      anchor: centre,
      axis: [0, 0, 1],
      // Rolling toward +x turns a wheel clockwise seen from +z: a negative turn about +z.
      motor: { targetVelocity: -CART_SPEED / WHEEL_RADIUS, maxForce: WHEEL_MAX_TORQUE },
    });
  }
  return {
    name: "cart",
    description:
      "A 40 kg box chassis on four cylinder wheels, each on a motored hinge (2 m/s, 40 N m), drives from flat ground up a 16-degree ramp onto a plateau and stops at its kerb.",
    world: { bounds: builtinBounds() },
    bodies,
    joints,
    camera: camera([8, 12, 27], [7, 1, 0]),
    spawn: [-6, 1, 4],
  };
}
