import { describe, expect, it } from "vitest";
import type { BodyDef, JointDef } from "../../shared/engine/types.ts";
import { loadScenario, type ScenarioIssue, validateScenario } from "../../shared/scenarios/index.ts";
import { JOINT_LIMITS } from "../../shared/scenarios/validate-joints.ts";
import { PLAYER_ROOM_CAPS, scenarioCaps } from "../../server/rooms/room-caps.ts";
import { resolveScenario } from "../../server/scenario-input.ts";

/** Scenario `joints` validation: every problem reported at its JSON path, valid joints kept as written. */

const BODIES: BodyDef[] = [
  { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] },
  { id: "lift", type: "kinematic", shape: { type: "box", halfExtents: [1, 0.1, 1] }, position: [5, 1, 0] },
  { id: "a", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 2, 0] },
  { id: "b", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [2, 2, 0] },
];

function withJoints(joints: unknown, bodies: unknown = BODIES): unknown {
  return { name: "joints", bodies, joints };
}

/** Issues of a scenario with these joints (valid bodies). */
function issuesOf(joints: unknown, bodies?: unknown): ScenarioIssue[] {
  const r = validateScenario(withJoints(joints, bodies));
  return r.ok ? [] : r.issues;
}

/** One joint, `patch` applied over a valid hinge between a and b (an undefined value removes the key). */
function joint(patch: Record<string, unknown>): Record<string, unknown> {
  const base: Record<string, unknown> = { id: "j", type: "hinge", bodyA: "a", bodyB: "b", anchor: [1, 2, 0], axis: [0, 0, 1] };
  const out = { ...base, ...patch };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

const VALID: JointDef[] = [
  { id: "weld", type: "fixed", bodyA: "a", bodyB: "b", anchor: [1, 2, 0], breakForce: 500, breakTorque: 100 },
  { id: "pendulum", type: "ball", bodyA: "b", bodyB: null, anchor: [2, 4, 0], collideConnected: true },
  { id: "door", type: "hinge", bodyA: "a", bodyB: null, anchor: [0.5, 2, 0.5], axis: [0, 1, 0], limits: [-Math.PI / 2, 0], motor: { targetVelocity: -2, maxForce: 10 } },
  { id: "piston", type: "slider", bodyA: "a", bodyB: "lift", anchor: [0, 2, 0], axis: [0, 3, 0], limits: [-0.5, 1.5], motor: { targetVelocity: 0.5, maxForce: 0 } },
  { id: "rope", type: "distance", bodyA: "b", bodyB: null, anchor: [2, 2.5, 0], anchorB: [2, 6, 0], limits: [0, 3.5] },
  { id: "spring", type: "distance", bodyA: "a", bodyB: "b", anchor: [0, 2, 0], spring: { frequency: 2, dampingRatio: 0.3 } },
  { id: "a", type: "hinge", bodyA: "ground", bodyB: "b", anchor: [2, 1.5, 0], axis: [1, 0, 0] },
];

describe("valid joints", () => {
  it("every type with its optional fields passes and comes back as written", () => {
    const input = withJoints(VALID);
    const r = validateScenario(input);
    expect(r).toEqual({ ok: true, scenario: input });
    if (r.ok) expect(r.scenario.joints).not.toBe(VALID);
  });

  it("a scenario without joints has none, and an empty list is kept", () => {
    const none = validateScenario({ name: "x", bodies: BODIES });
    expect(none.ok && none.scenario.joints).toBe(undefined);
    const empty = validateScenario(withJoints([]));
    expect(empty.ok && empty.scenario.joints).toEqual([]);
  });

  it("validated joints load: the world holds them in order, by id", () => {
    const r = validateScenario(withJoints(VALID));
    if (!r.ok) throw new Error("invalid");
    const { world, jointHandles } = loadScenario(r.scenario);
    expect(jointHandles).toHaveLength(VALID.length);
    expect(jointHandles.map((h) => world.getJoint(h).id)).toEqual(VALID.map((j) => j.id));
    expect(world.jointHandleOf("rope")).toBe(jointHandles[4]);
  });
});

/** [what, joints, expected issues]: each a bad input and every issue it must give, path and message. */
const BAD: [string, unknown, ScenarioIssue[]][] = [
  ["joints not an array", { j: 1 }, [{ path: "joints", message: "expected array" }]],
  ["a joint not an object", [joint({}), 5], [{ path: "joints[1]", message: "expected object" }]],
  ["an unknown field", [joint({ stiffness: 3 })], [{ path: "joints[0]", message: 'unknown key "stiffness"' }]],
  ["no id", [joint({ id: undefined })], [{ path: "joints[0].id", message: "is required" }]],
  ["an empty id", [joint({ id: "" })], [{ path: "joints[0].id", message: "must not be empty" }]],
  ["a numeric id", [joint({ id: 7 })], [{ path: "joints[0].id", message: "expected string" }]],
  ["a duplicate id", [joint({}), joint({ anchor: [0, 2, 0] })], [{ path: "joints[1].id", message: 'duplicate joint id "j"' }]],
  ["no type", [joint({ type: undefined })], [{ path: "joints[0].type", message: "is required" }]],
  ["an unknown type", [joint({ type: "weld" })], [{ path: "joints[0].type", message: 'must be one of "fixed", "ball", "hinge", "slider", "distance"' }]],
  ["no bodyA", [joint({ bodyA: undefined })], [{ path: "joints[0].bodyA", message: "is required (a body id)" }]],
  ["no bodyB", [joint({ bodyB: undefined })], [{ path: "joints[0].bodyB", message: "is required (a body id, or null for the world)" }]],
  ["a missing bodyA", [joint({ bodyA: "x" })], [{ path: "joints[0].bodyA", message: 'no body "x"' }]],
  ["a missing bodyB", [joint({}), joint({ id: "k" }), joint({ id: "m", bodyB: "x" })], [{ path: "joints[2].bodyB", message: 'no body "x"' }]],
  ["a bodyB that is not a string", [joint({ bodyB: 3 })], [{ path: "joints[0].bodyB", message: "expected string" }]],
  ["both bodies null", [joint({ bodyA: null, bodyB: null })], [{ path: "joints[0].bodyA", message: "bodyA and bodyB are both null: a joint needs at least one body" }]],
  ["the world as bodyA", [joint({ bodyA: null })], [{ path: "joints[0].bodyA", message: "must be a body id (the world can only be bodyB: swap them)" }]],
  ["the same body twice", [joint({ bodyB: "a" })], [{ path: "joints[0].bodyB", message: "must differ from bodyA: a joint connects two different bodies (or a body and the world, null)" }]],
  [
    "a static and a kinematic body",
    [joint({ bodyA: "ground", bodyB: "lift" })],
    [{ path: "joints[0]", message: 'connects "ground" (static) and "lift" (kinematic): at least one must be dynamic, a joint between bodies that cannot move does nothing' }],
  ],
  [
    "a kinematic body and the world",
    [joint({ bodyA: "lift", bodyB: null })],
    [{ path: "joints[0]", message: 'connects "lift" (kinematic) and the world: at least one must be dynamic, a joint between bodies that cannot move does nothing' }],
  ],
  ["no anchor", [joint({ anchor: undefined })], [{ path: "joints[0].anchor", message: "is required (a world-space point [x, y, z])" }]],
  ["a non-finite anchor", [joint({ anchor: [0, "1", 0] })], [{ path: "joints[0].anchor[1]", message: "expected number" }]],
  ["an anchor beyond the coordinate limit", [joint({ anchor: [2e5, 0, 0] })], [{ path: "joints[0].anchor[0]", message: "must be <= 100000" }]],
  ["a short anchor", [joint({ anchor: [0, 1] })], [{ path: "joints[0].anchor", message: "must have exactly 3 elements, got 2" }]],
  ["anchorB on a hinge", [joint({ anchorB: [0, 0, 0] })], [{ path: "joints[0].anchorB", message: "only distance joints have an anchorB, not a hinge joint" }]],
  [
    "a distance joint to the world without anchorB",
    [joint({ type: "distance", axis: undefined, bodyB: null })],
    [{ path: "joints[0].anchorB", message: "is required for a distance joint to the world (bodyB null): the point the distance is kept to" }],
  ],
  ["anchorB beyond the coordinate limit", [joint({ type: "distance", axis: undefined, anchorB: [0, -1e6, 0] })], [{ path: "joints[0].anchorB[1]", message: "must be >= -100000" }]],
  ["a hinge without an axis", [joint({ axis: undefined })], [{ path: "joints[0].axis", message: "is required for a hinge joint (a world-space direction [x, y, z])" }]],
  ["a slider without an axis", [joint({ type: "slider", axis: undefined })], [{ path: "joints[0].axis", message: "is required for a slider joint (a world-space direction [x, y, z])" }]],
  ["an axis on a ball joint", [joint({ type: "ball" })], [{ path: "joints[0].axis", message: "only hinge and slider joints have an axis, not a ball joint" }]],
  ["an axis on a fixed joint", [joint({ type: "fixed" })], [{ path: "joints[0].axis", message: "only hinge and slider joints have an axis, not a fixed joint" }]],
  ["a zero axis", [joint({ axis: [0, 0, 0] })], [{ path: "joints[0].axis", message: "must not be a zero vector (length > 0.000001)" }]],
  ["a tiny axis", [joint({ axis: [1e-7, 0, 0] })], [{ path: "joints[0].axis", message: "must not be a zero vector (length > 0.000001)" }]],
  ["a non-numeric axis", [joint({ axis: [0, null, 1] })], [{ path: "joints[0].axis[1]", message: "expected number" }]],
  ["inverted limits", [joint({ limits: [1, -1] })], [{ path: "joints[0].limits", message: "lower limit 1 is above upper limit -1: must be [lo, hi] with lo <= hi" }]],
  ["limits of one number", [joint({ limits: [1] })], [{ path: "joints[0].limits", message: "must have exactly 2 elements [lo, hi], got 1" }]],
  ["limits not an array", [joint({ limits: 1 })], [{ path: "joints[0].limits", message: "expected array of 2 numbers [lo, hi]" }]],
  ["a non-finite limit", [joint({ limits: [0, "inf"] })], [{ path: "joints[0].limits[1]", message: "expected number" }]],
  ["a hinge limit beyond π", [joint({ limits: [-4, 0] })], [{ path: "joints[0].limits[0]", message: "must be >= -3.141592653589793" }]],
  ["a hinge limit beyond π (upper)", [joint({ limits: [0, 3.2] })], [{ path: "joints[0].limits[1]", message: "must be <= 3.141592653589793 rad (π)" }]],
  ["a negative distance limit", [joint({ type: "distance", axis: undefined, limits: [-1, 2] })], [{ path: "joints[0].limits[0]", message: "must be >= 0" }]],
  ["a zero-length distance joint", [joint({ type: "distance", axis: undefined, limits: [0, 0] })], [{ path: "joints[0].limits[1]", message: "must be > 0: a distance joint of length 0 is a ball joint" }]],
  [
    "a distance joint whose anchors coincide, without limits",
    [joint({ type: "distance", axis: undefined, anchor: [2, 2, 0] })],
    [{ path: "joints[0].limits", message: "is required when anchor and bodyB's position (anchorB's default) coincide: without limits the joint keeps the creation distance, 0 here" }],
  ],
  ["limits on a fixed joint", [joint({ type: "fixed", axis: undefined, limits: [0, 1] })], [{ path: "joints[0].limits", message: "only hinge, slider and distance joints have limits, not a fixed joint" }]],
  ["limits on a ball joint", [joint({ type: "ball", axis: undefined, limits: [0, 1] })], [{ path: "joints[0].limits", message: "only hinge, slider and distance joints have limits, not a ball joint" }]],
  ["a motor on a ball joint", [joint({ type: "ball", axis: undefined, motor: { targetVelocity: 1, maxForce: 1 } })], [{ path: "joints[0].motor", message: "only hinge and slider joints have a motor, not a ball joint" }]],
  ["a motor on a distance joint", [joint({ type: "distance", axis: undefined, motor: { targetVelocity: 1, maxForce: 1 } })], [{ path: "joints[0].motor", message: "only hinge and slider joints have a motor, not a distance joint" }]],
  ["a negative maxForce", [joint({ motor: { targetVelocity: 2, maxForce: -1 } })], [{ path: "joints[0].motor.maxForce", message: "must be >= 0" }]],
  ["a motor without maxForce", [joint({ motor: { targetVelocity: 2 } })], [{ path: "joints[0].motor.maxForce", message: "is required" }]],
  ["a motor with a string speed", [joint({ motor: { targetVelocity: "fast", maxForce: 1 } })], [{ path: "joints[0].motor.targetVelocity", message: "expected number" }]],
  ["a motor beyond the speed limit", [joint({ motor: { targetVelocity: 5000, maxForce: 1 } })], [{ path: "joints[0].motor.targetVelocity", message: "must be within ±1000" }]],
  ["a motor with an unknown field", [joint({ motor: { targetVelocity: 1, maxForce: 1, gear: 2 } })], [{ path: "joints[0].motor", message: 'unknown key "gear"' }]],
  ["a motor that is a number", [joint({ motor: 3 })], [{ path: "joints[0].motor", message: "expected object {targetVelocity, maxForce}" }]],
  ["a spring on a hinge", [joint({ spring: { frequency: 1, dampingRatio: 1 } })], [{ path: "joints[0].spring", message: "only distance joints have a spring, not a hinge joint" }]],
  ["a negative spring frequency", [joint({ type: "distance", axis: undefined, spring: { frequency: -1, dampingRatio: 0.5 } })], [{ path: "joints[0].spring.frequency", message: "must be > 0" }]],
  ["a zero spring frequency", [joint({ type: "distance", axis: undefined, spring: { frequency: 0, dampingRatio: 0.5 } })], [{ path: "joints[0].spring.frequency", message: "must be > 0" }]],
  ["a negative damping ratio", [joint({ type: "distance", axis: undefined, spring: { frequency: 1, dampingRatio: -0.1 } })], [{ path: "joints[0].spring.dampingRatio", message: "must be >= 0" }]],
  ["a huge spring frequency", [joint({ type: "distance", axis: undefined, spring: { frequency: 1e300, dampingRatio: 1 } })], [{ path: "joints[0].spring.frequency", message: "must be <= 1e6 Hz" }]],
  ["a spring without its damping ratio", [joint({ type: "distance", axis: undefined, spring: { frequency: 1 } })], [{ path: "joints[0].spring.dampingRatio", message: "is required" }]],
  ["collideConnected not a boolean", [joint({ collideConnected: "yes" })], [{ path: "joints[0].collideConnected", message: "expected boolean" }]],
  ["a zero breakForce", [joint({ breakForce: 0 })], [{ path: "joints[0].breakForce", message: "must be > 0" }]],
  ["a negative breakTorque", [joint({ breakTorque: -5 })], [{ path: "joints[0].breakTorque", message: "must be > 0" }]],
  ["a non-numeric breakForce", [joint({ breakForce: "1e3" })], [{ path: "joints[0].breakForce", message: "expected number" }]],
];

describe("bad joints", () => {
  for (const [what, joints, expected] of BAD) {
    it(`${what}: ${expected.map((i) => i.path).join(", ")}`, () => {
      expect(issuesOf(joints)).toEqual(expected);
    });
  }

  it("a non-finite number is refused wherever it appears (NaN and Infinity survive only outside JSON)", () => {
    for (const [key, value, path] of [
      ["anchor", [0, Number.NaN, 0], "joints[0].anchor[1]"],
      ["axis", [Number.POSITIVE_INFINITY, 0, 0], "joints[0].axis[0]"],
      ["limits", [0, Number.NaN], "joints[0].limits[1]"],
      ["breakForce", Number.POSITIVE_INFINITY, "joints[0].breakForce"],
      ["motor", { targetVelocity: Number.NaN, maxForce: 1 }, "joints[0].motor.targetVelocity"],
    ] as const) {
      expect(issuesOf([joint({ [key]: value })]), key).toEqual([{ path, message: "must be a finite number" }]);
    }
  });

  it("reports every problem of every joint at once", () => {
    const issues = issuesOf([joint({ bodyA: "x", axis: [0, 0, 0] }), joint({ id: "k", limits: [2, 1], motor: { targetVelocity: 1, maxForce: -1 } })]);
    expect(issues.map((i) => i.path)).toEqual(["joints[0].bodyA", "joints[0].axis", "joints[1].limits", "joints[1].motor.maxForce"]);
  });

  it("a body that failed validation is not reported again as missing", () => {
    const bodies = [...BODIES, { id: 5, type: "dynamic", shape: { type: "sphere", radius: 1 }, position: [9, 9, 0] }];
    const issues = issuesOf([joint({ bodyB: "c" })], bodies);
    expect(issues).toEqual([{ path: "bodies[4].id", message: "expected string" }]);
  });

  it("more joints than maxJoints are refused by count, none of them read", () => {
    expect(JOINT_LIMITS.maxJoints).toBe(20000);
    const many = Array.from({ length: 4 }, () => "garbage");
    const r = validateScenario(withJoints(many), { maxJoints: 3 });
    expect(r).toEqual({ ok: false, issues: [{ path: "joints", message: "at most 3 joints, got 4" }] });
  });

  it("a player room refuses more than 1024 joints before validating any, naming scenario.joints", () => {
    const caps = scenarioCaps(PLAYER_ROOM_CAPS);
    expect(caps.maxJoints).toBe(1024);
    const chain = (n: number) => Array.from({ length: n }, (_, i) => joint({ id: `j${i}` }));
    // Joint ids are unique, the rest is the same hinge many times: valid, however pointless.
    expect(resolveScenario(withJoints(chain(1024)), "scenario", caps).ok).toBe(true);
    const refused = resolveScenario(withJoints([...chain(1024), "not even a joint"]), "scenario", caps);
    expect(refused).toEqual({
      ok: false,
      message: "scenario.joints: the scenario has 1025 joints, at most 1024 allowed in this room",
      issues: [{ path: "scenario.joints", message: "the scenario has 1025 joints, at most 1024 allowed in this room" }],
    });
  });

  it("resolveScenario prefixes joint paths like body paths", () => {
    const r = resolveScenario(withJoints([joint({}), joint({ id: "k", bodyB: "x" })]));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.message).toBe('scenario.joints[1].bodyB: no body "x"');
  });
});
