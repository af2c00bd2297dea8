import { type BodyStore, DYNAMIC } from "../dynamics/body-store.ts";
import { CONTACT_POINT_STRIDE, type ContactStore, FLAG_TOUCHING, P_IMPULSE, P_MID, P_SEPARATION, POINT_STRIDE } from "../dynamics/contact-store.ts";
import { inverseRotateVec } from "../math/quat.ts";
import type { Vec3Tuple } from "../types.ts";

/** Whole-world readers behind World's accessors: they allocate or scan every slot, so never in the step. */

export interface ContactInfo {
  a: number;
  b: number;
  /** From a to b. */
  normal: Vec3Tuple;
  points: { position: Vec3Tuple; separation: number; normalImpulse: number }[];
  touching: boolean;
}

/** Calls `fn` for every contact that has points, as a plain object (World.forEachContact). */
export function visitContacts(bodies: BodyStore, contacts: ContactStore, fn: (contact: ContactInfo) => void): void {
  for (let c = 0; c < contacts.count; c++) {
    const count = contacts.pointCount[c];
    if (count === 0) continue;
    const points: ContactInfo["points"] = [];
    const base = c * CONTACT_POINT_STRIDE;
    for (let k = 0; k < count; k++) {
      const o = base + k * POINT_STRIDE;
      points.push({
        position: [contacts.points[o + P_MID], contacts.points[o + P_MID + 1], contacts.points[o + P_MID + 2]],
        separation: contacts.points[o + P_SEPARATION],
        normalImpulse: contacts.points[o + P_IMPULSE],
      });
    }
    fn({
      a: bodies.handleOf(contacts.bodyA[c]),
      b: bodies.handleOf(contacts.bodyB[c]),
      normal: [contacts.normal[c * 3], contacts.normal[c * 3 + 1], contacts.normal[c * 3 + 2]],
      points,
      touching: (contacts.flags[c] & FLAG_TOUCHING) !== 0,
    });
  }
}

const omega = new Float64Array(3);

/** Σ ½ m v² + ½ ωᵀ I ω over dynamic bodies, joules (World.kineticEnergy). */
export function kineticEnergyOf(b: BodyStore): number {
  let e = 0;
  for (let s = 0; s < b.slotCount; s++) {
    if (b.alive[s] === 0 || b.type[s] !== DYNAMIC) continue;
    const s3 = s * 3;
    const m = 1 / b.invMass[s];
    const vx = b.vel[s3];
    const vy = b.vel[s3 + 1];
    const vz = b.vel[s3 + 2];
    e += 0.5 * m * (vx * vx + vy * vy + vz * vz);
    inverseRotateVec(omega, 0, b.rot, s * 4, b.angVel, s3);
    e += 0.5 * (b.inertia[s3] * omega[0] * omega[0] + b.inertia[s3 + 1] * omega[1] * omega[1] + b.inertia[s3 + 2] * omega[2] * omega[2]);
  }
  return e;
}
