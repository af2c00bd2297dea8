import { type BodyDef, type ShapeDef, type Vec3Tuple, World } from "../../../shared/engine/index.ts";
import { KIND_DYNAMIC, KIND_KINEMATIC, KIND_SENSOR, KIND_TYPE_MASK, shapeOfBody } from "../../../shared/net/index.ts";

/**
 * The client's copy of the room's world, built from received bodies (newest snapshot, not the
 * interpolated render time: that is the state the server will apply our next input to). It is never
 * stepped; it exists so that the shared engine code can run on the client against what the server has:
 * the avatar prediction (`updateAvatar` → `world.moveCharacter`) and cursor raycasts (`world.raycast`).
 * Bodies keep their type, so the character controller treats them exactly as on the server (dynamic
 * bodies are shoved sideways, block vertically).
 */
export class WorldMirror {
  world: World;
  /** Bumped by rebuild() (every handle changes). */
  generation = 0;
  /** Ids the snapshots must not overwrite (the locally predicted avatar). */
  readonly owned = new Set<string>();
  private readonly seen = new Map<string, number>();
  private seq = 0;
  private readonly p: Vec3Tuple = [0, 0, 0];
  private readonly q: [number, number, number, number] = [0, 0, 0, 1];
  private readonly cur: Vec3Tuple = [0, 0, 0];
  private readonly curQ: [number, number, number, number] = [0, 0, 0, 1];

  constructor(tickRate = 60, gravity: Vec3Tuple = [0, -9.81, 0]) {
    this.world = new World({ tickRate, gravity, sleep: false });
  }

  /** A fresh, empty world (scenario reload); owned ids are forgotten. */
  rebuild(tickRate: number): void {
    const gravity = [...this.world.settings.gravity] as Vec3Tuple;
    this.world = new World({ tickRate, gravity, sleep: false });
    this.seen.clear();
    this.owned.clear();
    this.generation++;
  }

  setGravity(gravity: readonly number[]): void {
    const g = this.world.settings.gravity;
    if (g[0] !== gravity[0] || g[1] !== gravity[1] || g[2] !== gravity[2]) {
      this.world.updateSettings({ gravity: [gravity[0], gravity[1], gravity[2]] });
    }
  }

  setTickRate(tickRate: number): void {
    if (this.world.settings.tickRate !== tickRate) this.world.updateSettings({ tickRate });
  }

  /** Starts applying a snapshot. */
  begin(): void {
    this.seq++;
  }

  /**
   * Creates or moves one body to its snapshot pose (its reference frame, as the wire carries it).
   * `shape` is the body's shape descriptor (BodyState.shape) for shapes other than spheres and boxes.
   * Owned bodies are only marked as present.
   */
  upsert(
    id: string,
    kind: number,
    hx: number,
    hy: number,
    hz: number,
    x: number,
    y: number,
    z: number,
    qx: number,
    qy: number,
    qz: number,
    qw: number,
    shape?: string,
  ): void {
    this.seen.set(id, this.seq);
    if (this.owned.has(id)) return;
    const world = this.world;
    const handle = world.handleOf(id);
    if (handle >= 0) {
      world.getPosition(handle, this.cur);
      world.getRotation(handle, this.curQ);
      const c = this.cur;
      const r = this.curQ;
      if (c[0] === x && c[1] === y && c[2] === z && r[0] === qx && r[1] === qy && r[2] === qz && r[3] === qw) return;
      this.p[0] = x;
      this.p[1] = y;
      this.p[2] = z;
      this.q[0] = qx;
      this.q[1] = qy;
      this.q[2] = qz;
      this.q[3] = qw;
      world.setTransform(handle, this.p, this.q);
      return;
    }
    const def = mirrorBodyDef(id, kind, hx, hy, hz, [x, y, z], [qx, qy, qz, qw], shape);
    // A shape the client cannot read (no descriptor yet) is left out: nothing to raycast or stand on.
    if (def !== null) world.createBody(def);
  }

  /** Ends a snapshot: bodies it did not contain are removed (owned ones too: the server dropped them). */
  end(): void {
    for (const [id, seq] of this.seen) {
      if (seq === this.seq) continue;
      this.seen.delete(id);
      this.owned.delete(id);
      const handle = this.world.handleOf(id);
      if (handle >= 0) this.world.removeBody(handle);
    }
  }

  /** Creates a kinematic body owned by the client (its predicted avatar, of the game's avatar shape); snapshots will not move it. */
  own(id: string, shape: ShapeDef, position: Vec3Tuple): number {
    this.owned.add(id);
    const existing = this.world.handleOf(id);
    if (existing >= 0) this.world.removeBody(existing);
    return this.world.createBody({ id, type: "kinematic", shape, position, rotation: [0, 0, 0, 1] });
  }
}

/**
 * The definition of a mirrored body: its shape from hx/hy/hz (sphere, box) or its descriptor (every other
 * shape); null when that descriptor is missing or unreadable. Positions and rotations are the reference
 * frame's, as in scenarios, so the engine puts a hull's or compound's centre of mass where the server has it.
 */
export function mirrorBodyDef(
  id: string,
  kind: number,
  hx: number,
  hy: number,
  hz: number,
  position: Vec3Tuple,
  rotation: [number, number, number, number],
  descriptor?: string,
): BodyDef | null {
  const shape = shapeOfBody(kind, hx, hy, hz, descriptor);
  if (shape === null) return null;
  const t = kind & KIND_TYPE_MASK;
  return {
    id,
    type: t === KIND_DYNAMIC ? "dynamic" : t === KIND_KINEMATIC ? "kinematic" : "static",
    shape,
    position,
    rotation,
    // A sensor never blocks: the predicted avatar must walk through it as the server's does.
    sensor: (kind & KIND_SENSOR) !== 0,
  };
}
