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

/** A body whose digest differs between a recording and its re-run, or that exists on one side only. */
export interface BodyDifference {
  id: string;
  /** Recorded [x, y, z] (0.1 mm), or null if the body did not exist in the recording. */
  recorded: [number, number, number] | null;
  /** Re-simulated [x, y, z], or null if it does not exist in the re-run. */
  replayed: [number, number, number] | null;
}

/** Bodies whose hash differs or that exist on one side only, in recorded order then new ones. */
export function diffBodies(recorded: BodyDigest[], replayed: BodyDigest[]): BodyDifference[] {
  const mine = new Map(replayed.map((d) => [d[0], d]));
  const out: BodyDifference[] = [];
  const seen = new Set<string>();
  for (const r of recorded) {
    seen.add(r[0]);
    const m = mine.get(r[0]);
    if (m && m[1] === r[1]) continue;
    out.push({ id: r[0], recorded: [r[2], r[3], r[4]], replayed: m ? [m[2], m[3], m[4]] : null });
  }
  for (const m of replayed) {
    if (!seen.has(m[0])) out.push({ id: m[0], recorded: null, replayed: [m[2], m[3], m[4]] });
  }
  return out;
}
