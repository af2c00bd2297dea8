import type { BroadPhase } from "../collision/broad-phase.ts";
import { collidePair } from "../collision/narrow-phase.ts";
import { ManifoldOut } from "../collision/manifold.ts";
import { PieceCollider, type PieceSink } from "../collision/pieces.ts";
import { type BodyStore, COMPOUND, DYNAMIC, groupsCollide, HEIGHTFIELD, MESH } from "../dynamics/body-store.ts";

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

/** Collision passes per sub-move (contacts are gathered again after each correction). */
const MAX_PASSES = 4;
/** Sweeps of the accumulated correction over one set of contacts. */
const MAX_SWEEPS = 64;
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
 * Moves the kinematic body in `slot` by the desired delta and resolves its overlaps by
 * accumulated correction: contacts are handled deepest first, and for each one the correction already applied is
 * projected onto that contact's penetration vector, so only the remainder is applied. A character
 * wedged between two walls is pushed out once, not by the sum of both penetrations, and sliding along a
 * wall keeps the tangential part of the motion. Long moves are split into sub-moves of at most half the
 * character's smallest extent so it cannot tunnel.
 */
export function moveCharacterBody(
  bodies: BodyStore,
  broad: BroadPhase,
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
    resolveOverlaps(bodies, broad, slot, blockDynamic, result);
  }
  result.moved[0] = pos[s3] - sx;
  result.moved[1] = pos[s3 + 1] - sy;
  result.moved[2] = pos[s3 + 2] - sz;
}

function resolveOverlaps(bodies: BodyStore, broad: BroadPhase, slot: number, blockDynamic: boolean, result: CharacterMoveResult): void {
  const s3 = slot * 3;
  const pos = bodies.pos;
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    // Nearby (not yet touching) blockers join the set as inequality constraints, so pushing out of one
    // wall cannot push into another close by.
    const margin = 0.25 * Math.min(bodies.half[s3], bodies.half[s3 + 1], bodies.half[s3 + 2]);
    bodies.updateAabbWithMargin(slot, margin);
    gatherMargin[0] = margin;
    const count = gatherPenetrations(bodies, broad, slot, blockDynamic);
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
    // Accumulated correction: for each contact, project the correction accumulated so far onto its penetration
    // vector p = n·depth and apply only the remainder (1 - proj)·p. Repeating the sweep over the same
    // contacts converges for non-orthogonal normals (wedges), where one sweep leaves some overlap.
    let cx = 0;
    let cy = 0;
    let cz = 0;
    for (let sweep = 0; sweep < MAX_SWEEPS; sweep++) {
      let largest = 0;
      for (let i = 0; i < count; i++) {
        const c = sortIndex[i];
        const depth = contactDepth[c];
        const nx = contactN[c * 3];
        const ny = contactN[c * 3 + 1];
        const nz = contactN[c * 3 + 2];
        // remainder = depth·(1 - proj) with proj = (C·p)/|p|², p = n·depth; also valid for the
        // negative "depth" (gap) of nearby contacts, which only act once C pushes towards them.
        const remainder = depth - (cx * nx + cy * ny + cz * nz);
        if (remainder <= 0) continue;
        cx += nx * remainder;
        cy += ny * remainder;
        cz += nz * remainder;
        if (remainder > largest) largest = remainder;
        if (sweep === 0 && depth > 0) {
          result.hits++;
          if (ny > 0.7) result.grounded = true;
        }
      }
      if (largest <= TOLERANCE) break;
    }
    pos[s3] += cx;
    pos[s3 + 1] += cy;
    pos[s3 + 2] += cz;
  }
}

/**
 * The margin handed to gatherPenetrations: a double passed as an argument to a call V8 does not inline
 * is boxed (an allocation per move), and whether it inlines depends on the function's size.
 */
const gatherMargin = new Float64Array(1);

/**
 * Blockers within `gatherMargin[0]` of the character: push-out direction (towards the character) and depth
 * (negative for a gap). Returns 0 when none actually overlaps. The candidates are the bodies whose AABB
 * overlaps the character's (grown by the margin), from the broad phase in ascending slot order: the
 * same bodies, in the same order, as a scan of every slot, without visiting the far ones.
 */
function gatherPenetrations(bodies: BodyStore, broad: BroadPhase, slot: number, blockDynamic: boolean): number {
  const margin = gatherMargin[0];
  const found = broad.queryAabb(bodies, bodies.aabb, slot * 6);
  const candidates = broad.queryResult;
  blockers.count = 0;
  blockers.deepest = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < found; k++) {
    const s = candidates[k];
    if (s === slot) continue;
    // Sensors never block, and neither do bodies the collision groups filter out.
    if (bodies.sensor[s] === 1 || !groupsCollide(bodies.groups[slot], bodies.groups[s])) continue;
    // Static and kinematic bodies always block (two avatars do not walk through each other).
    if (bodies.type[s] === DYNAMIC && !blockDynamic) continue;
    manifold.margin = margin;
    blockers.slot = s;
    const shape = bodies.shape[s];
    if (shape === COMPOUND || shape === MESH || shape === HEIGHTFIELD) pieces.collidePieces(manifold, bodies, slot, s, blockers);
    else {
      collidePair(manifold, bodies, slot, s);
      if (manifold.count > 0) blockers.piece(manifold);
    }
    if (blockers.count === MAX_CONTACTS) break;
  }
  // Nothing overlaps: done (nearby contacts alone need no correction).
  return blockers.deepest > TOLERANCE ? blockers.count : 0;
}

/** Collects the blocking contacts of one move (a whole body's manifold, or each piece of level geometry's). */
class Blockers implements PieceSink {
  count = 0;
  deepest = Number.NEGATIVE_INFINITY;
  slot = 0;

  piece(out: ManifoldOut): void {
    let minSep = Number.POSITIVE_INFINITY;
    for (let k = 0; k < out.count; k++) if (out.separation[k] < minSep) minSep = out.separation[k];
    const depth = -minSep;
    if (depth > this.deepest) this.deepest = depth;
    if (this.count === MAX_CONTACTS) return;
    const i = this.count++;
    // The manifold normal points from the character to the other body; push the opposite way.
    contactN[i * 3] = -out.normal[0];
    contactN[i * 3 + 1] = -out.normal[1];
    contactN[i * 3 + 2] = -out.normal[2];
    contactDepth[i] = depth;
    contactSlot[i] = this.slot;
  }
}

const blockers = new Blockers();
const pieces = new PieceCollider();
