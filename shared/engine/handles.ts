/**
 * Handles of bodies and joints: a slot index (low 20 bits) and the slot's generation (next 11 bits), so
 * a handle kept after its body or joint was removed resolves to nothing even once the slot is reused.
 */
const SLOT_BITS = 20;
export const SLOT_MASK = (1 << SLOT_BITS) - 1;
const GENERATION_MASK = 0x7ff;

/** The handle of `slot` at its current generation. */
export function packHandle(generation: ArrayLike<number>, slot: number): number {
  return ((generation[slot] & GENERATION_MASK) << SLOT_BITS) | slot;
}

/** Slot of a live handle, or -1 if the handle is stale, unknown or not a handle at all. */
export function resolveHandle(handle: number, slotCount: number, alive: ArrayLike<number>, generation: ArrayLike<number>): number {
  if (!Number.isInteger(handle) || handle < 0) return -1;
  const slot = handle & SLOT_MASK;
  if (slot >= slotCount || alive[slot] === 0) return -1;
  if ((generation[slot] & GENERATION_MASK) !== handle >>> SLOT_BITS) return -1;
  return slot;
}

/** The generation a slot takes when what held it is removed (old handles stop resolving). */
export function nextGeneration(generation: number): number {
  return (generation + 1) & GENERATION_MASK;
}
