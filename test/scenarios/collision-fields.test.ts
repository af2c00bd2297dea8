import { describe, expect, it } from "vitest";
import { BodyTypeCode, ShapeTypeCode } from "../../shared/engine/index.ts";
import { KIND_BOX, KIND_SENSOR, KIND_STATIC, kindOf } from "../../shared/net/index.ts";
import { loadScenario } from "../../shared/scenarios/index.ts";
import { validateScenario } from "../../shared/scenarios/validate.ts";

/** The scenario format's collision groups and sensor flag: accepted as the engine takes them, rejected with a path. */
const ball = (extra: Record<string, unknown>) => ({
  name: "t",
  bodies: [{ id: "a", type: "dynamic", shape: { type: "sphere", radius: 1 }, position: [0, 0, 0], ...extra }],
});

describe("collisionGroups and sensor in scenarios", () => {
  it("accepts them and the loaded world has them", () => {
    const input = ball({ collisionGroups: { memberships: 0x8001, filter: 0xffff }, sensor: true });
    const result = validateScenario(input);
    expect(result).toEqual({ ok: true, scenario: input });
    if (!result.ok) return;
    const { world } = loadScenario(result.scenario);
    const h = world.handleOf("a");
    expect(world.getCollisionGroups(h)).toEqual({ memberships: 0x8001, filter: 0xffff });
    expect(world.isSensor(h)).toBe(true);
  });

  it.each([
    [{ collisionGroups: { memberships: 65536, filter: 1 } }, "bodies[0].collisionGroups.memberships", "must be <= 65535"],
    [{ collisionGroups: { memberships: 1.5, filter: 1 } }, "bodies[0].collisionGroups.memberships", "must be an integer"],
    [{ collisionGroups: { memberships: 1 } }, "bodies[0].collisionGroups.filter", "is required (a 16-bit mask, 0..65535)"],
    [{ collisionGroups: { memberships: 1, filter: -1 } }, "bodies[0].collisionGroups.filter", "must be >= 0"],
    [{ collisionGroups: { memberships: 1, filter: 1, layer: 2 } }, "bodies[0].collisionGroups", 'unknown key "layer"'],
    [{ collisionGroups: 7 }, "bodies[0].collisionGroups", "expected object {memberships, filter}"],
    [{ sensor: "yes" }, "bodies[0].sensor", "expected boolean"],
  ])("rejects %j at its path", (extra, path, message) => {
    const result = validateScenario(ball(extra));
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.issues).toContainEqual({ path, message });
  });
});

describe("sensors on the wire", () => {
  it("the body kind carries the sensor bit (clients draw sensors translucent and predict through them)", () => {
    const input = ball({ type: "static", sensor: true });
    input.bodies[0]!.shape = { type: "box", halfExtents: [1, 1, 1] } as never;
    const result = validateScenario(input);
    if (!result.ok) throw new Error("expected a valid scenario");
    const { world } = loadScenario(result.scenario);
    const v = world.view();
    const s = v.slotOf(world.handleOf("a"));
    expect(kindOf(v.type[s]!, v.shape[s]!, v.sensor[s]!)).toBe(KIND_STATIC | KIND_BOX | KIND_SENSOR);
    expect(kindOf(BodyTypeCode.STATIC, ShapeTypeCode.BOX)).toBe(KIND_STATIC | KIND_BOX);
  });
});
