/**
 * Mass properties from a shape, the one rule the engine and the browser client (its energy estimate)
 * both use. Sphere: radius in hx. Box: half extents hx, hy, hz.
 */
export function shapeVolume(box: boolean, hx: number, hy: number, hz: number): number {
  // 4/3 π r³ with the exact double Math.PI.
  return box ? 8 * hx * hy * hz : (4 / 3) * Math.PI * hx * hx * hx;
}

/** Body-space inertia diagonal of a solid box (I = m/3 (b² + c²)) or sphere (I = 2/5 m r²) into out[o..o+2]. */
export function shapeInertia(out: Float64Array, o: number, box: boolean, hx: number, hy: number, hz: number, mass: number): void {
  if (box) {
    out[o] = (mass / 3) * (hy * hy + hz * hz);
    out[o + 1] = (mass / 3) * (hx * hx + hz * hz);
    out[o + 2] = (mass / 3) * (hx * hx + hy * hy);
  } else {
    out[o] = out[o + 1] = out[o + 2] = 0.4 * mass * hx * hx;
  }
}
