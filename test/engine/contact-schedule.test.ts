import { describe, expect, it } from "vitest";
import { CS, D_QUAT, DIST, L_T1, L_T2, L_TW, LN, MU, POINTS, PS, SD, SM, SV } from "../../shared/engine/dynamics/constraint-layout.ts";
import { SolverMemory } from "../../shared/engine/kernel/solver-memory.ts";
import { createPrng, type Prng } from "../../shared/scenarios/index.ts";

/*
 * The contact passes visit constraints two at a time where two share no moved body (the kernel's
 * schedule.ts and contact-pair.ts). The claim: the same numbers as the serial pass in index order, to
 * the bit, whatever the constraints hold. Checked on random constraints built to reach every per-lane
 * branch: point counts 1-4 side by side, friction or twist idle in one lane only, a body turned in one
 * lane only, static partners shared by both lanes, separations on both sides of zero, and -0 and +0
 * velocities (adding a zero impulse would turn -0 into +0).
 */

const BODIES = 24;

/** A value that is often exactly +0 or -0, otherwise in [-1, 1]. */
function signedOrZero(prng: Prng): number {
  const r = prng.next();
  if (r < 0.15) return 0;
  if (r < 0.3) return -0;
  return prng.range(-1, 1);
}

/** Random constraints between BODIES bodies, of which 0 and every fifth are unmoved (inverse mass 0). */
function fill(mem: SolverMemory, seed: number, count: number): void {
  const prng = createPrng(seed);
  mem.ensureConstraints(count);
  mem.ensureBodies(BODIES);
  const { cs, ints, vel, delta, mass } = mem;
  for (let b = 0; b < BODIES; b++) {
    const moved = b !== 0 && b % 5 !== 0;
    for (let k = 0; k < SM; k++) mass[b * SM + k] = moved ? prng.range(0.1, 2) : 0;
    for (let k = 0; k < SV; k++) vel[b * SV + k] = moved ? signedOrZero(prng) : 0;
    for (let k = 0; k < 3; k++) delta[b * SD + k] = prng.range(-0.01, 0.01);
    // Half the bodies have not turned (qΔ = identity), the rest by a small rotation.
    const turned = moved && prng.next() < 0.5;
    const x = turned ? prng.range(-0.05, 0.05) : 0;
    const y = turned ? prng.range(-0.05, 0.05) : 0;
    const z = turned ? prng.range(-0.05, 0.05) : 0;
    const q = b * SD + D_QUAT;
    delta[q] = x;
    delta[q + 1] = y;
    delta[q + 2] = z;
    delta[q + 3] = Math.sqrt(1 - x * x - y * y - z * z);
  }
  for (let i = 0; i < count; i++) {
    const o = i * CS;
    for (let f = 0; f < CS; f++) cs[o + f] = prng.range(-1, 1);
    const a = prng.int(BODIES);
    let b = prng.int(BODIES);
    if (b === a) b = (a + 1) % BODIES;
    const points = 1 + prng.int(4);
    ints[i * 4] = a;
    ints[i * 4 + 1] = b;
    ints[i * 4 + 2] = points;
    ints[i * 4 + 3] = i;
    // Friction off, idle (no load, no impulse) or working; twist held or not.
    const friction = prng.next();
    cs[o + MU] = friction < 0.2 ? 0 : prng.range(0.1, 1);
    const idle = prng.next() < 0.3;
    cs[o + L_T1] = idle ? 0 : signedOrZero(prng);
    cs[o + L_T2] = idle ? 0 : signedOrZero(prng);
    cs[o + L_TW] = idle ? 0 : signedOrZero(prng);
    for (let k = 0; k < points; k++) {
      const p = o + POINTS + k * PS;
      cs[p + LN] = idle ? 0 : prng.range(0, 1);
      cs[p + DIST] = points === 1 ? 0 : prng.range(0, 0.5);
    }
  }
}

/** Runs a warm start and three passes (the first fresh) in the given order; returns copies of the results. */
function run(seed: number, count: number, order: "serial" | "scheduled"): { cs: Float64Array; vel: Float64Array; slots: number } {
  const mem = new SolverMemory();
  fill(mem, seed, count);
  let slots = count;
  const sched = () => new Int32Array(mem.memory.buffer, mem.schedPtr, count * 2);
  if (order === "scheduled") {
    slots = mem.kernel.schedule(mem.intsPtr, mem.massPtr, count, mem.schedPtr, mem.takenPtr);
  } else {
    const s = sched();
    for (let i = 0; i < count; i++) {
      s[2 * i] = i;
      s[2 * i + 1] = -1;
    }
  }
  mem.params[0] = 1 / 240;
  mem.params[1] = 3;
  mem.params[2] = 0.001;
  mem.kernel.warmStart(mem.csPtr, mem.intsPtr, mem.velPtr, mem.massPtr, count);
  mem.kernel.solve(mem.paramsPtr, mem.csPtr, mem.intsPtr, mem.velPtr, mem.deltaPtr, mem.massPtr, mem.schedPtr, slots, true, true);
  mem.kernel.solve(mem.paramsPtr, mem.csPtr, mem.intsPtr, mem.velPtr, mem.deltaPtr, mem.massPtr, mem.schedPtr, slots, true, false);
  mem.kernel.solve(mem.paramsPtr, mem.csPtr, mem.intsPtr, mem.velPtr, mem.deltaPtr, mem.massPtr, mem.schedPtr, slots, false, false);
  return { cs: mem.cs.slice(0, count * CS), vel: mem.vel.slice(0, BODIES * SV), slots };
}

/** Index of the first element whose bits differ (Object.is tells -0 from +0), or -1. */
function firstDifference(a: Float64Array, b: Float64Array): number {
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return i;
  return -1;
}

describe("the contact passes' schedule (constraints solved two at a time)", () => {
  it("gives the serial pass's impulses and velocities bit for bit, over every per-lane branch", () => {
    let paired = 0;
    let total = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const count = 8 + (seed % 5) * 13;
      const serial = run(seed, count, "serial");
      const scheduled = run(seed, count, "scheduled");
      expect(firstDifference(scheduled.cs, serial.cs), `constraints, seed ${seed}`).toBe(-1);
      expect(firstDifference(scheduled.vel, serial.vel), `velocities, seed ${seed}`).toBe(-1);
      paired += 2 * (count - scheduled.slots);
      total += count;
    }
    // The random constraints must actually have exercised the pair kernel, not just the serial one.
    expect(paired / total).toBeGreaterThan(0.3);
  });

  it("pairs only constraints that move no common body, keeps each body's constraint order and visits each once", () => {
    const mem = new SolverMemory();
    const count = 300;
    fill(mem, 7, count);
    const slots = mem.kernel.schedule(mem.intsPtr, mem.massPtr, count, mem.schedPtr, mem.takenPtr);
    const sched = new Int32Array(mem.memory.buffer, mem.schedPtr, slots * 2);
    const moved = (b: number) => mem.mass[b * SM] !== 0;
    const bodiesOf = (c: number) => [mem.ints[c * 4], mem.ints[c * 4 + 1]].filter(moved);
    const seen = new Set<number>();
    // Per moved body, the last constraint index visited: visits must come in increasing index order.
    const last = new Map<number, number>();
    let pairs = 0;
    for (let s = 0; s < slots; s++) {
      const c0 = sched[2 * s];
      const c1 = sched[2 * s + 1];
      const slot = c1 < 0 ? [c0] : [c0, c1];
      if (c1 >= 0) {
        pairs++;
        expect(bodiesOf(c0).filter((b) => bodiesOf(c1).includes(b))).toEqual([]);
        expect(mem.ints[c0 * 4 + 2]).toBeGreaterThanOrEqual(2);
        expect(mem.ints[c1 * 4 + 2]).toBeGreaterThanOrEqual(2);
      }
      for (const c of slot) {
        expect(seen.has(c)).toBe(false);
        seen.add(c);
        for (const b of bodiesOf(c)) {
          expect(c).toBeGreaterThan(last.get(b) ?? -1);
          last.set(b, c);
        }
      }
    }
    expect(seen.size).toBe(count);
    expect(pairs).toBeGreaterThan(count / 5);
  });
});
