import type { BodyStore } from "./body-store.ts";
import { BIAS_RATE, CS, DIST, IAXN, IA_N, IA_T1, IA_T2, IBXN, IB_N, IB_T1, IB_T2, IMPULSE_SCALE, K11, K12, K22, LMAX, LN, L_T1, L_T2, L_TW, MASS_SCALE, MU, N, NMASS, POINTS, PS, RAXN, RA_T1, RA_T2, RBXN, RB_T1, RB_T2, REST, SEP0, T1, T2, TWIST_MASS, VN0, type SolverSettings } from "./constraint-layout.ts";
import { prepareContacts } from "./contact-prepare.ts";
import { CONTACT_POINT_STRIDE, type ContactStore, P_IMPULSE, POINT_STRIDE } from "./contact-store.ts";
import type { SolverBodies } from "./solver-bodies.ts";

export type { SolverSettings } from "./constraint-layout.ts";

/** Solves the contact constraints laid out in constraint-layout.ts (see there for the rows). */
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

  /** Room for n constraints (grows the buffers; never in steady state). */
  ensure(n: number): void {
    if (n * CS <= this.cs.length) return;
    let cap = this.cs.length / CS;
    while (cap < n) cap *= 2;
    this.cs = new Float64Array(cap * CS);
    this.ints = new Int32Array(cap * 4);
  }

  /**
   * Builds a constraint for every contact that has points and an awake dynamic body (contact-prepare.ts).
   */
  prepare(contacts: ContactStore, bodies: BodyStore, sb: SolverBodies, s: SolverSettings): void {
    prepareContacts(this, contacts, bodies, sb, s);
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
