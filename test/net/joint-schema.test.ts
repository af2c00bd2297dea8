import { Callbacks, type DataChange, Decoder, Encoder, MapSchema } from "@colyseus/schema";
import { describe, expect, it } from "vitest";
import { StateSync } from "../../server/state-sync.ts";
import { type JointDef, type JointInfo, type JointType, JointTypeCode } from "../../shared/engine/index.ts";
import { JointState, jointAxisOf, jointStateOf, jointTypeCodeOf, jointTypeOfCode, RoomState } from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";

/**
 * The joints on the wire: each joint travels once (type, bodies, local anchors, a hinge's or slider's
 * axis), as the engine holds it; a joint that breaks or goes with its body is deleted; a reload starts
 * the map over; a room without joints sends exactly what it did before joints existed.
 */

const TYPES: JointType[] = ["fixed", "ball", "hinge", "slider", "distance"];

describe("joint type codes", () => {
  it("are the engine's JointTypeCode, both ways", () => {
    for (const type of TYPES) {
      const code = jointTypeCodeOf(type);
      expect(code, type).toBe(JointTypeCode[type.toUpperCase() as keyof typeof JointTypeCode]);
      expect(jointTypeOfCode(code)).toBe(type);
    }
    expect(new Set(TYPES.map(jointTypeCodeOf)).size).toBe(TYPES.length);
    expect(jointTypeOfCode(250)).toBeNull();
  });
});

/** One encoder, one client's decoder, and every change the client decoded per patch. */
function wire(state: RoomState) {
  const encoder = new Encoder(state);
  const decoder = new Decoder(new RoomState());
  let changes: DataChange[] = [];
  Callbacks.getRawChanges(decoder, (c) => {
    changes = c;
  });
  return {
    decoder,
    /** Encodes what changed since the last call and decodes it; returns the decoded changes. */
    patch(): DataChange[] {
      changes = [];
      decoder.decode(encoder.encode());
      encoder.discardChanges();
      return changes;
    },
    /** A client joining now: the full state. */
    fresh(): RoomState {
      const d = new Decoder(new RoomState());
      d.decode(encoder.encodeAll());
      return d.state;
    },
  };
}

describe("JointState on the wire", () => {
  const hinge: JointInfo = {
    handle: 3,
    id: "door-hinge",
    type: "hinge",
    bodyA: "door",
    bodyB: null,
    localAnchorA: [0.1, -0.75, 1e-3],
    localAnchorB: [120.3, 1.1, -1],
    localAxisA: [0, 0.6, 0.8],
  };
  const ball: JointInfo = {
    handle: 4,
    id: "shoulder",
    type: "ball",
    bodyA: "torso",
    bodyB: "arm",
    localAnchorA: [0.3, 0.5, 0],
    localAnchorB: [0, 0.35, 0],
    localAxisA: [1, 0, 0],
  };
  const f = (v: readonly number[]) => v.map(Math.fround);

  it("carries the type code, bodies, anchors and a hinge's axis; a ball joint sends no axis", () => {
    const state = new RoomState();
    const w = wire(state);
    w.patch();
    state.joints = new MapSchema<JointState>();
    state.joints.set(hinge.id, jointStateOf(hinge));
    state.joints.set(ball.id, jointStateOf(ball));
    w.patch();
    for (const got of [w.decoder.state, w.fresh()]) {
      const h = got.joints!.get("door-hinge")!;
      expect(h.type).toBe(JointTypeCode.HINGE);
      expect([h.bodyA, h.bodyB]).toEqual(["door", ""]);
      expect([h.ax, h.ay, h.az]).toEqual(f(hinge.localAnchorA));
      expect([h.bx, h.by, h.bz]).toEqual(f(hinge.localAnchorB));
      const axis = [0, 0, 0];
      jointAxisOf(h, axis);
      expect(axis).toEqual(f(hinge.localAxisA));
      const b = got.joints!.get("shoulder")!;
      expect(b.type).toBe(JointTypeCode.BALL);
      expect([b.bodyA, b.bodyB]).toEqual(["torso", "arm"]);
      expect([b.ax, b.ay, b.az, b.bx, b.by, b.bz]).toEqual(f([...ball.localAnchorA, ...ball.localAnchorB]));
      // Never sent: read as the engine reports a joint without an axis.
      expect([b.ux, b.uy, b.uz]).toEqual([undefined, undefined, undefined]);
      jointAxisOf(b, axis);
      expect(axis).toEqual([1, 0, 0]);
    }
  });

  it("only a hinge or slider pays for an axis: three float32 fields, 15 bytes", () => {
    const size = (info: JointInfo) => {
      const state = new RoomState();
      const encoder = new Encoder(state);
      encoder.encode();
      encoder.discardChanges();
      state.joints = new MapSchema<JointState>();
      state.joints.set("j", jointStateOf(info));
      return encoder.encode().length;
    };
    // Each field: a 1-byte field index and 4 bytes of value.
    const hingeLike = { ...ball, type: "hinge" as const, localAxisA: [0, 1, 0] as [number, number, number] };
    expect(size(hingeLike) - size(ball)).toBe(15);
  });
});

/** Ground, a door hinged to the world, two boxes on a ball joint, a bob on a rope that breaks under its own weight. */
const scene: Scenario = {
  name: "joint-wire",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] },
    { id: "door", type: "dynamic", shape: { type: "box", halfExtents: [0.05, 1, 0.75] }, position: [2.5, 1.1, -0.25] },
    { id: "a", type: "dynamic", shape: { type: "box", halfExtents: [0.25, 0.25, 0.25] }, position: [-2, 0.25, 2], rotation: [0, Math.SQRT1_2, 0, Math.SQRT1_2] },
    { id: "b", type: "dynamic", shape: { type: "box", halfExtents: [0.25, 0.25, 0.25] }, position: [-1.4, 0.25, 2] },
    { id: "bob", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [-3, 1, -3], mass: 1 },
  ],
};

const JOINTS: JointDef[] = [
  { id: "hinge", type: "hinge", bodyA: "door", bodyB: null, anchor: [2.5, 1.1, -1], axis: [0, 2, 0] },
  { id: "ball", type: "ball", bodyA: "a", bodyB: "b", anchor: [-1.7, 0.25, 2] },
  // Weight 9.81 N against a 2 N break force: it breaks in the first step.
  { id: "rope", type: "distance", bodyA: "bob", bodyB: null, anchor: [-3, 1, -3], anchorB: [-3, 3, -3], limits: [0, 2], breakForce: 2 },
];

/** Changes the client decoded on JointState entries (not on the map that holds them). */
function jointFieldChanges(changes: DataChange[]): number {
  return changes.filter((c) => c.ref instanceof JointState).length;
}

describe("StateSync and joints", () => {
  it("a room without joints has no joints map on the wire", () => {
    const sim = new RoomSim(scene);
    const state = new RoomState();
    const sync = new StateSync(state);
    const w = wire(state);
    sync.sync(sim);
    w.patch();
    sim.step();
    sync.sync(sim);
    w.patch();
    expect(state.joints).toBeUndefined();
    expect(w.decoder.state.joints).toBeUndefined();
    expect(w.fresh().joints).toBeUndefined();
  });

  it("sends each joint once, as the engine holds it, and deletes a broken, removed or orphaned joint", () => {
    const sim = new RoomSim(scene);
    for (const def of JOINTS) sim.world.createJoint(def);
    const state = new RoomState();
    const sync = new StateSync(state);
    const w = wire(state);
    sync.sync(sim);
    const first = w.patch();
    const got = w.decoder.state.joints!;
    expect([...got.keys()]).toEqual(["hinge", "ball", "rope"]);
    sim.world.forEachJoint((info) => {
      const j = got.get(info.id)!;
      expect(j.type, info.id).toBe(jointTypeCodeOf(info.type));
      expect([j.bodyA, j.bodyB], info.id).toEqual([info.bodyA, info.bodyB ?? ""]);
      expect([j.ax, j.ay, j.az], info.id).toEqual(info.localAnchorA.map(Math.fround));
      expect([j.bx, j.by, j.bz], info.id).toEqual(info.localAnchorB.map(Math.fround));
    });
    // The engine's local anchors, decoded: the hinge's is the door's edge, its world side the world point;
    // the ball's anchor on the turned box "a" is in a's frame (a quarter turn about y: +x in the world is +z in a).
    const hinge = got.get("hinge")!;
    expect(hinge.ax).toBeCloseTo(0, 5);
    expect(hinge.ay).toBeCloseTo(0, 5);
    expect(hinge.az).toBeCloseTo(-0.75, 5);
    expect([hinge.bx, hinge.by, hinge.bz]).toEqual([2.5, 1.1, -1].map(Math.fround));
    const axis = [0, 0, 0];
    jointAxisOf(hinge, axis);
    expect(axis[0]).toBeCloseTo(0, 6);
    expect(axis[1]).toBeCloseTo(1, 6);
    expect(axis[2]).toBeCloseTo(0, 6);
    const ball = got.get("ball")!;
    expect(ball.ax).toBeCloseTo(0, 5);
    expect(ball.az).toBeCloseTo(0.3, 5);
    expect(ball.bx).toBeCloseTo(-0.3, 5);
    // What the count below counts, so that its 0 means something.
    expect(jointFieldChanges(first)).toBeGreaterThan(0);

    // The rope breaks in the first step: gone from the client's map with the next patch.
    const entries = [got.get("hinge"), got.get("ball")];
    let later = 0;
    for (let i = 0; i < 30; i++) {
      sim.step();
      if (i % 3 === 2) {
        sync.sync(sim);
        later += jointFieldChanges(w.patch());
      }
    }
    expect(sim.world.jointHandleOf("rope")).toBe(-1);
    expect([...got.keys()]).toEqual(["hinge", "ball"]);
    // Ten patches of moving bodies, and not one joint field sent again: the entries are the same objects.
    expect(later).toBe(0);
    expect(got.get("hinge")).toBe(entries[0]);
    expect(got.get("ball")).toBe(entries[1]);

    sim.world.removeJoint(sim.world.jointHandleOf("hinge"));
    sync.sync(sim);
    w.patch();
    expect([...got.keys()]).toEqual(["ball"]);
    sim.world.removeBody(sim.world.handleOf("b"));
    sync.sync(sim);
    w.patch();
    expect(got.size).toBe(0);
    expect(w.fresh().joints?.size).toBe(0);
  });

  it("a reload starts the joints over, even when the new world's jointsVersion repeats the old one's", () => {
    const sim = new RoomSim(scene);
    sim.world.createJoint(JOINTS[0]);
    const state = new RoomState();
    const sync = new StateSync(state);
    const w = wire(state);
    sync.sync(sim);
    w.patch();
    const before = w.decoder.state.joints!.get("hinge")!;
    expect(before.az).toBeCloseTo(-0.75, 5);
    const version = sim.world.jointsVersion;

    // A reload, and on the new world the same id anchored elsewhere on the door, before the next sync.
    sim.enqueue({ type: "load", scenario: scene });
    sim.step();
    sim.world.createJoint({ ...JOINTS[0], anchor: [2.5, 1.1, 0.5] });
    expect(sim.world.jointsVersion).toBe(version);
    sync.sync(sim);
    w.patch();
    expect([...w.decoder.state.joints!.keys()]).toEqual(["hinge"]);
    const after = w.decoder.state.joints!.get("hinge")!;
    expect(after).not.toBe(before);
    expect(after.az).toBeCloseTo(0.75, 5);
  });
});
