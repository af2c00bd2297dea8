/**
 * Quantization of body poses for the wire. Pure functions, no allocation on the hot path; the server
 * quantizes, the browser dequantizes, and both use these exact functions.
 *
 * Position: 1 mm steps (error ≤ 0.5 mm). Each axis is an integer millimetre count q split into
 *   coarse = floor(q / 256)  (a 25.6 cm cell, a varint `number` on the wire: 1 B for |cells| < 32..127)
 *   fine   = q - 256 * coarse (0..255, a uint8)
 * so a body moving less than a cell per patch sends only the 2-byte fine field per axis, and the coarse
 * field only when it crosses a cell boundary.
 *
 * Rotation: "smallest three" with 12 bits per component (worst-case error ≈ 0.05°, test/net measures it).
 * The largest |component| is dropped (its index takes 2 bits) and the sign is chosen so it is positive;
 * the other three lie in [-1/√2, 1/√2]. 2 + 3 x 12 = 38 bits are split in two fields:
 *   rotHi (uint32) = index << 30 | a_hi << 20 | b_hi << 10 | c_hi   (top 10 bits of each component)
 *   rotLo (uint8)  = a_lo << 4 | b_lo << 2 | c_lo                    (low 2 bits of each component)
 * A slowly turning body only changes rotLo (2 B on the wire). 11 bits would fit 35 bits but measured a
 * worst case of 0.105°, just over the 0.1° budget; 10 bits (one uint32) measured 0.205°.
 */

/** Position quantum, metres. */
export const POSITION_STEP = 0.001;
/** Millimetres per coarse cell (the fine field's range). */
export const FINE_RANGE = 256;
/** Bits per smallest-three component. */
export const ROTATION_BITS = 12;
const ROT_MAX = (1 << ROTATION_BITS) - 1;
const ROT_LOW_BITS = 2;
const ROT_LOW_MASK = (1 << ROT_LOW_BITS) - 1;
const ROT_HIGH_MASK = (1 << (ROTATION_BITS - ROT_LOW_BITS)) - 1;
const RANGE = Math.SQRT1_2;

/** Integer millimetres of a coordinate in metres. */
export function quantizeMm(metres: number): number {
  return Math.round(metres / POSITION_STEP);
}

/** Coarse cell of an integer millimetre count. */
export function coarseOf(mm: number): number {
  return Math.floor(mm / FINE_RANGE);
}

/** Fine part (0..255) of an integer millimetre count. */
export function fineOf(mm: number): number {
  return mm - FINE_RANGE * Math.floor(mm / FINE_RANGE);
}

/** Metres from the coarse and fine fields. */
export function dequantizeAxis(coarse: number, fine: number): number {
  return (coarse * FINE_RANGE + fine) * POSITION_STEP;
}

function quantizeComponent(v: number): number {
  const i = Math.round(((v + RANGE) / (2 * RANGE)) * ROT_MAX);
  return i < 0 ? 0 : i > ROT_MAX ? ROT_MAX : i;
}

function dequantizeComponent(i: number): number {
  return (i / ROT_MAX) * 2 * RANGE - RANGE;
}

/** Output of `quantizeRotation`: the two wire fields. */
export interface PackedRotation {
  hi: number;
  lo: number;
}

/**
 * Packs the unit quaternion (x, y, z, w) into `out` (hi: uint32, lo: uint8). q and -q are the same
 * rotation, so the result is the same for both. Ties between equally large components pick the lowest
 * index, so the encoding is deterministic.
 */
export function quantizeRotation(x: number, y: number, z: number, w: number, out: PackedRotation): PackedRotation {
  const ax = Math.abs(x);
  const ay = Math.abs(y);
  const az = Math.abs(z);
  const aw = Math.abs(w);
  let index = 0;
  let big = ax;
  if (ay > big) {
    index = 1;
    big = ay;
  }
  if (az > big) {
    index = 2;
    big = az;
  }
  if (aw > big) index = 3;
  const largest = index === 0 ? x : index === 1 ? y : index === 2 ? z : w;
  const sign = largest < 0 ? -1 : 1;
  let a: number;
  let b: number;
  let c: number;
  if (index === 0) {
    a = y;
    b = z;
    c = w;
  } else if (index === 1) {
    a = x;
    b = z;
    c = w;
  } else if (index === 2) {
    a = x;
    b = y;
    c = w;
  } else {
    a = x;
    b = y;
    c = z;
  }
  const qa = quantizeComponent(a * sign);
  const qb = quantizeComponent(b * sign);
  const qc = quantizeComponent(c * sign);
  // >>> 0 keeps the top bit (index 2 or 3) from turning the uint32 negative.
  out.hi =
    ((index << 30) |
      ((qa >> ROT_LOW_BITS) << 20) |
      ((qb >> ROT_LOW_BITS) << 10) |
      (qc >> ROT_LOW_BITS)) >>>
    0;
  out.lo = ((qa & ROT_LOW_MASK) << 4) | ((qb & ROT_LOW_MASK) << 2) | (qc & ROT_LOW_MASK);
  return out;
}

/** Unpacks the two rotation fields into a unit quaternion [x, y, z, w] written to `out`. */
export function dequantizeRotation(hi: number, lo: number, out: number[] | Float64Array): void {
  const index = hi >>> 30;
  const qa = (((hi >>> 20) & ROT_HIGH_MASK) << ROT_LOW_BITS) | ((lo >> 4) & ROT_LOW_MASK);
  const qb = (((hi >>> 10) & ROT_HIGH_MASK) << ROT_LOW_BITS) | ((lo >> 2) & ROT_LOW_MASK);
  const qc = ((hi & ROT_HIGH_MASK) << ROT_LOW_BITS) | (lo & ROT_LOW_MASK);
  const a = dequantizeComponent(qa);
  const b = dequantizeComponent(qb);
  const c = dequantizeComponent(qc);
  const rest = 1 - a * a - b * b - c * c;
  const d = rest > 0 ? Math.sqrt(rest) : 0;
  let x: number;
  let y: number;
  let z: number;
  let w: number;
  if (index === 0) {
    x = d;
    y = a;
    z = b;
    w = c;
  } else if (index === 1) {
    x = a;
    y = d;
    z = b;
    w = c;
  } else if (index === 2) {
    x = a;
    y = b;
    z = d;
    w = c;
  } else {
    x = a;
    y = b;
    z = c;
    w = d;
  }
  // Renormalise: the three quantized components can make the sum of squares slightly exceed 1.
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  out[0] = x / len;
  out[1] = y / len;
  out[2] = z / len;
  out[3] = w / len;
}

/** Angle in degrees between two unit quaternions (as rotations: q and -q are 0° apart). */
export function rotationAngleDeg(a: ArrayLike<number>, b: ArrayLike<number>): number {
  const dot = Math.abs(a[0] * b[0] + a[1] * b[1] + a[2] * b[2] + a[3] * b[3]);
  const sinHalf = Math.sqrt(Math.max(0, 1 - dot * dot));
  return (2 * Math.atan2(sinHalf, dot) * 180) / Math.PI;
}
