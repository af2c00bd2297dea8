import type { BodyDef, JointDef, Vec3Tuple } from "../../engine/types.ts";
import type { Scenario } from "../format.ts";
import { builtinBounds, camera, centred, ground, REFERENCE_FRICTION, REFERENCE_RESTITUTION, staticBox, unitBox } from "./common.ts";
import { addScaled, rotationBetween } from "./joint-geometry.ts";

export const CHAIN_LINKS = 30;
/** A link is a capsule 0.4 m from end to end (0.24 m of cylinder, 0.08 m caps): joints at its ends. */
const LINK_RADIUS = 0.08;
const LINK_HALF_HEIGHT = 0.12;
export const LINK_LENGTH = 2 * (LINK_HALF_HEIGHT + LINK_RADIUS);
export const LINK_MASS = 1;
export const WRECKING_BALL_RADIUS = 0.6;
/** Ten links' worth. */
export const WRECKING_BALL_MASS = 10 * LINK_MASS;
/** Where the chain hangs from: the underside of a static beam, metres. */
export const PIVOT: Vec3Tuple = [0, 14, 0];
/**
 * The chain starts straight, pulled 36.87° out to -x (the direction (-3, -4)/5, exact in binary up to
 * rounding of 0.6 and 0.8): the ball drops 2.5 m before the bottom of its swing, about 7 m/s there.
 */
const START_DIRECTION: Vec3Tuple = [-0.6, -0.8, 0];
/** The wall: unit boxes 6 wide (z) and 4 high, its near face 0.2 m beyond the hanging ball's surface. */
const WALL_COLUMNS = 6;
const WALL_ROWS = 4;
export const WALL_NEAR_FACE = WRECKING_BALL_RADIUS + 0.2;

function link(k: number): BodyDef {
  return {
    id: `link${k}`,
    type: "dynamic",
    shape: { type: "capsule", radius: LINK_RADIUS, halfHeight: LINK_HALF_HEIGHT },
    position: addScaled(PIVOT, START_DIRECTION, (k + 0.5) * LINK_LENGTH),
    // A capsule's axis is its local y: turned onto the chain's line.
    rotation: rotationBetween([0, 1, 0], [-START_DIRECTION[0], -START_DIRECTION[1], -START_DIRECTION[2]]),
    mass: LINK_MASS,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  };
}

/**
 * A wrecking ball: 30 capsule links (1 kg each) joined end to end by ball joints, the first to a static
 * beam on two pillars, the last to a 10 kg sphere. Released from 37° out, the ball swings through the
 * bottom of its arc into a wall of 24 unit boxes.
 */
export function chain(): Scenario {
  const bodies: BodyDef[] = [
    ground(),
    staticBox("beam", [0.2, 0.2, 4], [PIVOT[0], PIVOT[1] + 0.2, 0]),
    staticBox("pillar-north", [0.2, PIVOT[1] / 2, 0.2], [0, PIVOT[1] / 2, -3.8]),
    staticBox("pillar-south", [0.2, PIVOT[1] / 2, 0.2], [0, PIVOT[1] / 2, 3.8]),
  ];
  const joints: JointDef[] = [];
  for (let k = 0; k < CHAIN_LINKS; k++) {
    bodies.push(link(k));
    const anchor = addScaled(PIVOT, START_DIRECTION, k * LINK_LENGTH);
    // Each link hangs from (its base, B) the one above it.
    joints.push({ id: `joint${k}`, type: "ball", bodyA: `link${k}`, bodyB: k === 0 ? "beam" : `link${k - 1}`, anchor });
  }
  const end = addScaled(PIVOT, START_DIRECTION, CHAIN_LINKS * LINK_LENGTH);
  bodies.push({
    id: "wrecking-ball",
    type: "dynamic",
    shape: { type: "sphere", radius: WRECKING_BALL_RADIUS },
    position: addScaled(end, START_DIRECTION, WRECKING_BALL_RADIUS),
    mass: WRECKING_BALL_MASS,
    friction: REFERENCE_FRICTION,
    restitution: REFERENCE_RESTITUTION,
  });
  joints.push({ id: `joint${CHAIN_LINKS}`, type: "ball", bodyA: "wrecking-ball", bodyB: `link${CHAIN_LINKS - 1}`, anchor: end });
  for (let row = 0; row < WALL_ROWS; row++) {
    for (let col = 0; col < WALL_COLUMNS; col++) {
      bodies.push(unitBox(`wall${row}_${col}`, [WALL_NEAR_FACE + 0.5, 0.5 + row, centred(col, WALL_COLUMNS, 1)]));
    }
  }
  return {
    name: "chain",
    description:
      "A wrecking ball: a 10 kg sphere on a chain of 30 ball-jointed 1 kg capsule links hanging from a beam, released 37 degrees out so that it swings into a wall of 24 boxes. The chain must neither stretch nor explode.",
    world: { bounds: builtinBounds() },
    bodies,
    joints,
    camera: camera([-3, 8, 22], [-1, 5, 0]),
    spawn: [-5, 1, 6],
  };
}
