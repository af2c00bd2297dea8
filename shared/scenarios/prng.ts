import type { QuatTuple } from "../engine/types.ts";

/**
 * Seeded PRNG for scenes and tests: mulberry32 (Tommy Ettinger's 32-bit mixer). Only integer operations
 * (Math.imul, xor, shifts) touch the state and every double is a 32-bit integer divided by 2^32, with
 * sums and products of doubles correctly rounded, so the same seed gives the same bits in every
 * JavaScript engine. No Math.sin/cos/pow/exp: their last bits differ between engines.
 */
export interface Prng {
  /** Uniform double in [0, 1): a uniform 32-bit integer divided by 2^32 (exact). */
  next(): number;
  /** Uniform double in [min, max): min + (max - min) * next(). */
  range(min: number, max: number): number;
  /** Uniform integer in [0, n) for an integer n in [1, 2^21] (so next() * n is exact). */
  int(n: number): number;
  /** Uniformly distributed unit quaternion [x, y, z, w], by rejection sampling in the 4-ball. */
  unitQuaternion(): QuatTuple;
  /** Rotation about +y by a uniformly random angle, [0, sin(θ/2), 0, cos(θ/2)], by rejection in the disc. */
  yawQuaternion(): QuatTuple;
  /** The 32-bit state; `createPrng(p.state())` continues the same sequence. */
  state(): number;
}

/** Below this squared length a sample is rejected before normalising (its direction is poorly resolved). */
const MIN_SAMPLE_LENGTH_SQ = 1e-4;

export function createPrng(seed: number): Prng {
  let s = seed >>> 0;
  const next = (): number => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const symmetric = (): number => 2 * next() - 1;
  return {
    next,
    range: (min, max) => min + (max - min) * next(),
    int: (n) => Math.floor(next() * n),
    unitQuaternion: () => {
      for (;;) {
        const x = symmetric();
        const y = symmetric();
        const z = symmetric();
        const w = symmetric();
        const lengthSq = x * x + y * y + z * z + w * w;
        if (lengthSq > 1 || lengthSq < MIN_SAMPLE_LENGTH_SQ) continue;
        // Same formula as validateScenario's normalisation (which keeps an already-unit quaternion as is).
        const length = Math.sqrt(lengthSq);
        return [x / length, y / length, z / length, w / length];
      }
    },
    yawQuaternion: () => {
      for (;;) {
        const c = symmetric();
        const sn = symmetric();
        const lengthSq = c * c + sn * sn;
        if (lengthSq > 1 || lengthSq < MIN_SAMPLE_LENGTH_SQ) continue;
        const length = Math.sqrt(lengthSq);
        return [0, sn / length, 0, c / length];
      }
    },
    state: () => s,
  };
}
