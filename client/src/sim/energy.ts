import {
  boxMassProperties,
  capsuleMassProperties,
  combineMassProperties,
  cylinderMassProperties,
  hullMassProperties,
  type MassProperties,
  sphereMassProperties,
} from "../../../shared/engine/geometry/mass-properties.ts";
import { buildHull } from "../../../shared/engine/geometry/hull-builder.ts";
import { BODY_DEFAULTS, type ShapeDef, shapeInertia, shapeVolume } from "../../../shared/engine/index.ts";
import { KIND_BOX, KIND_DYNAMIC, KIND_SHAPE_MASK, KIND_TYPE_MASK, shapeOfBody, sizedByHalfExtents, shapeCodeOf } from "../../../shared/net/index.ts";
import type { Scenario } from "../../../shared/scenarios/index.ts";
import type { BodyTrack, SnapshotBuffer } from "../net/snapshot-buffer.ts";
import type { ShapedTrack } from "../render/scene-view.ts";

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
 * Other shapes (capsule, cylinder, hull, compound) take the engine's mass properties of their definition
 * (the shape descriptor: volume, centre of mass and full inertia tensor, as the engine computes them at
 * creation): the wire pose is the shape's origin, so v is that of the centre of mass placed with each
 * sample's pose, and ω·I·ω uses the whole tensor. A body whose shape cannot be read (no descriptor, or a
 * mesh or height field, which are never dynamic) counts 0.
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

/** Mass, centre of mass and inertia tensor about it (xx, yy, zz, xy, xz, yz) of a shape with a descriptor. */
interface ShapeMass {
  mass: number;
  center: [number, number, number];
  inertia: [number, number, number, number, number, number];
}

export class EnergyMeter {
  private defs = new Map<string, BodyMaterialDef>();
  /** Per track of a shape with a descriptor: its mass properties (null: none can be had). */
  private readonly shapeMasses = new WeakMap<BodyTrack, ShapeMass | null>();

  /** Uses the scenario's mass/density per body id (undefined: defaults for every body). */
  setScenario(scenario: Scenario | undefined): void {
    this.defs.clear();
    if (!scenario) return;
    for (const b of scenario.bodies) {
      if (b.mass !== undefined || b.density !== undefined) this.defs.set(b.id, { mass: b.mass, density: b.density });
    }
  }

  massOf(track: BodyTrack): number {
    if (sizedByHalfExtents(shapeCodeOf(track.kind))) return bodyMass(track.kind, track.hx, track.hy, track.hz, this.defs.get(track.id));
    return this.shapeMassOf(track)?.mass ?? 0;
  }

  private shapeMassOf(track: ShapedTrack): ShapeMass | null {
    let m = this.shapeMasses.get(track);
    if (m === undefined) {
      const def = shapeOfBody(track.kind, track.hx, track.hy, track.hz, track.shape);
      const props = def === null ? null : massProperties(def);
      if (props === null) m = null;
      else {
        const material = this.defs.get(track.id);
        const mass = material?.mass ?? (material?.density ?? BODY_DEFAULTS.density) * props.volume;
        const k = props.volume > 0 ? mass / props.volume : 0;
        const t = props.inertia;
        m = { mass, center: props.center, inertia: [t[0] * k, t[1] * k, t[2] * k, t[3] * k, t[4] * k, t[5] * k] };
      }
      // A descriptor may still be on its way: only a definite answer is kept.
      if (m !== null || track.shape) this.shapeMasses.set(track, m);
    }
    return m;
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
      if (sizedByHalfExtents(shapeCodeOf(track.kind))) out.kinetic += bodyKineticEnergy(track, this.massOf(track), d, i0 * 8, o1, dt);
      else {
        const m = this.shapeMassOf(track);
        if (m !== null) out.kinetic += shapedKineticEnergy(m, d, i0 * 8, o1, dt);
      }
    }
    return out;
  }
}

export function createEnergyReading(): EnergyReading {
  return { kinetic: 0, dynamic: 0, sleeping: 0 };
}

/** The engine's mass rule for a sphere or box of this kind and size. */
export function bodyMass(kind: number, hx: number, hy: number, hz: number, def?: BodyMaterialDef): number {
  if (def?.mass !== undefined) return def.mass;
  return (def?.density ?? BODY_DEFAULTS.density) * shapeVolume((kind & KIND_SHAPE_MASK) === KIND_BOX, hx, hy, hz);
}

const inertia = new Float64Array(3);
/** Relative rotation (x, y, z, w) of two samples, and the body-frame angular velocity from it. */
const relative = new Float64Array(4);
const omega = new Float64Array(3);

/** Mass properties at density 1 of a shape the energy can be estimated for; null for meshes and height fields. */
export function massProperties(def: ShapeDef): MassProperties | null {
  switch (def.type) {
    case "sphere":
      return sphereMassProperties(def.radius);
    case "box":
      return boxMassProperties(def.halfExtents[0], def.halfExtents[1], def.halfExtents[2]);
    case "capsule":
      return capsuleMassProperties(def.radius, def.halfHeight);
    case "cylinder":
      return cylinderMassProperties(def.radius, def.halfHeight);
    case "hull":
      return hullMassProperties(buildHull(def.points));
    case "compound":
      return combineMassProperties(
        def.children.map((c) => ({ props: massProperties(c.shape)!, position: c.position ?? [0, 0, 0], rotation: c.rotation ?? [0, 0, 0, 1] })),
      );
    default:
      return null;
  }
}

/**
 * Body-frame angular velocity between two samples into `omega` (from r = q0* ⊗ q1, shortest arc).
 * Returns false when they hold the same orientation.
 */
function angularVelocity(d: Float64Array, o0: number, o1: number, dt: number): boolean {
  const ax = -d[o0 + 3];
  const ay = -d[o0 + 4];
  const az = -d[o0 + 5];
  const aw = d[o0 + 6];
  const bx = d[o1 + 3];
  const by = d[o1 + 4];
  const bz = d[o1 + 5];
  const bw = d[o1 + 6];
  const r = relative;
  r[0] = aw * bx + ax * bw + ay * bz - az * by;
  r[1] = aw * by - ax * bz + ay * bw + az * bx;
  r[2] = aw * bz + ax * by - ay * bx + az * bw;
  r[3] = aw * bw - ax * bx - ay * by - az * bz;
  if (r[3] < 0) for (let i = 0; i < 4; i++) r[i] = -r[i];
  const s = Math.sqrt(r[0] * r[0] + r[1] * r[1] + r[2] * r[2]);
  if (s <= 1e-12) return false;
  const k = (2 * Math.atan2(s, r[3])) / s / dt;
  omega[0] = r[0] * k;
  omega[1] = r[1] * k;
  omega[2] = r[2] * k;
  return true;
}

/** World offset of the body-frame point c under the sample's rotation at o (q · c · q*), component `axis`. */
function rotated(d: Float64Array, o: number, c: readonly number[], axis: number): number {
  const x = d[o + 3];
  const y = d[o + 4];
  const z = d[o + 5];
  const w = d[o + 6];
  // v' = v + 2w (q × v) + 2 q × (q × v)
  const tx = 2 * (y * c[2] - z * c[1]);
  const ty = 2 * (z * c[0] - x * c[2]);
  const tz = 2 * (x * c[1] - y * c[0]);
  if (axis === 0) return c[0] + w * tx + (y * tz - z * ty);
  if (axis === 1) return c[1] + w * ty + (z * tx - x * tz);
  return c[2] + w * tz + (x * ty - y * tx);
}

/** ½ m v² of the centre of mass (placed with each sample's pose) + ½ ωᵀ I ω with the full tensor. */
function shapedKineticEnergy(m: ShapeMass, d: Float64Array, o0: number, o1: number, dt: number): number {
  const c = m.center;
  const vx = (d[o1] + rotated(d, o1, c, 0) - d[o0] - rotated(d, o0, c, 0)) / dt;
  const vy = (d[o1 + 1] + rotated(d, o1, c, 1) - d[o0 + 1] - rotated(d, o0, c, 1)) / dt;
  const vz = (d[o1 + 2] + rotated(d, o1, c, 2) - d[o0 + 2] - rotated(d, o0, c, 2)) / dt;
  let e = 0.5 * m.mass * (vx * vx + vy * vy + vz * vz);
  if (angularVelocity(d, o0, o1, dt)) {
    const [xx, yy, zz, xy, xz, yz] = m.inertia;
    const [wx, wy, wz] = omega;
    e += 0.5 * (xx * wx * wx + yy * wy * wy + zz * wz * wz + 2 * (xy * wx * wy + xz * wx * wz + yz * wy * wz));
  }
  return e;
}

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
    shapeInertia(inertia, 0, (track.kind & KIND_SHAPE_MASK) === KIND_BOX, track.hx, track.hy, track.hz, m);
    e += 0.5 * (inertia[0] * wx * wx + inertia[1] * wy * wy + inertia[2] * wz * wz);
  }
  return e;
}
