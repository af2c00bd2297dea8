/**
 * The constraint rows joints are made of, solved on one joint at a time with the joint's bodies loaded
 * into small scratch arrays (JointRows.load / .save). Every row follows Box2D v3's soft step: with
 * `useBias` a rigid row is a stiff spring-damper (soft: bias rate, mass scale, impulse scale); in the
 * relax pass it only removes velocity error. Limits are speculative: a joint still short of its limit
 * may close the gap within the sub-step but not pass it (Box2D v3 revolute_joint.c).
 *
 * Geometry is taken from the bodies' current poses on every call (positions and orientations advance
 * each sub-step), so the rows follow the anchors exactly rather than a linearisation from the step's start.
 * Doubles travel in typed arrays, never as arguments or return values (a call V8 does not inline would
 * box them: the step allocates nothing).
 *
 * Sign conventions: a row's velocity is J·v = u·(vB - vA) + jB·ωB - jA·ωA; its impulse λ is applied +B, -A.
 */

/** Pose scratch offsets. */
export const P_RA = 0; // A's anchor relative to A's centre, world (3)
export const P_RB = 3; // B's anchor relative to B's centre (world point for the world), world (3)
export const P_D = 6; // B's anchor minus A's anchor (3)
export const P_QA = 9; // A's joint frame in world space (4)
export const P_QB = 13; // B's joint frame in world space (4)
export const P_X = 17; // the axis: A's joint frame's x (3)
export const P_Y = 20; // ... y (3)
export const P_Z = 23; // ... z (3)
export const P_REL = 26; // B's joint frame seen from A's, w >= 0 (4)

/** Soft coefficients: bias rate, mass scale, impulse scale. */
export const SOFT_RIGID = 0;
export const SOFT_SPRING = 3;

export class JointRows {
  /** Sub-step length and its inverse. */
  h = 0;
  invH = 0;
  /** vA (0), ωA (3), vB (6), ωB (9). */
  readonly vel = new Float64Array(12);
  /** inverse mass A (0), I⁻¹ A xx xy xz yy yz zz (1), inverse mass B (7), I⁻¹ B (8). */
  readonly mass = new Float64Array(14);
  readonly pose = new Float64Array(32);
  /** [SOFT_RIGID..] the step's rigid-joint softness, [SOFT_SPRING..] the current joint's spring. */
  readonly soft = new Float64Array(6);
  /** Scalar row: linear direction u (0), A's angular jA (3), B's angular jB (6). */
  readonly row = new Float64Array(9);
  /** Scalar row results: effective mass (inverse of J M⁻¹ Jᵀ) at 0, velocity J·v at 1. */
  readonly scalar = new Float64Array(2);
  private readonly k = new Float64Array(9);
  private readonly t = new Float64Array(12);
  /** The slider lock's two cross rows (u, jA, jB each), its 5x5 matrix and right-hand side. */
  private readonly jac = new Float64Array(18);
  private readonly k5 = new Float64Array(25);
  private readonly rhs = new Float64Array(5);

  // ------------------------------------------------------------------ point (3 rows)

  /** Anchors coincide: the 3x3 block, λ (a world vector) at imp[o..o+2]. */
  point(imp: Float64Array, o: number, useBias: boolean): void {
    const p = this.pose;
    const v = this.vel;
    const m = this.mass;
    const rax = p[P_RA];
    const ray = p[P_RA + 1];
    const raz = p[P_RA + 2];
    const rbx = p[P_RB];
    const rby = p[P_RB + 1];
    const rbz = p[P_RB + 2];
    // Cdot = vB + ωB × rB - vA - ωA × rA
    let cx = v[6] + (v[10] * rbz - v[11] * rby) - v[0] - (v[4] * raz - v[5] * ray);
    let cy = v[7] + (v[11] * rbx - v[9] * rbz) - v[1] - (v[5] * rax - v[3] * raz);
    let cz = v[8] + (v[9] * rby - v[10] * rbx) - v[2] - (v[3] * ray - v[4] * rax);
    let massScale = 1;
    let impulseScale = 0;
    if (useBias) {
      const s = this.soft;
      cx += s[SOFT_RIGID] * p[P_D];
      cy += s[SOFT_RIGID] * p[P_D + 1];
      cz += s[SOFT_RIGID] * p[P_D + 2];
      massScale = s[SOFT_RIGID + 1];
      impulseScale = s[SOFT_RIGID + 2];
    }
    // K = (mA + mB) I + [rA]× IA [rA]×ᵀ + [rB]× IB [rB]×ᵀ
    const k = this.k;
    const ms = m[0] + m[7];
    k[0] = ms;
    k[1] = 0;
    k[2] = 0;
    k[4] = ms;
    k[5] = 0;
    k[8] = ms;
    this.addSandwich(1, P_RA);
    this.addSandwich(8, P_RB);
    k[3] = k[1];
    k[6] = k[2];
    k[7] = k[5];
    const t = this.t;
    t[0] = cx;
    t[1] = cy;
    t[2] = cz;
    if (!this.solve3(t)) return;
    const ix = -massScale * t[3] - impulseScale * imp[o];
    const iy = -massScale * t[4] - impulseScale * imp[o + 1];
    const iz = -massScale * t[5] - impulseScale * imp[o + 2];
    imp[o] += ix;
    imp[o + 1] += iy;
    imp[o + 2] += iz;
    t[6] = ix;
    t[7] = iy;
    t[8] = iz;
    this.applyPoint();
  }

  /** Applies the linear impulse P in t[6..8] at the anchors: −P at A's, +P at B's. */
  private applyPoint(): void {
    const p = this.pose;
    const v = this.vel;
    const m = this.mass;
    const t = this.t;
    const px = t[6];
    const py = t[7];
    const pz = t[8];
    v[0] -= m[0] * px;
    v[1] -= m[0] * py;
    v[2] -= m[0] * pz;
    v[6] += m[7] * px;
    v[7] += m[7] * py;
    v[8] += m[7] * pz;
    // rA × P, rB × P
    t[0] = p[P_RA + 1] * pz - p[P_RA + 2] * py;
    t[1] = p[P_RA + 2] * px - p[P_RA] * pz;
    t[2] = p[P_RA] * py - p[P_RA + 1] * px;
    t[3] = p[P_RB + 1] * pz - p[P_RB + 2] * py;
    t[4] = p[P_RB + 2] * px - p[P_RB] * pz;
    t[5] = p[P_RB] * py - p[P_RB + 1] * px;
    this.turn(3, 1, t, 0, -1);
    this.turn(9, 8, t, 3, 1);
  }

  /** Warm start of a point block: re-applies λ at imp[o..o+2]. */
  applyPointFrom(imp: Float64Array, o: number): void {
    const t = this.t;
    t[6] = imp[o];
    t[7] = imp[o + 1];
    t[8] = imp[o + 2];
    this.applyPoint();
  }

  // ------------------------------------------------------------------ angular lock (3 rows)

  /** No relative rotation: the 3x3 angular block, λ (a world vector) at imp[o..o+2]. */
  angularLock(imp: Float64Array, o: number, useBias: boolean): void {
    const p = this.pose;
    const v = this.vel;
    let cx = v[9] - v[3];
    let cy = v[10] - v[4];
    let cz = v[11] - v[5];
    let massScale = 1;
    let impulseScale = 0;
    if (useBias) {
      // The error as a rotation vector: twice the vector part of B's frame seen from A's (w >= 0), in world space.
      const t = this.t;
      t[0] = 2 * p[P_REL];
      t[1] = 2 * p[P_REL + 1];
      t[2] = 2 * p[P_REL + 2];
      this.rotateByFrameA(t, 0, 3);
      const s = this.soft;
      cx += s[SOFT_RIGID] * t[3];
      cy += s[SOFT_RIGID] * t[4];
      cz += s[SOFT_RIGID] * t[5];
      massScale = s[SOFT_RIGID + 1];
      impulseScale = s[SOFT_RIGID + 2];
    }
    const k = this.k;
    this.inverseInertiaSum(k, 0, 3);
    k[3] = k[1];
    k[6] = k[2];
    k[7] = k[5];
    const t = this.t;
    t[0] = cx;
    t[1] = cy;
    t[2] = cz;
    if (!this.solve3(t)) return;
    t[6] = -massScale * t[3] - impulseScale * imp[o];
    t[7] = -massScale * t[4] - impulseScale * imp[o + 1];
    t[8] = -massScale * t[5] - impulseScale * imp[o + 2];
    imp[o] += t[6];
    imp[o + 1] += t[7];
    imp[o + 2] += t[8];
    this.turn(3, 1, t, 6, -1);
    this.turn(9, 8, t, 6, 1);
  }

  /** Warm start of an angular lock: re-applies the angular impulse at imp[o..o+2]. */
  applyAngular(imp: Float64Array, o: number): void {
    this.turn(3, 1, imp, o, -1);
    this.turn(9, 8, imp, o, 1);
  }

  // ------------------------------------------------------------------ hinge swing (2 rows)

  /**
   * B's axis stays along A's: rows about A's frame y and z, error e = xA × xB projected on them (e ≈ the
   * small rotation that takes A's axis to B's). λ at imp[o], imp[o + 1].
   */
  swing(imp: Float64Array, o: number, useBias: boolean): void {
    const p = this.pose;
    const v = this.vel;
    const dwx = v[9] - v[3];
    const dwy = v[10] - v[4];
    const dwz = v[11] - v[5];
    const y0 = p[P_Y];
    const y1 = p[P_Y + 1];
    const y2 = p[P_Y + 2];
    const z0 = p[P_Z];
    const z1 = p[P_Z + 1];
    const z2 = p[P_Z + 2];
    let c1 = y0 * dwx + y1 * dwy + y2 * dwz;
    let c2 = z0 * dwx + z1 * dwy + z2 * dwz;
    let massScale = 1;
    let impulseScale = 0;
    if (useBias) {
      // xB in world: B's frame x axis.
      const t = this.t;
      frameX(p, P_QB, t, 0);
      const ax = p[P_X];
      const ay = p[P_X + 1];
      const az = p[P_X + 2];
      const ex = ay * t[2] - az * t[1];
      const ey = az * t[0] - ax * t[2];
      const ez = ax * t[1] - ay * t[0];
      const s = this.soft;
      c1 += s[SOFT_RIGID] * (y0 * ex + y1 * ey + y2 * ez);
      c2 += s[SOFT_RIGID] * (z0 * ex + z1 * ey + z2 * ez);
      massScale = s[SOFT_RIGID + 1];
      impulseScale = s[SOFT_RIGID + 2];
    }
    // K_ij = b_i·(IA + IB) b_j
    const k = this.k;
    this.inverseInertiaSum(k, 0, 3);
    const iy0 = k[0] * y0 + k[1] * y1 + k[2] * y2;
    const iy1 = k[1] * y0 + k[4] * y1 + k[5] * y2;
    const iy2 = k[2] * y0 + k[5] * y1 + k[8] * y2;
    const k11 = y0 * iy0 + y1 * iy1 + y2 * iy2;
    const k12 = z0 * iy0 + z1 * iy1 + z2 * iy2;
    const k22 = z0 * (k[0] * z0 + k[1] * z1 + k[2] * z2) + z1 * (k[1] * z0 + k[4] * z1 + k[5] * z2) + z2 * (k[2] * z0 + k[5] * z1 + k[8] * z2);
    const det = k11 * k22 - k12 * k12;
    if (det === 0) return;
    const inv = 1 / det;
    const l1 = -massScale * (k22 * c1 - k12 * c2) * inv - impulseScale * imp[o];
    const l2 = -massScale * (k11 * c2 - k12 * c1) * inv - impulseScale * imp[o + 1];
    imp[o] += l1;
    imp[o + 1] += l2;
    const t = this.t;
    t[6] = l1 * y0 + l2 * z0;
    t[7] = l1 * y1 + l2 * z1;
    t[8] = l1 * y2 + l2 * z2;
    this.turn(3, 1, t, 6, -1);
    this.turn(9, 8, t, 6, 1);
  }

  /** Warm start of a swing pair. */
  applySwing(imp: Float64Array, o: number): void {
    const p = this.pose;
    const t = this.t;
    for (let i = 0; i < 3; i++) t[6 + i] = imp[o] * p[P_Y + i] + imp[o + 1] * p[P_Z + i];
    this.turn(3, 1, t, 6, -1);
    this.turn(9, 8, t, 6, 1);
  }

  // ------------------------------------------------------------------ slider lock (2 + 3 rows)

  /**
   * A slider's five locked rows as one block: B's anchor stays on A's axis (linear rows along A's frame
   * y and z, with A's lever rA + d as the rows are attached to A) and no relative rotation (3 angular
   * rows). Solved together, not one after the other: the cross rows act on A's rotation through a lever
   * that grows with the travel, and solved apart from the angular lock (Gauss-Seidel, one pass per
   * sub-step) the two fought until the carriage blew up 0.4 m down its rail (Box2D's prismatic joint
   * solves its cross and angular rows as one block for the same reason). Cross λ at imp[lin], imp[lin + 1];
   * angular λ (a world vector) at imp[ang..ang+2].
   */
  slideLock(imp: Float64Array, lin: number, ang: number, useBias: boolean): void {
    const p = this.pose;
    const v = this.vel;
    const m = this.mass;
    const j = this.jac;
    // Rows 0, 1: cross rows (u, jA, jB) at j[0..8], j[9..17].
    this.slideRow(P_Y);
    for (let i = 0; i < 9; i++) j[i] = this.row[i];
    const c = this.rhs;
    c[0] = this.scalar[1];
    this.slideRow(P_Z);
    for (let i = 0; i < 9; i++) j[9 + i] = this.row[i];
    c[1] = this.scalar[1];
    c[2] = v[9] - v[3];
    c[3] = v[10] - v[4];
    c[4] = v[11] - v[5];
    let massScale = 1;
    let impulseScale = 0;
    if (useBias) {
      const t = this.t;
      t[0] = 2 * p[P_REL];
      t[1] = 2 * p[P_REL + 1];
      t[2] = 2 * p[P_REL + 2];
      this.rotateByFrameA(t, 0, 3);
      const s = this.soft;
      const b = s[SOFT_RIGID];
      c[0] += b * (p[P_Y] * p[P_D] + p[P_Y + 1] * p[P_D + 1] + p[P_Y + 2] * p[P_D + 2]);
      c[1] += b * (p[P_Z] * p[P_D] + p[P_Z + 1] * p[P_D + 1] + p[P_Z + 2] * p[P_D + 2]);
      c[2] += b * t[3];
      c[3] += b * t[4];
      c[4] += b * t[5];
      massScale = s[SOFT_RIGID + 1];
      impulseScale = s[SOFT_RIGID + 2];
    }
    // K (5x5, row-major in k5): cross-cross, cross-angular (I jA + I jB along each axis), angular-angular (IA + IB).
    const k = this.k5;
    const ms = m[0] + m[7];
    for (let a = 0; a < 2; a++) {
      for (let b = a; b < 2; b++) {
        const x = a * 9;
        const y = b * 9;
        ACC[0] = ms * (j[x] * j[y] + j[x + 1] * j[y + 1] + j[x + 2] * j[y + 2]);
        addSandwich(j, x + 3, m, 1, j, y + 3);
        addSandwich(j, x + 6, m, 8, j, y + 6);
        const kab = ACC[0];
        k[a * 5 + b] = kab;
        k[b * 5 + a] = kab;
      }
      for (let e = 0; e < 3; e++) {
        // jA·IA e + jB·IB e: column e of the symmetric inverse inertias.
        const x = a * 9;
        ACC[0] = -0; // the exact additive identity: the sum is bit-identical to d1 + d2
        addInertiaDot(j, x + 3, m, 1, e);
        addInertiaDot(j, x + 6, m, 8, e);
        const kae = ACC[0];
        k[a * 5 + 2 + e] = kae;
        k[(2 + e) * 5 + a] = kae;
      }
    }
    this.inverseInertiaSum(k, 12, 5);
    k[17] = k[13];
    k[22] = k[14];
    k[23] = k[19];
    if (!solveSpd5(k, c)) return;
    // c now holds K⁻¹ (Cdot + bias).
    const d = this.t;
    d[0] = -massScale * c[0] - impulseScale * imp[lin];
    d[1] = -massScale * c[1] - impulseScale * imp[lin + 1];
    d[2] = -massScale * c[2] - impulseScale * imp[ang];
    d[3] = -massScale * c[3] - impulseScale * imp[ang + 1];
    d[4] = -massScale * c[4] - impulseScale * imp[ang + 2];
    imp[lin] += d[0];
    imp[lin + 1] += d[1];
    imp[ang] += d[2];
    imp[ang + 1] += d[3];
    imp[ang + 2] += d[4];
    this.applySlideLock(d, 0);
  }

  /** Warm start of a slider lock: the cross impulses at imp[lin], imp[lin + 1], the angular at imp[ang..]. */
  applySlideLockFrom(imp: Float64Array, lin: number, ang: number): void {
    const d = this.rhs;
    d[0] = imp[lin];
    d[1] = imp[lin + 1];
    d[2] = imp[ang];
    d[3] = imp[ang + 1];
    d[4] = imp[ang + 2];
    const j = this.jac;
    this.slideRow(P_Y);
    for (let i = 0; i < 9; i++) j[i] = this.row[i];
    this.slideRow(P_Z);
    for (let i = 0; i < 9; i++) j[9 + i] = this.row[i];
    this.applySlideLock(d, 0);
  }

  /** Applies the five impulses x[o..o+4] along the rows in `jac`. */
  private applySlideLock(x: Float64Array, o: number): void {
    const j = this.jac;
    const r = this.row;
    const l0 = x[o];
    const l1 = x[o + 1];
    for (let i = 0; i < 9; i++) r[i] = l0 * j[i] + l1 * j[9 + i];
    for (let e = 0; e < 3; e++) {
      r[3 + e] += x[o + 2 + e];
      r[6 + e] += x[o + 2 + e];
    }
    this.applyRowImpulseVector();
  }

  /** Sets `row` to the slider row along A's frame axis at pose offset `axis`, and its scalar mass and velocity. */
  slideRow(axis: number): void {
    const p = this.pose;
    const r = this.row;
    const ux = p[axis];
    const uy = p[axis + 1];
    const uz = p[axis + 2];
    const lx = p[P_RA] + p[P_D];
    const ly = p[P_RA + 1] + p[P_D + 1];
    const lz = p[P_RA + 2] + p[P_D + 2];
    r[0] = ux;
    r[1] = uy;
    r[2] = uz;
    r[3] = ly * uz - lz * uy;
    r[4] = lz * ux - lx * uz;
    r[5] = lx * uy - ly * ux;
    r[6] = p[P_RB + 1] * uz - p[P_RB + 2] * uy;
    r[7] = p[P_RB + 2] * ux - p[P_RB] * uz;
    r[8] = p[P_RB] * uy - p[P_RB + 1] * ux;
    this.measureRow(1);
  }

  // ------------------------------------------------------------------ scalar rows

  /**
   * Effective mass and velocity of `row` into `scalar` (lin: 1 when the row has a linear part, 0 for
   * angular-only rows).
   */
  measureRow(lin: number): void {
    const r = this.row;
    const v = this.vel;
    const m = this.mass;
    ACC[0] = lin * (m[0] + m[7]);
    addSandwich(r, 3, m, 1, r, 3);
    addSandwich(r, 6, m, 8, r, 6);
    const k = ACC[0];
    this.scalar[0] = k > 0 ? 1 / k : 0;
    this.scalar[1] =
      lin * (r[0] * (v[6] - v[0]) + r[1] * (v[7] - v[1]) + r[2] * (v[8] - v[2])) +
      (r[6] * v[9] + r[7] * v[10] + r[8] * v[11]) -
      (r[3] * v[3] + r[4] * v[4] + r[5] * v[5]);
  }

  /** Applies `row` scaled by the impulse in scalar[0] to the velocities (the row's linear part may be 0). */
  applyRowImpulse(): void {
    const r = this.row;
    const l = this.scalar[0];
    for (let i = 0; i < 9; i++) r[i] *= l;
    this.applyRowImpulseVector();
  }

  /** Applies `row` as an impulse vector: linear r[0..2], angular impulses r[3..5] on A (−), r[6..8] on B (+). */
  private applyRowImpulseVector(): void {
    const r = this.row;
    const v = this.vel;
    const m = this.mass;
    v[0] -= m[0] * r[0];
    v[1] -= m[0] * r[1];
    v[2] -= m[0] * r[2];
    v[6] += m[7] * r[0];
    v[7] += m[7] * r[1];
    v[8] += m[7] * r[2];
    this.turn(3, 1, r, 3, -1);
    this.turn(9, 8, r, 6, 1);
  }

  // ------------------------------------------------------------------ helpers

  /** ω at vel[w] += sign · I⁻¹ (at mass[i]) · x (at x[xo]). */
  private turn(w: number, i: number, x: Float64Array, xo: number, sign: number): void {
    const m = this.mass;
    const v = this.vel;
    const a = x[xo];
    const b = x[xo + 1];
    const c = x[xo + 2];
    v[w] += sign * (m[i] * a + m[i + 1] * b + m[i + 2] * c);
    v[w + 1] += sign * (m[i + 1] * a + m[i + 3] * b + m[i + 4] * c);
    v[w + 2] += sign * (m[i + 2] * a + m[i + 4] * b + m[i + 5] * c);
  }

  /**
   * The upper triangle of the 3x3 block at index `o` of the row-major matrix `k` (row length `stride`)
   * = IA + IB: the two bodies' world inverse inertias (mass[1..6] and mass[8..13]).
   */
  private inverseInertiaSum(k: Float64Array, o: number, stride: number): void {
    const m = this.mass;
    k[o] = m[1] + m[8];
    k[o + 1] = m[2] + m[9];
    k[o + 2] = m[3] + m[10];
    k[o + stride + 1] = m[4] + m[11];
    k[o + stride + 2] = m[5] + m[12];
    k[o + 2 * stride + 2] = m[6] + m[13];
  }

  /** k (upper triangle) += [r]× I [r]×ᵀ for the inverse inertia at mass[i] and the lever r at pose[r]. */
  private addSandwich(i: number, r: number): void {
    const m = this.mass;
    const rx = this.pose[r];
    const ry = this.pose[r + 1];
    const rz = this.pose[r + 2];
    const xx = m[i];
    const xy = m[i + 1];
    const xz = m[i + 2];
    const yy = m[i + 3];
    const yz = m[i + 4];
    const zz = m[i + 5];
    // [r]× = [[0, -rz, ry], [rz, 0, -rx], [-ry, rx, 0]]; T = I [r]×ᵀ, then [r]× T (T00 is never needed).
    const t01 = xx * rz - xz * rx;
    const t02 = -xx * ry + xy * rx;
    const t10 = -yy * rz + yz * ry;
    const t11 = xy * rz - yz * rx;
    const t12 = -xy * ry + yy * rx;
    const t20 = -yz * rz + zz * ry;
    const t21 = xz * rz - zz * rx;
    const t22 = -xz * ry + yz * rx;
    const k = this.k;
    k[0] += -rz * t10 + ry * t20;
    k[1] += -rz * t11 + ry * t21;
    k[2] += -rz * t12 + ry * t22;
    k[4] += rz * t01 - rx * t21;
    k[5] += rz * t02 - rx * t22;
    k[8] += -ry * t02 + rx * t12;
  }

  /** Solves k x = t[0..2] (k symmetric, full) into t[3..5]; false when k is singular. */
  private solve3(t: Float64Array): boolean {
    const k = this.k;
    const c00 = k[4] * k[8] - k[5] * k[7];
    const c01 = k[5] * k[6] - k[3] * k[8];
    const c02 = k[3] * k[7] - k[4] * k[6];
    const det = k[0] * c00 + k[1] * c01 + k[2] * c02;
    if (det === 0) return false;
    const inv = 1 / det;
    const b0 = t[0];
    const b1 = t[1];
    const b2 = t[2];
    t[3] = (c00 * b0 + (k[2] * k[7] - k[1] * k[8]) * b1 + (k[1] * k[5] - k[2] * k[4]) * b2) * inv;
    t[4] = (c01 * b0 + (k[0] * k[8] - k[2] * k[6]) * b1 + (k[2] * k[3] - k[0] * k[5]) * b2) * inv;
    t[5] = (c02 * b0 + (k[1] * k[6] - k[0] * k[7]) * b1 + (k[0] * k[4] - k[1] * k[3]) * b2) * inv;
    return true;
  }

  /** t[o2..] = A's joint frame applied to t[o..] (local joint-frame vector to world). */
  private rotateByFrameA(t: Float64Array, o: number, o2: number): void {
    const p = this.pose;
    const qx = p[P_QA];
    const qy = p[P_QA + 1];
    const qz = p[P_QA + 2];
    const qw = p[P_QA + 3];
    const vx = t[o];
    const vy = t[o + 1];
    const vz = t[o + 2];
    const tx = 2 * (qy * vz - qz * vy);
    const ty = 2 * (qz * vx - qx * vz);
    const tz = 2 * (qx * vy - qy * vx);
    t[o2] = vx + qw * tx + (qy * tz - qz * ty);
    t[o2 + 1] = vy + qw * ty + (qz * tx - qx * tz);
    t[o2 + 2] = vz + qw * tz + (qx * ty - qy * tx);
  }
}

/**
 * Sums of the row helpers below. They add into it instead of returning: a double returned by a call V8
 * does not inline is boxed (an allocation in the step).
 */
const ACC = new Float64Array(1);

/** ACC += x·I y for vectors at x[xo], y[yo] and the symmetric inverse inertia at m[i] (xx xy xz yy yz zz). */
function addSandwich(x: Float64Array, xo: number, m: Float64Array, i: number, y: Float64Array, yo: number): void {
  const a = y[yo];
  const b = y[yo + 1];
  const c = y[yo + 2];
  ACC[0] +=
    x[xo] * (m[i] * a + m[i + 1] * b + m[i + 2] * c) +
    x[xo + 1] * (m[i + 1] * a + m[i + 3] * b + m[i + 4] * c) +
    x[xo + 2] * (m[i + 2] * a + m[i + 4] * b + m[i + 5] * c);
}

/** ACC += x·(I e_axis) for the symmetric inverse inertia at m[i] (xx xy xz yy yz zz): x dotted with its column. */
function addInertiaDot(x: Float64Array, xo: number, m: Float64Array, i: number, axis: number): void {
  const c0 = axis === 0 ? m[i] : axis === 1 ? m[i + 1] : m[i + 2];
  const c1 = axis === 0 ? m[i + 1] : axis === 1 ? m[i + 3] : m[i + 4];
  const c2 = axis === 0 ? m[i + 2] : axis === 1 ? m[i + 4] : m[i + 5];
  ACC[0] += x[xo] * c0 + x[xo + 1] * c1 + x[xo + 2] * c2;
}

/**
 * Solves k x = b in place (b becomes x) for a symmetric positive (semi)definite 5x5 k (row-major; k is
 * overwritten): Gaussian elimination without pivoting, which SPD matrices do not need. False when a
 * pivot vanishes (a body with no inverse inertia on a locked row: nothing to solve).
 */
function solveSpd5(k: Float64Array, b: Float64Array): boolean {
  for (let col = 0; col < 5; col++) {
    const pivot = k[col * 5 + col];
    if (!(pivot > 1e-300)) return false;
    const inv = 1 / pivot;
    for (let row = col + 1; row < 5; row++) {
      const f = k[row * 5 + col] * inv;
      if (f === 0) continue;
      for (let c = col; c < 5; c++) k[row * 5 + c] -= f * k[col * 5 + c];
      b[row] -= f * b[col];
    }
  }
  for (let row = 4; row >= 0; row--) {
    let sum = b[row];
    for (let c = row + 1; c < 5; c++) sum -= k[row * 5 + c] * b[c];
    b[row] = sum / k[row * 5 + row];
  }
  return true;
}

/** out[o..o+2] = the x axis of the quaternion at p[q]. */
export function frameX(p: Float64Array, q: number, out: Float64Array, o: number): void {
  const x = p[q];
  const y = p[q + 1];
  const z = p[q + 2];
  const w = p[q + 3];
  out[o] = 1 - 2 * (y * y + z * z);
  out[o + 1] = 2 * (x * y + w * z);
  out[o + 2] = 2 * (x * z - w * y);
}

/** out[o..o+2] = the y axis of the quaternion at p[q]. */
export function frameY(p: Float64Array, q: number, out: Float64Array, o: number): void {
  const x = p[q];
  const y = p[q + 1];
  const z = p[q + 2];
  const w = p[q + 3];
  out[o] = 2 * (x * y - w * z);
  out[o + 1] = 1 - 2 * (x * x + z * z);
  out[o + 2] = 2 * (y * z + w * x);
}

/** out[o..o+2] = the z axis of the quaternion at p[q]. */
export function frameZ(p: Float64Array, q: number, out: Float64Array, o: number): void {
  const x = p[q];
  const y = p[q + 1];
  const z = p[q + 2];
  const w = p[q + 3];
  out[o] = 2 * (x * z + w * y);
  out[o + 1] = 2 * (y * z - w * x);
  out[o + 2] = 1 - 2 * (x * x + y * y);
}
