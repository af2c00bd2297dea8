import type { BodyDef, QuatTuple, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { builtinBounds, camera, ground, REFERENCE_DENSITY, REFERENCE_RESTITUTION, staticBox, UNIT_HALF_EXTENTS } from "./common.ts";

/** sin and cos of 10°: the ramp's quaternion is a +20° rotation about +z, written as literals. */
const QZ = 0.17364817766693033;
const QW = 0.984807753012208;
/** sin 20° and cos 20° from the half-angle literals with products only (no Math.sin in scenes). */
const SIN20 = 2 * QZ * QW;
const COS20 = QW * QW - QZ * QZ;

const RAMP_ROTATION: QuatTuple = [0, 0, QZ, QW];
const RAMP_HALF_EXTENTS: Vec3Tuple = [5, 0.25, 2];
const RAMP_CENTRE: Vec3Tuple = [0, 2.5, 0];
/** Where the boxes start, measured up the slope from the ramp's centre, metres. */
const START_UP_SLOPE = 2;

/**
 * A +20° rotation about +z turns the ramp's local +x into (cos 20°, sin 20°, 0): the +x end is high and
 * the ramp descends toward -x. Its surface normal is the local +y, (-sin 20°, cos 20°, 0).
 */
function onRamp(id: string, z: number, friction: number): BodyDef {
  const up = RAMP_HALF_EXTENTS[1] + UNIT_HALF_EXTENTS[1];
  const position: Vec3Tuple = [
    RAMP_CENTRE[0] + START_UP_SLOPE * COS20 - up * SIN20,
    RAMP_CENTRE[1] + START_UP_SLOPE * SIN20 + up * COS20,
    z,
  ];
  return {
    id,
    type: "dynamic",
    shape: { type: "box", halfExtents: [...UNIT_HALF_EXTENTS] },
    position,
    rotation: [...RAMP_ROTATION],
    density: REFERENCE_DENSITY,
    friction,
    restitution: REFERENCE_RESTITUTION,
  };
}

/**
 * Two boxes on a 20° static ramp. Friction combines as sqrt(μA·μB), so the ramp has μ = 1 and each box
 * μ² (0.25 for "grip", 0.04 for "slide"), making the pair's effective μ 0.5 and 0.2. tan 20° ≈ 0.364:
 * "grip" (μ 0.5) stays put, "slide" (μ 0.2) accelerates at g (sin 20° - 0.2 cos 20°) ≈ 1.51 m/s² toward -x.
 */
export function frictionRamp(): Scenario {
  return {
    name: "friction-ramp",
    description:
      "Two boxes on a 20-degree ramp descending toward -x: effective friction 0.5 holds 'grip' still while 0.2 lets 'slide' accelerate at about 1.51 m/s^2. The ramp has friction 1 and each box friction mu^2, so the combined sqrt(1 * mu^2) equals mu.",
    world: { sleep: false, bounds: builtinBounds() },
    bodies: [
      ground(),
      { ...staticBox("ramp", RAMP_HALF_EXTENTS, [...RAMP_CENTRE], [...RAMP_ROTATION]), friction: 1 },
      onRamp("grip", -0.75, 0.25),
      onRamp("slide", 0.75, 0.04),
    ],
    camera: camera([1, 5, 15], [-1, 2, 0]),
    spawn: [0, 1, 5],
  };
}
