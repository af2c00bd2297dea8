import { BODY_DEFAULTS, DEFAULT_SETTINGS, ENGINE_CONSTANTS, MATERIAL_LIMITS } from "../engine/config.ts";
import type {
  BodyDef,
  CollisionGroups,
  PositionCorrectionSettings,
  Vec3Tuple,
  WorldBounds,
  WorldSettingsPatch,
} from "../engine/types.ts";
import type { Scenario, ScenarioCamera, ScenarioIssue } from "./format.ts";
import {
  checkKeys,
  fmt,
  indexPath,
  IssueList,
  isObject,
  keyPath,
  MAX_REPORTED_ISSUES,
  type NumberRule,
  own,
  quote,
  readBoolean,
  readEnum,
  readNumber,
  readString,
  readVector,
  ROOT_PATH,
} from "./json-read.ts";
import { JOINT_LIMITS, jointBodiesOf, readJoints } from "./validate-joints.ts";
import { checkShapeBodyType, normaliseQuat, readShape, shapeVolumeOf } from "./validate-shapes.ts";

export { MAX_REPORTED_ISSUES, ROOT_PATH };

/**
 * Validation of untrusted scenario input (CLI files, the admin API, room join options). Hand-written so
 * every problem is reported with its JSON path in one pass; the result is a clean deep copy holding only
 * known keys, with rotations normalised. Defaults are NOT filled in: the engine does that
 * (shared/engine/config.ts), so a validated scenario serialises back to what the user wrote.
 */

/** Size limits that keep one scenario from exhausting a server. */
export interface ScenarioLimits {
  /** Most bodies a scenario may hold. Default 20000. */
  maxBodies: number;
  /** Most joints a scenario may hold. Default 20000 (a chain through every body of the largest scenario). */
  maxJoints: number;
  /**
   * Largest size of a shape, metres: a radius, box half extent or half height, and the largest |component|
   * of a hull point or a compound child's position. Default 1000.
   */
  maxExtent: number;
  /** Smallest radius, box half extent or half height, metres (keeps inertia finite). Default 0.001. */
  minExtent: number;
  /** Largest |component| of a body position, a mesh vertex or a height, and largest height field size, metres. Default 1e5. */
  maxCoordinate: number;
  /** Largest |component| of a linear (m/s) or angular (rad/s) velocity. Default 1000. */
  maxSpeed: number;
  /** Largest JSON text `parseScenarioJson` accepts, in UTF-16 code units (the string's length). Default 4 MiB. */
  maxJsonBytes: number;
}

export const DEFAULT_SCENARIO_LIMITS: Readonly<ScenarioLimits> = Object.freeze({
  maxBodies: 20000,
  maxJoints: JOINT_LIMITS.maxJoints,
  maxExtent: 1000,
  minExtent: 0.001,
  maxCoordinate: 1e5,
  maxSpeed: 1000,
  maxJsonBytes: 4 * 1024 * 1024,
});

/**
 * Physical ranges of the scenario format: unlike ScenarioLimits (how much one scenario may cost a
 * server), values outside these freeze, overflow or NaN the world, or let it gain energy on its own.
 * Documented in the README's scenario section; the admin API's settings route derives its caps from
 * here. test/scenarios/validate.test.ts shows what broke outside several of them.
 */
export const PHYSICAL_LIMITS = Object.freeze({
  /**
   * Steps per second, an integer: the room state carries it as a uint16 that clients build their
   * interpolation clock on, so every allowed rate must arrive exactly.
   */
  minTickRate: 1,
  maxTickRate: 1000,
  /** Largest |component| of gravity, m/s² (about 100 g; 1e300 overflowed the step and froze every body). */
  maxGravity: 1000,
  /**
   * Mass range, kg. The floor keeps the inverse mass finite; the ceiling keeps Σ½mv² + ½Iω² over the
   * largest scenario far from overflow: 20000 bodies × 1e15 kg at the engine's speed caps (400 m/s,
   * 200 rad/s, half extents ≤ 1000 m) is below 3e29 J.
   */
  minMass: 1e-6,
  maxMass: 1e15,
  /** Density range, kg/m³ (osmium is 22590); the largest shape at the top density stays under maxMass. */
  minDensity: 1e-6,
  maxDensity: 1e5,
  /** Heaviest over lightest dynamic body of one scenario (a common solver stability guideline). */
  maxMassRatio: 1e6,
  /** Friction coefficient ceiling; the engine's material setters accept the same range. */
  maxFriction: MATERIAL_LIMITS.maxFriction,
  /** Linear and angular damping ceiling, 1/s (see MATERIAL_LIMITS). */
  maxDamping: MATERIAL_LIMITS.maxDamping,
  /**
   * restitutionThreshold must be at least |gravity| × restitutionFallTime and at least
   * minRestitutionThreshold, m/s: slower contacts do not bounce. Below that, the solver's resting
   * velocity noise is "bounced" every tick and restitution 1 pumps energy into a resting stack
   * (stack10 at threshold 0 reached 2.2x its energy). Measured with restitution 1 and 4 or 8 velocity
   * iterations (soft and projection): no gain at the minimum for stack10 at 1..1000 Hz with |g| 0.5..1000
   * and for pyramid20 at 30..240 Hz; at 60 Hz and 9.81 m/s² stack10 still gained 66 % at 0.05 m/s.
   * With 1 or 2 velocity iterations a stack can still gain energy at the minimum.
   */
  minRestitutionThreshold: 0.2,
  restitutionFallTime: 0.1,
  /** positionCorrection.slop ceiling, metres (more lets bodies sink through each other). */
  maxSlop: 0.1,
  /** positionCorrection.contactHertz floor (softer contacts let bodies sink through the ground). */
  minContactHertz: 10,
  /** positionCorrection.dampingRatio ceiling (1e308 turned every body non-finite). */
  maxDampingRatio: 100,
  /** positionCorrection.maxPushVelocity ceiling, m/s: the engine's speed cap. */
  maxPushVelocity: ENGINE_CONSTANTS.maxLinearSpeed,
  /** sleepLinearThreshold (m/s) and sleepAngularThreshold (rad/s) ceiling (1e308 froze a dropped ball in mid-air). */
  maxSleepThreshold: 1,
  /** velocityIterations, relaxIterations and positionCorrection.iterations ceiling. */
  maxIterations: 64,
});

/**
 * Lowest restitutionThreshold allowed under `gravity`, m/s: max(minRestitutionThreshold,
 * |gravity| × restitutionFallTime), the product rounded to µm/s so Earth's 9.81 gives 0.981 (not
 * 0.9810000000000001, which no one would type). A gravity patch applied to a running room must keep
 * the room's threshold at or above this too.
 */
export function minRestitutionThreshold(gravity: readonly number[]): number {
  const g = Math.sqrt(gravity[0] * gravity[0] + gravity[1] * gravity[1] + gravity[2] * gravity[2]);
  const scaled = Math.round(g * PHYSICAL_LIMITS.restitutionFallTime * 1e6) / 1e6;
  return Math.max(PHYSICAL_LIMITS.minRestitutionThreshold, scaled);
}

export type ScenarioValidation = { ok: true; scenario: Scenario } | { ok: false; issues: ScenarioIssue[] };

const NAME_PATTERN = /^[A-Za-z0-9_.-]+$/;
const MAX_NAME_LENGTH = 64;
const MAX_ID_LENGTH = 64;
const MAX_DESCRIPTION_LENGTH = 1000;

const SCENARIO_KEYS = ["name", "description", "world", "bodies", "joints", "camera", "spawn"] as const;
const CAMERA_KEYS = ["position", "target"] as const;
const BODY_KEYS = [
  "id",
  "type",
  "shape",
  "position",
  "rotation",
  "linearVelocity",
  "angularVelocity",
  "mass",
  "density",
  "friction",
  "restitution",
  "linearDamping",
  "angularDamping",
  "collisionGroups",
  "sensor",
] as const;
const COLLISION_GROUP_KEYS = ["memberships", "filter"] as const;
const GROUP_MASK_RULE: NumberRule = { integer: true, ge: 0, le: 0xffff };
const BODY_TYPES = ["static", "kinematic", "dynamic"] as const;
const WORLD_KEYS = [
  "gravity",
  "tickRate",
  "velocityIterations",
  "relaxIterations",
  "positionCorrection",
  "restitutionThreshold",
  "warmStarting",
  "sleep",
  "sleepTime",
  "sleepLinearThreshold",
  "sleepAngularThreshold",
  "ccd",
  "bounds",
] as const;
const POSITION_CORRECTION_KEYS = [
  "method",
  "slop",
  "percent",
  "iterations",
  "contactHertz",
  "dampingRatio",
  "maxPushVelocity",
] as const;
const POSITION_CORRECTION_METHODS = ["soft", "projection"] as const;
const BOUNDS_KEYS = ["min", "max"] as const;

const L = PHYSICAL_LIMITS;
/**
 * Mass and density floors: a subnormal mass has an infinite inverse mass, and its first contact turns it
 * (and what it touches) into NaN. A milligram is far below anything a scene means.
 */
const MASS_RULE: NumberRule = { gt: 0, ge: L.minMass, le: L.maxMass, unit: "kg" };
const DENSITY_RULE: NumberRule = { gt: 0, ge: L.minDensity, le: L.maxDensity, unit: "kg/m³" };
const NON_NEGATIVE: NumberRule = { ge: 0 };
const UNIT_INTERVAL: NumberRule = { ge: 0, le: 1 };
const RESTITUTION_RULE: NumberRule = { ge: 0, le: MATERIAL_LIMITS.maxRestitution };
const SOLVER_ITERATIONS: NumberRule = { integer: true, ge: 1, le: L.maxIterations };
const DAMPING_RULE: NumberRule = { ge: 0, le: L.maxDamping, unit: "1/s" };
const SLEEP_THRESHOLD_RULE: NumberRule = { ge: 0, le: L.maxSleepThreshold };

type BodyScalar = "mass" | "density" | "friction" | "restitution" | "linearDamping" | "angularDamping";
const BODY_SCALARS: readonly [BodyScalar, NumberRule][] = [
  ["mass", MASS_RULE],
  ["density", DENSITY_RULE],
  ["friction", { ge: 0, le: L.maxFriction }],
  ["restitution", RESTITUTION_RULE],
  ["linearDamping", DAMPING_RULE],
  ["angularDamping", DAMPING_RULE],
];

function readBody(
  v: unknown,
  path: string,
  issues: IssueList,
  limits: ScenarioLimits,
  seenIds: Set<string>,
): BodyDef {
  const body = {} as BodyDef;
  if (!isObject(v)) {
    issues.add(path, "expected object");
    return body;
  }
  checkKeys(v, BODY_KEYS, path, issues);
  const required = (key: string): unknown => {
    const value = own(v, key);
    if (value === undefined) issues.add(keyPath(path, key), "is required");
    return value;
  };

  const rawId = required("id");
  if (rawId !== undefined) {
    const idPath = keyPath(path, "id");
    const id = readString(rawId, idPath, issues, MAX_ID_LENGTH, true);
    if (id !== undefined) {
      if (seenIds.has(id)) issues.add(idPath, `duplicate id ${quote(id)}`);
      else seenIds.add(id);
      body.id = id;
    }
  }
  const rawType = required("type");
  if (rawType !== undefined) body.type = readEnum(rawType, BODY_TYPES, keyPath(path, "type"), issues)!;
  const rawShape = required("shape");
  if (rawShape !== undefined) body.shape = readShape(rawShape, keyPath(path, "shape"), issues, limits)!;
  checkShapeBodyType(rawShape, body.type, keyPath(path, "type"), issues);
  const rawPosition = required("position");
  const coordinateRule: NumberRule = { ge: -limits.maxCoordinate, le: limits.maxCoordinate };
  if (rawPosition !== undefined) {
    body.position = readVector(rawPosition, 3, keyPath(path, "position"), issues, coordinateRule) as Vec3Tuple;
  }

  const rawRotation = own(v, "rotation");
  if (rawRotation !== undefined) {
    const rotationPath = keyPath(path, "rotation");
    const q = readVector(rawRotation, 4, rotationPath, issues);
    if (q !== undefined) body.rotation = normaliseQuat(q, rotationPath, issues);
  }
  const speedRule: NumberRule = { ge: -limits.maxSpeed, le: limits.maxSpeed };
  for (const key of ["linearVelocity", "angularVelocity"] as const) {
    const raw = own(v, key);
    if (raw !== undefined) body[key] = readVector(raw, 3, keyPath(path, key), issues, speedRule) as Vec3Tuple;
  }
  for (const [key, rule] of BODY_SCALARS) {
    const raw = own(v, key);
    if (raw !== undefined) body[key] = readNumber(raw, keyPath(path, key), issues, rule);
  }
  const rawGroups = own(v, "collisionGroups");
  if (rawGroups !== undefined) body.collisionGroups = readCollisionGroups(rawGroups, keyPath(path, "collisionGroups"), issues);
  const rawSensor = own(v, "sensor");
  if (rawSensor !== undefined) body.sensor = readBoolean(rawSensor, keyPath(path, "sensor"), issues);
  return body;
}

/** `{memberships, filter}`: 16-bit masks, both required (Rapier's collision groups). */
function readCollisionGroups(v: unknown, path: string, issues: IssueList): CollisionGroups | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object {memberships, filter}");
    return undefined;
  }
  checkKeys(v, COLLISION_GROUP_KEYS, path, issues);
  const out = {} as CollisionGroups;
  for (const key of COLLISION_GROUP_KEYS) {
    const raw = own(v, key);
    if (raw === undefined) issues.add(keyPath(path, key), "is required (a 16-bit mask, 0..65535)");
    else out[key] = readNumber(raw, keyPath(path, key), issues, GROUP_MASK_RULE) as number;
  }
  return out.memberships !== undefined && out.filter !== undefined ? out : undefined;
}

function readPositionCorrection(
  v: unknown,
  path: string,
  issues: IssueList,
): Partial<PositionCorrectionSettings> | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object");
    return undefined;
  }
  checkKeys(v, POSITION_CORRECTION_KEYS, path, issues);
  const out: Partial<PositionCorrectionSettings> = {};
  const method = own(v, "method");
  if (method !== undefined) out.method = readEnum(method, POSITION_CORRECTION_METHODS, keyPath(path, "method"), issues);
  const numbers: [key: Exclude<keyof PositionCorrectionSettings, "method">, NumberRule][] = [
    ["slop", { ge: 0, le: L.maxSlop, unit: "m" }],
    ["percent", UNIT_INTERVAL],
    ["iterations", SOLVER_ITERATIONS],
    ["contactHertz", { ge: L.minContactHertz }],
    ["dampingRatio", { ge: 0, le: L.maxDampingRatio }],
    ["maxPushVelocity", { gt: 0, le: L.maxPushVelocity, unit: "m/s" }],
  ];
  for (const [key, rule] of numbers) {
    const raw = own(v, key);
    if (raw !== undefined) out[key] = readNumber(raw, keyPath(path, key), issues, rule);
  }
  return out;
}

function readBounds(v: unknown, path: string, issues: IssueList): WorldBounds | null | undefined {
  if (v === null) return null;
  if (!isObject(v)) {
    issues.add(path, "expected object or null");
    return undefined;
  }
  checkKeys(v, BOUNDS_KEYS, path, issues);
  const corner = (key: "min" | "max"): number[] | undefined => {
    const raw = own(v, key);
    if (raw !== undefined) return readVector(raw, 3, keyPath(path, key), issues);
    issues.add(keyPath(path, key), "is required");
    return undefined;
  };
  const min = corner("min");
  const max = corner("max");
  if (min === undefined || max === undefined) return undefined;
  for (let i = 0; i < 3; i++) {
    if (!(min[i] < max[i])) issues.add(indexPath(keyPath(path, "max"), i), `must be > min[${i}]`);
  }
  return { min: min as Vec3Tuple, max: max as Vec3Tuple };
}

function readWorld(v: unknown, path: string, issues: IssueList): WorldSettingsPatch | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object");
    return undefined;
  }
  checkKeys(v, WORLD_KEYS, path, issues);
  // Built in WorldSettings order so a validated world serialises in a stable order.
  const out: WorldSettingsPatch = {};
  const at = (key: string): string => keyPath(path, key);
  const gravity = own(v, "gravity");
  const gravityRule: NumberRule = { ge: -L.maxGravity, le: L.maxGravity, unit: "m/s²", symmetric: true };
  if (gravity !== undefined) out.gravity = readVector(gravity, 3, at("gravity"), issues, gravityRule) as Vec3Tuple;
  const numbers: [key: "tickRate" | "velocityIterations" | "relaxIterations", NumberRule][] = [
    ["tickRate", { integer: true, ge: L.minTickRate, le: L.maxTickRate }],
    ["velocityIterations", SOLVER_ITERATIONS],
    ["relaxIterations", { integer: true, ge: 0, le: L.maxIterations }],
  ];
  for (const [key, rule] of numbers) {
    const raw = own(v, key);
    if (raw !== undefined) out[key] = readNumber(raw, at(key), issues, rule);
  }
  const pc = own(v, "positionCorrection");
  if (pc !== undefined) out.positionCorrection = readPositionCorrection(pc, at("positionCorrection"), issues);
  const threshold = own(v, "restitutionThreshold");
  if (threshold !== undefined) out.restitutionThreshold = readNumber(threshold, at("restitutionThreshold"), issues, NON_NEGATIVE);
  checkRestitutionThreshold(gravity, out.gravity, threshold, out.restitutionThreshold, at("restitutionThreshold"), issues);
  for (const key of ["warmStarting", "sleep"] as const) {
    const raw = own(v, key);
    if (raw !== undefined) out[key] = readBoolean(raw, at(key), issues);
  }
  const sleepTime = own(v, "sleepTime");
  if (sleepTime !== undefined) out.sleepTime = readNumber(sleepTime, at("sleepTime"), issues, NON_NEGATIVE);
  for (const key of ["sleepLinearThreshold", "sleepAngularThreshold"] as const) {
    const raw = own(v, key);
    if (raw !== undefined) out[key] = readNumber(raw, at(key), issues, SLEEP_THRESHOLD_RULE);
  }
  const ccd = own(v, "ccd");
  if (ccd !== undefined) out.ccd = readBoolean(ccd, at("ccd"), issues);
  // `bounds: null` is meaningful (no bounds), so only a missing key or `undefined` counts as absent.
  const bounds = own(v, "bounds");
  if (bounds !== undefined) out.bounds = readBounds(bounds, at("bounds"), issues) as WorldBounds | null;
  return out;
}

/**
 * The effective restitutionThreshold (the engine default when absent) against the effective gravity:
 * see PHYSICAL_LIMITS.minRestitutionThreshold. Skipped when either was given but is invalid.
 */
function checkRestitutionThreshold(
  rawGravity: unknown,
  gravity: Vec3Tuple | undefined,
  rawThreshold: unknown,
  threshold: number | undefined,
  path: string,
  issues: IssueList,
): void {
  if ((rawGravity !== undefined && gravity === undefined) || (rawThreshold !== undefined && threshold === undefined)) return;
  const min = minRestitutionThreshold(gravity ?? DEFAULT_SETTINGS.gravity);
  const value = threshold ?? DEFAULT_SETTINGS.restitutionThreshold;
  if (value >= min) return;
  const rule = `|gravity| × ${L.restitutionFallTime} s, and at least ${L.minRestitutionThreshold} m/s`;
  const why = "slower contacts would bounce on the solver's resting noise and restitution would pump energy into stacks";
  if (threshold === undefined) {
    issues.add(path, `the default ${value} m/s is too low for this gravity: set it to at least ${min} m/s (${rule}); ${why}`);
  } else {
    issues.add(path, `must be >= ${min} m/s with this gravity (${rule}); ${why}`);
  }
}

/** A point within ±maxCoordinate on every axis (camera position and target, the avatar spawn point). */
function readPoint(v: unknown, path: string, issues: IssueList, limits: ScenarioLimits): Vec3Tuple | undefined {
  const rule: NumberRule = { ge: -limits.maxCoordinate, le: limits.maxCoordinate };
  return readVector(v, 3, path, issues, rule) as Vec3Tuple | undefined;
}

/** The camera hint: both points required and apart (a camera looking at its own position has no direction). */
function readCamera(v: unknown, path: string, issues: IssueList, limits: ScenarioLimits): ScenarioCamera | undefined {
  if (!isObject(v)) {
    issues.add(path, "expected object");
    return undefined;
  }
  checkKeys(v, CAMERA_KEYS, path, issues);
  const point = (key: "position" | "target"): Vec3Tuple | undefined => {
    const raw = own(v, key);
    if (raw !== undefined) return readPoint(raw, keyPath(path, key), issues, limits);
    issues.add(keyPath(path, key), "is required");
    return undefined;
  };
  const position = point("position");
  const target = point("target");
  if (position === undefined || target === undefined) return undefined;
  if (position[0] === target[0] && position[1] === target[1] && position[2] === target[2]) {
    issues.add(keyPath(path, "target"), "must differ from camera.position");
    return undefined;
  }
  return { position, target };
}

/** Mass of a validated dynamic body, kg: its mass, or its density (default 1) times its shape's volume. */
function bodyMass(body: BodyDef): number {
  if (body.mass !== undefined) return body.mass;
  return (body.density ?? BODY_DEFAULTS.density) * shapeVolumeOf(body.shape);
}

/** Where a body's mass comes from, for messages: `.mass`, `.density`, or the body (default density). */
function massPath(body: BodyDef, index: number): string {
  const path = indexPath("bodies", index);
  return body.mass !== undefined ? keyPath(path, "mass") : body.density !== undefined ? keyPath(path, "density") : path;
}

/**
 * Cross-body mass checks on otherwise valid bodies: a mass from density × volume must stay within
 * maxMass, and the heaviest dynamic body at most maxMassRatio times the lightest (one issue, at the
 * heaviest, naming the lightest).
 */
function checkMasses(bodies: readonly BodyDef[], issues: IssueList): void {
  let lightest = -1;
  let heaviest = -1;
  const masses: number[] = [];
  for (let i = 0; i < bodies.length; i++) {
    const body = bodies[i];
    if (body.type !== "dynamic") continue;
    const m = bodyMass(body);
    masses[i] = m;
    if (m > L.maxMass) {
      issues.add(massPath(body, i), `gives ${quote(body.id)} a mass of ${fmt(m)} kg, more than ${fmt(L.maxMass)} kg`);
      continue;
    }
    // A shape without volume (none passes readShape; this guards the inverse mass) has no mass to move.
    if (!(m > 0)) {
      issues.add(massPath(body, i), `gives ${quote(body.id)} a mass of ${fmt(m)} kg: a dynamic body needs a positive, finite mass`);
      continue;
    }
    if (lightest < 0 || m < masses[lightest]) lightest = i;
    if (heaviest < 0 || m > masses[heaviest]) heaviest = i;
  }
  if (lightest < 0 || masses[heaviest] <= masses[lightest] * L.maxMassRatio) return;
  const light = bodies[lightest];
  const mass = (m: number) => `${fmt(Number(m.toPrecision(4)))} kg`;
  issues.add(
    massPath(bodies[heaviest], heaviest),
    `${quote(bodies[heaviest].id)} (${mass(masses[heaviest])}) is more than ${fmt(L.maxMassRatio)} times as heavy as the lightest dynamic body, ${quote(light.id)} (bodies[${lightest}], ${mass(masses[lightest])}): contacts between masses that far apart do not converge`,
  );
}

function resolveLimits(limits: Partial<ScenarioLimits> | undefined): ScenarioLimits {
  return { ...DEFAULT_SCENARIO_LIMITS, ...limits };
}

/**
 * Checks untrusted input against the scenario format. On success returns a deep copy with only known keys
 * and normalised rotations (defaults are not filled in); otherwise every problem found, each with its JSON
 * path, at most MAX_REPORTED_ISSUES plus one saying how many more were omitted. Never mutates `input`.
 * With more than `maxBodies` bodies only the first `maxBodies` are checked, and with more than `maxJoints`
 * joints none is, so the work stays bounded. Joints are checked against the bodies as validated.
 */
export function validateScenario(input: unknown, limits?: Partial<ScenarioLimits>): ScenarioValidation {
  const lim = resolveLimits(limits);
  const issues = new IssueList();
  if (!isObject(input)) {
    issues.add("", "expected object");
    return { ok: false, issues: issues.result() };
  }
  checkKeys(input, SCENARIO_KEYS, "", issues);
  const scenario = {} as Scenario;

  const name = own(input, "name");
  if (name === undefined) issues.add("name", "is required");
  else {
    const s = readString(name, "name", issues, MAX_NAME_LENGTH, true);
    if (s !== undefined && !NAME_PATTERN.test(s)) issues.add("name", "must match [A-Za-z0-9_.-]+");
    scenario.name = s as string;
  }
  const description = own(input, "description");
  if (description !== undefined) {
    scenario.description = readString(description, "description", issues, MAX_DESCRIPTION_LENGTH, false);
  }
  const world = own(input, "world");
  if (world !== undefined) scenario.world = readWorld(world, "world", issues);

  const bodies = own(input, "bodies");
  scenario.bodies = [];
  let allBodiesRead = false;
  if (bodies === undefined) issues.add("bodies", "is required");
  else if (!Array.isArray(bodies)) issues.add("bodies", "expected array");
  else {
    allBodiesRead = bodies.length <= lim.maxBodies;
    if (bodies.length > lim.maxBodies) issues.add("bodies", `at most ${lim.maxBodies} bodies`);
    const count = Math.min(bodies.length, lim.maxBodies);
    const seenIds = new Set<string>();
    for (let i = 0; i < count; i++) {
      scenario.bodies.push(readBody(bodies[i], indexPath("bodies", i), issues, lim, seenIds));
    }
    if (issues.total === 0) checkMasses(scenario.bodies, issues);
  }
  const joints = own(input, "joints");
  if (joints !== undefined) {
    scenario.joints = readJoints(joints, issues, lim, jointBodiesOf(scenario.bodies, allBodiesRead));
  }
  const camera = own(input, "camera");
  if (camera !== undefined) scenario.camera = readCamera(camera, "camera", issues, lim);
  const spawn = own(input, "spawn");
  if (spawn !== undefined) scenario.spawn = readPoint(spawn, "spawn", issues, lim);

  if (issues.total > 0) return { ok: false, issues: issues.result() };
  return { ok: true, scenario };
}

/** One `path: message` line per issue. */
export function formatIssues(issues: readonly ScenarioIssue[]): string {
  return issues.map((issue) => `${issue.path}: ${issue.message}`).join("\n");
}

/** Longest JSON.parse error message kept in an issue. */
const MAX_PARSE_MESSAGE_LENGTH = 200;

/**
 * Parses and validates scenario JSON. Text longer than `maxJsonBytes` is rejected before parsing; a syntax
 * error becomes a single `(root)` issue.
 */
export function parseScenarioJson(text: string, limits?: Partial<ScenarioLimits>): ScenarioValidation {
  const lim = resolveLimits(limits);
  if (typeof text !== "string") return { ok: false, issues: [{ path: ROOT_PATH, message: "expected JSON text" }] };
  if (text.length > lim.maxJsonBytes) {
    return {
      ok: false,
      issues: [{ path: ROOT_PATH, message: `JSON text is ${text.length} characters, at most ${lim.maxJsonBytes} allowed` }],
    };
  }
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (err) {
    const detail = err instanceof Error ? err.message : String(err);
    return {
      ok: false,
      issues: [{ path: ROOT_PATH, message: `invalid JSON: ${detail.slice(0, MAX_PARSE_MESSAGE_LENGTH)}` }],
    };
  }
  return validateScenario(input, lim);
}
