import { describe, expect, it } from "vitest";
import { createPrng } from "../../shared/scenarios/prng.ts";

describe("createPrng (mulberry32)", () => {
  it("produces the pinned sequence for seed 42", () => {
    const prng = createPrng(42);
    const values = Array.from({ length: 5 }, () => prng.next());
    expect(values).toEqual([
      0.6011037519201636, 0.44829055899754167, 0.8524657934904099, 0.6697340414393693, 0.17481389874592423,
    ]);
    // Each value is a 32-bit integer over 2^32, exactly.
    expect(values.map((v) => v * 4294967296)).toEqual([2581720956, 1925393290, 3661312704, 2876485805, 750819978]);
  });

  it("pins the first unit quaternion of seed 1000 (pile1000's first box)", () => {
    expect(createPrng(1000).unitQuaternion()).toEqual([
      0.541219138317339, 0.4214081859640769, 0.29762969463194483, -0.6640132152260212,
    ]);
  });

  it("is deterministic, seed-sensitive and reduces seeds to 32 bits", () => {
    const a = createPrng(7);
    const b = createPrng(7);
    const c = createPrng(8);
    const d = createPrng(7 + 2 ** 32);
    for (let i = 0; i < 1000; i++) {
      const x = a.next();
      expect(b.next()).toBe(x);
      expect(d.next()).toBe(x);
      if (i === 0) expect(c.next()).not.toBe(x);
    }
  });

  it("continues a sequence from state()", () => {
    const a = createPrng(123);
    a.next();
    a.next();
    const b = createPrng(a.state());
    for (let i = 0; i < 10; i++) expect(b.next()).toBe(a.next());
  });

  it("keeps next() in [0, 1), range() in [min, max) and int() in [0, n)", () => {
    const prng = createPrng(99);
    for (let i = 0; i < 10000; i++) {
      const x = prng.next();
      expect(x >= 0 && x < 1).toBe(true);
      expect(Number.isInteger(x * 4294967296)).toBe(true);
      const r = prng.range(-3, 5);
      expect(r >= -3 && r < 5).toBe(true);
      const n = prng.int(7);
      expect(Number.isInteger(n) && n >= 0 && n < 7).toBe(true);
    }
  });

  it("makes unit quaternions whose components average to zero", () => {
    const prng = createPrng(5);
    const sum = [0, 0, 0, 0];
    const count = 4000;
    for (let i = 0; i < count; i++) {
      const q = prng.unitQuaternion();
      expect(Math.abs(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3] - 1)).toBeLessThan(1e-15);
      for (let k = 0; k < 4; k++) sum[k] += q[k];
    }
    // Each component has variance 1/4, so the mean's standard deviation is 0.5 / sqrt(4000) ≈ 0.008.
    for (const s of sum) expect(Math.abs(s / count)).toBeLessThan(0.04);
  });
});
