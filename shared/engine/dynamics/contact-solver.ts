import { type BodyStore, DYNAMIC } from "./body-store.ts";
import { CONTACT_POINT_STRIDE, type ContactStore, P_IMPULSE, P_MID, P_SEPARATION, POINT_STRIDE } from "./contact-store.ts";
import type { SolverBodies } from "./solver-bodies.ts";

/*
 * Contact constraints, one per manifold, packed in one Float64Array (stride CS). Normal rows are
 * per point; friction is solved once per manifold at the centre of its points (two tangent rows,
 * coupled, with a circular Coulomb cone μ·Σλn) plus a twist row about the normal, the way Bepu and
 * Box3D do it: 3 friction rows instead of 8 for a 4-point face contact.
 *
 * Sign conventions: n points from A to B; relative velocity is vB + ωB × rB - vA - ωA × rA;
 * an impulse λ n is applied +B, -A.
 */
const CS = 128;
// Header
const MU = 3;
const REST = 4;
const N = 5; // 3
const T1 = 8; // 3
const T2 = 11; // 3
const RA_T1 = 14; // rAc × t1
const RB_T1 = 17;
const RA_T2 = 20;
const RB_T2 = 23;
const IA_T1 = 26; // I_A⁻¹ (rAc × t1)
const IB_T1 = 29;
const IA_T2 = 32;
const IB_T2 = 35;
const K11 = 38; // inverse of the 2x2 tangent effective mass
const K12 = 39;
const K22 = 40;
const L_T1 = 41;
const L_T2 = 42;
const IA_N = 43; // I_A⁻¹ n (twist)
const IB_N = 46;
const TWIST_MASS = 49;
const L_TW = 50;
const BIAS_RATE = 51;
const MASS_SCALE = 52;
const IMPULSE_SCALE = 53;
// Points
const POINTS = 56;
const PS = 18;
const RAXN = 0; // rA × n
const RBXN = 3;
const IAXN = 6; // I_A⁻¹ (rA × n)
const IBXN = 9;
const NMASS = 12;
const SEP0 = 13;
const LN = 14;
const VN0 = 15;
const DIST = 16; // distance to the friction centre (twist limit)
const LMAX = 17;

export interface SolverSettings {
  /** Sub-step length, s. */
  h: number;
  contactHertz: number;
  dampingRatio: number;
  maxPushVelocity: number;
  slop: number;
  warmStarting: boolean;
  restitutionThreshold: number;
}

/**
 * Box2D's soft constraint coefficients for a spring of `scale` × contactHertz with the damping ratio over
 * the sub-step h: out = [bias rate, mass scale, impulse scale]. Reads its scalars from `s` (no boxed
 * double arguments in the step).
 */
function soft(s: SolverSettings, scale: number, out: Float64Array): void {
  const hertz = scale * Math.min(s.contactHertz, 0.25 / s.h);
  if (hertz === 0) {
    out[0] = 0;
    out[1] = 1;
    out[2] = 0;
    return;
  }
  const zeta = s.dampingRatio;
  const h = s.h;
  const omega = 2 * Math.PI * hertz;
  const a1 = 2 * zeta + h * omega;
  const a2 = h * omega * a1;
  const a3 = 1 / (1 + a2);
  out[0] = omega / a1; // bias rate
  out[1] = a2 * a3; // mass scale
  out[2] = a3; // impulse scale
}

const softDynamic = new Float64Array(3);
const softStatic = new Float64Array(3);

export class ContactSolver {
  /** Sub-step length and the other scalars of the current step: fields, not arguments, so no boxing. */
  h = 0;
  restitutionThreshold = 1;
  projectionSlop = 0;
  projectionPercent = 0;
  cs = new Float64Array(CS * 64);
  /** Per constraint: solver index of A, of B, point count, contact index. */
  ints = new Int32Array(4 * 64);
  count = 0;
  maxPush = 3;
  slop = 0;

  private ensure(n: number): void {
    if (n * CS <= this.cs.length) return;
    let cap = this.cs.length / CS;
    while (cap < n) cap *= 2;
    this.cs = new Float64Array(cap * CS);
    this.ints = new Int32Array(cap * 4);
  }

  /**
   * Builds a constraint for every contact that has points and an awake dynamic body. Anchors, effective
   * masses and the pre-solve normal velocity (for restitution) come from the start-of-step state.
   */
  prepare(contacts: ContactStore, bodies: BodyStore, sb: SolverBodies, s: SolverSettings): void {
    this.ensure(contacts.count);
    this.maxPush = s.maxPushVelocity;
    this.slop = s.slop;
    this.h = s.h;
    this.restitutionThreshold = s.restitutionThreshold;
    soft(s, 1, softDynamic);
    soft(s, 2, softStatic);
    const cs = this.cs;
    const ints = this.ints;
    const vel = sb.vel;
    const mass = sb.mass;
    const pos = bodies.pos;
    const pts = contacts.points;
    let n = 0;
    for (let c = 0; c < contacts.count; c++) {
      const count = contacts.pointCount[c];
      if (count === 0) continue;
      const a = contacts.bodyA[c];
      const b = contacts.bodyB[c];
      const awakeA = bodies.type[a] === DYNAMIC && bodies.sleeping[a] === 0;
      const awakeB = bodies.type[b] === DYNAMIC && bodies.sleeping[b] === 0;
      if (!awakeA && !awakeB) continue;
      // Static and sleeping partners map to the immovable solver body 0.
      const iA = bodies.type[a] === DYNAMIC && !awakeA ? 0 : bodies.solverIndex[a];
      const iB = bodies.type[b] === DYNAMIC && !awakeB ? 0 : bodies.solverIndex[b];
      const o = n * CS;
      const q4 = n * 4;
      ints[q4] = iA;
      ints[q4 + 1] = iB;
      ints[q4 + 2] = count;
      ints[q4 + 3] = c;
      cs[o + MU] = Math.sqrt(bodies.friction[a] * bodies.friction[b]);
      cs[o + REST] = Math.max(bodies.restitution[a], bodies.restitution[b]);
      const nx = contacts.normal[c * 3];
      const ny = contacts.normal[c * 3 + 1];
      const nz = contacts.normal[c * 3 + 2];
      cs[o + N] = nx;
      cs[o + N + 1] = ny;
      cs[o + N + 2] = nz;
      // Tangent basis from the normal alone (deterministic); friction impulses are carried as a world
      // vector, so the basis may change between ticks.
      let t1x: number;
      let t1y: number;
      let t1z: number;
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
      cs[o + T1] = t1x;
      cs[o + T1 + 1] = t1y;
      cs[o + T1 + 2] = t1z;
      cs[o + T2] = t2x;
      cs[o + T2 + 1] = t2y;
      cs[o + T2 + 2] = t2z;

      const mA = mass[iA * 7];
      const mB = mass[iB * 7];
      const aM = iA * 7 + 1;
      const bM = iB * 7 + 1;
      const a00 = mass[aM];
      const a01 = mass[aM + 1];
      const a02 = mass[aM + 2];
      const a11 = mass[aM + 3];
      const a12 = mass[aM + 4];
      const a22 = mass[aM + 5];
      const b00 = mass[bM];
      const b01 = mass[bM + 1];
      const b02 = mass[bM + 2];
      const b11 = mass[bM + 3];
      const b12 = mass[bM + 4];
      const b22 = mass[bM + 5];
      const soft3 = mA === 0 || mB === 0 ? softStatic : softDynamic;
      cs[o + BIAS_RATE] = soft3[0];
      cs[o + MASS_SCALE] = soft3[1];
      cs[o + IMPULSE_SCALE] = soft3[2];

      const pax = pos[a * 3];
      const pay = pos[a * 3 + 1];
      const paz = pos[a * 3 + 2];
      const pbx = pos[b * 3];
      const pby = pos[b * 3 + 1];
      const pbz = pos[b * 3 + 2];
      const va = iA * 6;
      const vb = iB * 6;
      const dvx = vel[vb] - vel[va];
      const dvy = vel[vb + 1] - vel[va + 1];
      const dvz = vel[vb + 2] - vel[va + 2];
      const dvn = dvx * nx + dvy * ny + dvz * nz;
      const waX = vel[va + 3];
      const waY = vel[va + 4];
      const waZ = vel[va + 5];
      const wbX = vel[vb + 3];
      const wbY = vel[vb + 4];
      const wbZ = vel[vb + 5];

      let cx = 0;
      let cy = 0;
      let cz = 0;
      const base = c * CONTACT_POINT_STRIDE;
      for (let k = 0; k < count; k++) {
        const q = base + k * POINT_STRIDE;
        cx += pts[q + P_MID];
        cy += pts[q + P_MID + 1];
        cz += pts[q + P_MID + 2];
      }
      const invCount = 1 / count;
      cx *= invCount;
      cy *= invCount;
      cz *= invCount;

      for (let k = 0; k < count; k++) {
        const q = base + k * POINT_STRIDE;
        const p = o + POINTS + k * PS;
        const mx = pts[q + P_MID];
        const my = pts[q + P_MID + 1];
        const mz = pts[q + P_MID + 2];
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
        cs[p + RAXN] = xax;
        cs[p + RAXN + 1] = xay;
        cs[p + RAXN + 2] = xaz;
        cs[p + RBXN] = xbx;
        cs[p + RBXN + 1] = xby;
        cs[p + RBXN + 2] = xbz;
        cs[p + IAXN] = iax;
        cs[p + IAXN + 1] = iay;
        cs[p + IAXN + 2] = iaz;
        cs[p + IBXN] = ibx;
        cs[p + IBXN + 1] = iby;
        cs[p + IBXN + 2] = ibz;
        // k = mA + mB + (rA×n)·I_A⁻¹(rA×n) + (rB×n)·I_B⁻¹(rB×n)
        const kn = mA + mB + xax * iax + xay * iay + xaz * iaz + xbx * ibx + xby * iby + xbz * ibz;
        cs[p + NMASS] = kn > 0 ? 1 / kn : 0;
        cs[p + SEP0] = pts[q + P_SEPARATION];
        cs[p + LN] = s.warmStarting ? pts[q + P_IMPULSE] : 0;
        cs[p + LMAX] = 0;
        cs[p + VN0] = dvn + wbX * xbx + wbY * xby + wbZ * xbz - (waX * xax + waY * xay + waZ * xaz);
        const ddx = mx - cx;
        const ddy = my - cy;
        const ddz = mz - cz;
        cs[p + DIST] = Math.sqrt(ddx * ddx + ddy * ddy + ddz * ddz);
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
      cs[o + RA_T1] = a1x;
      cs[o + RA_T1 + 1] = a1y;
      cs[o + RA_T1 + 2] = a1z;
      cs[o + RB_T1] = b1x;
      cs[o + RB_T1 + 1] = b1y;
      cs[o + RB_T1 + 2] = b1z;
      cs[o + RA_T2] = a2x;
      cs[o + RA_T2 + 1] = a2y;
      cs[o + RA_T2 + 2] = a2z;
      cs[o + RB_T2] = b2x;
      cs[o + RB_T2 + 1] = b2y;
      cs[o + RB_T2 + 2] = b2z;
      cs[o + IA_T1] = ia1x;
      cs[o + IA_T1 + 1] = ia1y;
      cs[o + IA_T1 + 2] = ia1z;
      cs[o + IB_T1] = ib1x;
      cs[o + IB_T1 + 1] = ib1y;
      cs[o + IB_T1 + 2] = ib1z;
      cs[o + IA_T2] = ia2x;
      cs[o + IA_T2 + 1] = ia2y;
      cs[o + IA_T2 + 2] = ia2z;
      cs[o + IB_T2] = ib2x;
      cs[o + IB_T2 + 1] = ib2y;
      cs[o + IB_T2 + 2] = ib2z;
      const k11 = mA + mB + a1x * ia1x + a1y * ia1y + a1z * ia1z + b1x * ib1x + b1y * ib1y + b1z * ib1z;
      const k22 = mA + mB + a2x * ia2x + a2y * ia2y + a2z * ia2z + b2x * ib2x + b2y * ib2y + b2z * ib2z;
      const k12 = a1x * ia2x + a1y * ia2y + a1z * ia2z + b1x * ib2x + b1y * ib2y + b1z * ib2z;
      const det = k11 * k22 - k12 * k12;
      if (det > 0) {
        const inv = 1 / det;
        cs[o + K11] = k22 * inv;
        cs[o + K12] = -k12 * inv;
        cs[o + K22] = k11 * inv;
      } else {
        cs[o + K11] = cs[o + K12] = cs[o + K22] = 0;
      }
      const f = c * 4;
      const fr = contacts.friction;
      if (s.warmStarting) {
        cs[o + L_T1] = fr[f] * t1x + fr[f + 1] * t1y + fr[f + 2] * t1z;
        cs[o + L_T2] = fr[f] * t2x + fr[f + 1] * t2y + fr[f + 2] * t2z;
        cs[o + L_TW] = fr[f + 3];
      } else {
        cs[o + L_T1] = cs[o + L_T2] = cs[o + L_TW] = 0;
      }
      // Twist about the normal: angular only.
      const ianx = a00 * nx + a01 * ny + a02 * nz;
      const iany = a01 * nx + a11 * ny + a12 * nz;
      const ianz = a02 * nx + a12 * ny + a22 * nz;
      const ibnx = b00 * nx + b01 * ny + b02 * nz;
      const ibny = b01 * nx + b11 * ny + b12 * nz;
      const ibnz = b02 * nx + b12 * ny + b22 * nz;
      cs[o + IA_N] = ianx;
      cs[o + IA_N + 1] = iany;
      cs[o + IA_N + 2] = ianz;
      cs[o + IB_N] = ibnx;
      cs[o + IB_N + 1] = ibny;
      cs[o + IB_N + 2] = ibnz;
      const kt = nx * (ianx + ibnx) + ny * (iany + ibny) + nz * (ianz + ibnz);
      cs[o + TWIST_MASS] = kt > 0 ? 1 / kt : 0;
      n++;
    }
    this.count = n;
  }

  /** Re-applies the accumulated impulses (warm start). */
  warmStart(sb: SolverBodies): void {
    const cs = this.cs;
    const ints = this.ints;
    const vel = sb.vel;
    const mass = sb.mass;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      const iA = ints[i * 4];
      const iB = ints[i * 4 + 1];
      const va = iA * 6;
      const vb = iB * 6;
      const mA = mass[iA * 7];
      const mB = mass[iB * 7];
      const nx = cs[o + N];
      const ny = cs[o + N + 1];
      const nz = cs[o + N + 2];
      const lt1 = cs[o + L_T1];
      const lt2 = cs[o + L_T2];
      const ltw = cs[o + L_TW];
      // Linear impulse: Σλn n + λt1 t1 + λt2 t2
      let px = lt1 * cs[o + T1] + lt2 * cs[o + T2];
      let py = lt1 * cs[o + T1 + 1] + lt2 * cs[o + T2 + 1];
      let pz = lt1 * cs[o + T1 + 2] + lt2 * cs[o + T2 + 2];
      let awx = lt1 * cs[o + IA_T1] + lt2 * cs[o + IA_T2] + ltw * cs[o + IA_N];
      let awy = lt1 * cs[o + IA_T1 + 1] + lt2 * cs[o + IA_T2 + 1] + ltw * cs[o + IA_N + 1];
      let awz = lt1 * cs[o + IA_T1 + 2] + lt2 * cs[o + IA_T2 + 2] + ltw * cs[o + IA_N + 2];
      let bwx = lt1 * cs[o + IB_T1] + lt2 * cs[o + IB_T2] + ltw * cs[o + IB_N];
      let bwy = lt1 * cs[o + IB_T1 + 1] + lt2 * cs[o + IB_T2 + 1] + ltw * cs[o + IB_N + 1];
      let bwz = lt1 * cs[o + IB_T1 + 2] + lt2 * cs[o + IB_T2 + 2] + ltw * cs[o + IB_N + 2];
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        const ln = cs[p + LN];
        px += ln * nx;
        py += ln * ny;
        pz += ln * nz;
        awx += ln * cs[p + IAXN];
        awy += ln * cs[p + IAXN + 1];
        awz += ln * cs[p + IAXN + 2];
        bwx += ln * cs[p + IBXN];
        bwy += ln * cs[p + IBXN + 1];
        bwz += ln * cs[p + IBXN + 2];
      }
      if (mA !== 0) {
        vel[va] -= mA * px;
        vel[va + 1] -= mA * py;
        vel[va + 2] -= mA * pz;
        vel[va + 3] -= awx;
        vel[va + 4] -= awy;
        vel[va + 5] -= awz;
      }
      if (mB !== 0) {
        vel[vb] += mB * px;
        vel[vb + 1] += mB * py;
        vel[vb + 2] += mB * pz;
        vel[vb + 3] += bwx;
        vel[vb + 4] += bwy;
        vel[vb + 5] += bwz;
      }
    }
  }

  /** Drops the accumulated impulses (warm starting off: every sub-step starts from zero). */
  resetImpulses(): void {
    const cs = this.cs;
    const ints = this.ints;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      cs[o + L_T1] = cs[o + L_T2] = cs[o + L_TW] = 0;
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) cs[o + POINTS + k * PS + LN] = 0;
    }
  }

  /**
   * One Gauss-Seidel pass: friction first (limited by the current normal impulses), then the normal
   * rows, so non-penetration has the last word. `useBias` adds the soft position bias; speculative
   * points (positive separation) always allow closing the gap within the sub-step.
   */
  solve(sb: SolverBodies, useBias: boolean): void {
    const h = this.h;
    const cs = this.cs;
    const ints = this.ints;
    const vel = sb.vel;
    const delta = sb.delta;
    const mass = sb.mass;
    const invH = 1 / h;
    const maxPush = this.maxPush;
    const slop = this.slop;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      const iA = ints[i * 4];
      const iB = ints[i * 4 + 1];
      const va = iA * 6;
      const vb = iB * 6;
      const mA = mass[iA * 7];
      const mB = mass[iB * 7];
      let vax = vel[va];
      let vay = vel[va + 1];
      let vaz = vel[va + 2];
      let wax = vel[va + 3];
      let way = vel[va + 4];
      let waz = vel[va + 5];
      let vbx = vel[vb];
      let vby = vel[vb + 1];
      let vbz = vel[vb + 2];
      let wbx = vel[vb + 3];
      let wby = vel[vb + 4];
      let wbz = vel[vb + 5];
      const nx = cs[o + N];
      const ny = cs[o + N + 1];
      const nz = cs[o + N + 2];
      const count = ints[i * 4 + 2];
      const mu = cs[o + MU];

      // Friction at the centre, limited by μ Σλn (and μ Σλn·d for twist).
      let sumN = 0;
      let sumTwist = 0;
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        sumN += cs[p + LN];
        sumTwist += cs[p + LN] * cs[p + DIST];
      }
      // A contact carrying no load and no friction impulse (speculative, not touching) has nothing to do.
      if (mu > 0 && (sumN > 0 || cs[o + L_T1] !== 0 || cs[o + L_T2] !== 0 || cs[o + L_TW] !== 0)) {
        const t1x = cs[o + T1];
        const t1y = cs[o + T1 + 1];
        const t1z = cs[o + T1 + 2];
        const t2x = cs[o + T2];
        const t2y = cs[o + T2 + 1];
        const t2z = cs[o + T2 + 2];
        const dvx = vbx - vax;
        const dvy = vby - vay;
        const dvz = vbz - vaz;
        const vt1 =
          dvx * t1x + dvy * t1y + dvz * t1z +
          wbx * cs[o + RB_T1] + wby * cs[o + RB_T1 + 1] + wbz * cs[o + RB_T1 + 2] -
          (wax * cs[o + RA_T1] + way * cs[o + RA_T1 + 1] + waz * cs[o + RA_T1 + 2]);
        const vt2 =
          dvx * t2x + dvy * t2y + dvz * t2z +
          wbx * cs[o + RB_T2] + wby * cs[o + RB_T2 + 1] + wbz * cs[o + RB_T2 + 2] -
          (wax * cs[o + RA_T2] + way * cs[o + RA_T2 + 1] + waz * cs[o + RA_T2 + 2]);
        const old1 = cs[o + L_T1];
        const old2 = cs[o + L_T2];
        let n1 = old1 - (cs[o + K11] * vt1 + cs[o + K12] * vt2);
        let n2 = old2 - (cs[o + K12] * vt1 + cs[o + K22] * vt2);
        const limit = mu * sumN;
        const len2 = n1 * n1 + n2 * n2;
        if (len2 > limit * limit) {
          const scale = len2 > 0 ? limit / Math.sqrt(len2) : 0;
          n1 *= scale;
          n2 *= scale;
        }
        cs[o + L_T1] = n1;
        cs[o + L_T2] = n2;
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
        wax -= d1 * cs[o + IA_T1] + d2 * cs[o + IA_T2];
        way -= d1 * cs[o + IA_T1 + 1] + d2 * cs[o + IA_T2 + 1];
        waz -= d1 * cs[o + IA_T1 + 2] + d2 * cs[o + IA_T2 + 2];
        wbx += d1 * cs[o + IB_T1] + d2 * cs[o + IB_T2];
        wby += d1 * cs[o + IB_T1 + 1] + d2 * cs[o + IB_T2 + 1];
        wbz += d1 * cs[o + IB_T1 + 2] + d2 * cs[o + IB_T2 + 2];

        // Twist.
        const vtw = (wbx - wax) * nx + (wby - way) * ny + (wbz - waz) * nz;
        const oldTw = cs[o + L_TW];
        const twLimit = mu * sumTwist;
        let ntw = oldTw - cs[o + TWIST_MASS] * vtw;
        ntw = ntw < -twLimit ? -twLimit : ntw > twLimit ? twLimit : ntw;
        cs[o + L_TW] = ntw;
        const dtw = ntw - oldTw;
        wax -= dtw * cs[o + IA_N];
        way -= dtw * cs[o + IA_N + 1];
        waz -= dtw * cs[o + IA_N + 2];
        wbx += dtw * cs[o + IB_N];
        wby += dtw * cs[o + IB_N + 1];
        wbz += dtw * cs[o + IB_N + 2];
      }

      // Normal rows. Current separation, linearised: s = s0 + (ΔpB - ΔpA)·n + ΔθB·(rB×n) - ΔθA·(rA×n).
      const dpn =
        (delta[vb] - delta[va]) * nx + (delta[vb + 1] - delta[va + 1]) * ny + (delta[vb + 2] - delta[va + 2]) * nz;
      const dtax = delta[va + 3];
      const dtay = delta[va + 4];
      const dtaz = delta[va + 5];
      const dtbx = delta[vb + 3];
      const dtby = delta[vb + 4];
      const dtbz = delta[vb + 5];
      const biasRate = cs[o + BIAS_RATE];
      const massScale = cs[o + MASS_SCALE];
      const impulseScale = cs[o + IMPULSE_SCALE];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        const xax = cs[p + RAXN];
        const xay = cs[p + RAXN + 1];
        const xaz = cs[p + RAXN + 2];
        const xbx = cs[p + RBXN];
        const xby = cs[p + RBXN + 1];
        const xbz = cs[p + RBXN + 2];
        const sep = cs[p + SEP0] + dpn + dtbx * xbx + dtby * xby + dtbz * xbz - (dtax * xax + dtay * xay + dtaz * xaz);
        let bias = 0;
        let ms = 1;
        let is = 0;
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
          wbx * xbx + wby * xby + wbz * xbz - (wax * xax + way * xay + waz * xaz);
        const old = cs[p + LN];
        let next = old - cs[p + NMASS] * ms * (vn + bias) - is * old;
        if (next < 0) next = 0;
        cs[p + LN] = next;
        if (next > cs[p + LMAX]) cs[p + LMAX] = next;
        const d = next - old;
        vax -= mA * d * nx;
        vay -= mA * d * ny;
        vaz -= mA * d * nz;
        wax -= d * cs[p + IAXN];
        way -= d * cs[p + IAXN + 1];
        waz -= d * cs[p + IAXN + 2];
        vbx += mB * d * nx;
        vby += mB * d * ny;
        vbz += mB * d * nz;
        wbx += d * cs[p + IBXN];
        wby += d * cs[p + IBXN + 1];
        wbz += d * cs[p + IBXN + 2];
      }

      // Only dynamic bodies take the result. Static, sleeping and kinematic partners would only get
      // exact zeros added, but a non-finite impulse (0 × NaN) must not reach the shared immovable body
      // and spread from it to every other contact.
      if (mA !== 0) {
        vel[va] = vax;
        vel[va + 1] = vay;
        vel[va + 2] = vaz;
        vel[va + 3] = wax;
        vel[va + 4] = way;
        vel[va + 5] = waz;
      }
      if (mB !== 0) {
        vel[vb] = vbx;
        vel[vb + 1] = vby;
        vel[vb + 2] = vbz;
        vel[vb + 3] = wbx;
        vel[vb + 4] = wby;
        vel[vb + 5] = wbz;
      }
    }
  }

  /**
   * Restitution once after the sub-steps (Box2D v3): points that closed faster than the threshold and
   * carried load get a bounce target of -e times their pre-solve normal velocity.
   */
  applyRestitution(sb: SolverBodies): void {
    const threshold = this.restitutionThreshold;
    const cs = this.cs;
    const ints = this.ints;
    const vel = sb.vel;
    const mass = sb.mass;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      const e = cs[o + REST];
      if (e === 0) continue;
      const iA = ints[i * 4];
      const iB = ints[i * 4 + 1];
      const va = iA * 6;
      const vb = iB * 6;
      const mA = mass[iA * 7];
      const mB = mass[iB * 7];
      const nx = cs[o + N];
      const ny = cs[o + N + 1];
      const nz = cs[o + N + 2];
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        const vn0 = cs[p + VN0];
        if (vn0 > -threshold || cs[p + LMAX] === 0) continue;
        const vn =
          (vel[vb] - vel[va]) * nx + (vel[vb + 1] - vel[va + 1]) * ny + (vel[vb + 2] - vel[va + 2]) * nz +
          vel[vb + 3] * cs[p + RBXN] + vel[vb + 4] * cs[p + RBXN + 1] + vel[vb + 5] * cs[p + RBXN + 2] -
          (vel[va + 3] * cs[p + RAXN] + vel[va + 4] * cs[p + RAXN + 1] + vel[va + 5] * cs[p + RAXN + 2]);
        const old = cs[p + LN];
        let next = old - cs[p + NMASS] * (vn + e * vn0);
        if (next < 0) next = 0;
        cs[p + LN] = next;
        const d = next - old;
        if (mA !== 0) {
          vel[va] -= mA * d * nx;
          vel[va + 1] -= mA * d * ny;
          vel[va + 2] -= mA * d * nz;
          vel[va + 3] -= d * cs[p + IAXN];
          vel[va + 4] -= d * cs[p + IAXN + 1];
          vel[va + 5] -= d * cs[p + IAXN + 2];
        }
        if (mB !== 0) {
          vel[vb] += mB * d * nx;
          vel[vb + 1] += mB * d * ny;
          vel[vb + 2] += mB * d * nz;
          vel[vb + 3] += d * cs[p + IBXN];
          vel[vb + 4] += d * cs[p + IBXN + 1];
          vel[vb + 5] += d * cs[p + IBXN + 2];
        }
      }
    }
  }

  /**
   * The seeds' positional correction (seed 000): per manifold, the deepest current penetration beyond
   * the slop is pushed apart by `percent`, split by inverse mass along the normal; static partners never
   * move and pairs whose inverse masses sum to zero are skipped. Linear only, as in the seeds.
   */
  projectPositions(sb: SolverBodies, bodies: BodyStore): void {
    const slop = this.projectionSlop;
    const percent = this.projectionPercent;
    const cs = this.cs;
    const ints = this.ints;
    const delta = sb.delta;
    const mass = sb.mass;
    const pos = bodies.pos;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      const iA = ints[i * 4];
      const iB = ints[i * 4 + 1];
      const mA = mass[iA * 7];
      const mB = mass[iB * 7];
      const sum = mA + mB;
      if (sum === 0) continue;
      const va = iA * 6;
      const vb = iB * 6;
      const nx = cs[o + N];
      const ny = cs[o + N + 1];
      const nz = cs[o + N + 2];
      const dpn =
        (delta[vb] - delta[va]) * nx + (delta[vb + 1] - delta[va + 1]) * ny + (delta[vb + 2] - delta[va + 2]) * nz;
      let deepest = Number.POSITIVE_INFINITY;
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        const sep =
          cs[p + SEP0] + dpn +
          delta[vb + 3] * cs[p + RBXN] + delta[vb + 4] * cs[p + RBXN + 1] + delta[vb + 5] * cs[p + RBXN + 2] -
          (delta[va + 3] * cs[p + RAXN] + delta[va + 4] * cs[p + RAXN + 1] + delta[va + 5] * cs[p + RAXN + 2]);
        if (sep < deepest) deepest = sep;
      }
      const correction = (Math.max(-deepest - slop, 0) * percent) / sum;
      if (correction === 0) continue;
      const cx = correction * nx;
      const cy = correction * ny;
      const cz = correction * nz;
      if (mA > 0) {
        const s3 = sb.slots[iA] * 3;
        pos[s3] -= cx * mA;
        pos[s3 + 1] -= cy * mA;
        pos[s3 + 2] -= cz * mA;
        delta[va] -= cx * mA;
        delta[va + 1] -= cy * mA;
        delta[va + 2] -= cz * mA;
      }
      if (mB > 0) {
        const s3 = sb.slots[iB] * 3;
        pos[s3] += cx * mB;
        pos[s3 + 1] += cy * mB;
        pos[s3 + 2] += cz * mB;
        delta[vb] += cx * mB;
        delta[vb + 1] += cy * mB;
        delta[vb + 2] += cz * mB;
      }
    }
  }

  /** Writes the accumulated impulses back to the contacts for the next tick's warm start. */
  storeImpulses(contacts: ContactStore): void {
    const cs = this.cs;
    const ints = this.ints;
    const pts = contacts.points;
    const fr = contacts.friction;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      const c = ints[i * 4 + 3];
      const base = c * CONTACT_POINT_STRIDE;
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) pts[base + k * POINT_STRIDE + P_IMPULSE] = cs[o + POINTS + k * PS + LN];
      const lt1 = cs[o + L_T1];
      const lt2 = cs[o + L_T2];
      const f = c * 4;
      fr[f] = lt1 * cs[o + T1] + lt2 * cs[o + T2];
      fr[f + 1] = lt1 * cs[o + T1 + 1] + lt2 * cs[o + T2 + 1];
      fr[f + 2] = lt1 * cs[o + T1 + 2] + lt2 * cs[o + T2 + 2];
      fr[f + 3] = cs[o + L_TW];
    }
  }
}
