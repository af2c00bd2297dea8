import { ENGINE_CONSTANTS } from "../config.ts";
import { type BodyStore, CAT_AWAKE, CAT_SLEEPING, DYNAMIC, KINEMATIC } from "../dynamics/body-store.ts";
import type { SolverBodies } from "../dynamics/solver-bodies.ts";
import { ANGLE_IO, atan2Into } from "../math/angle.ts";
import { multiplyQuat, rotateVec } from "../math/quat.ts";
import type { StepContext } from "../step-context.ts";
import { frameX, frameY, frameZ, JointRows, P_D, P_QA, P_QB, P_RA, P_RB, P_REL, P_X, P_Y, P_Z, SOFT_RIGID, SOFT_SPRING } from "./joint-rows.ts";
import { ANG, AXIAL, BALL, DISTANCE, FIXED, HINGE, IMP, J_LIMITS, J_MOTOR, J_SPRING, type JointStore, LIN, LOWER, SLIDER, UPPER } from "./joint-store.ts";

/**
 * Solves the joints of the awake bodies, interleaved with the contacts in the soft step (Box2D v3's
 * order: joints warm-start and solve before contacts, so contacts have the last word on penetration).
 * Per joint type (rows in joint-rows.ts):
 * - fixed: angular lock (3) + point (3);
 * - ball: point (3);
 * - hinge: motor, limits (about the axis), swing (2), point (3);
 * - slider: motor, limits (along the axis), then its cross (2) and angular (3) rows as one block;
 * - distance: the rod or spring row, or the two limits (along the anchors' line).
 * Joints whose bodies all sleep are not visited; their impulses stay for the wake-up.
 */
export class JointSolver {
  /** Joints solved this step (slots) and their bodies' solver indices. */
  count = 0;
  slots = new Int32Array(16);
  private indexA = new Int32Array(16);
  private indexB = new Int32Array(16);
  /** Joints over their break threshold after the last `finish` (slots), for the pipeline to remove. */
  broken = new Int32Array(16);
  brokenCount = 0;
  private readonly rows = new JointRows();
  private readonly coord = new Float64Array(1);
  /** Per solved joint (stride IMP): the impulses of every sub-step so far, summed (the step's total). */
  private stepTotal = new Float64Array(16 * IMP);
  private invDt = 0;

  /** Picks the joints with an awake dynamic body and maps their bodies to solver indices. */
  prepare(store: JointStore, bodies: BodyStore, ctx: StepContext): void {
    // A world without joints does no joint arithmetic: a once-per-step function stays unoptimised, and
    // unoptimised code boxes its doubles (allocation in the step).
    this.count = 0;
    if (store.liveCount === 0) return;
    if (this.slots.length < store.liveCount) {
      let cap = this.slots.length;
      while (cap < store.liveCount) cap *= 2;
      this.slots = new Int32Array(cap);
      this.indexA = new Int32Array(cap);
      this.indexB = new Int32Array(cap);
      this.broken = new Int32Array(cap);
      this.stepTotal = new Float64Array(cap * IMP);
    }
    this.invDt = ctx.invDt;
    const rows = this.rows;
    rows.h = ctx.h;
    rows.invH = 1 / ctx.h;
    // Capped at a quarter of the sub-step rate, as contacts are: stiffer rows make GS chains explode.
    RIGID_PARAMS[0] = Math.min(ENGINE_CONSTANTS.jointHertz, 0.25 / ctx.h);
    softness(RIGID_PARAMS, 0, rows, SOFT_RIGID);
    const activity = bodies.activity;
    let n = 0;
    for (let k = 0; k < store.liveCount; k++) {
      const j = store.order[k];
      const a = store.bodyA[j];
      const b = store.bodyB[j];
      const awakeA = activity[a] === CAT_AWAKE;
      const awakeB = b >= 0 && activity[b] === CAT_AWAKE;
      if (!awakeA && !awakeB) continue;
      this.slots[n] = j;
      this.indexA[n] = solverIndex(bodies, a);
      this.indexB[n] = b < 0 ? 0 : solverIndex(bodies, b);
      n++;
    }
    this.count = n;
    this.stepTotal.fill(0, 0, n * IMP);
  }

  /**
   * Adds each solved joint's impulses to the step's totals; called once per sub-step after its solve and
   * relax passes. An accumulated impulse is what that sub-step applied, so the sum over the step divided by
   * dt is the step's mean force: a rope that stops a falling weight within one sub-step reports the jolt,
   * not only the weight it carries after.
   */
  accumulate(store: JointStore): void {
    const imp = store.impulse;
    const total = this.stepTotal;
    for (let i = 0; i < this.count; i++) {
      const o = this.slots[i] * IMP;
      for (let k = 0; k < IMP; k++) total[i * IMP + k] += imp[o + k];
    }
  }

  /** Re-applies every solved joint's accumulated impulses (start of each sub-step). */
  warmStart(store: JointStore, bodies: BodyStore, sb: SolverBodies): void {
    const rows = this.rows;
    const imp = store.impulse;
    for (let i = 0; i < this.count; i++) {
      const j = this.slots[i];
      this.load(store, bodies, sb, i);
      const o = j * IMP;
      const type = store.type[j];
      if (type === FIXED || type === BALL || type === HINGE) rows.applyPointFrom(imp, o + LIN);
      if (type === FIXED) rows.applyAngular(imp, o + ANG);
      if (type === HINGE) rows.applySwing(imp, o + ANG);
      if (type === SLIDER) rows.applySlideLockFrom(imp, o + LIN, o + ANG);
      if (type !== FIXED && type !== BALL) {
        // Motor, lower and upper limit act along the same row: their sum is one impulse.
        const total = imp[o + AXIAL] + imp[o + LOWER] - imp[o + UPPER];
        if (total !== 0) {
          this.axialRow(type);
          rows.scalar[0] = total;
          rows.applyRowImpulse();
        }
      }
      this.save(sb, i);
    }
  }

  /** Warm starting off: every sub-step starts from zero impulses. */
  resetImpulses(store: JointStore): void {
    for (let i = 0; i < this.count; i++) store.impulse.fill(0, this.slots[i] * IMP, this.slots[i] * IMP + IMP);
  }

  /** One pass over the solved joints; `useBias` adds the soft position correction (sub-step solve), else relax. */
  solve(store: JointStore, bodies: BodyStore, sb: SolverBodies, useBias: boolean): void {
    const rows = this.rows;
    const imp = store.impulse;
    for (let i = 0; i < this.count; i++) {
      const j = this.slots[i];
      this.load(store, bodies, sb, i);
      const o = j * IMP;
      const type = store.type[j];
      if (type === FIXED) {
        rows.angularLock(imp, o + ANG, useBias);
        rows.point(imp, o + LIN, useBias);
      } else if (type === BALL) {
        rows.point(imp, o + LIN, useBias);
      } else if (type === HINGE) {
        this.axial(store, j, useBias);
        rows.swing(imp, o + ANG, useBias);
        rows.point(imp, o + LIN, useBias);
      } else if (type === SLIDER) {
        this.axial(store, j, useBias);
        rows.slideLock(imp, o + LIN, o + ANG, useBias);
      } else {
        this.axial(store, j, useBias);
      }
      this.save(sb, i);
    }
  }

  /**
   * After the step: each solved joint's mean force and torque on B over the step (the sub-steps' impulses
   * summed, over dt), and the joints that exceeded their break thresholds (into `broken`).
   */
  finish(store: JointStore, bodies: BodyStore, sb: SolverBodies): void {
    const rows = this.rows;
    const p = rows.pose;
    const imp = this.stepTotal;
    const invH = this.invDt;
    this.brokenCount = 0;
    for (let i = 0; i < this.count; i++) {
      const j = this.slots[i];
      this.load(store, bodies, sb, i);
      const o = i * IMP;
      const r = j * 6;
      const type = store.type[j];
      const reaction = store.reaction;
      for (let k = 0; k < 6; k++) reaction[r + k] = 0;
      if (type === FIXED || type === BALL || type === HINGE) {
        for (let k = 0; k < 3; k++) reaction[r + k] = imp[o + LIN + k] * invH;
      }
      if (type === FIXED || type === SLIDER) {
        for (let k = 0; k < 3; k++) reaction[r + 3 + k] = imp[o + ANG + k] * invH;
      }
      if (type === HINGE) {
        for (let k = 0; k < 3; k++) reaction[r + 3 + k] = (imp[o + ANG] * p[P_Y + k] + imp[o + ANG + 1] * p[P_Z + k]) * invH;
      }
      if (type === SLIDER) {
        for (let k = 0; k < 3; k++) reaction[r + k] = (imp[o + LIN] * p[P_Y + k] + imp[o + LIN + 1] * p[P_Z + k]) * invH;
      }
      if (type !== FIXED && type !== BALL) {
        const total = (imp[o + AXIAL] + imp[o + LOWER] - imp[o + UPPER]) * invH;
        this.axialRow(type);
        const row = rows.row;
        // Angular rows (hinge) add torque about the axis; linear ones (slider, distance) force along it.
        if (type === HINGE) for (let k = 0; k < 3; k++) reaction[r + 3 + k] += total * row[6 + k];
        else for (let k = 0; k < 3; k++) reaction[r + k] += total * row[k];
      }
      const f2 = reaction[r] * reaction[r] + reaction[r + 1] * reaction[r + 1] + reaction[r + 2] * reaction[r + 2];
      const t2 = reaction[r + 3] * reaction[r + 3] + reaction[r + 4] * reaction[r + 4] + reaction[r + 5] * reaction[r + 5];
      const fMax = store.breakAt[j * 2];
      const tMax = store.breakAt[j * 2 + 1];
      if (f2 > fMax * fMax || t2 > tMax * tMax) this.broken[this.brokenCount++] = j;
    }
  }

  /** Motor, then the limits (or a distance joint's rod or spring): all along the joint's axial row. */
  private axial(store: JointStore, j: number, useBias: boolean): void {
    const rows = this.rows;
    const type = store.type[j];
    const flags = store.flags[j];
    const imp = store.impulse;
    const o = j * IMP;
    const scalar = rows.scalar;
    const row = rows.row;
    if (!this.axialRow(type)) return;
    if ((flags & J_MOTOR) !== 0) {
      // Box2D's motor: drive the row's velocity to the target; the accumulated impulse never exceeds h·maxForce.
      rows.measureRow(type === HINGE ? 0 : 1);
      const max = rows.h * store.motor[j * 2 + 1];
      const old = imp[o + AXIAL];
      let next = old - scalar[0] * (scalar[1] - store.motor[j * 2]);
      next = next < -max ? -max : next > max ? max : next;
      imp[o + AXIAL] = next;
      scalar[0] = next - old;
      rows.applyRowImpulse();
      this.axialRow(type);
    }
    if ((flags & J_LIMITS) === 0) return;
    this.coordinate(type);
    const coordinate = this.coord[0];
    const lo = store.limits[j * 2];
    const hi = store.limits[j * 2 + 1];
    const spring = (flags & J_SPRING) !== 0;
    if (spring) softness(store.spring, j * 2, rows, SOFT_SPRING);
    const lin = type === HINGE ? 0 : 1;
    if (type === DISTANCE && lo === hi) {
      // A rod (rigid, soft only in the biased pass) or a spring to its rest length (soft in both: a physical force).
      rows.measureRow(lin);
      let bias = 0;
      let massScale = 1;
      let impulseScale = 0;
      const soft = rows.soft;
      const s = spring ? SOFT_SPRING : SOFT_RIGID;
      if (spring || useBias) {
        bias = soft[s] * (coordinate - lo);
        massScale = soft[s + 1];
        impulseScale = soft[s + 2];
      }
      const l = -massScale * scalar[0] * (scalar[1] + bias) - impulseScale * imp[o + AXIAL];
      imp[o + AXIAL] += l;
      scalar[0] = l;
      rows.applyRowImpulse();
      return;
    }
    // Lower: C = x - lo >= 0 along +row; upper: C = hi - x >= 0 along -row.
    for (let side = 0; side < 2; side++) {
      if (side === 1) this.axialRow(type);
      if (side === 1) for (let k = 0; k < 9; k++) row[k] = -row[k];
      rows.measureRow(lin);
      const c = side === 0 ? coordinate - lo : hi - coordinate;
      const slot = o + (side === 0 ? LOWER : UPPER);
      let bias = 0;
      let massScale = 1;
      let impulseScale = 0;
      if (spring) {
        // A soft limit pulls only while it is exceeded.
        if (c >= 0) {
          if (imp[slot] !== 0) {
            scalar[0] = -imp[slot];
            imp[slot] = 0;
            rows.applyRowImpulse();
          }
          continue;
        }
        bias = rows.soft[SOFT_SPRING] * c;
        massScale = rows.soft[SOFT_SPRING + 1];
        impulseScale = rows.soft[SOFT_SPRING + 2];
      } else if (c > 0) {
        // Speculative: the gap may close within this sub-step, no further.
        bias = c * rows.invH;
      } else if (useBias) {
        bias = rows.soft[SOFT_RIGID] * c;
        massScale = rows.soft[SOFT_RIGID + 1];
        impulseScale = rows.soft[SOFT_RIGID + 2];
      }
      const old = imp[slot];
      let next = old - massScale * scalar[0] * (scalar[1] + bias) - impulseScale * old;
      if (next < 0) next = 0;
      imp[slot] = next;
      scalar[0] = next - old;
      rows.applyRowImpulse();
    }
  }

  /**
   * Sets the rows' scalar row to the joint's axial direction: the hinge axis (angular), the slider axis
   * (linear, A's lever rA + d) or the anchors' line (distance). False for a distance joint whose anchors
   * coincide (no direction to push along).
   */
  private axialRow(type: number): boolean {
    const rows = this.rows;
    const p = rows.pose;
    const r = rows.row;
    if (type === HINGE) {
      r[0] = r[1] = r[2] = 0;
      for (let k = 0; k < 3; k++) r[3 + k] = r[6 + k] = p[P_X + k];
      return true;
    }
    if (type === SLIDER) {
      rows.slideRow(P_X);
      return true;
    }
    const dx = p[P_D];
    const dy = p[P_D + 1];
    const dz = p[P_D + 2];
    const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
    if (len < 1e-9) return false;
    const ux = dx / len;
    const uy = dy / len;
    const uz = dz / len;
    r[0] = ux;
    r[1] = uy;
    r[2] = uz;
    r[3] = p[P_RA + 1] * uz - p[P_RA + 2] * uy;
    r[4] = p[P_RA + 2] * ux - p[P_RA] * uz;
    r[5] = p[P_RA] * uy - p[P_RA + 1] * ux;
    r[6] = p[P_RB + 1] * uz - p[P_RB + 2] * uy;
    r[7] = p[P_RB + 2] * ux - p[P_RB] * uz;
    r[8] = p[P_RB] * uy - p[P_RB + 1] * ux;
    return true;
  }

  /**
   * The joint's coordinate at the loaded pose (hinge angle, slider travel, distance) into coord[0] (a
   * double returned from a call V8 does not inline would be boxed).
   */
  private coordinate(type: number): void {
    const p = this.rows.pose;
    if (type === HINGE) {
      ANGLE_IO[0] = p[P_REL];
      ANGLE_IO[1] = p[P_REL + 3];
      atan2Into(ANGLE_IO);
      this.coord[0] = 2 * ANGLE_IO[2];
    } else if (type === SLIDER) this.coord[0] = p[P_X] * p[P_D] + p[P_X + 1] * p[P_D + 1] + p[P_X + 2] * p[P_D + 2];
    else this.coord[0] = Math.sqrt(p[P_D] * p[P_D] + p[P_D + 1] * p[P_D + 1] + p[P_D + 2] * p[P_D + 2]);
  }

  /** Loads joint i's bodies (velocities and masses from the solver bodies, poses from the store) into the rows. */
  private load(store: JointStore, bodies: BodyStore, sb: SolverBodies, i: number): void {
    const rows = this.rows;
    const j = this.slots[i];
    const iA = this.indexA[i];
    const iB = this.indexB[i];
    const v = rows.vel;
    const m = rows.mass;
    const sv = sb.vel;
    const sm = sb.mass;
    for (let k = 0; k < 6; k++) {
      v[k] = sv[iA * 6 + k];
      v[6 + k] = sv[iB * 6 + k];
    }
    for (let k = 0; k < 7; k++) {
      m[k] = sm[iA * 7 + k];
      m[7 + k] = sm[iB * 7 + k];
    }
    const p = rows.pose;
    const a = store.bodyA[j];
    const b = store.bodyB[j];
    const pos = bodies.pos;
    const rot = bodies.rot;
    rotateVec(p, P_RA, rot, a * 4, store.localA, j * 3);
    multiplyQuat(p, P_QA, rot, a * 4, store.frameA, j * 4, false);
    if (b >= 0) {
      rotateVec(p, P_RB, rot, b * 4, store.localB, j * 3);
      multiplyQuat(p, P_QB, rot, b * 4, store.frameB, j * 4, false);
      for (let k = 0; k < 3; k++) p[P_D + k] = pos[b * 3 + k] + p[P_RB + k] - pos[a * 3 + k] - p[P_RA + k];
    } else {
      // The world: B's "lever" is the anchor point itself (B's inverse mass and inertia are zero).
      for (let k = 0; k < 3; k++) p[P_RB + k] = store.localB[j * 3 + k];
      for (let k = 0; k < 4; k++) p[P_QB + k] = store.frameB[j * 4 + k];
      for (let k = 0; k < 3; k++) p[P_D + k] = p[P_RB + k] - pos[a * 3 + k] - p[P_RA + k];
    }
    frameX(p, P_QA, p, P_X);
    frameY(p, P_QA, p, P_Y);
    frameZ(p, P_QA, p, P_Z);
    multiplyQuat(p, P_REL, p, P_QA, p, P_QB, true);
    if (p[P_REL + 3] < 0) for (let k = 0; k < 4; k++) p[P_REL + k] = -p[P_REL + k];
  }

  /** Writes joint i's solved velocities back to the solver bodies (the immovable body 0 never changes). */
  private save(sb: SolverBodies, i: number): void {
    const v = this.rows.vel;
    const m = this.rows.mass;
    const iA = this.indexA[i];
    const iB = this.indexB[i];
    if (m[0] !== 0) for (let k = 0; k < 6; k++) sb.vel[iA * 6 + k] = v[k];
    if (m[7] !== 0) for (let k = 0; k < 6; k++) sb.vel[iB * 6 + k] = v[6 + k];
  }
}

/** Solver index of a joint's body: awake dynamic and kinematic bodies have one; static and sleeping ones are body 0. */
function solverIndex(bodies: BodyStore, slot: number): number {
  const type = bodies.type[slot];
  if (type === KINEMATIC) return bodies.solverIndex[slot];
  if (type === DYNAMIC && bodies.activity[slot] !== CAT_SLEEPING) return bodies.solverIndex[slot];
  return 0;
}

/** Stiffness and damping ratio of rigid joints' soft rows. */
const RIGID_PARAMS = new Float64Array([ENGINE_CONSTANTS.jointHertz, ENGINE_CONSTANTS.jointDampingRatio]);

/**
 * Box2D's soft constraint coefficients for hertz = params[po] and damping ratio params[po + 1] over the
 * rows' sub-step, into rows.soft[o..o+2] (bias rate, mass scale, impulse scale).
 */
function softness(params: Float64Array, po: number, rows: JointRows, o: number): void {
  const hertz = params[po];
  const zeta = params[po + 1];
  const h = rows.h;
  const out = rows.soft;
  const omega = 2 * Math.PI * hertz;
  const a1 = 2 * zeta + h * omega;
  const a2 = h * omega * a1;
  const a3 = 1 / (1 + a2);
  out[o] = omega / a1;
  out[o + 1] = a2 * a3;
  out[o + 2] = a3;
}
