import { describe, expect, it } from "vitest";
import type { BodyDef, ContactEvent, Vec3Tuple } from "../../shared/engine/index.ts";
import { World } from "../../shared/engine/index.ts";
import { worldInternals } from "../../shared/engine/internal.ts";
import { GROUND, steps, worldWith } from "./helpers.ts";

/** Two unequal spheres on a bar: the centre of mass is off the reference point and the axes are not principal... */
const DUMBBELL: BodyDef = {
  id: "dumbbell",
  type: "dynamic",
  shape: {
    type: "compound",
    children: [
      { shape: { type: "sphere", radius: 0.3 }, position: [-0.6, 0, 0] },
      { shape: { type: "sphere", radius: 0.2 }, position: [0.6, 0, 0] },
      { shape: { type: "cylinder", radius: 0.05, halfHeight: 0.5 }, rotation: [0, 0, Math.SQRT1_2, Math.SQRT1_2] },
    ],
  },
  position: [1, 2, 3],
  rotation: [0, 0.2588190451025208, 0, 0.9659258262890683],
};

function events(w: World): string[] {
  const out: string[] = [];
  w.forEachEvent((e: ContactEvent) => out.push(`${e.type}:${e.a}:${e.b}`));
  return out;
}

describe("reference frames of off-centre shapes", () => {
  it("a compound reports the pose it was created with, and its centre of mass lies between the spheres, nearer the big one", () => {
    const w = new World({ gravity: [0, 0, 0] });
    const h = w.createBody(DUMBBELL);
    const p = w.getPosition(h);
    const q = w.getRotation(h);
    for (let k = 0; k < 3; k++) expect(p[k]).toBeCloseTo(DUMBBELL.position[k], 12);
    for (let k = 0; k < 4; k++) expect(q[k]).toBeCloseTo(DUMBBELL.rotation![k], 12);
    const com = w.getCenterOfMass(h);
    // Mass-weighted along the bar (local x turned 30° about y): the big sphere (0.027) outweighs the small (0.008).
    const local = (-0.6 * 0.027 + 0.6 * 0.008) / (0.027 + 0.008 + 0.05 * 0.05 * 0.75);
    expect(local).toBeLessThan(0);
    const distance = Math.hypot(com[0] - p[0], com[1] - p[1], com[2] - p[2]);
    expect(distance).toBeGreaterThan(0.25);
    expect(distance).toBeLessThan(0.35);
    expect(w.getShape(h)).toEqual(DUMBBELL.shape);
  });

  it("spinning freely, the centre of mass stays put while the reference point circles it", () => {
    const w = new World({ gravity: [0, 0, 0], sleep: false });
    const h = w.createBody({ ...DUMBBELL, angularVelocity: [0, 3, 0] });
    const com0 = w.getCenterOfMass(h);
    const r0 = Math.hypot(...(w.getPosition(h).map((v, k) => v - com0[k]) as Vec3Tuple));
    let moved = 0;
    for (let i = 0; i < 120; i++) {
      w.step();
      const com = w.getCenterOfMass(h);
      for (let k = 0; k < 3; k++) expect(com[k]).toBeCloseTo(com0[k], 9);
      const p = w.getPosition(h);
      expect(Math.hypot(p[0] - com[0], p[1] - com[1], p[2] - com[2])).toBeCloseTo(r0, 9);
      moved = Math.max(moved, Math.hypot(p[0] - DUMBBELL.position[0], p[2] - DUMBBELL.position[2]));
    }
    expect(moved).toBeGreaterThan(0.3);
  });

  it("setTransform places the reference frame", () => {
    const w = new World({ gravity: [0, 0, 0] });
    const h = w.createBody(DUMBBELL);
    w.setTransform(h, [5, 6, 7], [0, 0, 0, 1]);
    expect(w.getPosition(h).map((v) => Number(v.toFixed(12)))).toEqual([5, 6, 7]);
    expect(w.getRotation(h).map((v) => Number(v.toFixed(12)))).toEqual([0, 0, 0, 1]);
  });
});

describe("pairs with pieces (compounds, meshes, height fields)", () => {
  it("a dumbbell landing on the ground touches with both spheres: one contactBegin for the pair, one contactEnd when lifted", () => {
    const w = worldWith({ sleep: false }, [GROUND, { ...DUMBBELL, position: [0, 0.5, 0], rotation: undefined }]);
    const h = w.handleOf("dumbbell");
    const seen: string[] = [];
    for (let i = 0; i < 120; i++) {
      w.step();
      seen.push(...events(w));
    }
    expect(seen).toEqual(["contactBegin:ground:dumbbell"]);
    const { contacts } = worldInternals(w);
    let pieces = 0;
    for (let c = 0; c < contacts.count; c++) if (contacts.key[c] > 0 && contacts.pointCount[c] > 0) pieces++;
    expect(pieces).toBe(2);
    // Resting on both spheres, level: the bar is horizontal.
    const q = w.getRotation(h);
    expect(Math.abs(q[0]) + Math.abs(q[2])).toBeLessThan(0.2);
    w.setTransform(h, [0, 5, 0]);
    w.step();
    expect(events(w)).toEqual(["contactEnd:ground:dumbbell"]);
    expect(contacts.count).toBe(0);
  });

  it("removing a body with pieces removes them and reports the pair's end", () => {
    const w = worldWith({ sleep: false }, [GROUND, { ...DUMBBELL, position: [0, 0.35, 0], rotation: undefined }]);
    steps(w, 30);
    const { contacts } = worldInternals(w);
    expect(contacts.count).toBeGreaterThan(1);
    w.removeBody(w.handleOf("dumbbell"));
    expect(contacts.count).toBe(0);
    expect(events(w)).toContain("contactEnd:ground:dumbbell");
  });

  it("a snapshot of a world with every new shape continues bit for bit", () => {
    const hill: number[] = [];
    for (let r = 0; r < 9; r++) for (let c = 0; c < 9; c++) hill.push(0.05 * (r - 4) * (c - 4));
    const bodies: BodyDef[] = [
      { id: "field", type: "static", shape: { type: "heightfield", heights: hill, rows: 9, cols: 9, size: [16, 16] }, position: [0, 0, 0] },
      {
        id: "ramp",
        type: "static",
        shape: { type: "mesh", vertices: [[2, 0, -2], [6, 2, -2], [6, 2, 2], [2, 0, 2]], indices: [[0, 2, 1], [0, 3, 2]] },
        position: [0, 0.3, 0],
      },
      { id: "cap", type: "dynamic", shape: { type: "capsule", radius: 0.2, halfHeight: 0.3 }, position: [-2, 1.5, 0], rotation: [0.3, 0, 0.1, 0.95] },
      { id: "cyl", type: "dynamic", shape: { type: "cylinder", radius: 0.3, halfHeight: 0.2 }, position: [0, 1.5, 1], rotation: [0, 0, 0.4, 0.9] },
      { id: "rock", type: "dynamic", shape: { type: "hull", points: [[0, 0.5, 0], [0.4, 0, 0.1], [-0.3, 0, 0.3], [0, -0.1, -0.4], [0.2, 0.3, -0.2]] }, position: [3.5, 3, 0] },
      { ...DUMBBELL, position: [-1, 2.5, -2] },
    ];
    const a = worldWith({ sleep: false }, bodies);
    steps(a, 40);
    const snap = a.snapshot();
    const b = World.fromSnapshot(snap);
    for (let i = 0; i < 120; i++) {
      a.step();
      b.step();
      expect(b.stateHash()).toBe(a.stateHash());
    }
    // Everything came to rest on something rather than falling through.
    for (const id of ["cap", "cyl", "rock", "dumbbell"]) expect(a.getPosition(a.handleOf(id))[1]).toBeGreaterThan(-1);
  });

  it("a kinematic character walks over a height-field hill without sinking into it", () => {
    const hill: number[] = [];
    for (let r = 0; r < 21; r++) for (let c = 0; c < 21; c++) hill.push(Math.max(0, 2 - 0.02 * ((r - 10) ** 2 + (c - 10) ** 2)));
    const w = worldWith({}, [{ id: "field", type: "static", shape: { type: "heightfield", heights: hill, rows: 21, cols: 21, size: [20, 20] }, position: [0, 0, 0] }]);
    const h = w.createBody({ id: "me", type: "kinematic", shape: { type: "capsule", radius: 0.3, halfHeight: 0.5 }, position: [-8, 1.2, 0.1] });
    let grounded = 0;
    for (let i = 0; i < 160; i++) {
      const r = w.moveCharacter(h, [0.1, -0.1, 0]);
      if (r.grounded) grounded++;
      w.step();
      const p = w.getPosition(h);
      // Capsule bottom (0.8 below the centre) stays above the surface at its x (hill is a cone-like bump).
      const x = p[0];
      const surface = Math.max(0, 2 - 0.02 * (((x + 10) * 20) / 20 - 10) ** 2);
      expect(p[1] - 0.8).toBeGreaterThan(surface - 0.3);
    }
    expect(w.getPosition(h)[0]).toBeGreaterThan(5);
    expect(grounded).toBeGreaterThan(100);
  });
});
