import { ENGINE_CONSTANTS } from "../config.ts";
import { inverseRotateVec, rotateVec } from "../math/quat.ts";
import { type BodyStore, DYNAMIC, SPHERE } from "./body-store.ts";
import type { StepContext } from "../step-context.ts";
import { D_QUAT, SD, SM, SV } from "./constraint-layout.ts";
import type { SolverMemory } from "../kernel/solver-memory.ts";


const local = new Float64Array(3);

/**
 * The bodies one step solves: awake dynamic bodies first (in slot order), then kinematic bodies.
 * Index 0 is a shared immovable body (zero velocity, zero inverse mass) that stands for static and
 * sleeping partners, so the solver never branches on body type.
 * Per body: velocity (v, ω), the motion accumulated this step and inverse mass plus world inverse
 * inertia. The motion is Δp and the rotation qΔ, so the solver moves a contact anchor r exactly,
 * r + Δp + (R(qΔ) - I) r, as Box2D v3's contact solver does (a rotation linearised as Δθ × r moves a
 * point along its tangent: a body spinning past a wall it never touches would seem to reach it).
 */
export class SolverBodies {
  /** Sub-step length of the current step, s, copied from its StepContext by integrateVelocities. */
  h = 0;
  count = 1;
  dynamicCount = 0;
  slots = new Int32Array(64);
  /** Input of `displace`: displacement xyz, rotation vector xyz. */
  readonly move = new Float64Array(6);
  private readonly halfTurn = new Float64Array(3);
  private readonly mem: SolverMemory;

  constructor(mem: SolverMemory) {
    this.mem = mem;
  }

  /** vx vy vz wx wy wz (stride SV), in the solver memory the contact kernel reads. */
  get vel(): Float64Array {
    return this.mem.vel;
  }

  /** Per body (stride SD): Δp xyz, (unused), qΔ xyzw, since the start of the step. */
  get delta(): Float64Array {
    return this.mem.delta;
  }

  /** invMass, then I⁻¹ world: xx xy xz yy yz zz (stride SM). */
  get mass(): Float64Array {
    return this.mem.mass;
  }

  private ensure(n: number): void {
    this.mem.ensureBodies(n);
    if (n <= this.slots.length) return;
    let cap = this.slots.length;
    while (cap < n) cap *= 2;
    const s = new Int32Array(cap);
    s.set(this.slots);
    this.slots = s;
  }

  /**
   * Loads the awake dynamic bodies (`awake[0..awakeCount)`, slot order) and all kinematic bodies
   * (`kinematic[0..kinematicCount)`) and writes each body's solver index into `bodies.solverIndex`.
   */
  load(bodies: BodyStore, awake: Int32Array, awakeCount: number, kinematic: Int32Array, kinematicCount: number): void {
    const n = 1 + awakeCount + kinematicCount;
    this.ensure(n);
    this.count = n;
    this.dynamicCount = awakeCount;
    this.vel.fill(0, 0, n * SV);
    this.delta.fill(0, 0, n * SD);
    for (let i = 0; i < n; i++) this.delta[i * SD + D_QUAT + 3] = 1;
    this.mass.fill(0, 0, SM);
    this.slots[0] = -1;
    let i = 1;
    for (let k = 0; k < awakeCount; k++) this.loadBody(bodies, awake[k], i++, true);
    for (let k = 0; k < kinematicCount; k++) this.loadBody(bodies, kinematic[k], i++, false);
  }

  private loadBody(bodies: BodyStore, slot: number, i: number, dynamic: boolean): void {
    this.slots[i] = slot;
    bodies.solverIndex[slot] = i;
    const s3 = slot * 3;
    const v = i * SV;
    this.vel[v] = bodies.vel[s3];
    this.vel[v + 1] = bodies.vel[s3 + 1];
    this.vel[v + 2] = bodies.vel[s3 + 2];
    this.vel[v + 3] = bodies.angVel[s3];
    this.vel[v + 4] = bodies.angVel[s3 + 1];
    this.vel[v + 5] = bodies.angVel[s3 + 2];
    const m = i * SM;
    if (dynamic) {
      this.mass[m] = bodies.invMass[slot];
      const s6 = slot * 6;
      for (let k = 0; k < 6; k++) this.mass[m + 1 + k] = bodies.invInertiaWorld[s6 + k];
    } else {
      for (let k = 0; k < SM; k++) this.mass[m + k] = 0;
    }
  }

  /** Copies solved velocities back to the body store. */
  store(bodies: BodyStore): void {
    for (let i = 1; i < this.count; i++) {
      const slot = this.slots[i];
      if (bodies.type[slot] !== DYNAMIC) continue;
      const s3 = slot * 3;
      const v = i * SV;
      bodies.vel[s3] = this.vel[v];
      bodies.vel[s3 + 1] = this.vel[v + 1];
      bodies.vel[s3 + 2] = this.vel[v + 2];
      bodies.angVel[s3] = this.vel[v + 3];
      bodies.angVel[s3 + 1] = this.vel[v + 4];
      bodies.angVel[s3 + 2] = this.vel[v + 5];
    }
  }

  /**
   * Semi-implicit Euler, velocity half: gravity, damping, the gyroscopic term (implicit, one Newton
   * step in body space, Catto 2015) and speed caps. Dynamic bodies only.
   */
  integrateVelocities(bodies: BodyStore, ctx: StepContext): void {
    // The sub-step length stays on this object for integratePositions, displace and gyroscopic.
    const h = ctx.h;
    this.h = h;
    const gx = ctx.gravityX;
    const gy = ctx.gravityY;
    const gz = ctx.gravityZ;
    const vel = this.vel;
    const maxV2 = ENGINE_CONSTANTS.maxLinearSpeed * ENGINE_CONSTANTS.maxLinearSpeed;
    const maxW2 = ENGINE_CONSTANTS.maxAngularSpeed * ENGINE_CONSTANTS.maxAngularSpeed;
    for (let i = 1; i <= this.dynamicCount; i++) {
      const slot = this.slots[i];
      const v = i * SV;
      let vx = vel[v] + h * gx;
      let vy = vel[v + 1] + h * gy;
      let vz = vel[v + 2] + h * gz;
      let wx = vel[v + 3];
      let wy = vel[v + 4];
      let wz = vel[v + 5];
      const ld = bodies.linearDamping[slot];
      if (ld > 0) {
        const f = 1 / (1 + h * ld);
        vx *= f;
        vy *= f;
        vz *= f;
      }
      const ad = bodies.angularDamping[slot];
      if (ad > 0) {
        const f = 1 / (1 + h * ad);
        wx *= f;
        wy *= f;
        wz *= f;
      }
      const s3 = slot * 3;
      const ix = bodies.inertia[s3];
      const iy = bodies.inertia[s3 + 1];
      const iz = bodies.inertia[s3 + 2];
      if ((ix !== iy || iy !== iz) && (wx !== 0 || wy !== 0 || wz !== 0)) {
        local[0] = wx;
        local[1] = wy;
        local[2] = wz;
        inverseRotateVec(local, 0, bodies.rot, slot * 4, local, 0);
        gyroscopic(local, bodies.inertia, s3, this);
        rotateVec(local, 0, bodies.rot, slot * 4, local, 0);
        wx = local[0];
        wy = local[1];
        wz = local[2];
      }
      const v2 = vx * vx + vy * vy + vz * vz;
      if (v2 > maxV2) {
        const f = ENGINE_CONSTANTS.maxLinearSpeed / Math.sqrt(v2);
        vx *= f;
        vy *= f;
        vz *= f;
      }
      const w2 = wx * wx + wy * wy + wz * wz;
      if (w2 > maxW2) {
        const f = ENGINE_CONSTANTS.maxAngularSpeed / Math.sqrt(w2);
        wx *= f;
        wy *= f;
        wz *= f;
      }
      vel[v] = vx;
      vel[v + 1] = vy;
      vel[v + 2] = vz;
      vel[v + 3] = wx;
      vel[v + 4] = wy;
      vel[v + 5] = wz;
    }
  }

  /**
   * Semi-implicit Euler, position half: x += h v, q += h/2 [ω,0] q (renormalised); also Δp and qΔ.
   * A sphere's qΔ stays the identity: turning a sphere about its centre moves no point of its surface
   * closer to anything (its contact anchors lie on the normal through the centre), while turning the
   * anchors as material points would lift them off the floor.
   */
  integratePositions(bodies: BodyStore): void {
    const h = this.h;
    const vel = this.vel;
    const delta = this.delta;
    const pos = bodies.pos;
    const rot = bodies.rot;
    for (let i = 1; i < this.count; i++) {
      const slot = this.slots[i];
      if (bodies.moved[slot] === 1) continue;
      const v = i * SV;
      const d = i * SD;
      const s3 = slot * 3;
      const dx = h * vel[v];
      const dy = h * vel[v + 1];
      const dz = h * vel[v + 2];
      pos[s3] += dx;
      pos[s3 + 1] += dy;
      pos[s3 + 2] += dz;
      delta[d] += dx;
      delta[d + 1] += dy;
      delta[d + 2] += dz;
      const wx = vel[v + 3];
      const wy = vel[v + 4];
      const wz = vel[v + 5];
      if (wx !== 0 || wy !== 0 || wz !== 0) {
        // q += h/2 [ω, 0] ⊗ q, renormalised (inlined: a call would box the doubles it passes).
        const q4 = slot * 4;
        const qx = rot[q4];
        const qy = rot[q4 + 1];
        const qz = rot[q4 + 2];
        const qw = rot[q4 + 3];
        const k = 0.5 * h;
        const nx = qx + k * (wx * qw + wy * qz - wz * qy);
        const ny = qy + k * (wy * qw + wz * qx - wx * qz);
        const nz = qz + k * (wz * qw + wx * qy - wy * qx);
        const nw = qw - k * (wx * qx + wy * qy + wz * qz);
        const inv = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
        rot[q4] = nx * inv;
        rot[q4 + 1] = ny * inv;
        rot[q4 + 2] = nz * inv;
        rot[q4 + 3] = nw * inv;
        if (bodies.shape[slot] !== SPHERE) {
          // Same update for qΔ (it starts at identity), so q = qΔ ⊗ q(step start) throughout.
          const o = d + D_QUAT;
          const ax = delta[o];
          const ay = delta[o + 1];
          const az = delta[o + 2];
          const aw = delta[o + 3];
          const mx = ax + k * (wx * aw + wy * az - wz * ay);
          const my = ay + k * (wy * aw + wz * ax - wx * az);
          const mz = az + k * (wz * aw + wx * ay - wy * ax);
          const mw = aw - k * (wx * ax + wy * ay + wz * az);
          const minv = 1 / Math.sqrt(mx * mx + my * my + mz * mz + mw * mw);
          delta[o] = mx * minv;
          delta[o + 1] = my * minv;
          delta[o + 2] = mz * minv;
          delta[o + 3] = mw * minv;
        }
      }
    }
  }

  /**
   * Moves dynamic solver body i by the displacement `move[0..2]` and the small rotation vector
   * `move[3..5]`: position, orientation and this step's motion (Δp, qΔ) alike. Used by a bounce
   * that happened before the end of the step (ContactSolver.applyRestitution). The amounts travel in
   * `move`, not as arguments (passing doubles to a call V8 does not inline boxes them).
   */
  displace(i: number, bodies: BodyStore): void {
    const slot = this.slots[i];
    const m = this.move;
    const d = i * SD;
    const s3 = slot * 3;
    for (let k = 0; k < 3; k++) {
      bodies.pos[s3 + k] += m[k];
      this.delta[d + k] += m[k];
    }
    if (m[3] === 0 && m[4] === 0 && m[5] === 0) return;
    const half = this.halfTurn;
    half[0] = 0.5 * m[3];
    half[1] = 0.5 * m[4];
    half[2] = 0.5 * m[5];
    turnQuat(bodies.rot, slot * 4, half);
    if (bodies.shape[slot] === SPHERE) return;
    turnQuat(this.delta, d + D_QUAT, half);
  }
}

/** q ← normalise(q + [half, 0] ⊗ q) for the quaternion at q[o..o+3]: a turn by the vector 2·half. */
function turnQuat(q: Float64Array, o: number, half: Float64Array): void {
  const qx = q[o];
  const qy = q[o + 1];
  const qz = q[o + 2];
  const qw = q[o + 3];
  const hx = half[0];
  const hy = half[1];
  const hz = half[2];
  const nx = qx + (hx * qw + hy * qz - hz * qy);
  const ny = qy + (hy * qw + hz * qx - hx * qz);
  const nz = qz + (hz * qw + hx * qy - hy * qx);
  const nw = qw - (hx * qx + hy * qy + hz * qz);
  const inv = 1 / Math.sqrt(nx * nx + ny * ny + nz * nz + nw * nw);
  q[o] = nx * inv;
  q[o + 1] = ny * inv;
  q[o + 2] = nz * inv;
  q[o + 3] = nw * inv;
}

/**
 * Implicit gyroscopic update in body space: solve I(ω' - ω) + h ω' × Iω' = 0 with one Newton step,
 * ω' = ω - J⁻¹ f, f = h ω × Iω, J = I + h (skew(ω) I - skew(Iω)). Stable: a free body's energy does
 * not grow, yet a box spun about its intermediate axis still flips. `w` is updated in place.
 */
function gyroscopic(w: Float64Array, inertia: Float64Array, i3: number, step: { h: number }): void {
  const h = step.h;
  const ix = inertia[i3];
  const iy = inertia[i3 + 1];
  const iz = inertia[i3 + 2];
  const wx = w[0];
  const wy = w[1];
  const wz = w[2];
  const lx = ix * wx;
  const ly = iy * wy;
  const lz = iz * wz;
  const fx = h * (wy * lz - wz * ly);
  const fy = h * (wz * lx - wx * lz);
  const fz = h * (wx * ly - wy * lx);
  const j00 = ix;
  const j01 = h * (lz - iy * wz);
  const j02 = h * (iz * wy - ly);
  const j10 = h * (ix * wz - lz);
  const j11 = iy;
  const j12 = h * (lx - iz * wx);
  const j20 = h * (ly - ix * wy);
  const j21 = h * (iy * wx - lx);
  const j22 = iz;
  // Cramer's rule.
  const c00 = j11 * j22 - j12 * j21;
  const c01 = j12 * j20 - j10 * j22;
  const c02 = j10 * j21 - j11 * j20;
  const det = j00 * c00 + j01 * c01 + j02 * c02;
  if (det === 0) return;
  const inv = 1 / det;
  const x0 = (c00 * fx + (j02 * j21 - j01 * j22) * fy + (j01 * j12 - j02 * j11) * fz) * inv;
  const x1 = (c01 * fx + (j00 * j22 - j02 * j20) * fy + (j02 * j10 - j00 * j12) * fz) * inv;
  const x2 = (c02 * fx + (j01 * j20 - j00 * j21) * fy + (j00 * j11 - j01 * j10) * fz) * inv;
  w[0] = wx - x0;
  w[1] = wy - x1;
  w[2] = wz - x2;
}
