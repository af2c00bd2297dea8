/**
 * Angles from + - * / and Math.sqrt only. Math.atan2 is not required to be correctly rounded, so two
 * JavaScript engines may disagree in the last bit; a hinge's angle feeds its limits and motor, and one
 * bit of difference there would split a replay from the room it recorded. The arguments and the result
 * travel in a Float64Array (`ANGLE_IO`): doubles passed to or returned from a call V8 does not inline are
 * boxed on the heap, and the step allocates nothing.
 */

/** In: [0] = y, [1] = x. Out: [2] = atan2(y, x) in [-π, π]. */
export const ANGLE_IO = new Float64Array(3);

const QUARTER_PI = Math.PI / 4;

/**
 * atan2 of ANGLE_IO[0], ANGLE_IO[1] into ANGLE_IO[2]; within a few ulps of the exact value. Reduces to
 * t = min/max in [0, 1], then atan t = π/4 + atan((t - 1)/(t + 1)) above tan(π/8), then twice the
 * half-angle identity atan u = 2 atan(u / (1 + sqrt(1 + u²))), leaving |u| < 0.1 for a short odd series.
 */
export function atan2Into(io: Float64Array): void {
  const y = io[0];
  const x = io[1];
  const ay = Math.abs(y);
  const ax = Math.abs(x);
  if (ax === 0 && ay === 0) {
    io[2] = 0;
    return;
  }
  const swap = ay > ax;
  let t = swap ? ax / ay : ay / ax;
  let base = 0;
  if (t > 0.41421356237309503) {
    t = (t - 1) / (t + 1);
    base = QUARTER_PI;
  }
  t = t / (1 + Math.sqrt(1 + t * t));
  t = t / (1 + Math.sqrt(1 + t * t));
  const t2 = t * t;
  // atan u = u - u³/3 + u⁵/5 - ...: with u² < 0.0098, 9 terms leave an error below 1e-19.
  let s = 1 / 17;
  s = 1 / 15 - t2 * s;
  s = 1 / 13 - t2 * s;
  s = 1 / 11 - t2 * s;
  s = 1 / 9 - t2 * s;
  s = 1 / 7 - t2 * s;
  s = 1 / 5 - t2 * s;
  s = 1 / 3 - t2 * s;
  s = 1 - t2 * s;
  let a = base + 4 * t * s;
  if (swap) a = 2 * QUARTER_PI - a;
  if (x < 0) a = 4 * QUARTER_PI - a;
  io[2] = y < 0 ? -a : a;
}

/** atan2(y, x) for code outside the step (creation, readers): allocation does not matter there. */
export function atan2Exact(y: number, x: number): number {
  const io = new Float64Array(3);
  io[0] = y;
  io[1] = x;
  atan2Into(io);
  return io[2];
}
