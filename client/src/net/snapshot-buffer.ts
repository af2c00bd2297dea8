/**
 * Snapshot interpolation buffer (DOM-free, no three.js): every received state is stored per body,
 * stamped with the server time of its tick, and bodies are sampled at a render time that lies
 * between two snapshots (see ServerClock for how that time is chosen).
 *
 * - Between two snapshots: positions lerp, rotations slerp (shortest arc). No smoothing across frames:
 *   the pose is a pure function of the two surrounding snapshots and the render time.
 * - Two equal samples give exactly that pose, bit for bit (a sleeping or resting body stays still).
 * - After the newest snapshot: extrapolation from the last two samples for at most
 *   `maxExtrapolationMs`, then the pose holds; never for a body that is asleep or that just teleported.
 * - A sample flagged `cut` (a scenario reload reused the id) is not interpolated into: the previous pose
 *   holds until the render time reaches it.
 * - A body added after the first snapshot appears when the render time reaches its first sample; a
 *   body missing from a snapshot disappears when the render time reaches that snapshot.
 *
 * Per-body samples live in preallocated typed-array rings: pushing and sampling allocate nothing.
 */

/** Pose written by `sample`. */
export interface Pose {
  x: number;
  y: number;
  z: number;
  qx: number;
  qy: number;
  qz: number;
  qw: number;
  /** The body is asleep at the sample used (or at both ends of the interval). */
  sleeping: boolean;
}

export function createPose(): Pose {
  return { x: 0, y: 0, z: 0, qx: 0, qy: 0, qz: 0, qw: 1, sleeping: false };
}

/** Floats per sample: x y z qx qy qz qw flags. */
const STRIDE = 8;
const F_SLEEPING = 1;
const F_CUT = 2;

export class BodyTrack {
  readonly id: string;
  /** Body kind bits and half extents as received (for the renderer and the world mirror). */
  kind = 0;
  hx = 0;
  hy = 0;
  hz = 0;
  /** The shape descriptor (BodyState.shape) of a shape other than a sphere or box; "" for those two. */
  shape = "";
  readonly times: Float64Array;
  readonly data: Float64Array;
  /** Index of the newest sample. */
  head = -1;
  count = 0;
  /** Render times before this show nothing (the body did not exist yet). */
  visibleFrom = Number.NEGATIVE_INFINITY;
  /** Server time of the first snapshot without this body; +Infinity while present. */
  removedAt = Number.POSITIVE_INFINITY;
  /** Sequence number of the last snapshot that contained the body. */
  seenIn = -1;

  constructor(id: string, capacity: number) {
    this.id = id;
    this.times = new Float64Array(capacity);
    this.data = new Float64Array(capacity * STRIDE);
  }

  get capacity(): number {
    return this.times.length;
  }

  /** Ring index of the k-th newest sample (0 = newest). */
  index(k: number): number {
    const cap = this.times.length;
    return (((this.head - k) % cap) + cap) % cap;
  }

  newestTime(): number {
    return this.count === 0 ? Number.NEGATIVE_INFINITY : this.times[this.head];
  }
}

export interface SnapshotBufferOptions {
  /** Samples kept per body. Default 32 (1.6 s at 20 Hz). */
  capacity?: number;
  /** How far past a body's newest sample its motion is extrapolated, ms. Default 50. */
  maxExtrapolationMs?: number;
}

export class SnapshotBuffer {
  readonly tracks = new Map<string, BodyTrack>();
  readonly capacity: number;
  maxExtrapolationMs: number;
  /** Server time of the snapshot being pushed / last pushed. */
  private time = Number.NEGATIVE_INFINITY;
  private seq = -1;
  private initial = true;
  private cutAll = false;
  /** Ids whose tracks were deleted by the last prune() (reused array). */
  readonly pruned: string[] = [];

  constructor(options: SnapshotBufferOptions = {}) {
    this.capacity = options.capacity ?? 32;
    this.maxExtrapolationMs = options.maxExtrapolationMs ?? 50;
  }

  /** Server time of the newest snapshot, ms. */
  get newestTime(): number {
    return this.time;
  }

  /**
   * Starts a snapshot at server time `timeMs`. `cut`: every body in it starts over (the world was
   * rebuilt, ids may be reused for different bodies), so nothing interpolates across it.
   */
  begin(timeMs: number, cut = false): void {
    this.time = timeMs;
    this.seq++;
    this.cutAll = cut;
  }

  /** Adds one body's state to the current snapshot. */
  push(
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
    sleeping: boolean,
  ): BodyTrack {
    let track = this.tracks.get(id);
    let flags = sleeping ? F_SLEEPING : 0;
    if (track === undefined || track.removedAt !== Number.POSITIVE_INFINITY) {
      // New, or gone and back under the same id: a fresh track.
      track = new BodyTrack(id, this.capacity);
      this.tracks.set(id, track);
      track.visibleFrom = this.initial ? Number.NEGATIVE_INFINITY : this.time;
    } else if (this.cutAll || track.kind !== kind || track.hx !== hx || track.hy !== hy || track.hz !== hz) {
      flags |= F_CUT;
    }
    track.kind = kind;
    track.hx = hx;
    track.hy = hy;
    track.hz = hz;
    track.seenIn = this.seq;
    if (track.count > 0 && this.time <= track.times[track.head]) {
      // Same or older server time (a repeated patch): replace the newest sample instead of going back.
      track.head = track.index(1);
      track.count--;
    }
    track.head = (track.head + 1) % track.capacity;
    if (track.count < track.capacity) track.count++;
    track.times[track.head] = this.time;
    const o = track.head * STRIDE;
    const d = track.data;
    d[o] = x;
    d[o + 1] = y;
    d[o + 2] = z;
    d[o + 3] = qx;
    d[o + 4] = qy;
    d[o + 5] = qz;
    d[o + 6] = qw;
    d[o + 7] = flags;
    return track;
  }

  /** Ends the snapshot: bodies it did not contain are removed as of its time. */
  end(): void {
    for (const track of this.tracks.values()) {
      if (track.seenIn !== this.seq && track.removedAt === Number.POSITIVE_INFINITY) track.removedAt = this.time;
    }
    this.initial = false;
  }

  /** Deletes tracks whose removal the render time has reached; their ids are in `pruned`. */
  prune(renderTime: number): string[] {
    this.pruned.length = 0;
    for (const track of this.tracks.values()) {
      if (renderTime >= track.removedAt) this.pruned.push(track.id);
    }
    for (const id of this.pruned) this.tracks.delete(id);
    return this.pruned;
  }

  /** Forgets everything (a new room). */
  clear(): void {
    this.tracks.clear();
    this.time = Number.NEGATIVE_INFINITY;
    this.initial = true;
  }

  /**
   * Writes the pose of body `id` at `renderTime` into `out`. Returns false when the body is not visible
   * at that time (unknown, not yet added, or already removed).
   */
  sample(id: string, renderTime: number, out: Pose): boolean {
    const track = this.tracks.get(id);
    return track !== undefined && sampleTrack(track, renderTime, this.maxExtrapolationMs, out);
  }
}

/** See SnapshotBuffer.sample. */
export function sampleTrack(track: BodyTrack, renderTime: number, maxExtrapolationMs: number, out: Pose): boolean {
  if (track.count === 0 || renderTime < track.visibleFrom || renderTime >= track.removedAt) return false;
  const t = track.times;
  const d = track.data;
  // Walk back from the newest sample to the first one at or before the render time.
  let k = 0;
  while (k < track.count - 1 && t[track.index(k)] > renderTime) k++;
  const i0 = track.index(k);
  if (t[i0] > renderTime) {
    // Older than anything kept: hold the oldest sample.
    copySample(d, i0 * STRIDE, out);
    return true;
  }
  if (k === 0) {
    // At or past the newest sample: extrapolate a little, or hold.
    extrapolate(track, renderTime, maxExtrapolationMs, out);
    return true;
  }
  const i1 = track.index(k - 1);
  const o0 = i0 * STRIDE;
  const o1 = i1 * STRIDE;
  if ((d[o1 + 7] & F_CUT) !== 0) {
    copySample(d, o0, out);
    return true;
  }
  const alpha = (renderTime - t[i0]) / (t[i1] - t[i0]);
  interpolate(d, o0, o1, alpha, out);
  return true;
}

function copySample(d: Float64Array, o: number, out: Pose): void {
  out.x = d[o];
  out.y = d[o + 1];
  out.z = d[o + 2];
  out.qx = d[o + 3];
  out.qy = d[o + 4];
  out.qz = d[o + 5];
  out.qw = d[o + 6];
  out.sleeping = (d[o + 7] & F_SLEEPING) !== 0;
}

function samePose(d: Float64Array, o0: number, o1: number): boolean {
  for (let k = 0; k < 7; k++) if (d[o0 + k] !== d[o1 + k]) return false;
  return true;
}

/** Pose at `alpha` from sample o0 to o1 (alpha may exceed 1 for extrapolation). */
function interpolate(d: Float64Array, o0: number, o1: number, alpha: number, out: Pose): void {
  if (samePose(d, o0, o1)) {
    copySample(d, o1, out);
    out.sleeping = (d[o0 + 7] & d[o1 + 7] & F_SLEEPING) !== 0;
    return;
  }
  out.x = d[o0] + (d[o1] - d[o0]) * alpha;
  out.y = d[o0 + 1] + (d[o1 + 1] - d[o0 + 1]) * alpha;
  out.z = d[o0 + 2] + (d[o1 + 2] - d[o0 + 2]) * alpha;
  slerpInto(d[o0 + 3], d[o0 + 4], d[o0 + 5], d[o0 + 6], d[o1 + 3], d[o1 + 4], d[o1 + 5], d[o1 + 6], alpha, out);
  out.sleeping = false;
}

function extrapolate(track: BodyTrack, renderTime: number, maxExtrapolationMs: number, out: Pose): void {
  const d = track.data;
  const i1 = track.head;
  const o1 = i1 * STRIDE;
  const ahead = Math.min(renderTime - track.times[i1], maxExtrapolationMs);
  // No extrapolation for a body that sleeps, just teleported, or is known to be gone.
  if (track.count < 2 || ahead <= 0 || (d[o1 + 7] & (F_SLEEPING | F_CUT)) !== 0 || track.removedAt !== Number.POSITIVE_INFINITY) {
    copySample(d, o1, out);
    return;
  }
  const i0 = track.index(1);
  const span = track.times[i1] - track.times[i0];
  if (!(span > 0)) {
    copySample(d, o1, out);
    return;
  }
  interpolate(d, i0 * STRIDE, o1, 1 + ahead / span, out);
}

/**
 * Spherical interpolation from a to b along the shorter arc, written into out.q*. Works for t outside
 * [0, 1] (extrapolation along the same great circle).
 */
export function slerpInto(
  ax: number,
  ay: number,
  az: number,
  aw: number,
  bx: number,
  by: number,
  bz: number,
  bw: number,
  t: number,
  out: { qx: number; qy: number; qz: number; qw: number },
): void {
  let dot = ax * bx + ay * by + az * bz + aw * bw;
  if (dot < 0) {
    dot = -dot;
    bx = -bx;
    by = -by;
    bz = -bz;
    bw = -bw;
  }
  let wa: number;
  let wb: number;
  if (dot > 0.9995) {
    // Nearly parallel: normalised lerp is accurate and avoids dividing by sin(θ) ≈ 0.
    wa = 1 - t;
    wb = t;
  } else {
    const theta = Math.acos(Math.min(1, dot));
    const sin = Math.sin(theta);
    wa = Math.sin((1 - t) * theta) / sin;
    wb = Math.sin(t * theta) / sin;
  }
  const x = wa * ax + wb * bx;
  const y = wa * ay + wb * by;
  const z = wa * az + wb * bz;
  const w = wa * aw + wb * bw;
  const len = Math.sqrt(x * x + y * y + z * z + w * w);
  out.qx = x / len;
  out.qy = y / len;
  out.qz = z / len;
  out.qw = w / len;
}
