/**
 * Quaternion helpers on flat Float64Arrays ([x, y, z, w] at an offset). Output first, no allocation.
 * Only + - * / and Math.sqrt are used, so results are bit-identical in every JavaScript engine.
 */

/**
 * out[o..o+2] = q ⊗ v ⊗ q* for the unit quaternion at qs[qo] and the vector at v[vo..vo+2]
 * (out may be v). Vectors travel in typed arrays, not as arguments: passing computed doubles to a
 * function V8 does not inline boxes each one on the heap, and that garbage is what a step must avoid.
 */
export function rotateVec(out: Float64Array, o: number, qs: Float64Array, qo: number, v: Float64Array, vo: number): void {
  const qx = qs[qo];
  const qy = qs[qo + 1];
  const qz = qs[qo + 2];
  const qw = qs[qo + 3];
  const vx = v[vo];
  const vy = v[vo + 1];
  const vz = v[vo + 2];
  // t = 2 (q.xyz × v); v' = v + w t + q.xyz × t
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** out[o..o+2] = q* ⊗ v ⊗ q (world to body frame); same conventions as rotateVec. */
export function inverseRotateVec(out: Float64Array, o: number, qs: Float64Array, qo: number, v: Float64Array, vo: number): void {
  const qx = -qs[qo];
  const qy = -qs[qo + 1];
  const qz = -qs[qo + 2];
  const qw = qs[qo + 3];
  const vx = v[vo];
  const vy = v[vo + 1];
  const vz = v[vo + 2];
  const tx = 2 * (qy * vz - qz * vy);
  const ty = 2 * (qz * vx - qx * vz);
  const tz = 2 * (qx * vy - qy * vx);
  out[o] = vx + qw * tx + (qy * tz - qz * ty);
  out[o + 1] = vy + qw * ty + (qz * tx - qx * tz);
  out[o + 2] = vz + qw * tz + (qx * ty - qy * tx);
}

/** Row-major 3x3 rotation matrix of the unit quaternion at qs[qo] into out[o..o+8]. Columns are body axes. */
export function matrixFromQuat(out: Float64Array, o: number, qs: Float64Array, qo: number): void {
  const x = qs[qo];
  const y = qs[qo + 1];
  const z = qs[qo + 2];
  const w = qs[qo + 3];
  const x2 = x + x;
  const y2 = y + y;
  const z2 = z + z;
  const xx = x * x2;
  const xy = x * y2;
  const xz = x * z2;
  const yy = y * y2;
  const yz = y * z2;
  const zz = z * z2;
  const wx = w * x2;
  const wy = w * y2;
  const wz = w * z2;
  out[o] = 1 - (yy + zz);
  out[o + 1] = xy - wz;
  out[o + 2] = xz + wy;
  out[o + 3] = xy + wz;
  out[o + 4] = 1 - (xx + zz);
  out[o + 5] = yz - wx;
  out[o + 6] = xz - wy;
  out[o + 7] = yz + wx;
  out[o + 8] = 1 - (xx + yy);
}

/** Normalises the quaternion at qs[qo] in place; a zero quaternion becomes identity. */
export function normalizeQuatAt(qs: Float64Array, qo: number): void {
  const x = qs[qo];
  const y = qs[qo + 1];
  const z = qs[qo + 2];
  const w = qs[qo + 3];
  const n2 = x * x + y * y + z * z + w * w;
  if (n2 > 0) {
    const inv = 1 / Math.sqrt(n2);
    qs[qo] = x * inv;
    qs[qo + 1] = y * inv;
    qs[qo + 2] = z * inv;
    qs[qo + 3] = w * inv;
  } else {
    qs[qo] = 0;
    qs[qo + 1] = 0;
    qs[qo + 2] = 0;
    qs[qo + 3] = 1;
  }
}

/**
 * out[o..o+3] = conj(a) ⊗ b when `conjA`, else a ⊗ b, for quaternions at a[ao] and b[bo] (out may alias
 * neither). conj(qA) ⊗ qB is B's orientation seen from A.
 */
export function multiplyQuat(out: Float64Array, o: number, a: Float64Array, ao: number, b: Float64Array, bo: number, conjA: boolean): void {
  const s = conjA ? -1 : 1;
  const ax = s * a[ao];
  const ay = s * a[ao + 1];
  const az = s * a[ao + 2];
  const aw = a[ao + 3];
  const bx = b[bo];
  const by = b[bo + 1];
  const bz = b[bo + 2];
  const bw = b[bo + 3];
  out[o] = aw * bx + ax * bw + ay * bz - az * by;
  out[o + 1] = aw * by - ax * bz + ay * bw + az * bx;
  out[o + 2] = aw * bz + ax * by - ay * bx + az * bw;
  out[o + 3] = aw * bw - ax * bx - ay * by - az * bz;
}
