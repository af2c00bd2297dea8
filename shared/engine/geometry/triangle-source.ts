/**
 * Level geometry made of triangles (a mesh or a height field), seen by the narrow phase and the queries
 * in the body's local frame. Both readers reuse caller-owned buffers, so a query allocates nothing.
 */
export interface TriangleSource {
  /** Local bounds of every triangle: min xyz, max xyz. */
  readonly bounds: Float64Array;
  readonly triangleCount: number;
  /**
   * Writes into `out` the ids of the triangles whose bounds overlap the local box lo..hi (lo[0..2],
   * hi[0..2]), in ascending id order, up to out.length of them; returns how many were written (when it
   * equals out.length there may be more).
   */
  queryTriangles(lo: Float64Array, hi: Float64Array, out: Int32Array): number;
  /**
   * Triangle `id`'s corners in the local frame into out[o .. o + 8] (v0, v1, v2, counter-clockwise seen
   * from the side its normal points to). Returns its active-edge bits: bit 0 for edge v0-v1, bit 1 for
   * v1-v2, bit 2 for v2-v0. An edge is inactive when the neighbour across it continues the surface flat
   * or concave (dihedral angle below a small threshold); contacts must not use an inactive edge's normal.
   */
  triangle(id: number, out: Float64Array, o: number): number;
}
