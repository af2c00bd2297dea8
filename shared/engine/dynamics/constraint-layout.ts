/*
 * Contact constraints, one per manifold, packed in one Float64Array (stride CS). Normal rows are
 * per point; friction is solved once per manifold at the centre of its points (two tangent rows,
 * coupled, with a circular Coulomb cone μ·Σλn) plus a twist row about the normal, the way Bepu and
 * Box3D do it: 3 friction rows instead of 8 for a 4-point face contact.
 *
 * Sign conventions: n points from A to B; relative velocity is vB + ωB × rB - vA - ωA × rA;
 * an impulse λ n is applied +B, -A.
 */
export const CS = 148;
// Header
export const D_AB = 0; // 3: centre of A minus centre of B at the start of the step
export const MU = 3;
export const REST = 4;
export const N = 5; // 3
export const T1 = 8; // 3
export const T2 = 11; // 3
export const RA_T1 = 14; // rAc × t1
export const RB_T1 = 17;
export const RA_T2 = 20;
export const RB_T2 = 23;
export const IA_T1 = 26; // I_A⁻¹ (rAc × t1)
export const IB_T1 = 29;
export const IA_T2 = 32;
export const IB_T2 = 35;
export const K11 = 38; // inverse of the 2x2 tangent effective mass
export const K12 = 39;
export const K22 = 40;
export const L_T1 = 41;
export const L_T2 = 42;
export const IA_N = 43; // I_A⁻¹ n (twist)
export const IB_N = 46;
export const TWIST_MASS = 49;
export const L_TW = 50;
export const BIAS_RATE = 51;
export const MASS_SCALE = 52;
export const IMPULSE_SCALE = 53;
/**
 * The separation terms of the current pose (5: k0, s1, g; the kernel's solve, kernel/assembly), written by the pass
 * after positions moved and read by the passes until they move again.
 */
export const GEOM = 54;
// Points
export const POINTS = 60;
export const PS = 22;
export const RAXN = 0; // rA × n
export const RBXN = 3;
export const IAXN = 6; // I_A⁻¹ (rA × n)
export const IBXN = 9;
export const NMASS = 12;
export const SEP0 = 13;
export const LN = 14;
export const VN0 = 15;
export const DIST = 16; // distance to the friction centre (twist limit)
export const LMAX = 17;
/**
 * A's contact point relative to A's centre at the start of the step (3). B's is rA + D_AB + SEP0·n (the
 * points differ by the separation along the normal). The current separation follows both points as
 * material points of their bodies: sep0 + n·(ΔpB + (RB - I) rB - ΔpA - (RA - I) rA) (Box2D v3).
 */
export const RA = 18;
/**
 * Normal impulse this point applied during the step, less the warm-start impulse it started with: each
 * sub-step's warm start adds the impulse it re-applies, so with the final impulse added at the end this is
 * the step's total (every sub-step, the bounce included). For contact events; not read by the solver.
 */
export const TOTAL = 21;

/*
 * Solver bodies (solver-bodies.ts): per body, velocity (stride SV: v, ω), inverse mass and world inverse
 * inertia (stride SM), and the motion this step (stride SD: Δp, unused, qΔ at D_QUAT).
 */
export const SV = 6;
export const SM = 7;
export const SD = 8;
export const D_QUAT = 4;
