import { type BodyStore, DYNAMIC } from "./body-store.ts";
import { BIAS_RATE, CS, D_AB, DIST, IAXN, IA_N, IA_T1, IA_T2, IBXN, IB_N, IB_T1, IB_T2, IMPULSE_SCALE, K11, K12, K22, LMAX, LN, L_T1, L_T2, L_TW, MASS_SCALE, MU, N, NMASS, POINTS, PS, RA, RAXN, RA_T1, RA_T2, RBXN, RB_T1, RB_T2, REST, SEP0, T1, T2, TOTAL, TWIST_MASS, VN0 } from "./constraint-layout.ts";
import type { StepContext } from "../step-context.ts";
import type { ContactSolver } from "./contact-solver.ts";
import { CONTACT_POINT_STRIDE, type ContactStore, FLAG_SENSOR, P_IMPULSE, P_MID, P_SEPARATION, POINT_STRIDE } from "./contact-store.ts";
import type { SolverBodies } from "./solver-bodies.ts";

/**
 * Box2D's soft constraint coefficients for a spring of `scale` × contactHertz with the damping ratio over
 * the sub-step h: out = [bias rate, mass scale, impulse scale]. Reads its scalars from `s` (no boxed
 * double arguments in the step).
 */
function soft(s: StepContext, scale: number, out: Float64Array): void {
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

/**
 * Builds a constraint for every contact that has points and an awake dynamic body. Anchors, effective
 * masses and the pre-solve normal velocity (for restitution) come from the start-of-step state.
 */
export function prepareContacts(solver: ContactSolver, contacts: ContactStore, bodies: BodyStore, sb: SolverBodies, s: StepContext): void {
  solver.ensure(contacts.awakeCount);
  solver.ctx = s;
  soft(s, 1, softDynamic);
  soft(s, 2, softStatic);
  const cs = solver.cs;
  const ints = solver.ints;
  const vel = sb.vel;
  const mass = sb.mass;
  const pos = bodies.pos;
  const pts = contacts.points;
  let n = 0;
  const perBody = solver.constraintsPerBody(sb.count);
  // The awake contact set: contacts of sleeping islands are not even visited.
  const awakeContacts = contacts.awake;
  for (let i = 0; i < contacts.awakeCount; i++) {
    const c = awakeContacts[i];
    const count = contacts.pointCount[c];
    // Sensors report overlap; they are never solved.
    if (count === 0 || (contacts.flags[c] & FLAG_SENSOR) !== 0) continue;
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
    perBody[iA]++;
    perBody[iB]++;
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
    cs[o + D_AB] = pax - pbx;
    cs[o + D_AB + 1] = pay - pby;
    cs[o + D_AB + 2] = paz - pbz;
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
      const sep0 = pts[q + P_SEPARATION];
      cs[p + SEP0] = sep0;
      // A's own point, half the separation below the midpoint (B's is as far above it).
      cs[p + RA] = rax - 0.5 * sep0 * nx;
      cs[p + RA + 1] = ray - 0.5 * sep0 * ny;
      cs[p + RA + 2] = raz - 0.5 * sep0 * nz;
      cs[p + LN] = s.warmStarting ? pts[q + P_IMPULSE] : 0;
      cs[p + LMAX] = 0;
      cs[p + TOTAL] = -cs[p + LN];
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
  solver.count = n;
}
