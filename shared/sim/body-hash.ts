import { type BodyView, packBodyState, type World } from "../engine/index.ts";

const buf = new Float64Array(13);
const words = new Uint32Array(buf.buffer);

/**
 * 32-bit FNV-1a hash (8 hex chars) of one body's exact state: position, rotation, linear and angular
 * velocity and the sleeping flag. Replays store these per body in keyframes so a verifier can name the
 * bodies that differ, where the engine's world hash only says that something does.
 */
export function bodyHashAt(view: BodyView, slot: number): string {
  packBodyState(buf, 0, view, slot);
  let h = 0x811c9dc5 | 0;
  for (let k = 0; k < 26; k++) h = Math.imul(h ^ words[k], 0x01000193);
  h = Math.imul(h ^ view.sleeping[slot], 0x01000193);
  return (h >>> 0).toString(16).padStart(8, "0");
}

/** One keyframe entry: body id, its hash, and its position rounded to 0.1 mm (for humans). */
export type BodyDigest = [id: string, hash: string, x: number, y: number, z: number];

/** Digest of every live body in slot order. */
export function bodyDigests(world: World): BodyDigest[] {
  const b = world.view();
  const out: BodyDigest[] = [];
  const r = (v: number) => Math.round(v * 1e4) / 1e4;
  for (let s = 0; s < b.slotCount; s++) {
    if (b.alive[s] === 0) continue;
    const s3 = s * 3;
    out.push([b.idOf(s)!, bodyHashAt(b, s), r(b.pos[s3]), r(b.pos[s3 + 1]), r(b.pos[s3 + 2])]);
  }
  return out;
}
