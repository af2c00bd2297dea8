export const NORMAL_OF_A = 0;
export const NORMAL_OF_B = 1;
export const NORMAL_OF_NEITHER = -1;

/** Most contact points kept per pair (a face contact is reduced to these). */
export const MAX_MANIFOLD_POINTS = 4;

/**
 * Output of one narrow-phase query, reused for every pair (never escapes the collide stage).
 * Points are in world space: `pointA` on A's surface, `pointB` on B's surface; `separation` is
 * (pointB - pointA) · normal, negative when penetrating; `normal` points from A to B.
 */
export class ManifoldOut {
  /** Input: report points with a gap up to this many metres (speculative contacts). */
  margin = 0;
  /**
   * Input: B's displacement relative to A over the step (linear velocities times the step) for pairs
   * CCD swept, else zero. A sphere against a box edge or corner takes its normal where it will touch
   * instead of where it starts (sphere-box.ts).
   */
  readonly motion = new Float64Array(3);
  count = 0;
  readonly normal = new Float64Array(3);
  readonly pointA = new Float64Array(3 * MAX_MANIFOLD_POINTS);
  readonly pointB = new Float64Array(3 * MAX_MANIFOLD_POINTS);
  readonly separation = new Float64Array(MAX_MANIFOLD_POINTS);
  /** Feature id per point: which faces/edges/vertices made it, stable across ticks for warm starting. */
  readonly id = new Int32Array(MAX_MANIFOLD_POINTS);
  /**
   * Which body's face defines the normal: NORMAL_OF_A or NORMAL_OF_B (it turns with that body, so a
   * recycled manifold can rotate it along), or NORMAL_OF_NEITHER (edge-edge, sphere against an edge or
   * corner: the normal depends on both poses and the manifold must not be recycled).
   */
  normalOwner = NORMAL_OF_NEITHER;

  /** Swaps the roles of A and B (normal negated, point sets exchanged). */
  flip(): void {
    if (this.normalOwner !== NORMAL_OF_NEITHER) this.normalOwner = this.normalOwner === NORMAL_OF_A ? NORMAL_OF_B : NORMAL_OF_A;
    const n = this.normal;
    n[0] = -n[0];
    n[1] = -n[1];
    n[2] = -n[2];
    const a = this.pointA;
    const b = this.pointB;
    for (let i = 0; i < 3 * this.count; i++) {
      const t = a[i];
      a[i] = b[i];
      b[i] = t;
    }
  }
}
