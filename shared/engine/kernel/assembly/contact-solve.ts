/*
 * The contact solver's Gauss-Seidel pass (ContactSolver.solve) in AssemblyScript, compiled to
 * WebAssembly by `npm run build:kernel` into ../contact-kernel.wasm.ts.
 *
 * Why WebAssembly: the pass is bound by instruction count, and a JavaScript typed-array access is an
 * index computation, a bounds check and a load where WebAssembly needs one load with a constant offset;
 * the same arithmetic runs 20-40 % faster (measured on the bench scenes' constraints, README "Engine
 * benchmark"). Why it stays exact: every operation here is an IEEE-754 double operation that
 * WebAssembly defines bit for bit (add, sub, mul, div, sqrt, compares), in the order the source writes
 * them, with no fused multiply-add; so the results equal the JavaScript passes' to the bit, in Node and
 * in every browser. Keep it that way: no f32, no relaxed SIMD, no reassociation.
 *
 * Two at a time: the pass visits the constraints in slots (schedule.ts). Two that move no common body are
 * solved side by side in the lanes of f64x2 instructions (contact-pair.ts, the same operations per lane as
 * `solveOne` here; change both together), which is the serial order's result, bit for bit.
 *
 * Memory: the caller (SolverMemory) lays the constraints, their body indices and the solver bodies out in
 * the imported memory and passes byte addresses; the layouts are constraint-layout.ts's.
 */
import { BIAS_RATE, CS, DIST, D_AB, D_QUAT, GEOM, IAXN, IA_N, IA_T1, IA_T2, IBXN, IB_N, IB_T1, IB_T2, IMPULSE_SCALE, K11, K12, K22, LMAX, LN, L_T1, L_T2, L_TW, MASS_SCALE, MU, N, NMASS, POINTS, PS, RA, RAXN, RA_T1, RA_T2, RBXN, RB_T1, RB_T2, SD, SEP0, T1, T2, TOTAL, TWIST_MASS } from "../../dynamics/constraint-layout";
import { solvePair } from "./contact-pair";
import { L, LI, S } from "./memory";

export { prepare } from "./contact-prepare";
export { schedule } from "./schedule";

/**
 * One pass over the constraints in the order of `slots` slots at schedP (schedule.ts): a slot of two is
 * solved side by side (contact-pair.ts), a single by `solveOne`. `useBias` adds the soft bias; `fresh`
 * recomputes the separation terms (GEOM) after positions moved.
 */
export function solve(paramsP: usize, csP: usize, intsP: usize, velP: usize, deltaP: usize, massP: usize, schedP: usize, slots: i32, useBias: bool, fresh: bool): void {
  // The step's scalars come through memory (SolverMemory.params: h, maxPush, slop): doubles passed as
  // arguments from JavaScript would be boxed on every call.
  const h = L(paramsP, 0);
  const maxPush = L(paramsP, 1);
  const slop = L(paramsP, 2);
  const invH = 1 / h;
  for (let s = 0; s < slots; s++) {
    const c0 = LI(schedP, s * 2);
    const c1 = LI(schedP, s * 2 + 1);
    if (c1 < 0) solveOne(c0, csP, intsP, velP, deltaP, massP, invH, maxPush, slop, useBias, fresh);
    else solvePair(c0, c1, csP, intsP, velP, deltaP, massP, invH, maxPush, slop, useBias, fresh);
  }
}

/** Constraint i: friction at the centre, twist, then the normal rows. */
// @ts-ignore: decorator
@inline function solveOne(i: i32, csP: usize, intsP: usize, velP: usize, deltaP: usize, massP: usize, invH: f64, maxPush: f64, slop: f64, useBias: bool, fresh: bool): void {
  const o = i * CS;
  const iA = LI(intsP, i * 4);
  const iB = LI(intsP, i * 4 + 1);
  const va = iA * 6;
  const vb = iB * 6;
  const mA = L(massP, iA * 7);
  const mB = L(massP, iB * 7);
  let vax = L(velP, va);
  let vay = L(velP, va + 1);
  let vaz = L(velP, va + 2);
  let wax = L(velP, va + 3);
  let way = L(velP, va + 4);
  let waz = L(velP, va + 5);
  let vbx = L(velP, vb);
  let vby = L(velP, vb + 1);
  let vbz = L(velP, vb + 2);
  let wbx = L(velP, vb + 3);
  let wby = L(velP, vb + 4);
  let wbz = L(velP, vb + 5);
  const nx = L(csP, o + N);
  const ny = L(csP, o + N + 1);
  const nz = L(csP, o + N + 2);
  const count = LI(intsP, i * 4 + 2);
  const mu = L(csP, o + MU);

  // Friction at the centre, limited by μ Σλn (and μ Σλn·d for twist).
  let sumN: f64 = 0;
  let sumTwist: f64 = 0;
  for (let k = 0; k < count; k++) {
    const p = o + POINTS + k * PS;
    sumN += L(csP, p + LN);
    sumTwist += L(csP, p + LN) * L(csP, p + DIST);
  }
  // A contact carrying no load and no friction impulse (speculative, not touching) has nothing to do.
  if (mu > 0 && (sumN > 0 || L(csP, o + L_T1) !== 0 || L(csP, o + L_T2) !== 0 || L(csP, o + L_TW) !== 0)) {
    const t1x = L(csP, o + T1);
    const t1y = L(csP, o + T1 + 1);
    const t1z = L(csP, o + T1 + 2);
    const t2x = L(csP, o + T2);
    const t2y = L(csP, o + T2 + 1);
    const t2z = L(csP, o + T2 + 2);
    const dvx = vbx - vax;
    const dvy = vby - vay;
    const dvz = vbz - vaz;
    const vt1 =
      dvx * t1x + dvy * t1y + dvz * t1z +
      wbx * L(csP, o + RB_T1) + wby * L(csP, o + RB_T1 + 1) + wbz * L(csP, o + RB_T1 + 2) -
      (wax * L(csP, o + RA_T1) + way * L(csP, o + RA_T1 + 1) + waz * L(csP, o + RA_T1 + 2));
    const vt2 =
      dvx * t2x + dvy * t2y + dvz * t2z +
      wbx * L(csP, o + RB_T2) + wby * L(csP, o + RB_T2 + 1) + wbz * L(csP, o + RB_T2 + 2) -
      (wax * L(csP, o + RA_T2) + way * L(csP, o + RA_T2 + 1) + waz * L(csP, o + RA_T2 + 2));
    const old1 = L(csP, o + L_T1);
    const old2 = L(csP, o + L_T2);
    let n1 = old1 - (L(csP, o + K11) * vt1 + L(csP, o + K12) * vt2);
    let n2 = old2 - (L(csP, o + K12) * vt1 + L(csP, o + K22) * vt2);
    const limit = mu * sumN;
    const len2 = n1 * n1 + n2 * n2;
    if (len2 > limit * limit) {
      const scale = len2 > 0 ? limit / Math.sqrt(len2) : 0;
      n1 *= scale;
      n2 *= scale;
    }
    S(csP, o + L_T1, n1);
    S(csP, o + L_T2, n2);
    const d1 = n1 - old1;
    const d2 = n2 - old2;
    const px = d1 * t1x + d2 * t2x;
    const py = d1 * t1y + d2 * t2y;
    const pz = d1 * t1z + d2 * t2z;
    vax -= mA * px;
    vay -= mA * py;
    vaz -= mA * pz;
    vbx += mB * px;
    vby += mB * py;
    vbz += mB * pz;
    wax -= d1 * L(csP, o + IA_T1) + d2 * L(csP, o + IA_T2);
    way -= d1 * L(csP, o + IA_T1 + 1) + d2 * L(csP, o + IA_T2 + 1);
    waz -= d1 * L(csP, o + IA_T1 + 2) + d2 * L(csP, o + IA_T2 + 2);
    wbx += d1 * L(csP, o + IB_T1) + d2 * L(csP, o + IB_T2);
    wby += d1 * L(csP, o + IB_T1 + 1) + d2 * L(csP, o + IB_T2 + 1);
    wbz += d1 * L(csP, o + IB_T1 + 2) + d2 * L(csP, o + IB_T2 + 2);

    // Twist, limited by μ Σλn·d: a single point (d = 0) or an unloaded manifold holding no twist
    // impulse has none to give.
    const oldTw = L(csP, o + L_TW);
    if (sumTwist > 0 || oldTw !== 0) {
      const vtw = (wbx - wax) * nx + (wby - way) * ny + (wbz - waz) * nz;
      const twLimit = mu * sumTwist;
      let ntw = oldTw - L(csP, o + TWIST_MASS) * vtw;
      ntw = ntw < -twLimit ? -twLimit : ntw > twLimit ? twLimit : ntw;
      S(csP, o + L_TW, ntw);
      const dtw = ntw - oldTw;
      wax -= dtw * L(csP, o + IA_N);
      way -= dtw * L(csP, o + IA_N + 1);
      waz -= dtw * L(csP, o + IA_N + 2);
      wbx += dtw * L(csP, o + IB_N);
      wby += dtw * L(csP, o + IB_N + 1);
      wbz += dtw * L(csP, o + IB_N + 2);
    }
  }

  // Normal rows. The current separation follows the anchors as material points of their bodies
  // (constraint-layout.ts, RA): s = s0 + n·(ΔpB - ΔpA) + n·(RB - I) rB - n·(RA - I) rA, with
  // rB = rA + dAB + s0 n, i.e. s = s0·s1 + k0 + g·rA using u = (R - I)ᵀ n per body (Box2D v3).
  // The normal velocity is measured at the anchors where they are now, not where they were at the
  // start of the step: n·(ω × R r) = n·(ω × r) + r·z with z = (R - I)ᵀ (n × ω). Otherwise a point
  // that has turned past its closest approach still seems to close at its start-of-step speed, and a
  // speculative contact brakes a body that will never touch (impulses keep the start-of-step
  // directions, as in Box2D; the fixed point is the constraint at the current pose). Per point that
  // is c = zB·rB - zA·rA = kz + s0·sz + (zB - zA)·rA.
  // The separation terms change only when positions do: a pass after integratePositions computes
  // them (`fresh`) and keeps them in the constraint (GEOM), and the passes up to the next
  // integratePositions read them back.
  const da = iA * SD;
  const db = iB * SD;
  const dabx = L(csP, o + D_AB);
  const daby = L(csP, o + D_AB + 1);
  const dabz = L(csP, o + D_AB + 2);
  // z = (R - I)ᵀ (n × ω) and, when fresh, u = (R - I)ᵀ n, per body: both zero while the body has
  // not turned this step (qΔ.xyz = 0: the immovable body 0, spheres, and every body in the first
  // sub-step), which skips their products.
  let uax: f64 = 0;
  let uay: f64 = 0;
  let uaz: f64 = 0;
  let zax: f64 = 0;
  let zay: f64 = 0;
  let zaz: f64 = 0;
  const qa = da + D_QUAT;
  if (L(deltaP, qa) !== 0 || L(deltaP, qa + 1) !== 0 || L(deltaP, qa + 2) !== 0) {
    const qx = L(deltaP, qa);
    const qy = L(deltaP, qa + 1);
    const qz = L(deltaP, qa + 2);
    const qw = L(deltaP, qa + 3);
    // (R - I)ᵀ v = R⁻¹ v - v for the unit quaternion qΔ = (x, y, z, w): with t = 2 (v × q.xyz),
    // R⁻¹ v - v = w t + t × q.xyz (q.xyz negated in the usual rotation formula).
    if (fresh) {
      const tx = 2 * (ny * qz - nz * qy);
      const ty = 2 * (nz * qx - nx * qz);
      const tz = 2 * (nx * qy - ny * qx);
      uax = qw * tx + (ty * qz - tz * qy);
      uay = qw * ty + (tz * qx - tx * qz);
      uaz = qw * tz + (tx * qy - ty * qx);
    }
    const cx = ny * waz - nz * way;
    const cy = nz * wax - nx * waz;
    const cz = nx * way - ny * wax;
    const tx = 2 * (cy * qz - cz * qy);
    const ty = 2 * (cz * qx - cx * qz);
    const tz = 2 * (cx * qy - cy * qx);
    zax = qw * tx + (ty * qz - tz * qy);
    zay = qw * ty + (tz * qx - tx * qz);
    zaz = qw * tz + (tx * qy - ty * qx);
  }
  let ubx: f64 = 0;
  let uby: f64 = 0;
  let ubz: f64 = 0;
  let zbx: f64 = 0;
  let zby: f64 = 0;
  let zbz: f64 = 0;
  const qb = db + D_QUAT;
  if (L(deltaP, qb) !== 0 || L(deltaP, qb + 1) !== 0 || L(deltaP, qb + 2) !== 0) {
    const qx = L(deltaP, qb);
    const qy = L(deltaP, qb + 1);
    const qz = L(deltaP, qb + 2);
    const qw = L(deltaP, qb + 3);
    if (fresh) {
      const tx = 2 * (ny * qz - nz * qy);
      const ty = 2 * (nz * qx - nx * qz);
      const tz = 2 * (nx * qy - ny * qx);
      ubx = qw * tx + (ty * qz - tz * qy);
      uby = qw * ty + (tz * qx - tx * qz);
      ubz = qw * tz + (tx * qy - ty * qx);
    }
    const cx = ny * wbz - nz * wby;
    const cy = nz * wbx - nx * wbz;
    const cz = nx * wby - ny * wbx;
    const tx = 2 * (cy * qz - cz * qy);
    const ty = 2 * (cz * qx - cx * qz);
    const tz = 2 * (cx * qy - cy * qx);
    zbx = qw * tx + (ty * qz - tz * qy);
    zby = qw * ty + (tz * qx - tx * qz);
    zbz = qw * tz + (tx * qy - ty * qx);
  }
  let k0: f64;
  let s1: f64;
  let gx: f64;
  let gy: f64;
  let gz: f64;
  if (fresh) {
    let dpn: f64 = 0;
    if (iA !== 0) dpn = -(L(deltaP, da) * nx + L(deltaP, da + 1) * ny + L(deltaP, da + 2) * nz);
    if (iB !== 0) dpn += L(deltaP, db) * nx + L(deltaP, db + 1) * ny + L(deltaP, db + 2) * nz;
    k0 = dpn + ubx * dabx + uby * daby + ubz * dabz;
    s1 = 1 + ubx * nx + uby * ny + ubz * nz;
    gx = ubx - uax;
    gy = uby - uay;
    gz = ubz - uaz;
    S(csP, o + GEOM, k0);
    S(csP, o + GEOM + 1, s1);
    S(csP, o + GEOM + 2, gx);
    S(csP, o + GEOM + 3, gy);
    S(csP, o + GEOM + 4, gz);
  } else {
    k0 = L(csP, o + GEOM);
    s1 = L(csP, o + GEOM + 1);
    gx = L(csP, o + GEOM + 2);
    gy = L(csP, o + GEOM + 3);
    gz = L(csP, o + GEOM + 4);
  }
  const kz = zbx * dabx + zby * daby + zbz * dabz;
  const sz = zbx * nx + zby * ny + zbz * nz;
  const zx = zbx - zax;
  const zy = zby - zay;
  const zz = zbz - zaz;
  const biasRate = L(csP, o + BIAS_RATE);
  const massScale = L(csP, o + MASS_SCALE);
  const impulseScale = L(csP, o + IMPULSE_SCALE);
  for (let k = 0; k < count; k++) {
    const p = o + POINTS + k * PS;
    const xax = L(csP, p + RAXN);
    const xay = L(csP, p + RAXN + 1);
    const xaz = L(csP, p + RAXN + 2);
    const xbx = L(csP, p + RBXN);
    const xby = L(csP, p + RBXN + 1);
    const xbz = L(csP, p + RBXN + 2);
    const s0 = L(csP, p + SEP0);
    const rax = L(csP, p + RA);
    const ray = L(csP, p + RA + 1);
    const raz = L(csP, p + RA + 2);
    const sep = s0 * s1 + k0 + gx * rax + gy * ray + gz * raz;
    let bias: f64 = 0;
    let ms: f64 = 1;
    let is: f64 = 0;
    if (sep > 0) {
      bias = sep * invH;
    } else if (useBias) {
      const s = sep + slop;
      if (s < 0) {
        bias = biasRate * s;
        if (bias < -maxPush) bias = -maxPush;
      }
      ms = massScale;
      is = impulseScale;
    }
    const vn =
      (vbx - vax) * nx + (vby - vay) * ny + (vbz - vaz) * nz +
      wbx * xbx + wby * xby + wbz * xbz - (wax * xax + way * xay + waz * xaz) +
      kz + s0 * sz + zx * rax + zy * ray + zz * raz;
    const old = L(csP, p + LN);
    let next = old - L(csP, p + NMASS) * ms * (vn + bias) - is * old;
    if (next < 0) next = 0;
    S(csP, p + LN, next);
    if (next > L(csP, p + LMAX)) S(csP, p + LMAX, next);
    const d = next - old;
    vax -= mA * d * nx;
    vay -= mA * d * ny;
    vaz -= mA * d * nz;
    wax -= d * L(csP, p + IAXN);
    way -= d * L(csP, p + IAXN + 1);
    waz -= d * L(csP, p + IAXN + 2);
    vbx += mB * d * nx;
    vby += mB * d * ny;
    vbz += mB * d * nz;
    wbx += d * L(csP, p + IBXN);
    wby += d * L(csP, p + IBXN + 1);
    wbz += d * L(csP, p + IBXN + 2);
  }

  // Only dynamic bodies take the result. Static, sleeping and kinematic partners would only get
  // exact zeros added, but a non-finite impulse (0 × NaN) must not reach the shared immovable body
  // and spread from it to every other contact.
  if (mA !== 0) {
    S(velP, va, vax);
    S(velP, va + 1, vay);
    S(velP, va + 2, vaz);
    S(velP, va + 3, wax);
    S(velP, va + 4, way);
    S(velP, va + 5, waz);
  }
  if (mB !== 0) {
    S(velP, vb, vbx);
    S(velP, vb + 1, vby);
    S(velP, vb + 2, vbz);
    S(velP, vb + 3, wbx);
    S(velP, vb + 4, wby);
    S(velP, vb + 5, wbz);
  }
}

/** Re-applies the accumulated impulses (warm start): ContactSolver.warmStart, bit for bit. */
export function warmStart(csP: usize, intsP: usize, velP: usize, massP: usize, count: i32): void {
  for (let i = 0; i < count; i++) {
    const o = i * CS;
    const iA = LI(intsP, i * 4);
    const iB = LI(intsP, i * 4 + 1);
    const va = iA * 6;
    const vb = iB * 6;
    const mA = L(massP, iA * 7);
    const mB = L(massP, iB * 7);
    const nx = L(csP, o + N);
    const ny = L(csP, o + N + 1);
    const nz = L(csP, o + N + 2);
    const lt1 = L(csP, o + L_T1);
    const lt2 = L(csP, o + L_T2);
    const ltw = L(csP, o + L_TW);
    // Linear impulse: Σλn n + λt1 t1 + λt2 t2
    let px = lt1 * L(csP, o + T1) + lt2 * L(csP, o + T2);
    let py = lt1 * L(csP, o + T1 + 1) + lt2 * L(csP, o + T2 + 1);
    let pz = lt1 * L(csP, o + T1 + 2) + lt2 * L(csP, o + T2 + 2);
    let awx = lt1 * L(csP, o + IA_T1) + lt2 * L(csP, o + IA_T2) + ltw * L(csP, o + IA_N);
    let awy = lt1 * L(csP, o + IA_T1 + 1) + lt2 * L(csP, o + IA_T2 + 1) + ltw * L(csP, o + IA_N + 1);
    let awz = lt1 * L(csP, o + IA_T1 + 2) + lt2 * L(csP, o + IA_T2 + 2) + ltw * L(csP, o + IA_N + 2);
    let bwx = lt1 * L(csP, o + IB_T1) + lt2 * L(csP, o + IB_T2) + ltw * L(csP, o + IB_N);
    let bwy = lt1 * L(csP, o + IB_T1 + 1) + lt2 * L(csP, o + IB_T2 + 1) + ltw * L(csP, o + IB_N + 1);
    let bwz = lt1 * L(csP, o + IB_T1 + 2) + lt2 * L(csP, o + IB_T2 + 2) + ltw * L(csP, o + IB_N + 2);
    const points = LI(intsP, i * 4 + 2);
    for (let k = 0; k < points; k++) {
      const p = o + POINTS + k * PS;
      const ln = L(csP, p + LN);
      S(csP, p + TOTAL, L(csP, p + TOTAL) + ln);
      px += ln * nx;
      py += ln * ny;
      pz += ln * nz;
      awx += ln * L(csP, p + IAXN);
      awy += ln * L(csP, p + IAXN + 1);
      awz += ln * L(csP, p + IAXN + 2);
      bwx += ln * L(csP, p + IBXN);
      bwy += ln * L(csP, p + IBXN + 1);
      bwz += ln * L(csP, p + IBXN + 2);
    }
    if (mA !== 0) {
      S(velP, va, L(velP, va) - (mA * px));
      S(velP, va + 1, L(velP, va + 1) - (mA * py));
      S(velP, va + 2, L(velP, va + 2) - (mA * pz));
      S(velP, va + 3, L(velP, va + 3) - awx);
      S(velP, va + 4, L(velP, va + 4) - awy);
      S(velP, va + 5, L(velP, va + 5) - awz);
    }
    if (mB !== 0) {
      S(velP, vb, L(velP, vb) + (mB * px));
      S(velP, vb + 1, L(velP, vb + 1) + (mB * py));
      S(velP, vb + 2, L(velP, vb + 2) + (mB * pz));
      S(velP, vb + 3, L(velP, vb + 3) + bwx);
      S(velP, vb + 4, L(velP, vb + 4) + bwy);
      S(velP, vb + 5, L(velP, vb + 5) + bwz);
    }
  }
}
