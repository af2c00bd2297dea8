import { ArraySchema, Decoder, Encoder, MapSchema } from "@colyseus/schema";
import { describe, expect, it } from "vitest";
import { StateSync } from "../../server/state-sync.ts";
import { type BodyDef, BodyTypeCode, type ShapeDef, ShapeTypeCode } from "../../shared/engine/index.ts";
import {
  BodyState,
  dequantizeAxis,
  dequantizeRotation,
  KIND_BOX,
  KIND_DYNAMIC,
  KIND_SENSOR,
  KIND_SHAPE_MASK,
  KIND_STATIC,
  KIND_TYPE_MASK,
  kindOf,
  RoomState,
  shapeCodeOf,
  shapeOfBody,
} from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";

/**
 * The wire format of shapes: spheres and boxes travel as they always did (kind + hx/hy/hz, byte for
 * byte), every other shape as its definition in `shape`, written once when the body is added.
 */

type Fields = Partial<Record<"kind" | "hx" | "hy" | "hz" | "cx" | "cy" | "cz" | "fx" | "fy" | "fz" | "rh" | "rl", number>> & { sleeping?: boolean };

function body(f: Fields): BodyState {
  const b = new BodyState();
  for (const [k, v] of Object.entries(f)) (b as unknown as Record<string, unknown>)[k] = v;
  return b;
}

/**
 * Bytes of a full state and two patches of spheres and boxes (one of them a sensor, one added in the
 * second patch), recorded with the schema before shapes other than spheres and boxes existed.
 */
const BEFORE = [
  "800a00000081a7000000823c0083a477697265840185028603ff028000a667726f756e64048001a462616c6c058002a56372617465068003a47a6f6e6507ff0480048100002041820000003f8300002041840085fe86008700880089008a000000038b008c00ff058002810000003f820000003f830000003f8400850b8600870088b889008a000000038b008c00ff068006810000003f820000803e83cdcccc3e84078507860187d088d0892c8a785634128b638c00ff07800c810000803f820000803f830000803f840f8503860087a088e889008a000000038b008c00",
  "800d000000ff058896ff068a795634128b03",
  "8010000000ff028004a2733108ff088002810000803e820000803e830000803e8402850586fd8701880289038a000000038b008c00ff058c01",
];

const FLAT_ROTATION = 0x3000000;

function sphereBoxSession(): string[] {
  const state = new RoomState();
  const enc = new Encoder(state);
  const out: string[] = [];
  state.tick = 10;
  state.time = 167;
  state.scenario = "wire";
  // Kinds from kindOf, as the server computes them: the old layout's 4 (box), 2 (dynamic), 6, and 4 | sensor.
  const staticBox = kindOf(BodyTypeCode.STATIC, ShapeTypeCode.BOX);
  const dynamicSphere = kindOf(BodyTypeCode.DYNAMIC, ShapeTypeCode.SPHERE);
  const dynamicBox = kindOf(BodyTypeCode.DYNAMIC, ShapeTypeCode.BOX);
  const sensorBox = kindOf(BodyTypeCode.STATIC, ShapeTypeCode.BOX, 1);
  state.bodies.set("ground", body({ kind: staticBox, hx: 10, hy: 0.5, hz: 10, cx: 0, cy: -2, cz: 0, fx: 0, fy: 0, fz: 0, rh: FLAT_ROTATION, rl: 0, sleeping: false }));
  state.bodies.set("ball", body({ kind: dynamicSphere, hx: 0.5, hy: 0.5, hz: 0.5, cx: 0, cy: 11, cz: 0, fx: 0, fy: 184, fz: 0, rh: FLAT_ROTATION, rl: 0, sleeping: false }));
  state.bodies.set("crate", body({ kind: dynamicBox, hx: 0.5, hy: 0.25, hz: 0.4, cx: 7, cy: 7, cz: 1, fx: 208, fy: 208, fz: 44, rh: 0x12345678, rl: 99, sleeping: false }));
  state.bodies.set("zone", body({ kind: sensorBox, hx: 1, hy: 1, hz: 1, cx: 15, cy: 3, cz: 0, fx: 160, fy: 232, fz: 0, rh: FLAT_ROTATION, rl: 0, sleeping: false }));
  out.push(Buffer.from(enc.encodeAll()).toString("hex"));
  enc.discardChanges();
  state.tick = 13;
  state.bodies.get("ball")!.fy = 150;
  state.bodies.get("crate")!.rh = 0x12345679;
  state.bodies.get("crate")!.rl = 3;
  out.push(Buffer.from(enc.encode()).toString("hex"));
  enc.discardChanges();
  state.tick = 16;
  state.bodies.set("s1", body({ kind: dynamicSphere, hx: 0.25, hy: 0.25, hz: 0.25, cx: 2, cy: 5, cz: -3, fx: 1, fy: 2, fz: 3, rh: FLAT_ROTATION, rl: 0, sleeping: false }));
  state.bodies.get("ball")!.sleeping = true;
  out.push(Buffer.from(enc.encode()).toString("hex"));
  enc.discardChanges();
  return out;
}

const TETRA: [number, number, number][] = [
  [0.6, 0.6, 0.6],
  [0.6, -0.6, -0.6],
  [-0.6, 0.6, -0.6],
  [-0.6, -0.6, 0.6],
];
/** A hull whose centre of mass is not its origin: the wire must carry the origin's pose. */
const OFFSET_HULL: [number, number, number][] = [
  [0, 0, 0],
  [1.2, 0, 0],
  [0, 1.2, 0],
  [0, 0, 1.2],
];

const NEW_SHAPES: Record<string, ShapeDef> = {
  capsule: { type: "capsule", radius: 0.3, halfHeight: 0.45 },
  cylinder: { type: "cylinder", radius: 0.4, halfHeight: 0.35 },
  hull: { type: "hull", points: TETRA },
  offsetHull: { type: "hull", points: OFFSET_HULL },
  compound: {
    type: "compound",
    children: [
      { shape: { type: "box", halfExtents: [0.6, 0.1, 0.3] } },
      { shape: { type: "sphere", radius: 0.25 }, position: [0.7, 0.3, 0] },
      { shape: { type: "capsule", radius: 0.1, halfHeight: 0.3 }, position: [-0.7, 0.2, 0], rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2] },
    ],
  },
  mesh: {
    type: "mesh",
    vertices: [
      [-2, 0, -2],
      [2, 0, -2],
      [2, 0, 2],
      [-2, 0, 2],
      [0, 1, 0],
    ],
    indices: [
      [0, 4, 1],
      [1, 4, 2],
      [2, 4, 3],
      [3, 4, 0],
    ],
  },
  heightfield: {
    type: "heightfield",
    rows: 5,
    cols: 4,
    size: [12, 16],
    heights: Array.from({ length: 20 }, (_, i) => ((i * 7) % 5) * 0.1),
  },
};

function everyShapeScenario(): Scenario {
  const bodies: BodyDef[] = [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [30, 0.5, 30] }, position: [0, -0.5, 0] },
    { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.3 }, position: [-6, 2, 0] },
    { id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 1, 1] }, position: [-6, 1, 6] },
  ];
  let x = -4;
  for (const [id, shape] of Object.entries(NEW_SHAPES)) {
    const fixed = shape.type === "mesh" || shape.type === "heightfield";
    bodies.push({
      id,
      type: fixed ? "static" : "dynamic",
      shape,
      position: shape.type === "heightfield" ? [0, 0.01, 12] : [x, fixed ? 0.01 : 2, 0],
      rotation: [0, 0.2588190451, 0, 0.9659258263],
      angularVelocity: fixed ? undefined : [0, 2, 1],
    });
    x += 3;
  }
  return { name: "every-shape", world: { tickRate: 60, sleep: false }, bodies } as Scenario;
}

/** The server's state of a sim, encoded: the full state then `patches` patches, 3 ticks apart. */
function serve(sim: RoomSim, patches: number): { state: RoomState; full: Uint8Array; patchBytes: Uint8Array[] } {
  const state = new RoomState();
  const sync = new StateSync(state);
  const enc = new Encoder(state);
  sync.sync(sim);
  const full = enc.encodeAll().slice();
  enc.discardChanges();
  const patchBytes: Uint8Array[] = [];
  for (let i = 0; i < patches; i++) {
    for (let k = 0; k < 3; k++) sim.step();
    sync.sync(sim);
    patchBytes.push(enc.encode().slice());
    enc.discardChanges();
  }
  return { state, full, patchBytes };
}

describe("kind bits", () => {
  it("carry the type, the shape code and the sensor flag; a box is still 4", () => {
    expect(KIND_BOX).toBe(4);
    expect(KIND_SENSOR).toBe(32);
    for (let shape = 0; shape <= ShapeTypeCode.HEIGHTFIELD; shape++) {
      for (const type of [BodyTypeCode.STATIC, BodyTypeCode.KINEMATIC, BodyTypeCode.DYNAMIC]) {
        for (const sensor of [0, 1]) {
          const kind = kindOf(type, shape, sensor);
          expect(kind).toBeLessThan(256);
          expect(kind & KIND_TYPE_MASK).toBe(type);
          expect(shapeCodeOf(kind)).toBe(shape);
          expect((kind & KIND_SENSOR) !== 0).toBe(sensor === 1);
        }
      }
    }
    expect(kindOf(BodyTypeCode.STATIC, ShapeTypeCode.BOX, 1) & KIND_SHAPE_MASK).toBe(KIND_BOX);
  });
});

describe("spheres and boxes on the wire", () => {
  it("cost exactly the bytes they did before other shapes existed", () => {
    // The one difference: the sensor bit moved from 8 to 32, so the sensor's kind byte reads 0x24, not 0x0c.
    const sensorKindBefore = "ff07800c";
    expect(BEFORE[0]).toContain(sensorKindBefore);
    const now = [BEFORE[0].replace(sensorKindBefore, "ff078024"), BEFORE[1], BEFORE[2]];
    expect(sphereBoxSession()).toEqual(now);
  });

  it("the server writes nothing new for them (no descriptor; only a sensor gets its count)", () => {
    const sim = new RoomSim({
      name: "boxes",
      bodies: [
        { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] },
        { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [0, 3, 0] },
        { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.25, 0.4] }, position: [2, 2, 0.3] },
      ],
    } as Scenario);
    for (let i = 0; i < 20; i++) sim.step();
    const { state, full } = serve(sim, 0);
    // The same bodies assigned by hand with the fields that existed before, into collections replaced
    // as StateSync replaces them: the same bytes.
    const copy = new RoomState();
    const encoder = new Encoder(copy);
    copy.bodies = new MapSchema<BodyState>();
    copy.tick = state.tick;
    copy.time = state.time;
    copy.tickRate = state.tickRate;
    copy.scenario = state.scenario;
    state.bodies.forEach((b, id) => {
      expect(b.shape).toBeUndefined();
      expect(b.inside).toBeUndefined();
      const { kind, hx, hy, hz, cx, cy, cz, fx, fy, fz, rh, rl, sleeping } = b;
      copy.bodies.set(id, body({ kind, hx, hy, hz, cx, cy, cz, fx, fy, fz, rh, rl, sleeping }));
    });
    copy.camera = new ArraySchema<number>();
    expect(Buffer.from(encoder.encodeAll()).toString("hex")).toBe(Buffer.from(full).toString("hex"));
  });
});

describe("shape descriptors", () => {
  it("every new shape arrives once, with the body, and never again in a patch", () => {
    const sim = new RoomSim(everyShapeScenario());
    const { full, patchBytes } = serve(sim, 20);
    const decoder = new Decoder(new RoomState());
    decoder.decode(full);
    const bodies = decoder.state.bodies;
    for (const [id, def] of Object.entries(NEW_SHAPES)) {
      const b = bodies.get(id)!;
      expect(b, id).toBeDefined();
      expect(shapeCodeOf(b.kind), id).toBe(ShapeTypeCode[def.type.toUpperCase() as keyof typeof ShapeTypeCode]);
      expect([b.hx, b.hy, b.hz], id).toEqual([0, 0, 0]);
      expect(shapeOfBody(b.kind, b.hx, b.hy, b.hz, b.shape), id).toEqual(def);
    }
    expect(bodies.get("ball")!.shape).toBeUndefined();
    expect(shapeOfBody(bodies.get("ball")!.kind, 0.3, 0.3, 0.3, undefined)).toEqual({ type: "sphere", radius: 0.3 });
    const descriptorBytes = Object.keys(NEW_SHAPES).reduce((n, id) => n + Buffer.byteLength(bodies.get(id)!.shape!), 0);
    console.log(`full state ${full.length} B (descriptors ${descriptorBytes} B); patches ${patchBytes.map((p) => p.length).join(" ")} B`);
    const moved = new Set<string>();
    let before = JSON.stringify(snapshotPoses(decoder.state));
    for (const patch of patchBytes) {
      // A descriptor is JSON with a "type" key: no patch holds one.
      expect(Buffer.from(patch).includes('"type"')).toBe(false);
      decoder.decode(patch);
      const now = snapshotPoses(decoder.state);
      for (const [id, pose] of Object.entries(now)) if (JSON.stringify(pose) !== JSON.stringify(JSON.parse(before)[id])) moved.add(id);
      before = JSON.stringify(now);
    }
    // The dynamic new shapes did move, so their patches really were sent without the descriptor.
    for (const id of ["capsule", "cylinder", "hull", "offsetHull", "compound"]) expect(moved.has(id), id).toBe(true);
    // Still there after the patches, unchanged.
    for (const [id, def] of Object.entries(NEW_SHAPES)) expect(JSON.parse(bodies.get(id)!.shape!), id).toEqual(def);
  });

  it("poses on the wire are the reference frame (the shape's origin), not the centre of mass", () => {
    const sim = new RoomSim(everyShapeScenario());
    for (let i = 0; i < 30; i++) sim.step();
    const { full } = serve(sim, 0);
    const decoder = new Decoder(new RoomState());
    decoder.decode(full);
    const q = [0, 0, 0, 0];
    for (const id of [...Object.keys(NEW_SHAPES), "ball"]) {
      const b = decoder.state.bodies.get(id)!;
      const h = sim.world.handleOf(id);
      const p = sim.world.getPosition(h);
      expect(dequantizeAxis(b.cx, b.fx), id).toBeCloseTo(p[0], 2);
      expect(dequantizeAxis(b.cy, b.fy), id).toBeCloseTo(p[1], 2);
      expect(dequantizeAxis(b.cz, b.fz), id).toBeCloseTo(p[2], 2);
      dequantizeRotation(b.rh, b.rl, q);
      const r = sim.world.getRotation(h);
      const dot = Math.abs(q[0] * r[0] + q[1] * r[1] + q[2] * r[2] + q[3] * r[3]);
      expect(dot, id).toBeGreaterThan(0.9999);
    }
    // The offset hull's centre of mass is away from its origin: had the sync sent the centre of mass the
    // check above would have failed by ~0.3 m.
    const v = sim.world.view();
    expect(v.hasOffset[v.slotOf(sim.world.handleOf("offsetHull"))]).toBe(1);
  });

  it("a sensor's count arrives with it: 0 from the start, then as bodies enter", () => {
    const sim = new RoomSim({
      name: "drop",
      world: { sleep: false },
      bodies: [
        { id: "ground", type: "static", shape: { type: "box", halfExtents: [10, 0.5, 10] }, position: [0, -0.5, 0] },
        { id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 0.5, 1] }, position: [0, 0.5, 0] },
        { id: "ball", type: "dynamic", shape: { type: "capsule", radius: 0.2, halfHeight: 0.2 }, position: [0, 4, 0] },
      ],
    } as Scenario);
    const state = new RoomState();
    const sync = new StateSync(state);
    const enc = new Encoder(state);
    const decoder = new Decoder(new RoomState());
    sync.sync(sim);
    decoder.decode(enc.encodeAll());
    enc.discardChanges();
    const zone = () => decoder.state.bodies.get("zone")!;
    expect(zone().kind & KIND_SENSOR).toBe(KIND_SENSOR);
    expect(zone().kind & KIND_TYPE_MASK).toBe(KIND_STATIC);
    expect(zone().inside).toBe(0);
    expect(decoder.state.bodies.get("ball")!.kind & KIND_TYPE_MASK).toBe(KIND_DYNAMIC);
    for (let i = 0; i < 120 && zone().inside === 0; i++) {
      sim.step();
      sync.sync(sim);
      decoder.decode(enc.encode());
      enc.discardChanges();
    }
    expect(zone().inside).toBe(1);
  });
});

function snapshotPoses(state: RoomState): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  state.bodies.forEach((b, id) => {
    out[id] = [b.cx, b.cy, b.cz, b.fx, b.fy, b.fz, b.rh, b.rl];
  });
  return out;
}
