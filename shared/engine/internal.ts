/**
 * Engine internals for the engine's own tests and tools: NOT part of the public API (index.ts is).
 * The stores reached through `worldInternals` are the world's private state; writing them bypasses
 * wake-ups, AABB upkeep and validation, and their layout changes without notice.
 */
export { type WorldInternals, worldInternals } from "./world/world.ts";
