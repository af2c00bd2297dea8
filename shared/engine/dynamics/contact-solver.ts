import type { BodyStore } from "./body-store.ts";
import { CS, D_AB, D_QUAT, SD, IAXN, IBXN, LMAX, LN, L_T1, L_T2, L_TW, N, NMASS, POINTS, PS, RA, RAXN, RBXN, REST, SEP0, T1, T2, TOTAL, VN0 } from "./constraint-layout.ts";
import { prepareContacts } from "./contact-prepare.ts";
import { CONTACT_POINT_STRIDE, type ContactStore, P_IMPULSE, POINT_STRIDE } from "./contact-store.ts";
import type { SolverBodies } from "./solver-bodies.ts";
import { StepContext } from "../step-context.ts";
import type { SolverMemory } from "../kernel/solver-memory.ts";


/** Solves the contact constraints laid out in constraint-layout.ts (see there for the rows). */
export class ContactSolver {
  /** The step's scalars (sub-step, softness, restitution, gravity...), set by `prepare`. */
  ctx = new StepContext();
  count = 0;
  /** Slots of one or two constraints the passes visit, in order (set by `prepare`; kernel/assembly/schedule.ts). */
  slots = 0;
  private readonly mem: SolverMemory;

  constructor(mem: SolverMemory) {
    this.mem = mem;
  }

  /** The constraints (stride CS), in the solver memory; read it afresh after `ensure`. */
  get cs(): Float64Array {
    return this.mem.cs;
  }

  /** Per constraint: solver index of A, of B, point count, contact index. */
  get ints(): Int32Array {
    return this.mem.ints;
  }

  /** Per solver body: how many constraints it takes part in this step (filled by prepare). */
  private perBody = new Int32Array(64);

  /** The per-body constraint counts, zeroed for `bodies` solver bodies. */
  constraintsPerBody(bodies: number): Int32Array {
    if (this.perBody.length < bodies) {
      let cap = this.perBody.length;
      while (cap < bodies) cap *= 2;
      this.perBody = new Int32Array(cap);
    } else this.perBody.fill(0, 0, bodies);
    return this.perBody;
  }

  /** Room for n constraints (grows the buffers; never in steady state). */
  ensure(n: number): void {
    this.mem.ensureConstraints(n);
  }

  /**
   * Builds a constraint for every contact that has points and an awake dynamic body (contact-prepare.ts)
   * and the order the passes visit them in.
   */
  prepare(contacts: ContactStore, bodies: BodyStore, sb: SolverBodies, s: StepContext): void {
    prepareContacts(this, contacts, bodies, sb, s);
    const m = this.mem;
    // The arithmetic of the rows (tangents, lever arms, effective masses, the friction anchor) runs in the
    // kernel, on the inputs prepareContacts staged in each row.
    m.kernel.prepare(m.csPtr, m.intsPtr, m.velPtr, m.massPtr, this.count, s.warmStarting);
    // The bodies and their constraints are fixed for the step, so the passes' order is too: pairs of
    // constraints that move no common body, solved two at a time (same results, bit for bit).
    this.slots = m.kernel.schedule(m.intsPtr, m.massPtr, this.count, m.schedPtr, m.takenPtr);
  }

  /** Re-applies the accumulated impulses (warm start), in the WebAssembly kernel. */
  warmStart(): void {
    const m = this.mem;
    m.kernel.warmStart(m.csPtr, m.intsPtr, m.velPtr, m.massPtr, this.count);
  }

  /** Drops the accumulated impulses (warm starting off: every sub-step starts from zero). */
  resetImpulses(): void {
    const cs = this.cs;
    const ints = this.ints;
    for (let i = 0; i < this.count; i++) {
      const o = i * CS;
      cs[o + L_T1] = cs[o + L_T2] = cs[o + L_TW] = 0;
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        cs[p + TOTAL] += cs[p + LN];
        cs[p + LN] = 0;
      }
    }
  }

  /**
   * One Gauss-Seidel pass: friction first (limited by the current normal impulses), then the normal
   * rows, so non-penetration has the last word. `useBias` adds the soft position bias; speculative
   * points (positive separation) always allow closing the gap within the sub-step. `fresh`: positions
   * moved since the last pass (integratePositions), so the separation terms are computed and kept for
   * the passes that follow; otherwise the kept ones are read.
   */
  solve(useBias: boolean, fresh: boolean): void {
    // The pass itself is WebAssembly (kernel/assembly/contact-solve.ts), on the same memory: the same
    // arithmetic, bit for bit, with one load per operand instead of a bounds-checked typed-array access.
    const m = this.mem;
    const ctx = this.ctx;
    const params = m.params;
    params[0] = ctx.h;
    params[1] = ctx.maxPushVelocity;
    params[2] = ctx.slop;
    m.kernel.solve(m.paramsPtr, m.csPtr, m.intsPtr, m.velPtr, m.deltaPtr, m.massPtr, m.schedPtr, this.slots, useBias, fresh);
  }

  /**
   * Restitution once after the sub-steps (Box2D v3): points that closed faster than the threshold and
   * carried load get a bounce target of -e times their closing speed.
   *
   * A point that was apart at the start of the step (a speculative contact, s0 > 0) hit at some time t
   * within it, and the solver then held the bodies at the surface for the rest of the step. With CCD's
   * long speculative reach that is most of a step: the bounce would start from the surface at the end
   * of the step with the closing speed of its start, and a restitution-1 ball lost several per cent of
   * its height per bounce. So with `bounceAtImpact` the bounce happens at its time of impact: along the
   * normal, the sub-steps move the gap on the parabola s(τ) = s0 + (vn0 + a h/2) τ + a τ²/2 (a: relative
   * acceleration by gravity; the h/2 is where semi-implicit Euler's positions lie), which gives t, the
   * closing speed at impact vi and, after the bounce to -e vi, the gap and velocity at the end of the
   * step. The velocity is set by the impulse below; the gap by a position-level impulse along the same
   * directions (effective mass times the missing gap), applied to positions and orientations.
   */
  applyRestitution(sb: SolverBodies, bodies: BodyStore): void {
    const threshold = this.ctx.restitutionThreshold;
    const cs = this.cs;
    const ints = this.ints;
    const vel = sb.vel;
    const mass = sb.mass;
    const delta = sb.delta;
    const move = sb.move;
    const h = this.ctx.h;
    const dt = this.ctx.dt;
    const atImpact = this.ctx.bounceAtImpact;
    const perBody = this.perBody;
    const gx = this.ctx.gravityX;
    const gy = this.ctx.gravityY;
    const gz = this.ctx.gravityZ;
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
      // Relative normal acceleration from gravity: only bodies the solver moves fall.
      const an = ((mB > 0 ? 1 : 0) - (mA > 0 ? 1 : 0)) * (gx * nx + gy * ny + gz * nz);
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        const vn0 = cs[p + VN0];
        if (vn0 > -threshold || cs[p + LMAX] === 0) continue;
        const s0 = cs[p + SEP0];
        // Only between bodies with no other contact this step (a free body hitting something): in a
        // stack or a pile the rest of the step is not free flight (the body above still presses), and at
        // coarse steps (10 Hz) bouncing there at the time of impact pumped a restitution-1 stack until it
        // flew apart.
        const impact = atImpact && s0 > 0 && (mA === 0 || perBody[iA] === 1) && (mB === 0 || perBody[iB] === 1);
        let target = -e * vn0;
        let gapEnd = 0;
        if (impact) {
          const v0 = vn0 + 0.5 * an * h;
          let disc = v0 * v0 - 2 * an * s0;
          if (disc < 0) disc = 0;
          const den = Math.sqrt(disc) - v0;
          let t = den > 0 ? (2 * s0) / den : dt;
          if (t > dt) t = dt;
          const rest = dt - t;
          const out = -e * (v0 + an * t);
          target = out + an * (rest - 0.5 * h);
          gapEnd = rest * (out + 0.5 * an * rest);
        }
        const vn =
          (vel[vb] - vel[va]) * nx + (vel[vb + 1] - vel[va + 1]) * ny + (vel[vb + 2] - vel[va + 2]) * nz +
          vel[vb + 3] * cs[p + RBXN] + vel[vb + 4] * cs[p + RBXN + 1] + vel[vb + 5] * cs[p + RBXN + 2] -
          (vel[va + 3] * cs[p + RAXN] + vel[va + 4] * cs[p + RAXN + 1] + vel[va + 5] * cs[p + RAXN + 2]);
        const old = cs[p + LN];
        let next = old - cs[p + NMASS] * (vn - target);
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
        if (!impact) continue;
        // The gap now (earlier points of this manifold may have moved the bodies already).
        separationTerms(cs, o, delta, iA, iB, sepTerms);
        const sep = s0 * sepTerms[1] + sepTerms[0] + sepTerms[2] * cs[p + RA] + sepTerms[3] * cs[p + RA + 1] + sepTerms[4] * cs[p + RA + 2];
        const push = cs[p + NMASS] * (gapEnd - sep);
        if (!(push > 0)) continue;
        if (mA !== 0) {
          move[0] = -mA * push * nx;
          move[1] = -mA * push * ny;
          move[2] = -mA * push * nz;
          move[3] = -push * cs[p + IAXN];
          move[4] = -push * cs[p + IAXN + 1];
          move[5] = -push * cs[p + IAXN + 2];
          sb.displace(iA, bodies);
        }
        if (mB !== 0) {
          move[0] = mB * push * nx;
          move[1] = mB * push * ny;
          move[2] = mB * push * nz;
          move[3] = push * cs[p + IBXN];
          move[4] = push * cs[p + IBXN + 1];
          move[5] = push * cs[p + IBXN + 2];
          sb.displace(iB, bodies);
        }
      }
    }
  }

  /**
   * The classic positional-correction pass (Catto's "linear projection"): per manifold, the deepest
   * current penetration beyond the slop is pushed apart by `percent`, split by inverse mass along the
   * normal; static partners never move and pairs whose inverse masses sum to zero are skipped. Linear
   * only: no rotation is corrected.
   */
  projectPositions(sb: SolverBodies, bodies: BodyStore): void {
    const slop = this.ctx.slop;
    const percent = this.ctx.projectionPercent;
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
      const da = iA * SD;
      const db = iB * SD;
      const nx = cs[o + N];
      const ny = cs[o + N + 1];
      const nz = cs[o + N + 2];
      separationTerms(cs, o, delta, iA, iB, sepTerms);
      let deepest = Number.POSITIVE_INFINITY;
      const count = ints[i * 4 + 2];
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        const sep =
          cs[p + SEP0] * sepTerms[1] + sepTerms[0] +
          sepTerms[2] * cs[p + RA] + sepTerms[3] * cs[p + RA + 1] + sepTerms[4] * cs[p + RA + 2];
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
        delta[da] -= cx * mA;
        delta[da + 1] -= cy * mA;
        delta[da + 2] -= cz * mA;
      }
      if (mB > 0) {
        const s3 = sb.slots[iB] * 3;
        pos[s3] += cx * mB;
        pos[s3 + 1] += cy * mB;
        pos[s3 + 2] += cz * mB;
        delta[db] += cx * mB;
        delta[db + 1] += cy * mB;
        delta[db + 2] += cz * mB;
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
      let total = 0;
      for (let k = 0; k < count; k++) {
        const p = o + POINTS + k * PS;
        pts[base + k * POINT_STRIDE + P_IMPULSE] = cs[p + LN];
        total += cs[p + TOTAL] + cs[p + LN];
      }
      contacts.stepImpulse[c] = total;
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

/** Scratch for separationTerms (a typed array: returning several doubles from a call would box them). */
const sepTerms = new Float64Array(5);

/**
 * Per-constraint terms of the current separation of its points, s = s0·s1 + k0 + g·rA, as in solve():
 * out = [k0, s1, gx, gy, gz]. For the projection pass and the bounce at impact (not the hot loop).
 */
function separationTerms(cs: Float64Array, o: number, delta: Float64Array, iA: number, iB: number, out: Float64Array): void {
  const nx = cs[o + N];
  const ny = cs[o + N + 1];
  const nz = cs[o + N + 2];
  const da = iA * SD;
  const db = iB * SD;
  unturn(delta, da + D_QUAT, cs, o + N, turnA);
  unturn(delta, db + D_QUAT, cs, o + N, turnB);
  const ubx = turnB[0];
  const uby = turnB[1];
  const ubz = turnB[2];
  out[0] =
    (delta[db] - delta[da]) * nx + (delta[db + 1] - delta[da + 1]) * ny + (delta[db + 2] - delta[da + 2]) * nz +
    ubx * cs[o + D_AB] + uby * cs[o + D_AB + 1] + ubz * cs[o + D_AB + 2];
  out[1] = 1 + ubx * nx + uby * ny + ubz * nz;
  out[2] = ubx - turnA[0];
  out[3] = uby - turnA[1];
  out[4] = ubz - turnA[2];
}

const turnA = new Float64Array(3);
const turnB = new Float64Array(3);

/** out = R(q)⁻¹ v - v = (R - I)ᵀ v for the unit quaternion at q[qo] and the vector at v[vo]. */
function unturn(q: Float64Array, qo: number, v: Float64Array, vo: number, out: Float64Array): void {
  const qx = q[qo];
  const qy = q[qo + 1];
  const qz = q[qo + 2];
  const qw = q[qo + 3];
  const vx = v[vo];
  const vy = v[vo + 1];
  const vz = v[vo + 2];
  const tx = 2 * (vy * qz - vz * qy);
  const ty = 2 * (vz * qx - vx * qz);
  const tz = 2 * (vx * qy - vy * qx);
  out[0] = qw * tx + (ty * qz - tz * qy);
  out[1] = qw * ty + (tz * qx - tx * qz);
  out[2] = qw * tz + (tx * qy - ty * qx);
}
