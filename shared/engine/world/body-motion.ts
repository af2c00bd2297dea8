import type { BodyStore } from "../dynamics/body-store.ts";
import { normalizeQuatAt } from "../math/quat.ts";

const scratch4 = new Float64Array(4);

/**
 * A kinematic body's target pose for the next step (World.moveKinematic): the velocity that reaches it
 * in one step of 1 / tickRate (linear from the position difference, angular from the quaternion
 * difference), so the solver pushes what the body meets with that velocity; the step then lands it
 * exactly on the target.
 */
export function setKinematicTarget(
  b: BodyStore,
  slot: number,
  position: readonly number[],
  rotation: readonly number[] | undefined,
  tickRate: number,
): void {
  const s3 = slot * 3;
  const s4 = slot * 4;
  const t = slot * 7;
  const inv = tickRate;
  b.target[t] = position[0];
  b.target[t + 1] = position[1];
  b.target[t + 2] = position[2];
  b.vel[s3] = (position[0] - b.pos[s3]) * inv;
  b.vel[s3 + 1] = (position[1] - b.pos[s3 + 1]) * inv;
  b.vel[s3 + 2] = (position[2] - b.pos[s3 + 2]) * inv;
  const q = rotation ?? [b.rot[s4], b.rot[s4 + 1], b.rot[s4 + 2], b.rot[s4 + 3]];
  scratch4[0] = q[0];
  scratch4[1] = q[1];
  scratch4[2] = q[2];
  scratch4[3] = q[3];
  normalizeQuatAt(scratch4, 0);
  for (let k = 0; k < 4; k++) b.target[t + 3 + k] = scratch4[k];
  // ω from the quaternion difference dq = target ⊗ current*, small-angle: ω ≈ 2 dq.xyz / dt.
  const cx = -b.rot[s4];
  const cy = -b.rot[s4 + 1];
  const cz = -b.rot[s4 + 2];
  const cw = b.rot[s4 + 3];
  const tx = scratch4[0];
  const ty = scratch4[1];
  const tz = scratch4[2];
  const tw = scratch4[3];
  let dx = tw * cx + tx * cw + ty * cz - tz * cy;
  let dy = tw * cy - tx * cz + ty * cw + tz * cx;
  let dz = tw * cz + tx * cy - ty * cx + tz * cw;
  const dw = tw * cw - tx * cx - ty * cy - tz * cz;
  if (dw < 0) {
    dx = -dx;
    dy = -dy;
    dz = -dz;
  }
  b.angVel[s3] = 2 * dx * inv;
  b.angVel[s3 + 1] = 2 * dy * inv;
  b.angVel[s3 + 2] = 2 * dz * inv;
  b.hasTarget[slot] = 1;
}
