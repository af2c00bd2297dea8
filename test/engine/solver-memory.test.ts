import { describe, expect, it } from "vitest";
import { CS } from "../../shared/engine/dynamics/constraint-layout.ts";
import { SolverMemory, sharedSolverMemory } from "../../shared/engine/kernel/solver-memory.ts";
import { getBuiltinScenario, loadScenario } from "../../shared/scenarios/index.ts";

describe("the solver memory (the contact kernel's WebAssembly memory)", () => {
  it("growing the solver memory keeps what every region held", () => {
    const mem = new SolverMemory(2, 2);
    mem.vel.set([1, 2, 3, 4, 5, 6]);
    mem.cs[7] = 42;
    mem.ints[5] = 9;
    mem.ensureConstraints(5000);
    expect([...mem.vel.subarray(0, 6)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(mem.cs[7]).toBe(42);
    expect(mem.ints[5]).toBe(9);
    mem.mass[3] = 0.5;
    mem.ensureBodies(3000);
    expect([...mem.vel.subarray(0, 6)]).toEqual([1, 2, 3, 4, 5, 6]);
    expect(mem.mass[3]).toBe(0.5);
    expect(mem.cs[7]).toBe(42);
    // Regions do not overlap.
    expect(mem.intsPtr).toBeGreaterThanOrEqual(mem.csPtr + mem.cs.byteLength);
    expect(mem.velPtr).toBeGreaterThanOrEqual(mem.intsPtr + mem.ints.byteLength);
    expect(mem.deltaPtr).toBeGreaterThanOrEqual(mem.velPtr + mem.vel.byteLength);
    expect(mem.massPtr).toBeGreaterThanOrEqual(mem.deltaPtr + mem.delta.byteLength);
    expect(mem.schedPtr).toBeGreaterThanOrEqual(mem.massPtr + mem.mass.byteLength);
    // The schedule: two ints per constraint, then a byte per constraint of scratch.
    expect(mem.takenPtr).toBeGreaterThanOrEqual(mem.schedPtr + (mem.cs.length / CS) * 2 * 4);
    expect(mem.memory.buffer.byteLength).toBeGreaterThanOrEqual(mem.takenPtr + mem.cs.length / CS);
  });

  it("worlds sharing the thread's solver memory do not disturb each other, even when one grows it", () => {
    const hashes = (interleave: boolean): string[] => {
      const small = loadScenario(getBuiltinScenario("stack10")!).world;
      const big = interleave ? loadScenario(getBuiltinScenario("heap1000")!).world : null;
      const out: string[] = [];
      for (let t = 0; t < 120; t++) {
        small.step();
        big?.step();
        out.push(small.stateHash());
      }
      return out;
    };
    const alone = hashes(false);
    expect(hashes(true)).toEqual(alone);
    expect(sharedSolverMemory().cs.length).toBeGreaterThan(1000 * CS);
  }, 120_000);
});
