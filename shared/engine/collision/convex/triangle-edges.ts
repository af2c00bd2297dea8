import type { PolyView } from "./poly-view.ts";

/**
 * Internal-edge handling for mesh triangles. A contact normal that is not the triangle's face normal is
 * kept only if it leans outward across an active edge of the triangle's touching feature (the mesh's
 * boundary or a convex crease); a normal that would come from an inactive edge or from a vertex between
 * inactive edges is a seam artefact (a box sliding over the diagonal of a flat quad would catch on it),
 * and the caller replaces it by the face normal. The same rule as Bullet's btAdjustInternalEdgeContacts
 * and Jolt's active edges, reduced to the triangle's own data (TriangleSource's active-edge bits).
 */

/** Vertices within this fraction of the triangle's size of the extreme count as touching. */
const FEATURE_TOLERANCE = 1e-6;
/** A normal this close to the face normal (cosine) is the face normal. */
const FACE_COS = 1 - 1e-9;

/**
 * Returns 1 if the unit direction d[0..2] (from the triangle towards the other shape) may be the contact
 * normal of triangle view `v` with active-edge bits `active`, else 0.
 */
export function triangleNormalAllowed(v: PolyView, active: number, d: Float64Array): number {
  const dx = d[0];
  const dy = d[1];
  const dz = d[2];
  const P = v.planes;
  const nx = P[0];
  const ny = P[1];
  const nz = P[2];
  const c = dx * nx + dy * ny + dz * nz;
  if (c >= FACE_COS || c <= -FACE_COS) return 1;
  if (active === 0) return 0;
  const t = v.verts;
  const s0 = dx * t[0] + dy * t[1] + dz * t[2];
  const s1 = dx * t[3] + dy * t[4] + dz * t[5];
  const s2 = dx * t[6] + dy * t[7] + dz * t[8];
  const top = s0 > s1 ? (s0 > s2 ? s0 : s2) : s1 > s2 ? s1 : s2;
  const tol = FEATURE_TOLERANCE * v.boundRadius;
  const touching = (s0 >= top - tol ? 1 : 0) | (s1 >= top - tol ? 2 : 0) | (s2 >= top - tol ? 4 : 0);
  for (let e = 0; e < 3; e++) {
    if ((active & (1 << e)) === 0) continue;
    const i = e;
    const j = e === 2 ? 0 : e + 1;
    const bi = 1 << i;
    const bj = 1 << j;
    // The edge must belong to the touching feature: that feature is this edge or one of its ends.
    const isEdge = (touching & bi) !== 0 && (touching & bj) !== 0;
    const isEnd = touching === bi || touching === bj;
    if (!isEdge && !isEnd) continue;
    const ex = t[3 * j] - t[3 * i];
    const ey = t[3 * j + 1] - t[3 * i + 1];
    const ez = t[3 * j + 2] - t[3 * i + 2];
    // Outward in-plane perpendicular of edge i → j (face 0 is counter-clockwise about its normal).
    const ox = ey * nz - ez * ny;
    const oy = ez * nx - ex * nz;
    const oz = ex * ny - ey * nx;
    if (ox * dx + oy * dy + oz * dz > 0) return 1;
  }
  return 0;
}
