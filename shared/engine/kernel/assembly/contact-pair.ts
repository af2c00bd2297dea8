/*
 * Two constraints that share no moved body (schedule.ts), solved side by side: lane 0 of every f64x2
 * value is constraint c0's, lane 1 is c1's. The arithmetic is contact-solve.ts's `solveOne`, operation
 * for operation in the same order, so each lane's results are the serial pass's to the bit; keep the two
 * in step when either changes.
 *
 * Where the serial pass branches, both lanes compute and `pick` keeps, per lane, what the serial pass
 * would have: computing a skipped row and adding its zero impulse is not the same (v + -0 turns a -0
 * velocity into +0, and a skipped row's terms may not be finite). A lane past its constraint's last
 * point neither stores nor moves anything.
 */
import { BIAS_RATE, CS, DIST, D_AB, D_QUAT, GEOM, IAXN, IA_N, IA_T1, IA_T2, IBXN, IB_N, IB_T1, IB_T2, IMPULSE_SCALE, K11, K12, K22, LMAX, LN, L_T1, L_T2, L_TW, MASS_SCALE, MU, N, NMASS, POINTS, PS, RA, RAXN, RA_T1, RA_T2, RBXN, RB_T1, RB_T2, SD, SEP0, SM, SV, T1, T2, TWIST_MASS } from "../../dynamics/constraint-layout";
import { L2, LI, S2, S2M, pick } from "./memory";

// @ts-ignore: decorator
@inline function mul(a: v128, b: v128): v128 {
  return f64x2.mul(a, b);
}
// @ts-ignore: decorator
@inline function add(a: v128, b: v128): v128 {
  return f64x2.add(a, b);
}
// @ts-ignore: decorator
@inline function sub(a: v128, b: v128): v128 {
  return f64x2.sub(a, b);
}
/** a·b for 3-vectors, as the serial pass sums it: (ax bx + ay by) + az bz. */
// @ts-ignore: decorator
@inline function dot(ax: v128, ay: v128, az: v128, bx: v128, by: v128, bz: v128): v128 {
  return add(add(mul(ax, bx), mul(ay, by)), mul(az, bz));
}
/** A lane mask from two flags. */
// @ts-ignore: decorator
@inline function mask(on0: bool, on1: bool): v128 {
  return i64x2.replace_lane(i64x2.splat(on0 ? -1 : 0), 1, on1 ? -1 : 0);
}

/**
 * Solves constraints c0 and c1 (see contact-solve.ts `solveOne` for the rows and their reasons).
 * h, invH, maxPush, slop: the pass's scalars.
 */
export function solvePair(c0: i32, c1: i32, csP: usize, intsP: usize, velP: usize, deltaP: usize, massP: usize, invH: f64, maxPush: f64, slop: f64, useBias: bool, fresh: bool): void {
  const zero = f64x2.splat(0);
  const o0 = csP + ((<usize>c0 * CS) << 3);
  const o1 = csP + ((<usize>c1 * CS) << 3);
  const iA0 = LI(intsP, c0 * 4);
  const iB0 = LI(intsP, c0 * 4 + 1);
  const iA1 = LI(intsP, c1 * 4);
  const iB1 = LI(intsP, c1 * 4 + 1);
  const count0 = LI(intsP, c0 * 4 + 2);
  const count1 = LI(intsP, c1 * 4 + 2);
  const va0 = velP + ((<usize>iA0 * SV) << 3);
  const va1 = velP + ((<usize>iA1 * SV) << 3);
  const vb0 = velP + ((<usize>iB0 * SV) << 3);
  const vb1 = velP + ((<usize>iB1 * SV) << 3);
  const mA = L2(massP + ((<usize>iA0 * SM) << 3), massP + ((<usize>iA1 * SM) << 3), 0);
  const mB = L2(massP + ((<usize>iB0 * SM) << 3), massP + ((<usize>iB1 * SM) << 3), 0);
  let vax = L2(va0, va1, 0);
  let vay = L2(va0, va1, 1);
  let vaz = L2(va0, va1, 2);
  let wax = L2(va0, va1, 3);
  let way = L2(va0, va1, 4);
  let waz = L2(va0, va1, 5);
  let vbx = L2(vb0, vb1, 0);
  let vby = L2(vb0, vb1, 1);
  let vbz = L2(vb0, vb1, 2);
  let wbx = L2(vb0, vb1, 3);
  let wby = L2(vb0, vb1, 4);
  let wbz = L2(vb0, vb1, 5);
  const nx = L2(o0, o1, N);
  const ny = L2(o0, o1, N + 1);
  const nz = L2(o0, o1, N + 2);
  const mu = L2(o0, o1, MU);
  const most = count0 > count1 ? count0 : count1;
  const fewest = count0 < count1 ? count0 : count1;

  // Friction at the centre.
  let sumN = zero;
  let sumTwist = zero;
  for (let k = 0; k < most; k++) {
    const p = POINTS + k * PS;
    const ln = L2(o0, o1, p + LN);
    const tw = mul(ln, L2(o0, o1, p + DIST));
    if (k < fewest) {
      sumN = add(sumN, ln);
      sumTwist = add(sumTwist, tw);
    } else {
      const on = mask(k < count0, k < count1);
      sumN = pick(add(sumN, ln), sumN, on);
      sumTwist = pick(add(sumTwist, tw), sumTwist, on);
    }
  }
  const oldT1 = L2(o0, o1, L_T1);
  const oldT2 = L2(o0, o1, L_T2);
  const oldTw = L2(o0, o1, L_TW);
  const rubs = v128.and(
    f64x2.gt(mu, zero),
    v128.or(v128.or(f64x2.gt(sumN, zero), f64x2.ne(oldT1, zero)), v128.or(f64x2.ne(oldT2, zero), f64x2.ne(oldTw, zero))),
  );
  if (v128.any_true(rubs)) {
    const t1x = L2(o0, o1, T1);
    const t1y = L2(o0, o1, T1 + 1);
    const t1z = L2(o0, o1, T1 + 2);
    const t2x = L2(o0, o1, T2);
    const t2y = L2(o0, o1, T2 + 1);
    const t2z = L2(o0, o1, T2 + 2);
    const dvx = sub(vbx, vax);
    const dvy = sub(vby, vay);
    const dvz = sub(vbz, vaz);
    const vt1 = sub(
      add(add(add(dot(dvx, dvy, dvz, t1x, t1y, t1z), mul(wbx, L2(o0, o1, RB_T1))), mul(wby, L2(o0, o1, RB_T1 + 1))), mul(wbz, L2(o0, o1, RB_T1 + 2))),
      dot(wax, way, waz, L2(o0, o1, RA_T1), L2(o0, o1, RA_T1 + 1), L2(o0, o1, RA_T1 + 2)),
    );
    const vt2 = sub(
      add(add(add(dot(dvx, dvy, dvz, t2x, t2y, t2z), mul(wbx, L2(o0, o1, RB_T2))), mul(wby, L2(o0, o1, RB_T2 + 1))), mul(wbz, L2(o0, o1, RB_T2 + 2))),
      dot(wax, way, waz, L2(o0, o1, RA_T2), L2(o0, o1, RA_T2 + 1), L2(o0, o1, RA_T2 + 2)),
    );
    const k12 = L2(o0, o1, K12);
    let n1 = sub(oldT1, add(mul(L2(o0, o1, K11), vt1), mul(k12, vt2)));
    let n2 = sub(oldT2, add(mul(k12, vt1), mul(L2(o0, o1, K22), vt2)));
    const limit = mul(mu, sumN);
    const len2 = add(mul(n1, n1), mul(n2, n2));
    const over = f64x2.gt(len2, mul(limit, limit));
    const scale = pick(f64x2.div(limit, f64x2.sqrt(len2)), zero, f64x2.gt(len2, zero));
    n1 = pick(mul(n1, scale), n1, over);
    n2 = pick(mul(n2, scale), n2, over);
    const both = i64x2.all_true(rubs);
    if (!both) {
      n1 = pick(n1, oldT1, rubs);
      n2 = pick(n2, oldT2, rubs);
    }
    S2(o0, o1, L_T1, n1);
    S2(o0, o1, L_T2, n2);
    const d1 = sub(n1, oldT1);
    const d2 = sub(n2, oldT2);
    const px = add(mul(d1, t1x), mul(d2, t2x));
    const py = add(mul(d1, t1y), mul(d2, t2y));
    const pz = add(mul(d1, t1z), mul(d2, t2z));
    const nvax = sub(vax, mul(mA, px));
    const nvay = sub(vay, mul(mA, py));
    const nvaz = sub(vaz, mul(mA, pz));
    const nvbx = add(vbx, mul(mB, px));
    const nvby = add(vby, mul(mB, py));
    const nvbz = add(vbz, mul(mB, pz));
    const nwax = sub(wax, add(mul(d1, L2(o0, o1, IA_T1)), mul(d2, L2(o0, o1, IA_T2))));
    const nway = sub(way, add(mul(d1, L2(o0, o1, IA_T1 + 1)), mul(d2, L2(o0, o1, IA_T2 + 1))));
    const nwaz = sub(waz, add(mul(d1, L2(o0, o1, IA_T1 + 2)), mul(d2, L2(o0, o1, IA_T2 + 2))));
    const nwbx = add(wbx, add(mul(d1, L2(o0, o1, IB_T1)), mul(d2, L2(o0, o1, IB_T2))));
    const nwby = add(wby, add(mul(d1, L2(o0, o1, IB_T1 + 1)), mul(d2, L2(o0, o1, IB_T2 + 1))));
    const nwbz = add(wbz, add(mul(d1, L2(o0, o1, IB_T1 + 2)), mul(d2, L2(o0, o1, IB_T2 + 2))));
    if (both) {
      vax = nvax;
      vay = nvay;
      vaz = nvaz;
      vbx = nvbx;
      vby = nvby;
      vbz = nvbz;
      wax = nwax;
      way = nway;
      waz = nwaz;
      wbx = nwbx;
      wby = nwby;
      wbz = nwbz;
    } else {
      vax = pick(nvax, vax, rubs);
      vay = pick(nvay, vay, rubs);
      vaz = pick(nvaz, vaz, rubs);
      vbx = pick(nvbx, vbx, rubs);
      vby = pick(nvby, vby, rubs);
      vbz = pick(nvbz, vbz, rubs);
      wax = pick(nwax, wax, rubs);
      way = pick(nway, way, rubs);
      waz = pick(nwaz, waz, rubs);
      wbx = pick(nwbx, wbx, rubs);
      wby = pick(nwby, wby, rubs);
      wbz = pick(nwbz, wbz, rubs);
    }

    // Twist, where there is twist to hold.
    const twists = v128.and(rubs, v128.or(f64x2.gt(sumTwist, zero), f64x2.ne(oldTw, zero)));
    if (v128.any_true(twists)) {
      const vtw = dot(sub(wbx, wax), sub(wby, way), sub(wbz, waz), nx, ny, nz);
      const twLimit = mul(mu, sumTwist);
      const low = f64x2.neg(twLimit);
      let ntw = sub(oldTw, mul(L2(o0, o1, TWIST_MASS), vtw));
      ntw = pick(low, pick(twLimit, ntw, f64x2.gt(ntw, twLimit)), f64x2.lt(ntw, low));
      ntw = pick(ntw, oldTw, twists);
      S2(o0, o1, L_TW, ntw);
      const dtw = sub(ntw, oldTw);
      wax = pick(sub(wax, mul(dtw, L2(o0, o1, IA_N))), wax, twists);
      way = pick(sub(way, mul(dtw, L2(o0, o1, IA_N + 1))), way, twists);
      waz = pick(sub(waz, mul(dtw, L2(o0, o1, IA_N + 2))), waz, twists);
      wbx = pick(add(wbx, mul(dtw, L2(o0, o1, IB_N))), wbx, twists);
      wby = pick(add(wby, mul(dtw, L2(o0, o1, IB_N + 1))), wby, twists);
      wbz = pick(add(wbz, mul(dtw, L2(o0, o1, IB_N + 2))), wbz, twists);
    }
  }

  // Normal rows: the separation and the velocity at the anchors where they are now.
  const da0 = deltaP + ((<usize>iA0 * SD) << 3);
  const da1 = deltaP + ((<usize>iA1 * SD) << 3);
  const db0 = deltaP + ((<usize>iB0 * SD) << 3);
  const db1 = deltaP + ((<usize>iB1 * SD) << 3);
  const dabx = L2(o0, o1, D_AB);
  const daby = L2(o0, o1, D_AB + 1);
  const dabz = L2(o0, o1, D_AB + 2);
  let uax = zero;
  let uay = zero;
  let uaz = zero;
  let zax = zero;
  let zay = zero;
  let zaz = zero;
  {
    const qx = L2(da0, da1, D_QUAT);
    const qy = L2(da0, da1, D_QUAT + 1);
    const qz = L2(da0, da1, D_QUAT + 2);
    const turned = v128.or(v128.or(f64x2.ne(qx, zero), f64x2.ne(qy, zero)), f64x2.ne(qz, zero));
    if (v128.any_true(turned)) {
      const qw = L2(da0, da1, D_QUAT + 3);
      const two = f64x2.splat(2);
      if (fresh) {
        const tx = mul(two, sub(mul(ny, qz), mul(nz, qy)));
        const ty = mul(two, sub(mul(nz, qx), mul(nx, qz)));
        const tz = mul(two, sub(mul(nx, qy), mul(ny, qx)));
        uax = pick(add(mul(qw, tx), sub(mul(ty, qz), mul(tz, qy))), zero, turned);
        uay = pick(add(mul(qw, ty), sub(mul(tz, qx), mul(tx, qz))), zero, turned);
        uaz = pick(add(mul(qw, tz), sub(mul(tx, qy), mul(ty, qx))), zero, turned);
      }
      const cx = sub(mul(ny, waz), mul(nz, way));
      const cy = sub(mul(nz, wax), mul(nx, waz));
      const cz = sub(mul(nx, way), mul(ny, wax));
      const tx = mul(two, sub(mul(cy, qz), mul(cz, qy)));
      const ty = mul(two, sub(mul(cz, qx), mul(cx, qz)));
      const tz = mul(two, sub(mul(cx, qy), mul(cy, qx)));
      zax = pick(add(mul(qw, tx), sub(mul(ty, qz), mul(tz, qy))), zero, turned);
      zay = pick(add(mul(qw, ty), sub(mul(tz, qx), mul(tx, qz))), zero, turned);
      zaz = pick(add(mul(qw, tz), sub(mul(tx, qy), mul(ty, qx))), zero, turned);
    }
  }
  let ubx = zero;
  let uby = zero;
  let ubz = zero;
  let zbx = zero;
  let zby = zero;
  let zbz = zero;
  {
    const qx = L2(db0, db1, D_QUAT);
    const qy = L2(db0, db1, D_QUAT + 1);
    const qz = L2(db0, db1, D_QUAT + 2);
    const turned = v128.or(v128.or(f64x2.ne(qx, zero), f64x2.ne(qy, zero)), f64x2.ne(qz, zero));
    if (v128.any_true(turned)) {
      const qw = L2(db0, db1, D_QUAT + 3);
      const two = f64x2.splat(2);
      if (fresh) {
        const tx = mul(two, sub(mul(ny, qz), mul(nz, qy)));
        const ty = mul(two, sub(mul(nz, qx), mul(nx, qz)));
        const tz = mul(two, sub(mul(nx, qy), mul(ny, qx)));
        ubx = pick(add(mul(qw, tx), sub(mul(ty, qz), mul(tz, qy))), zero, turned);
        uby = pick(add(mul(qw, ty), sub(mul(tz, qx), mul(tx, qz))), zero, turned);
        ubz = pick(add(mul(qw, tz), sub(mul(tx, qy), mul(ty, qx))), zero, turned);
      }
      const cx = sub(mul(ny, wbz), mul(nz, wby));
      const cy = sub(mul(nz, wbx), mul(nx, wbz));
      const cz = sub(mul(nx, wby), mul(ny, wbx));
      const tx = mul(two, sub(mul(cy, qz), mul(cz, qy)));
      const ty = mul(two, sub(mul(cz, qx), mul(cx, qz)));
      const tz = mul(two, sub(mul(cx, qy), mul(cy, qx)));
      zbx = pick(add(mul(qw, tx), sub(mul(ty, qz), mul(tz, qy))), zero, turned);
      zby = pick(add(mul(qw, ty), sub(mul(tz, qx), mul(tx, qz))), zero, turned);
      zbz = pick(add(mul(qw, tz), sub(mul(tx, qy), mul(ty, qx))), zero, turned);
    }
  }
  let k0: v128;
  let s1: v128;
  let gx: v128;
  let gy: v128;
  let gz: v128;
  if (fresh) {
    // dpn: -(ΔpA·n) where A is not the immovable body 0, plus ΔpB·n where B is not.
    const dpa = f64x2.neg(dot(L2(da0, da1, 0), L2(da0, da1, 1), L2(da0, da1, 2), nx, ny, nz));
    let dpn = pick(dpa, zero, mask(iA0 !== 0, iA1 !== 0));
    const dpb = dot(L2(db0, db1, 0), L2(db0, db1, 1), L2(db0, db1, 2), nx, ny, nz);
    dpn = pick(add(dpn, dpb), dpn, mask(iB0 !== 0, iB1 !== 0));
    k0 = add(add(add(dpn, mul(ubx, dabx)), mul(uby, daby)), mul(ubz, dabz));
    s1 = add(add(add(f64x2.splat(1), mul(ubx, nx)), mul(uby, ny)), mul(ubz, nz));
    gx = sub(ubx, uax);
    gy = sub(uby, uay);
    gz = sub(ubz, uaz);
    S2(o0, o1, GEOM, k0);
    S2(o0, o1, GEOM + 1, s1);
    S2(o0, o1, GEOM + 2, gx);
    S2(o0, o1, GEOM + 3, gy);
    S2(o0, o1, GEOM + 4, gz);
  } else {
    k0 = L2(o0, o1, GEOM);
    s1 = L2(o0, o1, GEOM + 1);
    gx = L2(o0, o1, GEOM + 2);
    gy = L2(o0, o1, GEOM + 3);
    gz = L2(o0, o1, GEOM + 4);
  }
  const kz = dot(zbx, zby, zbz, dabx, daby, dabz);
  const sz = dot(zbx, zby, zbz, nx, ny, nz);
  const zx = sub(zbx, zax);
  const zy = sub(zby, zay);
  const zz = sub(zbz, zaz);
  const biasRate = L2(o0, o1, BIAS_RATE);
  const massScale = L2(o0, o1, MASS_SCALE);
  const impulseScale = L2(o0, o1, IMPULSE_SCALE);
  const invHs = f64x2.splat(invH);
  const slops = f64x2.splat(slop);
  const lowest = f64x2.neg(f64x2.splat(maxPush));
  const one = f64x2.splat(1);
  for (let k = 0; k < most; k++) {
    const p = POINTS + k * PS;
    const on0 = k < count0;
    const on1 = k < count1;
    const xax = L2(o0, o1, p + RAXN);
    const xay = L2(o0, o1, p + RAXN + 1);
    const xaz = L2(o0, o1, p + RAXN + 2);
    const xbx = L2(o0, o1, p + RBXN);
    const xby = L2(o0, o1, p + RBXN + 1);
    const xbz = L2(o0, o1, p + RBXN + 2);
    const s0 = L2(o0, o1, p + SEP0);
    const rax = L2(o0, o1, p + RA);
    const ray = L2(o0, o1, p + RA + 1);
    const raz = L2(o0, o1, p + RA + 2);
    const sep = add(add(add(add(mul(s0, s1), k0), mul(gx, rax)), mul(gy, ray)), mul(gz, raz));
    const apart = f64x2.gt(sep, zero);
    let bias = pick(mul(sep, invHs), zero, apart);
    let ms = one;
    let is = zero;
    if (useBias) {
      const s = add(sep, slops);
      let push = mul(biasRate, s);
      push = pick(lowest, push, f64x2.lt(push, lowest));
      push = pick(push, zero, f64x2.lt(s, zero));
      bias = pick(bias, push, apart);
      ms = pick(one, massScale, apart);
      is = pick(zero, impulseScale, apart);
    }
    // Summed left to right as the serial pass does.
    let vn = dot(sub(vbx, vax), sub(vby, vay), sub(vbz, vaz), nx, ny, nz);
    vn = add(vn, mul(wbx, xbx));
    vn = add(vn, mul(wby, xby));
    vn = add(vn, mul(wbz, xbz));
    vn = sub(vn, dot(wax, way, waz, xax, xay, xaz));
    vn = add(vn, kz);
    vn = add(vn, mul(s0, sz));
    vn = add(vn, mul(zx, rax));
    vn = add(vn, mul(zy, ray));
    vn = add(vn, mul(zz, raz));
    const old = L2(o0, o1, p + LN);
    let next = sub(sub(old, mul(mul(L2(o0, o1, p + NMASS), ms), add(vn, bias))), mul(is, old));
    next = pick(zero, next, f64x2.lt(next, zero));
    const lmax = L2(o0, o1, p + LMAX);
    const nextMax = pick(next, lmax, f64x2.gt(next, lmax));
    if (k < fewest) {
      S2(o0, o1, p + LN, next);
      S2(o0, o1, p + LMAX, nextMax);
    } else {
      S2M(o0, o1, p + LN, next, on0, on1);
      S2M(o0, o1, p + LMAX, nextMax, on0, on1);
    }
    const d = sub(next, old);
    const dA = mul(mA, d);
    const dB = mul(mB, d);
    const nvax = sub(vax, mul(dA, nx));
    const nvay = sub(vay, mul(dA, ny));
    const nvaz = sub(vaz, mul(dA, nz));
    const nwax = sub(wax, mul(d, L2(o0, o1, p + IAXN)));
    const nway = sub(way, mul(d, L2(o0, o1, p + IAXN + 1)));
    const nwaz = sub(waz, mul(d, L2(o0, o1, p + IAXN + 2)));
    const nvbx = add(vbx, mul(dB, nx));
    const nvby = add(vby, mul(dB, ny));
    const nvbz = add(vbz, mul(dB, nz));
    const nwbx = add(wbx, mul(d, L2(o0, o1, p + IBXN)));
    const nwby = add(wby, mul(d, L2(o0, o1, p + IBXN + 1)));
    const nwbz = add(wbz, mul(d, L2(o0, o1, p + IBXN + 2)));
    if (k < fewest) {
      vax = nvax;
      vay = nvay;
      vaz = nvaz;
      wax = nwax;
      way = nway;
      waz = nwaz;
      vbx = nvbx;
      vby = nvby;
      vbz = nvbz;
      wbx = nwbx;
      wby = nwby;
      wbz = nwbz;
    } else {
      const on = mask(on0, on1);
      vax = pick(nvax, vax, on);
      vay = pick(nvay, vay, on);
      vaz = pick(nvaz, vaz, on);
      wax = pick(nwax, wax, on);
      way = pick(nway, way, on);
      waz = pick(nwaz, waz, on);
      vbx = pick(nvbx, vbx, on);
      vby = pick(nvby, vby, on);
      vbz = pick(nvbz, vbz, on);
      wbx = pick(nwbx, wbx, on);
      wby = pick(nwby, wby, on);
      wbz = pick(nwbz, wbz, on);
    }
  }

  // Only moved bodies take the result (see solveOne).
  const aOn0 = f64x2.extract_lane(mA, 0) !== 0;
  const aOn1 = f64x2.extract_lane(mA, 1) !== 0;
  S2M(va0, va1, 0, vax, aOn0, aOn1);
  S2M(va0, va1, 1, vay, aOn0, aOn1);
  S2M(va0, va1, 2, vaz, aOn0, aOn1);
  S2M(va0, va1, 3, wax, aOn0, aOn1);
  S2M(va0, va1, 4, way, aOn0, aOn1);
  S2M(va0, va1, 5, waz, aOn0, aOn1);
  const bOn0 = f64x2.extract_lane(mB, 0) !== 0;
  const bOn1 = f64x2.extract_lane(mB, 1) !== 0;
  S2M(vb0, vb1, 0, vbx, bOn0, bOn1);
  S2M(vb0, vb1, 1, vby, bOn0, bOn1);
  S2M(vb0, vb1, 2, vbz, bOn0, bOn1);
  S2M(vb0, vb1, 3, wbx, bOn0, bOn1);
  S2M(vb0, vb1, 4, wby, bOn0, bOn1);
  S2M(vb0, vb1, 5, wbz, bOn0, bOn1);
}
