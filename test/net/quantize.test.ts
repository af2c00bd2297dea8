import { describe, expect, it } from "vitest";
import {
  coarseOf,
  dequantizeAxis,
  dequantizeRotation,
  fineOf,
  type PackedRotation,
  quantizeMm,
  quantizeRotation,
  rotationAngleDeg,
} from "../../shared/net/index.ts";
import { createPrng } from "../../shared/scenarios/index.ts";

describe("position quantization", () => {
  it("round-trips within half a millimetre, including negative and cell-boundary values", () => {
    const prng = createPrng(7);
    let worst = 0;
    const samples = [0, 0.0005, -0.0005, 0.256, -0.256, 0.2555, -0.2565, 1e4, -1e4, 99999.9994, -0.0004999];
    for (let i = 0; i < 100_000; i++) samples.push(prng.range(-2000, 2000));
    for (const x of samples) {
      const mm = quantizeMm(x);
      const c = coarseOf(mm);
      const f = fineOf(mm);
      if (!(f >= 0 && f < 256 && Number.isInteger(f) && Number.isInteger(c))) throw new Error(`bad split of ${x}: ${c} ${f}`);
      worst = Math.max(worst, Math.abs(dequantizeAxis(c, f) - x));
    }
    expect(worst).toBeLessThanOrEqual(0.0005 + 1e-9);
  });

  it("keeps the coarse cell for motions inside a 25.6 cm cell", () => {
    expect(coarseOf(quantizeMm(0.3))).toBe(coarseOf(quantizeMm(0.5)));
    expect(coarseOf(quantizeMm(-0.001))).toBe(-1);
    expect(fineOf(quantizeMm(-0.001))).toBe(255);
  });
});

describe("smallest-three rotation quantization", () => {
  const out: PackedRotation = { hi: 0, lo: 0 };
  const q = [0, 0, 0, 1];

  it("stays within 0.1° over a million random rotations (worst case measured)", () => {
    const prng = createPrng(2024);
    let worst = 0;
    for (let i = 0; i < 1_000_000; i++) {
      const r = prng.unitQuaternion();
      quantizeRotation(r[0], r[1], r[2], r[3], out);
      if (!(out.hi >= 0 && out.hi <= 0xffffffff && out.lo >= 0 && out.lo < 64)) throw new Error(`bad packing ${out.hi} ${out.lo}`);
      dequantizeRotation(out.hi, out.lo, q);
      worst = Math.max(worst, rotationAngleDeg(r, q));
    }
    // 12 bits per component: worst case about 0.05°.
    expect(worst).toBeLessThan(0.1);
    expect(worst).toBeGreaterThan(0.01); // the measurement can fail: it is not trivially zero
  });

  it("handles the identity, q and -q alike, and components at the range ends", () => {
    for (const r of [
      [0, 0, 0, 1],
      [0, 0, 0, -1],
      [1, 0, 0, 0],
      [Math.SQRT1_2, Math.SQRT1_2, 0, 0],
      [-0.5, 0.5, -0.5, 0.5],
      [0.5, 0.5, 0.5, 0.5],
    ]) {
      quantizeRotation(r[0], r[1], r[2], r[3], out);
      const a = { ...out };
      quantizeRotation(-r[0], -r[1], -r[2], -r[3], out);
      expect(out).toEqual(a);
      dequantizeRotation(out.hi, out.lo, q);
      expect(rotationAngleDeg(r, q)).toBeLessThan(0.1);
      expect(Math.hypot(q[0], q[1], q[2], q[3])).toBeCloseTo(1, 12);
    }
  });

  it("changes only the low field for a slow turn", () => {
    // A 0.05° turn about y from an arbitrary orientation: the high bits usually stay.
    let lowOnly = 0;
    const prng = createPrng(5);
    for (let i = 0; i < 1000; i++) {
      const r = prng.unitQuaternion();
      const h = (0.05 * Math.PI) / 360;
      const s = Math.sin(h);
      const c = Math.cos(h);
      // r' = r ⊗ (0, s, 0, c)
      const t = [r[0] * c - r[2] * s, r[1] * c + r[3] * s, r[2] * c + r[0] * s, r[3] * c - r[1] * s];
      quantizeRotation(r[0], r[1], r[2], r[3], out);
      const before = { ...out };
      quantizeRotation(t[0], t[1], t[2], t[3], out);
      if (out.hi === before.hi) lowOnly++;
    }
    expect(lowOnly).toBeGreaterThan(500);
  });
});
