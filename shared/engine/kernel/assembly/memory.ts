/*
 * Loads and stores at element offsets from a byte address, for the kernel's passes: one WebAssembly load
 * or store each, with the element offset folded into its immediate where it is a constant.
 */

// @ts-ignore: decorator
@inline export function L(p: usize, i: i32): f64 {
  return load<f64>(p + (<usize>i << 3));
}
// @ts-ignore: decorator
@inline export function LI(p: usize, i: i32): i32 {
  return load<i32>(p + (<usize>i << 2));
}
// @ts-ignore: decorator
@inline export function S(p: usize, i: i32, v: f64): void {
  store<f64>(p + (<usize>i << 3), v);
}
// @ts-ignore: decorator
@inline export function SI(p: usize, i: i32, v: i32): void {
  store<i32>(p + (<usize>i << 2), v);
}

/** Two lanes: element `i` after byte address p0 (lane 0) and after p1 (lane 1). */
// @ts-ignore: decorator
@inline export function L2(p0: usize, p1: usize, i: i32): v128 {
  return v128.load64_lane(p1 + (<usize>i << 3), v128.load64_zero(p0 + (<usize>i << 3)), 1);
}
/** Stores lane 0 at element `i` after p0 and lane 1 after p1. */
// @ts-ignore: decorator
@inline export function S2(p0: usize, p1: usize, i: i32, v: v128): void {
  v128.store64_lane(p0 + (<usize>i << 3), v, 0);
  v128.store64_lane(p1 + (<usize>i << 3), v, 1);
}
/** Stores the lanes whose flag is set. */
// @ts-ignore: decorator
@inline export function S2M(p0: usize, p1: usize, i: i32, v: v128, on0: bool, on1: bool): void {
  if (on0) v128.store64_lane(p0 + (<usize>i << 3), v, 0);
  if (on1) v128.store64_lane(p1 + (<usize>i << 3), v, 1);
}
/** Per lane: `a` where the mask is set, `b` where it is not (an exact choice, no arithmetic). */
// @ts-ignore: decorator
@inline export function pick(a: v128, b: v128, mask: v128): v128 {
  return v128.bitselect(a, b, mask);
}
