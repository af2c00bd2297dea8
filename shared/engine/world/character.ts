import { collidePair } from "../collision/narrow-phase.ts";
import { ManifoldOut } from "../collision/manifold.ts";
import { type BodyStore, DYNAMIC } from "../dynamics/body-store.ts";

export interface CharacterMoveOptions {
  /**
   * Resolve overlaps with dynamic (awake or sleeping) bodies too, instead of leaving them to the solver
   * to be pushed. Default false: the character shoves dynamic bodies.
   */
  blockOnDynamic?: boolean;
}

export interface CharacterMoveResult {
  /** Movement actually made, metres. */
  moved: [number, number, number];
  /** Some resolved contact pushed the character up (normal y > 0.7): it stands on something. */
  grounded: boolean;
  /** Contacts resolved during the move. */
  hits: number;
}

/** Resolution passes per sub-move; the accumulated correction converges in 2-3 for corners and wedges. */
const MAX_PASSES = 6;
const MAX_SUBSTEPS = 32;
const MAX_CONTACTS = 64;
/** Penetration ignored as already resolved, metres. */
const TOLERANCE = 1e-9;

const manifold = new ManifoldOut();
const contactN = new Float64Array(MAX_CONTACTS * 3);
const contactDepth = new Float64Array(MAX_CONTACTS);
const contactSlot = new Int32Array(MAX_CONTACTS);
const sortIndex = new Int32Array(MAX_CONTACTS);

/**
 * Moves the kinematic body in `slot` by the desired delta and resolves its overlaps with the method of
 * seed 004: contacts are handled deepest first, and for each one the correction already applied is
 * projected onto that contact's penetration vector, so only the remainder is applied. A character
 * wedged between two walls is pushed out once, not by the sum of both penetrations, and sliding along a
 * wall keeps the tangential part of the motion. Long moves are split into sub-moves of at most half the
 * character's smallest extent so it cannot tunnel.
 */
export function moveCharacterBody(
  bodies: BodyStore,
  slot: number,
  dx: number,
  dy: number,
  dz: number,
  options: CharacterMoveOptions,
  result: CharacterMoveResult,
): void {
  const s3 = slot * 3;
  const pos = bodies.pos;
  const sx = pos[s3];
  const sy = pos[s3 + 1];
  const sz = pos[s3 + 2];
  const minExtent = Math.min(bodies.half[s3], bodies.half[s3 + 1], bodies.half[s3 + 2]);
  const len = Math.sqrt(dx * dx + dy * dy + dz * dz);
  let steps = Math.ceil(len / (0.5 * minExtent));
  if (!(steps >= 1)) steps = 1;
  if (steps > MAX_SUBSTEPS) steps = MAX_SUBSTEPS;
  result.grounded = false;
  result.hits = 0;
  const blockDynamic = options.blockOnDynamic === true;
  for (let k = 1; k <= steps; k++) {
    // Advance the target, not the resolved position, so a blocked axis does not lose the others.
    pos[s3] += dx / steps;
    pos[s3 + 1] += dy / steps;
    pos[s3 + 2] += dz / steps;
    resolveOverlaps(bodies, slot, blockDynamic, result);
  }
  result.moved[0] = pos[s3] - sx;
  result.moved[1] = pos[s3 + 1] - sy;
  result.moved[2] = pos[s3 + 2] - sz;
}

function resolveOverlaps(bodies: BodyStore, slot: number, blockDynamic: boolean, result: CharacterMoveResult): void {
  const s3 = slot * 3;
  const pos = bodies.pos;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    bodies.updateAabb(slot, 0);
    const count = gatherPenetrations(bodies, slot, blockDynamic);
    if (count === 0) return;
    // Deepest first; ties by slot so the order is deterministic.
    for (let i = 0; i < count; i++) sortIndex[i] = i;
    for (let i = 1; i < count; i++) {
      const v = sortIndex[i];
      let j = i - 1;
      while (
        j >= 0 &&
        (contactDepth[sortIndex[j]] < contactDepth[v] ||
          (contactDepth[sortIndex[j]] === contactDepth[v] && contactSlot[sortIndex[j]] > contactSlot[v]))
      ) {
        sortIndex[j + 1] = sortIndex[j];
        j--;
      }
      sortIndex[j + 1] = v;
    }
    let cx = 0;
    let cy = 0;
    let cz = 0;
    for (let i = 0; i < count; i++) {
      const c = sortIndex[i];
      const depth = contactDepth[c];
      const px = contactN[c * 3] * depth;
      const py = contactN[c * 3 + 1] * depth;
      const pz = contactN[c * 3 + 2] * depth;
      // Fraction of this penetration vector already covered by the corrections so far.
      const proj = (cx * px + cy * py + cz * pz) / (depth * depth);
      if (proj >= 1) continue;
      const f = 1 - proj;
      pos[s3] += px * f;
      pos[s3 + 1] += py * f;
      pos[s3 + 2] += pz * f;
      cx += px * f;
      cy += py * f;
      cz += pz * f;
      result.hits++;
      if (contactN[c * 3 + 1] > 0.7) result.grounded = true;
    }
  }
}

/** Overlapping blockers of the character: push-out direction (towards the character) and depth. */
function gatherPenetrations(bodies: BodyStore, slot: number, blockDynamic: boolean): number {
  const aabb = bodies.aabb;
  const c6 = slot * 6;
  let count = 0;
  for (let s = 0; s < bodies.slotCount; s++) {
    if (s === slot || bodies.alive[s] === 0) continue;
    // Static and kinematic bodies always block (two avatars do not walk through each other).
    if (bodies.type[s] === DYNAMIC && !blockDynamic) continue;
    const s6 = s * 6;
    if (
      aabb[s6] > aabb[c6 + 3] ||
      aabb[s6 + 3] < aabb[c6] ||
      aabb[s6 + 1] > aabb[c6 + 4] ||
      aabb[s6 + 4] < aabb[c6 + 1] ||
      aabb[s6 + 2] > aabb[c6 + 5] ||
      aabb[s6 + 5] < aabb[c6 + 2]
    ) {
      continue;
    }
    collidePair(manifold, bodies, slot, s, 0);
    if (manifold.count === 0) continue;
    let minSep = 0;
    for (let k = 0; k < manifold.count; k++) if (manifold.separation[k] < minSep) minSep = manifold.separation[k];
    const depth = -minSep;
    if (depth <= TOLERANCE) continue;
    if (count === MAX_CONTACTS) break;
    // The manifold normal points from the character to the other body; push the opposite way.
    contactN[count * 3] = -manifold.normal[0];
    contactN[count * 3 + 1] = -manifold.normal[1];
    contactN[count * 3 + 2] = -manifold.normal[2];
    contactDepth[count] = depth;
    contactSlot[count] = s;
    count++;
  }
  return count;
}
