import { BODY_DEFAULTS, shapeInertia, shapeVolume } from "../../../shared/engine/index.ts";
import { KIND_BOX, KIND_DYNAMIC, KIND_TYPE_MASK } from "../../../shared/net/index.ts";
import type { Scenario } from "../../../shared/scenarios/index.ts";
import type { BodyTrack, SnapshotBuffer } from "../net/snapshot-buffer.ts";

/**
 * Kinetic energy of the room as the client sees it, at the snapshot rate. The wire state carries poses
 * only (no velocities; the engine's exact figure comes with the room's info, once a second), so the
 * client differentiates the two newest snapshots of every dynamic body, over the exact server-time span
 * between them (ticks, not arrival times):
 *   v = Δp / Δt,  ω = 2 · axis·angle(q1 q0*) / Δt (body frame),  KE = Σ ½ m v² + ½ ωᵀ I ω.
 * Masses follow the engine's rule (mass, else density × volume; I of a solid box or sphere), with
 * `mass`/`density` taken from the scenario definition when the client knows it (built-in scenes)
 * and the engine's default density otherwise (spawned bodies, custom scenarios).
 *
 * Limits, by construction: it is the mean velocity over one patch interval (a bounce inside the interval
 * is averaged), and positions are quantized to 1 mm, so a 1 kg body moving less than 1 mm per 50 ms
 * patch reads as still (resolution ≈ ½ · 1 kg · (0.02 m/s)² = 2e-4 J per body). A sleeping body's two
 * samples are equal and count exactly zero.
 */
export interface EnergyReading {
  /** Σ ½ m v² + ½ ωᵀ I ω over dynamic bodies, joules. */
  kinetic: number;
  /** Dynamic bodies in the newest snapshot, and how many of them are asleep. */
  dynamic: number;
  sleeping: number;
}

export interface BodyMaterialDef {
  mass?: number;
  density?: number;
}

export class EnergyMeter {
  private defs = new Map<string, BodyMaterialDef>();

  /** Uses the scenario's mass/density per body id (undefined: defaults for every body). */
  setScenario(scenario: Scenario | undefined): void {
    this.defs.clear();
    if (!scenario) return;
    for (const b of scenario.bodies) {
      if (b.mass !== undefined || b.density !== undefined) this.defs.set(b.id, { mass: b.mass, density: b.density });
    }
  }

  massOf(track: BodyTrack): number {
    return bodyMass(track.kind, track.hx, track.hy, track.hz, this.defs.get(track.id));
  }

  measure(buffer: SnapshotBuffer, out: EnergyReading): EnergyReading {
    out.kinetic = 0;
    out.dynamic = 0;
    out.sleeping = 0;
    const newest = buffer.newestTime;
    for (const track of buffer.tracks.values()) {
      if ((track.kind & KIND_TYPE_MASK) !== KIND_DYNAMIC || track.removedAt !== Number.POSITIVE_INFINITY) continue;
      if (track.count === 0 || track.times[track.head] !== newest) continue;
      out.dynamic++;
      const d = track.data;
      const o1 = track.head * 8;
      if ((d[o1 + 7] & 1) !== 0) out.sleeping++;
      if (track.count < 2 || (d[o1 + 7] & 2) !== 0) continue;
      const i0 = track.index(1);
      const dt = (track.times[track.head] - track.times[i0]) / 1000;
      if (!(dt > 0)) continue;
      out.kinetic += bodyKineticEnergy(track, this.massOf(track), d, i0 * 8, o1, dt);
    }
    return out;
  }
}

export function createEnergyReading(): EnergyReading {
  return { kinetic: 0, dynamic: 0, sleeping: 0 };
}

/** The engine's mass rule for a body of this kind and size. */
export function bodyMass(kind: number, hx: number, hy: number, hz: number, def?: BodyMaterialDef): number {
  if (def?.mass !== undefined) return def.mass;
  return (def?.density ?? BODY_DEFAULTS.density) * shapeVolume((kind & KIND_BOX) !== 0, hx, hy, hz);
}

const inertia = new Float64Array(3);

function bodyKineticEnergy(track: BodyTrack, m: number, d: Float64Array, o0: number, o1: number, dt: number): number {
  const vx = (d[o1] - d[o0]) / dt;
  const vy = (d[o1 + 1] - d[o0 + 1]) / dt;
  const vz = (d[o1 + 2] - d[o0 + 2]) / dt;
  let e = 0.5 * m * (vx * vx + vy * vy + vz * vz);
  // Relative rotation in the body frame of the older sample: r = q0* ⊗ q1.
  const ax = -d[o0 + 3];
  const ay = -d[o0 + 4];
  const az = -d[o0 + 5];
  const aw = d[o0 + 6];
  const bx = d[o1 + 3];
  const by = d[o1 + 4];
  const bz = d[o1 + 5];
  const bw = d[o1 + 6];
  let rx = aw * bx + ax * bw + ay * bz - az * by;
  let ry = aw * by - ax * bz + ay * bw + az * bx;
  let rz = aw * bz + ax * by - ay * bx + az * bw;
  let rw = aw * bw - ax * bx - ay * by - az * bz;
  if (rw < 0) {
    rx = -rx;
    ry = -ry;
    rz = -rz;
    rw = -rw;
  }
  const s = Math.sqrt(rx * rx + ry * ry + rz * rz);
  if (s > 1e-12) {
    const angle = 2 * Math.atan2(s, rw);
    const k = angle / s / dt;
    const wx = rx * k;
    const wy = ry * k;
    const wz = rz * k;
    shapeInertia(inertia, 0, (track.kind & KIND_BOX) !== 0, track.hx, track.hy, track.hz, m);
    e += 0.5 * (inertia[0] * wx * wx + inertia[1] * wy * wy + inertia[2] * wz * wz);
  }
  return e;
}
