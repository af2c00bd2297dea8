/**
 * Reduces a clipped face contact's candidate points to at most 4 (Box2D v3 manifold.c's choice): the
 * deepest point, the one farthest from it, then the two that make the largest triangle on either side of
 * that line, measured along the reference normal. Writes the chosen indices into `keep`; returns how many.
 * Shared by box-box.ts and the general convex clipping. The normal travels in an array (a double passed
 * to a call V8 does not inline is boxed).
 */
export function reducePoints(points: Float64Array, separation: Float64Array, m: number, normal: Float64Array, keep: Int32Array): number {
  const nx = normal[0];
  const ny = normal[1];
  const nz = normal[2];
  let p0 = 0;
  for (let k = 1; k < m; k++) if (separation[k] < separation[p0]) p0 = k;
  const x0 = points[3 * p0];
  const y0 = points[3 * p0 + 1];
  const z0 = points[3 * p0 + 2];
  let p1 = -1;
  let best = -1;
  for (let k = 0; k < m; k++) {
    if (k === p0) continue;
    const dx = points[3 * k] - x0;
    const dy = points[3 * k + 1] - y0;
    const dz = points[3 * k + 2] - z0;
    const d2 = dx * dx + dy * dy + dz * dz;
    if (d2 > best) {
      best = d2;
      p1 = k;
    }
  }
  const ex = points[3 * p1] - x0;
  const ey = points[3 * p1 + 1] - y0;
  const ez = points[3 * p1 + 2] - z0;
  let p2 = -1;
  let p3 = -1;
  let maxArea = 0;
  let minArea = 0;
  for (let k = 0; k < m; k++) {
    if (k === p0 || k === p1) continue;
    const fx = points[3 * k] - x0;
    const fy = points[3 * k + 1] - y0;
    const fz = points[3 * k + 2] - z0;
    const area = (ey * fz - ez * fy) * nx + (ez * fx - ex * fz) * ny + (ex * fy - ey * fx) * nz;
    if (area > maxArea) {
      maxArea = area;
      p2 = k;
    }
    if (area < minArea) {
      minArea = area;
      p3 = k;
    }
  }
  let count = 0;
  keep[count++] = p0;
  keep[count++] = p1;
  if (p2 >= 0) keep[count++] = p2;
  if (p3 >= 0) keep[count++] = p3;
  return count;
}
