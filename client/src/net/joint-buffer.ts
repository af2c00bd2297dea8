import { type JointState, jointAxisOf } from "../../../shared/net/index.ts";

/** A room state's `joints` map (MapSchema), or any map of joints by id (the replay viewer's). */
export interface JointMap {
  forEach(fn: (joint: JointState, id: string) => void): void;
  readonly size: number;
}

/**
 * The room's joints as the snapshots brought them (DOM-free, no three.js), with the same timeline as the
 * bodies in the snapshot buffer: a joint added by a snapshot is drawn once the render time reaches that
 * snapshot, and one gone from a snapshot (broken, removed with a body, a scenario reload) stops being
 * drawn when the render time reaches the snapshot without it, so a rope does not vanish a patch or two
 * before the interpolated bodies show it snapping.
 *
 * A joint's fields never change on the wire (JointState): a track is made once per received JointState
 * object, and one arriving under a known id (a reload or a joint made again) is a new object, so a new
 * track beside the old one until that one is pruned.
 */
export class JointTrack {
  readonly id: string;
  /** The received entry this track was made from. */
  readonly source: JointState;
  /** The engine's joint type code (JointTypeCode). */
  readonly type: number;
  readonly bodyA: string;
  /** "" for the world. */
  readonly bodyB: string;
  /** A's anchor in A's reference frame; B's in B's frame (world space for the world); the axis in A's frame. */
  readonly anchorA = new Float64Array(3);
  readonly anchorB = new Float64Array(3);
  readonly axis = new Float64Array(3);
  /** Render times before this show nothing (the joint did not exist yet). */
  visibleFrom = Number.NEGATIVE_INFINITY;
  /** Server time of the first snapshot without this joint; +Infinity while present. */
  removedAt = Number.POSITIVE_INFINITY;
  /** Sequence number of the last snapshot that contained the joint. */
  seenIn = -1;

  constructor(id: string, j: JointState) {
    this.id = id;
    this.source = j;
    this.type = j.type;
    this.bodyA = j.bodyA;
    this.bodyB = j.bodyB ?? "";
    this.anchorA[0] = j.ax;
    this.anchorA[1] = j.ay;
    this.anchorA[2] = j.az;
    this.anchorB[0] = j.bx;
    this.anchorB[1] = j.by;
    this.anchorB[2] = j.bz;
    jointAxisOf(j, this.axis as unknown as number[]);
  }

  /** Whether the joint is shown at `renderTime`. */
  visibleAt(renderTime: number): boolean {
    return renderTime >= this.visibleFrom && renderTime < this.removedAt;
  }
}

export class JointBuffer {
  /** Tracks in the order their joints arrived (removed ones stay until pruned). */
  readonly tracks: JointTrack[] = [];
  /** Joints in the newest snapshot. */
  count = 0;
  private readonly bySource = new Map<JointState, JointTrack>();
  private time = Number.NEGATIVE_INFINITY;
  private seq = -1;
  private initial = true;

  /**
   * One snapshot's joints (the state's `joints` map, absent in a room that never had one) at server time
   * `timeMs`. Allocates only for a joint that is new.
   */
  ingest(joints: JointMap | undefined, timeMs: number): void {
    this.time = timeMs;
    this.seq++;
    joints?.forEach(this.ingestJoint);
    this.count = joints?.size ?? 0;
    for (const track of this.tracks) {
      if (track.seenIn !== this.seq && track.removedAt === Number.POSITIVE_INFINITY) track.removedAt = timeMs;
    }
    this.initial = false;
  }

  private readonly ingestJoint = (j: JointState, id: string): void => {
    let track = this.bySource.get(j);
    if (track === undefined) {
      track = new JointTrack(id, j);
      track.visibleFrom = this.initial ? Number.NEGATIVE_INFINITY : this.time;
      this.bySource.set(j, track);
      this.tracks.push(track);
    }
    track.seenIn = this.seq;
  };

  /** Forgets the joints whose removal the render time has reached (in place: no allocation). */
  prune(renderTime: number): void {
    let kept = 0;
    for (let i = 0; i < this.tracks.length; i++) {
      const track = this.tracks[i];
      if (renderTime >= track.removedAt) {
        this.bySource.delete(track.source);
        continue;
      }
      this.tracks[kept++] = track;
    }
    this.tracks.length = kept;
  }

  /** Forgets everything (a new room or seat). */
  clear(): void {
    this.tracks.length = 0;
    this.bySource.clear();
    this.count = 0;
    this.time = Number.NEGATIVE_INFINITY;
    this.initial = true;
  }
}
