/*
 * The arithmetic half of preparing contact constraints (dynamics/contact-prepare.ts stages the inputs):
 * tangent basis, lever arms, effective masses, pre-solve normal velocities and the friction anchor at the
 * centre of the points. The same operations in the same order as the JavaScript it replaced, so the
 * constraints are identical to the bit.
 *
 * Staged by the JavaScript, per constraint (fields of its own row, overwritten here once read):
 * - final already: MU, REST, N, BIAS_RATE, MASS_SCALE, IMPULSE_SCALE, D_AB, L_TW, and per point SEP0, LN;
 * - A's centre in RA_T1 (3) and B's in RB_T1 (3);
 * - the contact's carried friction impulse (a world vector) in K11, K12, K22;
 * - per point, the contact midpoint in RA (3).
 */
import { CS, D_AB, DIST, IAXN, IA_N, IA_T1, IA_T2, IBXN, IB_N, IB_T1, IB_T2, K11, K12, K22, LMAX, LN, L_T1, L_T2, N, NMASS, POINTS, PS, RA, RAXN, RA_T1, RA_T2, RBXN, RB_T1, RB_T2, SEP0, SM, SV, T1, T2, TOTAL, TWIST_MASS, VN0 } from "../../dynamics/constraint-layout";
import { L, LI, S } from "./memory";

/** Completes `count` staged constraints; `warm`: carry the friction impulses (warm starting on). */
export function prepare(csP: usize, intsP: usize, velP: usize, massP: usize, count: i32, warm: bool): void {
  for (let i = 0; i < count; i++) {
    const o = i * CS;
    const iA = LI(intsP, i * 4);
    const iB = LI(intsP, i * 4 + 1);
    const points = LI(intsP, i * 4 + 2);
    const nx = L(csP, o + N);
    const ny = L(csP, o + N + 1);
    const nz = L(csP, o + N + 2);
    // Tangent basis from the normal alone (deterministic); friction impulses are carried as a world
    // vector, so the basis may change between ticks.
    let t1x: f64;
    let t1y: f64;
    let t1z: f64;
    if (Math.abs(nx) >= 0.57735) {
      const inv = 1 / Math.sqrt(nx * nx + ny * ny);
      t1x = ny * inv;
      t1y = -nx * inv;
      t1z = 0;
    } else {
      const inv = 1 / Math.sqrt(ny * ny + nz * nz);
      t1x = 0;
      t1y = nz * inv;
      t1z = -ny * inv;
    }
    const t2x = ny * t1z - nz * t1y;
    const t2y = nz * t1x - nx * t1z;
    const t2z = nx * t1y - ny * t1x;
    S(csP, o + T1, t1x);
    S(csP, o + T1 + 1, t1y);
    S(csP, o + T1 + 2, t1z);
    S(csP, o + T2, t2x);
    S(csP, o + T2 + 1, t2y);
    S(csP, o + T2 + 2, t2z);

    const aM = iA * SM;
    const bM = iB * SM;
    const mA = L(massP, aM);
    const mB = L(massP, bM);
    const a00 = L(massP, aM + 1);
    const a01 = L(massP, aM + 2);
    const a02 = L(massP, aM + 3);
    const a11 = L(massP, aM + 4);
    const a12 = L(massP, aM + 5);
    const a22 = L(massP, aM + 6);
    const b00 = L(massP, bM + 1);
    const b01 = L(massP, bM + 2);
    const b02 = L(massP, bM + 3);
    const b11 = L(massP, bM + 4);
    const b12 = L(massP, bM + 5);
    const b22 = L(massP, bM + 6);

    const pax = L(csP, o + RA_T1);
    const pay = L(csP, o + RA_T1 + 1);
    const paz = L(csP, o + RA_T1 + 2);
    const pbx = L(csP, o + RB_T1);
    const pby = L(csP, o + RB_T1 + 1);
    const pbz = L(csP, o + RB_T1 + 2);
    const va = iA * SV;
    const vb = iB * SV;
    const dvx = L(velP, vb) - L(velP, va);
    const dvy = L(velP, vb + 1) - L(velP, va + 1);
    const dvz = L(velP, vb + 2) - L(velP, va + 2);
    const dvn = dvx * nx + dvy * ny + dvz * nz;
    const waX = L(velP, va + 3);
    const waY = L(velP, va + 4);
    const waZ = L(velP, va + 5);
    const wbX = L(velP, vb + 3);
    const wbY = L(velP, vb + 4);
    const wbZ = L(velP, vb + 5);

    let cx: f64 = 0;
    let cy: f64 = 0;
    let cz: f64 = 0;
    for (let k = 0; k < points; k++) {
      const p = o + POINTS + k * PS;
      cx += L(csP, p + RA);
      cy += L(csP, p + RA + 1);
      cz += L(csP, p + RA + 2);
    }
    const invCount = 1 / <f64>points;
    cx *= invCount;
    cy *= invCount;
    cz *= invCount;

    for (let k = 0; k < points; k++) {
      const p = o + POINTS + k * PS;
      const mx = L(csP, p + RA);
      const my = L(csP, p + RA + 1);
      const mz = L(csP, p + RA + 2);
      const rax = mx - pax;
      const ray = my - pay;
      const raz = mz - paz;
      const rbx = mx - pbx;
      const rby = my - pby;
      const rbz = mz - pbz;
      const xax = ray * nz - raz * ny;
      const xay = raz * nx - rax * nz;
      const xaz = rax * ny - ray * nx;
      const xbx = rby * nz - rbz * ny;
      const xby = rbz * nx - rbx * nz;
      const xbz = rbx * ny - rby * nx;
      const iax = a00 * xax + a01 * xay + a02 * xaz;
      const iay = a01 * xax + a11 * xay + a12 * xaz;
      const iaz = a02 * xax + a12 * xay + a22 * xaz;
      const ibx = b00 * xbx + b01 * xby + b02 * xbz;
      const iby = b01 * xbx + b11 * xby + b12 * xbz;
      const ibz = b02 * xbx + b12 * xby + b22 * xbz;
      S(csP, p + RAXN, xax);
      S(csP, p + RAXN + 1, xay);
      S(csP, p + RAXN + 2, xaz);
      S(csP, p + RBXN, xbx);
      S(csP, p + RBXN + 1, xby);
      S(csP, p + RBXN + 2, xbz);
      S(csP, p + IAXN, iax);
      S(csP, p + IAXN + 1, iay);
      S(csP, p + IAXN + 2, iaz);
      S(csP, p + IBXN, ibx);
      S(csP, p + IBXN + 1, iby);
      S(csP, p + IBXN + 2, ibz);
      // k = mA + mB + (rA×n)·I_A⁻¹(rA×n) + (rB×n)·I_B⁻¹(rB×n)
      const kn = mA + mB + xax * iax + xay * iay + xaz * iaz + xbx * ibx + xby * iby + xbz * ibz;
      S(csP, p + NMASS, kn > 0 ? 1 / kn : 0);
      const sep0 = L(csP, p + SEP0);
      // A's own point, half the separation below the midpoint (B's is as far above it).
      S(csP, p + RA, rax - 0.5 * sep0 * nx);
      S(csP, p + RA + 1, ray - 0.5 * sep0 * ny);
      S(csP, p + RA + 2, raz - 0.5 * sep0 * nz);
      S(csP, p + LMAX, 0);
      S(csP, p + TOTAL, -L(csP, p + LN));
      S(csP, p + VN0, dvn + wbX * xbx + wbY * xby + wbZ * xbz - (waX * xax + waY * xay + waZ * xaz));
      const ddx = mx - cx;
      const ddy = my - cy;
      const ddz = mz - cz;
      S(csP, p + DIST, Math.sqrt(ddx * ddx + ddy * ddy + ddz * ddz));
    }

    // Friction anchor at the centre of the points.
    const rax = cx - pax;
    const ray = cy - pay;
    const raz = cz - paz;
    const rbx = cx - pbx;
    const rby = cy - pby;
    const rbz = cz - pbz;
    const a1x = ray * t1z - raz * t1y;
    const a1y = raz * t1x - rax * t1z;
    const a1z = rax * t1y - ray * t1x;
    const b1x = rby * t1z - rbz * t1y;
    const b1y = rbz * t1x - rbx * t1z;
    const b1z = rbx * t1y - rby * t1x;
    const a2x = ray * t2z - raz * t2y;
    const a2y = raz * t2x - rax * t2z;
    const a2z = rax * t2y - ray * t2x;
    const b2x = rby * t2z - rbz * t2y;
    const b2y = rbz * t2x - rbx * t2z;
    const b2z = rbx * t2y - rby * t2x;
    const ia1x = a00 * a1x + a01 * a1y + a02 * a1z;
    const ia1y = a01 * a1x + a11 * a1y + a12 * a1z;
    const ia1z = a02 * a1x + a12 * a1y + a22 * a1z;
    const ib1x = b00 * b1x + b01 * b1y + b02 * b1z;
    const ib1y = b01 * b1x + b11 * b1y + b12 * b1z;
    const ib1z = b02 * b1x + b12 * b1y + b22 * b1z;
    const ia2x = a00 * a2x + a01 * a2y + a02 * a2z;
    const ia2y = a01 * a2x + a11 * a2y + a12 * a2z;
    const ia2z = a02 * a2x + a12 * a2y + a22 * a2z;
    const ib2x = b00 * b2x + b01 * b2y + b02 * b2z;
    const ib2y = b01 * b2x + b11 * b2y + b12 * b2z;
    const ib2z = b02 * b2x + b12 * b2y + b22 * b2z;
    S(csP, o + RA_T1, a1x);
    S(csP, o + RA_T1 + 1, a1y);
    S(csP, o + RA_T1 + 2, a1z);
    S(csP, o + RB_T1, b1x);
    S(csP, o + RB_T1 + 1, b1y);
    S(csP, o + RB_T1 + 2, b1z);
    S(csP, o + RA_T2, a2x);
    S(csP, o + RA_T2 + 1, a2y);
    S(csP, o + RA_T2 + 2, a2z);
    S(csP, o + RB_T2, b2x);
    S(csP, o + RB_T2 + 1, b2y);
    S(csP, o + RB_T2 + 2, b2z);
    S(csP, o + IA_T1, ia1x);
    S(csP, o + IA_T1 + 1, ia1y);
    S(csP, o + IA_T1 + 2, ia1z);
    S(csP, o + IB_T1, ib1x);
    S(csP, o + IB_T1 + 1, ib1y);
    S(csP, o + IB_T1 + 2, ib1z);
    S(csP, o + IA_T2, ia2x);
    S(csP, o + IA_T2 + 1, ia2y);
    S(csP, o + IA_T2 + 2, ia2z);
    S(csP, o + IB_T2, ib2x);
    S(csP, o + IB_T2 + 1, ib2y);
    S(csP, o + IB_T2 + 2, ib2z);
    // The carried friction impulse (staged in the K slots) is read before they take the inverse mass.
    const frx = L(csP, o + K11);
    const fry = L(csP, o + K12);
    const frz = L(csP, o + K22);
    const k11 = mA + mB + a1x * ia1x + a1y * ia1y + a1z * ia1z + b1x * ib1x + b1y * ib1y + b1z * ib1z;
    const k22 = mA + mB + a2x * ia2x + a2y * ia2y + a2z * ia2z + b2x * ib2x + b2y * ib2y + b2z * ib2z;
    const k12 = a1x * ia2x + a1y * ia2y + a1z * ia2z + b1x * ib2x + b1y * ib2y + b1z * ib2z;
    const det = k11 * k22 - k12 * k12;
    if (det > 0) {
      const inv = 1 / det;
      S(csP, o + K11, k22 * inv);
      S(csP, o + K12, -k12 * inv);
      S(csP, o + K22, k11 * inv);
    } else {
      S(csP, o + K11, 0);
      S(csP, o + K12, 0);
      S(csP, o + K22, 0);
    }
    if (warm) {
      S(csP, o + L_T1, frx * t1x + fry * t1y + frz * t1z);
      S(csP, o + L_T2, frx * t2x + fry * t2y + frz * t2z);
    } else {
      S(csP, o + L_T1, 0);
      S(csP, o + L_T2, 0);
    }
    // Twist about the normal: angular only.
    const ianx = a00 * nx + a01 * ny + a02 * nz;
    const iany = a01 * nx + a11 * ny + a12 * nz;
    const ianz = a02 * nx + a12 * ny + a22 * nz;
    const ibnx = b00 * nx + b01 * ny + b02 * nz;
    const ibny = b01 * nx + b11 * ny + b12 * nz;
    const ibnz = b02 * nx + b12 * ny + b22 * nz;
    S(csP, o + IA_N, ianx);
    S(csP, o + IA_N + 1, iany);
    S(csP, o + IA_N + 2, ianz);
    S(csP, o + IB_N, ibnx);
    S(csP, o + IB_N + 1, ibny);
    S(csP, o + IB_N + 2, ibnz);
    const kt = nx * (ianx + ibnx) + ny * (iany + ibny) + nz * (ianz + ibnz);
    S(csP, o + TWIST_MASS, kt > 0 ? 1 / kt : 0);
  }
}
