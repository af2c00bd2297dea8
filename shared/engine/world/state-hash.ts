import type { BodyView } from "./body-view.ts";

/** What hashing reads: a BodyView, or the engine's own store. */
type HashedBodies = Pick<BodyView, "slotCount" | "alive" | "sleeping" | "pos" | "rot" | "vel" | "angVel" | "handleOf">;

const buf = new Float64Array(14);
const words = new Uint32Array(buf.buffer);

/**
 * Writes one body's state (position, rotation, linear and angular velocity: 13 doubles) into `out` at
 * `o`. The world hash and the per-body hashes of replay keyframes hash exactly these values.
 */
export function packBodyState(out: Float64Array, o: number, bodies: Pick<BodyView, "pos" | "rot" | "vel" | "angVel">, slot: number): void {
  const s3 = slot * 3;
  const s4 = slot * 4;
  out[o] = bodies.pos[s3];
  out[o + 1] = bodies.pos[s3 + 1];
  out[o + 2] = bodies.pos[s3 + 2];
  out[o + 3] = bodies.rot[s4];
  out[o + 4] = bodies.rot[s4 + 1];
  out[o + 5] = bodies.rot[s4 + 2];
  out[o + 6] = bodies.rot[s4 + 3];
  out[o + 7] = bodies.vel[s3];
  out[o + 8] = bodies.vel[s3 + 1];
  out[o + 9] = bodies.vel[s3 + 2];
  out[o + 10] = bodies.angVel[s3];
  out[o + 11] = bodies.angVel[s3 + 1];
  out[o + 12] = bodies.angVel[s3 + 2];
}

/**
 * 64-bit hash (16 lowercase hex chars) of the exact bit patterns of every live body's state, in slot
 * order: handle, position, rotation, linear and angular velocity, sleeping flag. Two FNV-1a lanes over
 * 32-bit words with different offsets, each finished with murmur3's avalanche.
 */
export function hashBodies(bodies: HashedBodies): string {
  let h1 = 0x811c9dc5 | 0;
  let h2 = 0x01000193 ^ 0x5bd1e995;
  for (let s = 0; s < bodies.slotCount; s++) {
    if (bodies.alive[s] === 0) continue;
    buf[0] = bodies.handleOf(s);
    packBodyState(buf, 1, bodies, s);
    for (let k = 0; k < 28; k++) {
      const w = words[k];
      h1 = Math.imul(h1 ^ w, 0x01000193);
      h2 = Math.imul(h2 ^ w, 0x01000193 + 0x2000);
    }
    h1 = Math.imul(h1 ^ bodies.sleeping[s], 0x01000193);
    h2 = Math.imul(h2 ^ bodies.sleeping[s], 0x01002193);
  }
  return hex(fmix(h1)) + hex(fmix(h2 ^ h1));
}

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hex(x: number): string {
  return x.toString(16).padStart(8, "0");
}
