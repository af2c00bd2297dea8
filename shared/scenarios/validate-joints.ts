import type { BodyDef, BodyType, JointDef, JointMotorDef, JointSpringDef, JointType, Vec3Tuple } from "../engine/types.ts";
import {
  checkKeys,
  fmt,
  indexPath,
  type IssueList,
  isObject,
  keyPath,
  type NumberRule,
  own,
  quote,
  readBoolean,
  readEnum,
  readNumber,
  readString,
  readVector,
} from "./json-read.ts";
import type { ScenarioLimits } from "./validate.ts";

/**
 * The scenario format's joints: reading the untrusted `joints` array into clean JointDefs, with a JSON
 * path for every problem (`joints[2].bodyB: no body "x"`). Everything World.createJoint would throw on is
 * refused here first, so a validated scenario always loads; so is what it would accept but could never
 * act on (a joint between two bodies that cannot move, an axis on a ball joint).
 */

export const JOINT_TYPES = ["fixed", "ball", "hinge", "slider", "distance"] as const satisfies readonly JointType[];

/** Fields every joint may have, in JointDef order (the order a validated joint is written in). */
const JOINT_KEYS = [
  "id",
  "type",
  "bodyA",
  "bodyB",
  "anchor",
  "anchorB",
  "axis",
  "limits",
  "motor",
  "spring",
  "collideConnected",
  "breakForce",
  "breakTorque",
] as const;
const MOTOR_KEYS = ["targetVelocity", "maxForce"] as const;
const SPRING_KEYS = ["frequency", "dampingRatio"] as const;

/** Which types have which optional fields. */
const HAS_AXIS: readonly JointType[] = ["hinge", "slider"];
const HAS_LIMITS: readonly JointType[] = ["hinge", "slider", "distance"];
const HAS_MOTOR: readonly JointType[] = ["hinge", "slider"];
const HAS_SPRING: readonly JointType[] = ["distance"];
const HAS_ANCHOR_B: readonly JointType[] = ["distance"];

export const JOINT_LIMITS = Object.freeze({
  /** Most joints a scenario may hold (a chain through every body of the largest scenario fits). */
  maxJoints: 20000,
  /** Shortest axis, metres: shorter has no direction worth normalising. */
  minAxisLength: 1e-6,
  /**
   * Largest spring frequency, Hz: far above any tick rate (at most 1000 Hz), where a soft constraint is
   * already as stiff as a rigid one; the soft-step coefficients overflow to NaN long before 1e308.
   */
  maxSpringFrequency: 1e6,
  /** Spring damping ratio ceiling: the same as the contacts' (PHYSICAL_LIMITS.maxDampingRatio). */
  maxSpringDampingRatio: 100,
});

const MAX_ID_LENGTH = 64;
const POSITIVE: NumberRule = { gt: 0 };
const NON_NEGATIVE: NumberRule = { ge: 0 };

/** What the joint checks need to know about the scenario's (validated) bodies. */
export interface JointBodies {
  /** Type of each validated body, by id. */
  types: ReadonlyMap<string, BodyType | undefined>;
  /** Position of each validated body, by id (a distance joint's default anchor on B). */
  positions: ReadonlyMap<string, Vec3Tuple | undefined>;
  /**
   * False when some body was not read (over maxBodies) or has no valid id: a name not found may then be
   * that body, already reported, so it is not reported again as missing.
   */
  complete: boolean;
}

/** The id → type/position lookup of validated bodies. */
export function jointBodiesOf(bodies: readonly BodyDef[], allRead: boolean): JointBodies {
  const types = new Map<string, BodyType | undefined>();
  const positions = new Map<string, Vec3Tuple | undefined>();
  let complete = allRead;
  for (const body of bodies) {
    if (body.id === undefined) {
      complete = false;
      continue;
    }
    types.set(body.id, body.type);
    positions.set(body.id, body.position);
  }
  return { types, positions, complete };
}

/** `[lo, hi]`, both within `rule`, lo <= hi; undefined after an issue. */
function readRange(v: unknown, path: string, issues: IssueList, rule: NumberRule): [number, number] | undefined {
  if (!Array.isArray(v)) {
    issues.add(path, "expected array of 2 numbers [lo, hi]");
    return undefined;
  }
  if (v.length !== 2) {
    issues.add(path, `must have exactly 2 elements [lo, hi], got ${v.length}`);
    return undefined;
  }
  const lo = readNumber(v[0], indexPath(path, 0), issues, rule);
  const hi = readNumber(v[1], indexPath(path, 1), issues, rule);
  if (lo === undefined || hi === undefined) return undefined;
  if (lo > hi) {
    issues.add(path, `lower limit ${fmt(lo)} is above upper limit ${fmt(hi)}: must be [lo, hi] with lo <= hi`);
    return undefined;
  }
  return [lo, hi];
}

/** `{targetVelocity, maxForce}`, both required. */
function readMotor(v: unknown, path: string, issues: IssueList, limits: ScenarioLimits): JointMotorDef | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object {targetVelocity, maxForce}");
    return undefined;
  }
  checkKeys(v, MOTOR_KEYS, path, issues);
  const rules: Record<(typeof MOTOR_KEYS)[number], NumberRule> = {
    targetVelocity: { ge: -limits.maxSpeed, le: limits.maxSpeed, symmetric: true },
    maxForce: NON_NEGATIVE,
  };
  const out = {} as JointMotorDef;
  for (const key of MOTOR_KEYS) {
    const raw = own(v, key);
    if (raw === undefined) issues.add(keyPath(path, key), "is required");
    else out[key] = readNumber(raw, keyPath(path, key), issues, rules[key]) as number;
  }
  return out.targetVelocity !== undefined && out.maxForce !== undefined ? out : undefined;
}

/** `{frequency, dampingRatio}`, both required. */
function readSpring(v: unknown, path: string, issues: IssueList): JointSpringDef | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object {frequency, dampingRatio}");
    return undefined;
  }
  checkKeys(v, SPRING_KEYS, path, issues);
  const rules: Record<(typeof SPRING_KEYS)[number], NumberRule> = {
    frequency: { gt: 0, le: JOINT_LIMITS.maxSpringFrequency, unit: "Hz" },
    dampingRatio: { ge: 0, le: JOINT_LIMITS.maxSpringDampingRatio },
  };
  const out = {} as JointSpringDef;
  for (const key of SPRING_KEYS) {
    const raw = own(v, key);
    if (raw === undefined) issues.add(keyPath(path, key), "is required");
    else out[key] = readNumber(raw, keyPath(path, key), issues, rules[key]) as number;
  }
  return out.frequency !== undefined && out.dampingRatio !== undefined ? out : undefined;
}

/** "a hinge joint", "an axis"... for messages. */
function a(word: string): string {
  return /^[aeiou]/.test(word) ? `an ${word}` : `a ${word}`;
}

/** "hinge and slider joints", "distance joints". */
function typesWith(types: readonly JointType[]): string {
  return `${types.length === 1 ? types[0] : `${types.slice(0, -1).join(", ")} and ${types[types.length - 1]}`} joints`;
}

/** A body reference: a non-empty id of a known body; for bodyB also null (the world). */
function readBodyRef(
  v: Record<string, unknown>,
  key: "bodyA" | "bodyB",
  path: string,
  issues: IssueList,
  bodies: JointBodies,
): string | null | undefined {
  const refPath = keyPath(path, key);
  const raw = own(v, key);
  if (raw === undefined) {
    issues.add(refPath, key === "bodyA" ? "is required (a body id)" : "is required (a body id, or null for the world)");
    return undefined;
  }
  if (raw === null) {
    if (key === "bodyB") return null;
    // The world is always B; a joint with no body at all is reported once, here.
    if (own(v, "bodyB") === null) issues.add(refPath, "bodyA and bodyB are both null: a joint needs at least one body");
    else issues.add(refPath, "must be a body id (the world can only be bodyB: swap them)");
    return undefined;
  }
  const id = readString(raw, refPath, issues, MAX_ID_LENGTH, true);
  if (id === undefined) return undefined;
  if (!bodies.types.has(id)) {
    if (bodies.complete) issues.add(refPath, `no body ${quote(id)}`);
    return undefined;
  }
  return id;
}

/** Distance between two points, metres. */
function distance(p: Vec3Tuple, q: Vec3Tuple): number {
  const dx = q[0] - p[0];
  const dy = q[1] - p[1];
  const dz = q[2] - p[2];
  return Math.sqrt(dx * dx + dy * dy + dz * dz);
}

/** Reads one joint at `path` (`joints[i]`); `seenIds` collects joint ids for the uniqueness check. */
function readJoint(
  v: unknown,
  path: string,
  issues: IssueList,
  limits: ScenarioLimits,
  bodies: JointBodies,
  seenIds: Set<string>,
): JointDef {
  const joint = {} as JointDef;
  if (!isObject(v)) {
    issues.add(path, "expected object");
    return joint;
  }
  checkKeys(v, JOINT_KEYS, path, issues);
  const at = (key: string): string => keyPath(path, key);

  const rawId = own(v, "id");
  if (rawId === undefined) issues.add(at("id"), "is required");
  else {
    const id = readString(rawId, at("id"), issues, MAX_ID_LENGTH, true);
    if (id !== undefined) {
      if (seenIds.has(id)) issues.add(at("id"), `duplicate joint id ${quote(id)}`);
      else seenIds.add(id);
      joint.id = id;
    }
  }
  const rawType = own(v, "type");
  if (rawType === undefined) issues.add(at("type"), "is required");
  else joint.type = readEnum(rawType, JOINT_TYPES, at("type"), issues)!;
  const type = joint.type as JointType | undefined;

  const bodyA = readBodyRef(v, "bodyA", path, issues, bodies);
  const bodyB = readBodyRef(v, "bodyB", path, issues, bodies);
  if (bodyA !== undefined) joint.bodyA = bodyA as string;
  if (bodyB !== undefined) joint.bodyB = bodyB;
  if (typeof bodyA === "string" && bodyA === bodyB) {
    issues.add(at("bodyB"), `must differ from bodyA: a joint connects two different bodies (or a body and the world, null)`);
  } else if (typeof bodyA === "string" && bodyB !== undefined) {
    const typeA = bodies.types.get(bodyA);
    const typeB = bodyB === null ? "static" : bodies.types.get(bodyB);
    // A body whose type is invalid was reported already; the world counts as static.
    if (typeA !== undefined && typeB !== undefined && typeA !== "dynamic" && typeB !== "dynamic") {
      const other = bodyB === null ? "the world" : `${quote(bodyB)} (${typeB})`;
      issues.add(path, `connects ${quote(bodyA)} (${typeA}) and ${other}: at least one must be dynamic, a joint between bodies that cannot move does nothing`);
    }
  }

  const coordinateRule: NumberRule = { ge: -limits.maxCoordinate, le: limits.maxCoordinate };
  const rawAnchor = own(v, "anchor");
  if (rawAnchor === undefined) issues.add(at("anchor"), "is required (a world-space point [x, y, z])");
  else joint.anchor = readVector(rawAnchor, 3, at("anchor"), issues, coordinateRule) as Vec3Tuple;

  // Type-specific fields: each is reported as misplaced on a type without it (only once the type is known).
  const allowed = (key: string, types: readonly JointType[]): boolean => {
    if (type === undefined) return false;
    if (types.includes(type)) return true;
    issues.add(at(key), `only ${typesWith(types)} have ${key === "limits" ? key : a(key)}, not ${a(type)} joint`);
    return false;
  };
  const rawAnchorB = own(v, "anchorB");
  if (rawAnchorB !== undefined && allowed("anchorB", HAS_ANCHOR_B)) {
    joint.anchorB = readVector(rawAnchorB, 3, at("anchorB"), issues, coordinateRule) as Vec3Tuple;
  } else if (rawAnchorB === undefined && type === "distance" && bodyB === null) {
    issues.add(at("anchorB"), "is required for a distance joint to the world (bodyB null): the point the distance is kept to");
  }

  const rawAxis = own(v, "axis");
  if (rawAxis === undefined) {
    if (type !== undefined && HAS_AXIS.includes(type)) issues.add(at("axis"), `is required for ${a(type)} joint (a world-space direction [x, y, z])`);
  } else if (allowed("axis", HAS_AXIS)) {
    const axis = readVector(rawAxis, 3, at("axis"), issues, coordinateRule) as Vec3Tuple | undefined;
    if (axis !== undefined) {
      const length = distance([0, 0, 0], axis);
      if (!(length > JOINT_LIMITS.minAxisLength)) issues.add(at("axis"), `must not be a zero vector (length > ${JOINT_LIMITS.minAxisLength})`);
      else joint.axis = axis;
    }
  }

  const rawLimits = own(v, "limits");
  if (rawLimits !== undefined && allowed("limits", HAS_LIMITS)) {
    // Slider travel and distances are between points within ±maxCoordinate: 4x that bounds either.
    const reach = 4 * limits.maxCoordinate;
    const rule: NumberRule =
      type === "hinge"
        ? { ge: -Math.PI, le: Math.PI, unit: "rad (π)" }
        : type === "distance"
          ? { ge: 0, le: reach, unit: "m" }
          : { ge: -reach, le: reach, unit: "m" };
    const range = readRange(rawLimits, at("limits"), issues, rule);
    if (range !== undefined && type === "distance" && !(range[1] > 0)) {
      issues.add(indexPath(at("limits"), 1), "must be > 0: a distance joint of length 0 is a ball joint");
    } else if (range !== undefined) joint.limits = range;
  }
  checkCreationDistance(joint, rawLimits, path, issues, bodies);

  const rawMotor = own(v, "motor");
  if (rawMotor !== undefined && allowed("motor", HAS_MOTOR)) joint.motor = readMotor(rawMotor, at("motor"), issues, limits);
  const rawSpring = own(v, "spring");
  if (rawSpring !== undefined && allowed("spring", HAS_SPRING)) joint.spring = readSpring(rawSpring, at("spring"), issues);

  const rawCollide = own(v, "collideConnected");
  if (rawCollide !== undefined) joint.collideConnected = readBoolean(rawCollide, at("collideConnected"), issues);
  for (const key of ["breakForce", "breakTorque"] as const) {
    const raw = own(v, key);
    if (raw !== undefined) joint[key] = readNumber(raw, at(key), issues, POSITIVE);
  }
  return joint;
}

/**
 * A distance joint without limits keeps the distance its anchors have at creation; when they coincide
 * (B's anchor defaults to B's position) that is a zero-length rod, which has no direction to push along.
 */
function checkCreationDistance(joint: JointDef, rawLimits: unknown, path: string, issues: IssueList, bodies: JointBodies): void {
  if (joint.type !== "distance" || rawLimits !== undefined || joint.anchor === undefined) return;
  const anchorB = joint.anchorB ?? (typeof joint.bodyB === "string" ? bodies.positions.get(joint.bodyB) : undefined);
  if (anchorB === undefined) return;
  if (distance(joint.anchor, anchorB) <= JOINT_LIMITS.minAxisLength) {
    const where = joint.anchorB === undefined ? `bodyB's position (anchorB's default)` : "anchorB";
    issues.add(keyPath(path, "limits"), `is required when anchor and ${where} coincide: without limits the joint keeps the creation distance, 0 here`);
  }
}

/**
 * The scenario's `joints` (present, so not undefined) at path `joints`: an array of at most `maxJoints`
 * joints, each read against the validated bodies. Over the cap only the count is reported, so the work
 * stays bounded.
 */
export function readJoints(v: unknown, issues: IssueList, limits: ScenarioLimits, bodies: JointBodies): JointDef[] | undefined {
  if (!Array.isArray(v)) {
    issues.add("joints", "expected array");
    return undefined;
  }
  if (v.length > limits.maxJoints) {
    issues.add("joints", `at most ${limits.maxJoints} joints, got ${v.length}`);
    return undefined;
  }
  const seenIds = new Set<string>();
  const joints: JointDef[] = [];
  for (let i = 0; i < v.length; i++) joints.push(readJoint(v[i], indexPath("joints", i), issues, limits, bodies, seenIds));
  return joints;
}
