import { describe, expect, it } from "vitest";
import { BroadPhase, CAT_AWAKE, CAT_KINEMATIC_MOVING, CAT_SLEEPING } from "../../shared/engine/collision/broad-phase.ts";
import { BodyStore } from "../../shared/engine/dynamics/body-store.ts";
import { createPrng } from "../../shared/scenarios/index.ts";

function relevant(ci: number, cj: number): boolean {
  return ci === CAT_AWAKE || cj === CAT_AWAKE || (ci === CAT_KINEMATIC_MOVING && cj === CAT_SLEEPING) || (ci === CAT_SLEEPING && cj === CAT_KINEMATIC_MOVING);
}

function bruteForce(b: BodyStore, category: Uint8Array): Set<string> {
  const out = new Set<string>();
  const a = b.aabb;
  for (let i = 0; i < b.slotCount; i++) {
    if (!b.alive[i]) continue;
    for (let j = i + 1; j < b.slotCount; j++) {
      if (!b.alive[j] || !relevant(category[i], category[j])) continue;
      let overlap = true;
      for (let k = 0; k < 3; k++) if (a[i * 6 + k] > a[j * 6 + 3 + k] || a[j * 6 + k] > a[i * 6 + 3 + k]) overlap = false;
      if (overlap) out.add(`${i},${j}`);
    }
  }
  return out;
}

function found(bp: BroadPhase): string[] {
  const out: string[] = [];
  for (let k = 0; k < bp.pairCount; k++) out.push(`${bp.pairs[2 * k]},${bp.pairs[2 * k + 1]}`);
  return out;
}

describe("broad phase (sort-and-sweep in grid columns)", () => {
  it("finds exactly the overlapping pairs, once each, as bodies move, sleep and get removed", () => {
    const prng = createPrng(7);
    const b = new BodyStore();
    const bp = new BroadPhase();
    // The broad phase reads each body's activity (b.activity) and the store's awake and kinematic sets.
    // Ground and two walls (large bodies), then 600 small boxes and spheres in a 30 m field.
    const statics = [
      { half: [100, 0.5, 100], pos: [0, -0.5, 0] },
      { half: [0.5, 3, 40], pos: [15, 3, 0] },
      { half: [40, 3, 0.5], pos: [0, 3, -15] },
    ];
    for (const [k, s] of statics.entries()) {
      const slot = b.add({ id: `static${k}`, type: "static", shape: { type: "box", halfExtents: s.half as [number, number, number] }, position: s.pos as [number, number, number] });
      bp.add(slot);
    }
    for (let i = 0; i < 600; i++) {
      const sphere = i % 3 === 0;
      const slot = b.add({
        id: `b${i}`,
        type: i % 50 === 0 ? "kinematic" : "dynamic",
        shape: sphere ? { type: "sphere", radius: prng.range(0.2, 0.8) } : { type: "box", halfExtents: [prng.range(0.2, 1), prng.range(0.2, 1), prng.range(0.2, 1)] },
        position: [prng.range(-15, 15), prng.range(0, 6), prng.range(-15, 15)],
        rotation: prng.unitQuaternion(),
      });
      bp.add(slot);
      if (i % 50 === 0) b.activity[slot] = CAT_KINEMATIC_MOVING;
      else if (i % 7 === 0) b.setSleeping(slot);
    }
    for (let s = 0; s < b.slotCount; s++) b.updateAabb(s);
    for (let round = 0; round < 12; round++) {
      bp.findPairs(b);
      const got = found(bp);
      expect(new Set(got).size).toBe(got.length);
      expect(new Set(got)).toEqual(bruteForce(b, b.activity));
      // Move the moving bodies, including long jumps across many columns; remove a few; tall tower.
      for (let s = 3; s < b.slotCount; s++) {
        if (!b.alive[s] || b.activity[s] === CAT_SLEEPING) continue;
        const jump = prng.next() < 0.05 ? 10 : 0.5;
        for (let k = 0; k < 3; k++) b.pos[s * 3 + k] += prng.range(-jump, jump);
        b.updateAabb(s);
      }
      if (round === 4) {
        for (let s = 10; s < 20; s++) {
          bp.remove(s);
          b.remove(s);
        }
      }
      if (round === 8) {
        // Everything piles into one tall column: the sweep axis must switch to y and stay correct.
        for (let s = 3; s < b.slotCount; s++) {
          if (!b.alive[s]) continue;
          b.pos[s * 3] = prng.range(-0.5, 0.5);
          b.pos[s * 3 + 2] = prng.range(-0.5, 0.5);
          b.pos[s * 3 + 1] = s * 1.1;
          b.updateAabb(s);
          // A sleeping body moved from outside is a teleport: the world tells the broad phase.
          if (b.activity[s] === CAT_SLEEPING) bp.touch(s, b);
        }
      }
    }
    // The axis is reconsidered every 16 calls: by then the tall column has switched it to y.
    for (let k = 0; k < 16; k++) bp.findPairs(b);
    expect(bp.axis).toBe(1);
    expect(new Set(found(bp))).toEqual(bruteForce(b, b.activity));
  });
});
