import { type BodyStore, DYNAMIC } from "./body-store.ts";
import { BIAS_RATE, CS, D_AB, IMPULSE_SCALE, K11, K12, K22, LN, L_TW, MASS_SCALE, MU, N, POINTS, PS, RA, RA_T1, RB_T1, REST, SEP0 } from "./constraint-layout.ts";
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
 * Starts a constraint for every contact that has points and an awake dynamic body: picks the contacts,
 * their solver bodies and materials, and stages what the kernel's `prepare` (kernel/assembly/
 * contact-prepare.ts) completes them from. Anchors, effective masses and the pre-solve normal velocity
 * (for restitution) come from the start-of-step state.
 */
export function prepareContacts(solver: ContactSolver, contacts: ContactStore, bodies: BodyStore, sb: SolverBodies, s: StepContext): void {
  solver.ensure(contacts.awakeCount);
  solver.ctx = s;
  soft(s, 1, softDynamic);
  soft(s, 2, softStatic);
  const cs = solver.cs;
  const ints = solver.ints;
  const mass = sb.mass;
  const warm = s.warmStarting;
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
    const soft3 = mass[iA * 7] === 0 || mass[iB * 7] === 0 ? softStatic : softDynamic;
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
    // Staged for the kernel (see its header): the centres, the carried friction, the points.
    cs[o + RA_T1] = pax;
    cs[o + RA_T1 + 1] = pay;
    cs[o + RA_T1 + 2] = paz;
    cs[o + RB_T1] = pbx;
    cs[o + RB_T1 + 1] = pby;
    cs[o + RB_T1 + 2] = pbz;
    const f = c * 4;
    const fr = contacts.friction;
    cs[o + K11] = fr[f];
    cs[o + K12] = fr[f + 1];
    cs[o + K22] = fr[f + 2];
    cs[o + L_TW] = warm ? fr[f + 3] : 0;
    const base = c * CONTACT_POINT_STRIDE;
    for (let k = 0; k < count; k++) {
      const q = base + k * POINT_STRIDE;
      const p = o + POINTS + k * PS;
      cs[p + RA] = pts[q + P_MID];
      cs[p + RA + 1] = pts[q + P_MID + 1];
      cs[p + RA + 2] = pts[q + P_MID + 2];
      cs[p + SEP0] = pts[q + P_SEPARATION];
      cs[p + LN] = warm ? pts[q + P_IMPULSE] : 0;
    }
    n++;
  }
  solver.count = n;
}
