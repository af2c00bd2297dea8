import { type BodyStore, CAT_AWAKE, CAT_KINEMATIC_MOVING, CAT_SLEEPING, CAT_STATIC_SENSOR, grow } from "../dynamics/body-store.ts";

export { CAT_AWAKE, CAT_KINEMATIC_IDLE, CAT_KINEMATIC_MOVING, CAT_SLEEPING, CAT_STATIC, CAT_STATIC_SENSOR } from "../dynamics/body-store.ts";

/** Switch sweep axis only when another axis' spread is clearly larger (avoids rebuilding back and forth). */
const AXIS_HYSTERESIS = 1.5;
/** The sweep axis is reconsidered every this many `findPairs` calls (a power of two). */
const AXIS_CHECK_STEPS = 16;
/** Cell edge = this many times the median AABB size (so most bodies sit in one or two cells). */
const CELL_SIZE_FACTOR = 4;
/** A body spanning more cells than this along either cell axis is "large" (ground, walls) and kept apart. */
const LARGE_SPAN = 4;
/**
 * Cell coordinates are clamped to ±this (far-flung bodies share the border cells). Small enough that a
 * column's map key stays a small integer (a larger key would be a heap number: garbage on every lookup).
 */
const MAX_CELL_COORD = 1 << 14;
const KEY_STRIDE = 2 * MAX_CELL_COORD + 1;
/** Range marker of a body that is in no column yet. */
const NOT_PLACED = -MAX_CELL_COORD - 1;

/** One column of the grid: the bodies overlapping it, sorted by AABB minimum on the sweep axis. */
class Cell {
  readonly ci: number;
  readonly cj: number;
  /** Position in the broad phase's column list (creation order). */
  readonly index: number;
  count = 0;
  /** `findPairs` stamp of the last step an awake or moving body was in this column. */
  activeStamp = 0;
  slots = new Int32Array(8);
  keys = new Float64Array(8);
  constructor(ci: number, cj: number, index: number) {
    this.ci = ci;
    this.cj = cj;
    this.index = index;
  }
  push(slot: number): void {
    if (this.count === this.slots.length) {
      const s = new Int32Array(this.count * 2);
      s.set(this.slots);
      this.slots = s;
      this.keys = new Float64Array(this.count * 2);
    }
    this.slots[this.count++] = slot;
  }
  /** Removes a slot (order is restored by the next insertion sort). */
  remove(slot: number): void {
    const s = this.slots;
    for (let k = 0; k < this.count; k++) {
      if (s[k] === slot) {
        s[k] = s[--this.count];
        return;
      }
    }
  }
}

/**
 * Sort-and-sweep, made scalable with a coarse grid over the two other axes ("multi-SAP"): each grid
 * column keeps its own list of bodies sorted by AABB minimum on the sweep axis between ticks (insertion
 * sort on nearly sorted data is ~O(n)), and only bodies sharing a column are swept against each other.
 * The sweep axis is the one of greatest spread of the AABB centres, so a tall tower sharing one x
 * interval does not go quadratic (a single-axis sweep's known limit), and the columns keep a uniformly filled
 * volume from going O(n^5/3) the way one global sweep does. Large bodies (ground, walls) live in their
 * own list and are swept against the columns they cover.
 *
 * Pairs are reported once each, in a deterministic order (columns in the order active bodies first
 * marked them, then sweep order): a pair seen in several columns is reported only in the first column
 * both bodies share.
 *
 * A step costs what the awake and moving bodies touch: only they are re-placed and only their columns
 * swept (from the body store's awake and kinematic sets); new bodies wait in a pending list; the spread
 * of AABB centres that picks the sweep axis is kept as running sums, updated as bodies move.
 */
export class BroadPhase {
  /** Sweep axis (0 x, 1 y, 2 z). */
  axis = 0;
  /** Edge of a grid column on the two other axes, metres. */
  cellSize = 0;
  /** Pairs found by the last `findPairs` as (a, b) with a < b. */
  pairs: Int32Array = new Int32Array(256);
  pairCount = 0;
  /** Registered bodies. */
  count = 0;

  private member = new Uint8Array(64);
  private large = new Uint8Array(64);
  /** Per slot: first and last column on axis o1, then on o2 (inclusive); NOT_PLACED when in none. */
  private range = new Int32Array(64 * 4);
  private cells: Cell[] = [];
  private cellIndex = new Map<number, number>();
  private largeList = new Int32Array(16);
  private largeCount = 0;
  private needsRebuild = true;
  private o1 = 1;
  private o2 = 2;
  /** Incremented by every findPairs; columns holding an active body carry the current value. */
  private stamp = 0;
  /** An active body is large: every column must be swept this step. */
  private largeActive = false;
  /** Columns holding an active body this step (indices into `cells`), in the order first marked. */
  private activeCells = new Int32Array(64);
  private activeCellCount = 0;
  /** Bodies added since the last `findPairs`, not placed yet. */
  private pending = new Int32Array(16);
  private pendingCount = 0;
  private isPending = new Uint8Array(64);
  /**
   * Running sums of the AABB centres of the placed, non-large bodies (the axis choice's statistics), and
   * each body's centre as last counted. Exact again after every rebuild.
   */
  private counted = new Uint8Array(64);
  private center = new Float64Array(64 * 3);
  private sumN = 0;
  private sum = new Float64Array(3);
  private sumSq = new Float64Array(3);


  // Per-column packed copies for a sequential sweep (sized to the largest column).
  private packedMax = new Float64Array(64);
  private packedLo1 = new Float64Array(64);
  private packedHi1 = new Float64Array(64);
  private packedLo2 = new Float64Array(64);
  private packedHi2 = new Float64Array(64);
  private packedCat = new Uint8Array(64);

  /** Registers a new body (it is placed at the next update). */
  add(slot: number): void {
    this.ensureSlots(slot + 1);
    this.member[slot] = 1;
    this.large[slot] = 0;
    this.counted[slot] = 0;
    this.range[slot * 4] = NOT_PLACED;
    this.count++;
    // A slot removed and reused before the next step is listed once (a world that never steps, such as
    // a client's mirror, would otherwise grow the list without bound).
    if (this.isPending[slot] === 1) return;
    this.isPending[slot] = 1;
    if (this.pendingCount === this.pending.length) {
      const p = new Int32Array(this.pendingCount * 2);
      p.set(this.pending);
      this.pending = p;
    }
    this.pending[this.pendingCount++] = slot;
  }

  remove(slot: number): void {
    if (this.member[slot] === 0) return;
    this.unplace(slot);
    this.uncount(slot);
    this.member[slot] = 0;
    this.count--;
  }

  /** Takes a body's centre out of the running sums. */
  private uncount(slot: number): void {
    if (this.counted[slot] === 0) return;
    const c = this.center;
    const s3 = slot * 3;
    for (let k = 0; k < 3; k++) {
      this.sum[k] -= c[s3 + k];
      this.sumSq[k] -= c[s3 + k] * c[s3 + k];
    }
    this.sumN--;
    this.counted[slot] = 0;
  }

  /** Brings a placed body's centre in the running sums up to date (large bodies are not counted). */
  private recount(slot: number, aabb: Float64Array): void {
    this.uncount(slot);
    if (this.large[slot] === 1) return;
    const c = this.center;
    const s3 = slot * 3;
    const s6 = slot * 6;
    for (let k = 0; k < 3; k++) {
      const x = 0.5 * (aabb[s6 + k] + aabb[s6 + 3 + k]);
      c[s3 + k] = x;
      this.sum[k] += x;
      this.sumSq[k] += x * x;
    }
    this.sumN++;
    this.counted[slot] = 1;
  }

  private ensureSlots(n: number): void {
    if (n <= this.member.length) return;
    let cap = this.member.length;
    while (cap < n) cap *= 2;
    this.member = grow(this.member, cap);
    this.large = grow(this.large, cap);
    this.range = grow(this.range, cap * 4);
    this.counted = grow(this.counted, cap);
    this.isPending = grow(this.isPending, cap);
    this.center = grow(this.center, cap * 3);
  }

  private cellAt(ci: number, cj: number): Cell {
    const key = (ci + MAX_CELL_COORD) * KEY_STRIDE + (cj + MAX_CELL_COORD);
    let idx = this.cellIndex.get(key);
    if (idx === undefined) {
      idx = this.cells.length;
      this.cells.push(new Cell(ci, cj, idx));
      this.cellIndex.set(key, idx);
    }
    return this.cells[idx];
  }

  private unplace(slot: number): void {
    const r = slot * 4;
    const range = this.range;
    if (range[r] === NOT_PLACED) return;
    if (this.large[slot] === 1) {
      for (let k = 0; k < this.largeCount; k++) {
        if (this.largeList[k] === slot) {
          // Keep slot order in the large list (it is the report order): shift down.
          this.largeList.copyWithin(k, k + 1, this.largeCount);
          this.largeCount--;
          break;
        }
      }
      this.large[slot] = 0;
    } else {
      for (let ci = range[r]; ci <= range[r + 1]; ci++) {
        for (let cj = range[r + 2]; cj <= range[r + 3]; cj++) this.cellAt(ci, cj).remove(slot);
      }
    }
    range[r] = NOT_PLACED;
  }

  private coord(x: number): number {
    const c = Math.floor(x / this.cellSize);
    return c < -MAX_CELL_COORD ? -MAX_CELL_COORD : c > MAX_CELL_COORD ? MAX_CELL_COORD : c;
  }

  /** Puts a body into the columns its AABB covers (or the large list); no-op when they did not change. */
  private place(slot: number, aabb: Float64Array): void {
    const s6 = slot * 6;
    const i0 = this.coord(aabb[s6 + this.o1]);
    const i1 = this.coord(aabb[s6 + 3 + this.o1]);
    const j0 = this.coord(aabb[s6 + this.o2]);
    const j1 = this.coord(aabb[s6 + 3 + this.o2]);
    const r = slot * 4;
    const range = this.range;
    if (range[r] === i0 && range[r + 1] === i1 && range[r + 2] === j0 && range[r + 3] === j1) return;
    this.unplace(slot);
    range[r] = i0;
    range[r + 1] = i1;
    range[r + 2] = j0;
    range[r + 3] = j1;
    if (i1 - i0 >= LARGE_SPAN || j1 - j0 >= LARGE_SPAN) {
      this.large[slot] = 1;
      // Insert in slot order.
      if (this.largeCount === this.largeList.length) {
        const l = new Int32Array(this.largeCount * 2);
        l.set(this.largeList);
        this.largeList = l;
      }
      let k = this.largeCount++;
      while (k > 0 && this.largeList[k - 1] > slot) {
        this.largeList[k] = this.largeList[k - 1];
        k--;
      }
      this.largeList[k] = slot;
      return;
    }
    for (let ci = i0; ci <= i1; ci++) {
      for (let cj = j0; cj <= j1; cj++) this.cellAt(ci, cj).push(slot);
    }
  }

  /**
   * Recounts the centre statistics exactly, chooses the sweep axis and column size, then places every
   * body from scratch. Runs on the first step and when the sweep axis changes: the one full pass.
   */
  private rebuild(bodies: BodyStore): void {
    const aabb = bodies.aabb;
    this.sumN = 0;
    this.sum.fill(0);
    this.sumSq.fill(0);
    for (let s = 0; s < bodies.slotCount; s++) {
      if (this.member[s] === 0) continue;
      this.counted[s] = 0;
      // Large status as of the last placement: the statistics skip the ground and walls.
      this.recount(s, aabb);
    }
    const axis = this.chooseAxis();
    this.axis = axis;
    this.o1 = axis === 0 ? 1 : 0;
    this.o2 = axis === 2 ? 1 : 2;
    // Column size from the median AABB size on the two column axes (large outliers do not matter).
    const sizes: number[] = [];
    for (let s = 0; s < bodies.slotCount; s++) {
      if (this.member[s] === 0) continue;
      const s6 = s * 6;
      sizes.push(Math.max(aabb[s6 + 3 + this.o1] - aabb[s6 + this.o1], aabb[s6 + 3 + this.o2] - aabb[s6 + this.o2]));
    }
    sizes.sort((a, b) => a - b);
    const medianSize = sizes.length > 0 ? sizes[sizes.length >> 1] : 1;
    this.cellSize = Math.max(CELL_SIZE_FACTOR * medianSize, 1e-3);
    this.cells = [];
    this.cellIndex.clear();
    this.largeCount = 0;
    for (let s = 0; s < bodies.slotCount; s++) {
      if (this.member[s] === 0) continue;
      this.range[s * 4] = NOT_PLACED;
      this.large[s] = 0;
      this.place(s, aabb);
      this.recount(s, aabb);
    }
    this.clearPending();
    this.needsRebuild = false;
  }

  /**
   * Finds the overlapping pairs that need a contact: one side an awake dynamic body, or a moving
   * kinematic body against a sleeping one (so the sleeper can be woken). Bodies are classified by
   * `bodies.activity` (CAT_*); only the awake and kinematic sets are visited. Results are in
   * `pairs[0 .. 2 * pairCount)`. AABBs of active and new bodies must be current in `bodies.aabb`.
   */
  findPairs(bodies: BodyStore): void {
    this.pairCount = 0;
    const aabb = bodies.aabb;
    const activity = bodies.activity;
    if (this.needsRebuild) this.rebuild(bodies);
    // New bodies take their columns; moving ones refresh theirs (cheap when they stay, almost always).
    for (let k = 0; k < this.pendingCount; k++) {
      const s = this.pending[k];
      if (this.member[s] === 1 && this.range[s * 4] === NOT_PLACED) {
        this.place(s, aabb);
        this.recount(s, aabb);
      }
    }
    this.clearPending();
    const awake = bodies.awakeList;
    for (let k = 0; k < bodies.awakeCount; k++) {
      const s = awake[k];
      this.place(s, aabb);
      this.recount(s, aabb);
    }
    const kinematic = bodies.kinematicList;
    for (let k = 0; k < bodies.kinematicCount; k++) {
      const s = kinematic[k];
      if (activity[s] !== CAT_KINEMATIC_MOVING) continue;
      this.place(s, aabb);
      this.recount(s, aabb);
    }
    // The axis only changes how fast the sweep is, never which pairs it finds, so it is reconsidered every
    // AXIS_CHECK_STEPS steps: a call this rare runs unoptimised, where each double it computes is a heap
    // allocation.
    if ((this.stamp & (AXIS_CHECK_STEPS - 1)) === 0 && this.chooseAxis() !== this.axis) this.rebuild(bodies);
    // Columns that hold an awake or moving body are marked; only those can produce a pair, so a column of
    // sleeping and static bodies is not even re-sorted.
    const stamp = ++this.stamp;
    this.largeActive = false;
    this.activeCellCount = 0;
    for (let k = 0; k < bodies.awakeCount; k++) this.markColumns(awake[k], stamp);
    for (let k = 0; k < bodies.kinematicCount; k++) {
      const s = kinematic[k];
      if (activity[s] === CAT_KINEMATIC_MOVING) this.markColumns(s, stamp);
    }
    if (this.largeActive) {
      for (let c = 0; c < this.cells.length; c++) {
        const cell = this.cells[c];
        if (cell.count > 0) this.sweepCell(cell, aabb, activity);
      }
    } else {
      for (let k = 0; k < this.activeCellCount; k++) this.sweepCell(this.cells[this.activeCells[k]], aabb, activity);
    }
    if (this.largeCount > 0) this.sweepLarge(aabb, activity);
  }

  private clearPending(): void {
    for (let k = 0; k < this.pendingCount; k++) this.isPending[this.pending[k]] = 0;
    this.pendingCount = 0;
  }

  /** Marks the columns an active body covers (a large one: every column). */
  private markColumns(s: number, stamp: number): void {
    if (this.large[s] === 1) {
      this.largeActive = true;
      return;
    }
    const r = s * 4;
    const range = this.range;
    for (let ci = range[r]; ci <= range[r + 1]; ci++) {
      for (let cj = range[r + 2]; cj <= range[r + 3]; cj++) {
        const cell = this.cellAt(ci, cj);
        if (cell.activeStamp === stamp) continue;
        cell.activeStamp = stamp;
        if (this.activeCellCount === this.activeCells.length) {
          const a = new Int32Array(this.activeCellCount * 2);
          a.set(this.activeCells);
          this.activeCells = a;
        }
        this.activeCells[this.activeCellCount++] = cell.index;
      }
    }
  }

  /** A body whose pose was set from outside (teleport) moves to its new columns. */
  touch(slot: number, bodies: BodyStore): void {
    if (this.member[slot] === 0 || this.needsRebuild || this.range[slot * 4] === NOT_PLACED) return;
    this.place(slot, bodies.aabb);
    this.recount(slot, bodies.aabb);
  }

  /** The axis of greatest spread of the counted centres, with hysteresis against the current one. */
  private chooseAxis(): number {
    const n = this.sumN;
    if (n < 2) return this.axis;
    const vx = this.sumSq[0] - (this.sum[0] * this.sum[0]) / n;
    const vy = this.sumSq[1] - (this.sum[1] * this.sum[1]) / n;
    const vz = this.sumSq[2] - (this.sum[2] * this.sum[2]) / n;
    const cur = this.axis === 0 ? vx : this.axis === 1 ? vy : vz;
    let best = this.axis;
    let bestVar = cur * AXIS_HYSTERESIS;
    if (vx > bestVar) {
      best = 0;
      bestVar = vx;
    }
    if (vy > bestVar) {
      best = 1;
      bestVar = vy;
    }
    if (vz > bestVar) best = 2;
    return best;
  }

  private ensurePacked(n: number): void {
    if (n <= this.packedMax.length) return;
    let cap = this.packedMax.length;
    while (cap < n) cap *= 2;
    this.packedMax = new Float64Array(cap);
    this.packedLo1 = new Float64Array(cap);
    this.packedHi1 = new Float64Array(cap);
    this.packedLo2 = new Float64Array(cap);
    this.packedHi2 = new Float64Array(cap);
    this.packedCat = new Uint8Array(cap);
  }

  private growPairs(): Int32Array {
    const p = new Int32Array(this.pairs.length * 2);
    p.set(this.pairs);
    this.pairs = p;
    return p;
  }

  /** Sorts one column by the sweep axis (insertion sort, ties by slot) and sweeps it. */
  private sweepCell(cell: Cell, aabb: Float64Array, category: Uint8Array): void {
    const axis = this.axis;
    const o1 = this.o1;
    const o2 = this.o2;
    const n = cell.count;
    const order = cell.slots;
    const keys = cell.keys;
    for (let i = 0; i < n; i++) keys[i] = aabb[order[i] * 6 + axis];
    for (let i = 1; i < n; i++) {
      const k = keys[i];
      const s = order[i];
      let j = i - 1;
      while (j >= 0 && (keys[j] > k || (keys[j] === k && order[j] > s))) {
        keys[j + 1] = keys[j];
        order[j + 1] = order[j];
        j--;
      }
      keys[j + 1] = k;
      order[j + 1] = s;
    }
    // Packed copies in sweep order so the inner loop reads memory sequentially.
    this.ensurePacked(n);
    const maxK = this.packedMax;
    const lo1 = this.packedLo1;
    const hi1 = this.packedHi1;
    const lo2 = this.packedLo2;
    const hi2 = this.packedHi2;
    const cats = this.packedCat;
    for (let i = 0; i < n; i++) {
      const s6 = order[i] * 6;
      maxK[i] = aabb[s6 + 3 + axis];
      lo1[i] = aabb[s6 + o1];
      hi1[i] = aabb[s6 + 3 + o1];
      lo2[i] = aabb[s6 + o2];
      hi2[i] = aabb[s6 + 3 + o2];
      cats[i] = category[order[i]];
    }
    const range = this.range;
    const ci = cell.ci;
    const cj = cell.cj;
    let pairs = this.pairs;
    let pc = this.pairCount * 2;
    for (let i = 0; i < n; i++) {
      const c = cats[i];
      const maxI = maxK[i];
      const min1 = lo1[i];
      const max1 = hi1[i];
      const min2 = lo2[i];
      const max2 = hi2[i];
      // An awake body pairs with anything; otherwise only with awake bodies, or (moving kinematic vs
      // sleeping) so the sleeper can be woken, or (moving kinematic vs static sensor) so a zone senses a
      // character.
      const any = c === CAT_AWAKE;
      const wakeable = c === CAT_KINEMATIC_MOVING ? CAT_SLEEPING : c === CAT_SLEEPING || c === CAT_STATIC_SENSOR ? CAT_KINEMATIC_MOVING : -1;
      const sensed = c === CAT_KINEMATIC_MOVING ? CAT_STATIC_SENSOR : -1;
      const si = order[i];
      const ri = si * 4;
      for (let j = i + 1; j < n && keys[j] <= maxI; j++) {
        if (!any) {
          const cj2 = cats[j];
          if (cj2 !== CAT_AWAKE && cj2 !== wakeable && cj2 !== sensed) continue;
        }
        // One combined test instead of four branches: the individual outcomes are unpredictable, the
        // combined one is almost always "no overlap".
        if ((+(lo1[j] <= max1) & +(hi1[j] >= min1) & +(lo2[j] <= max2) & +(hi2[j] >= min2)) === 0) continue;
        const sj = order[j];
        const rj = sj * 4;
        // Report only in the first column both share.
        const firstI = range[ri] > range[rj] ? range[ri] : range[rj];
        const firstJ = range[ri + 2] > range[rj + 2] ? range[ri + 2] : range[rj + 2];
        if (firstI !== ci || firstJ !== cj) continue;
        if (pc + 2 > pairs.length) pairs = this.growPairs();
        pairs[pc] = si < sj ? si : sj;
        pairs[pc + 1] = si < sj ? sj : si;
        pc += 2;
      }
    }
    this.pairCount = pc >> 1;
  }

  /** Large bodies against the columns they cover, and against each other. */
  private sweepLarge(aabb: Float64Array, category: Uint8Array): void {
    const axis = this.axis;
    const o1 = this.o1;
    const o2 = this.o2;
    const range = this.range;
    let pairs = this.pairs;
    let pc = this.pairCount * 2;
    for (let k = 0; k < this.largeCount; k++) {
      const L = this.largeList[k];
      const cL = category[L];
      const anyL = cL === CAT_AWAKE;
      const wakeL = cL === CAT_KINEMATIC_MOVING ? CAT_SLEEPING : cL === CAT_SLEEPING || cL === CAT_STATIC_SENSOR ? CAT_KINEMATIC_MOVING : -1;
      const sensedL = cL === CAT_KINEMATIC_MOVING ? CAT_STATIC_SENSOR : -1;
      const l6 = L * 6;
      const minA = aabb[l6 + axis];
      const maxA = aabb[l6 + 3 + axis];
      const min1 = aabb[l6 + o1];
      const max1 = aabb[l6 + 3 + o1];
      const min2 = aabb[l6 + o2];
      const max2 = aabb[l6 + 3 + o2];
      const rl = L * 4;
      // An inactive large body (the ground) can only pair with columns that hold an active body; those
      // were just swept, so their order and keys are current. An active one needs every column it covers.
      const allCells = this.largeActive;
      const cellCount = allCells ? this.cells.length : this.activeCellCount;
      for (let c = 0; c < cellCount; c++) {
        const cell = this.cells[allCells ? c : this.activeCells[c]];
        if (cell.count === 0) continue;
        if (cell.ci < range[rl] || cell.ci > range[rl + 1] || cell.cj < range[rl + 2] || cell.cj > range[rl + 3]) continue;
        const order = cell.slots;
        const keys = cell.keys;
        for (let j = 0; j < cell.count && keys[j] <= maxA; j++) {
          const sj = order[j];
          const cj2 = category[sj];
          if (!anyL && cj2 !== CAT_AWAKE && cj2 !== wakeL && cj2 !== sensedL) continue;
          const j6 = sj * 6;
          if (
            (+(aabb[j6 + 3 + axis] >= minA) &
              +(aabb[j6 + o1] <= max1) &
              +(aabb[j6 + 3 + o1] >= min1) &
              +(aabb[j6 + o2] <= max2) &
              +(aabb[j6 + 3 + o2] >= min2)) ===
            0
          ) {
            continue;
          }
          // The body may sit in several covered columns: report in its first one inside L's range.
          const rj = sj * 4;
          const firstI = range[rj] > range[rl] ? range[rj] : range[rl];
          const firstJ = range[rj + 2] > range[rl + 2] ? range[rj + 2] : range[rl + 2];
          if (firstI !== cell.ci || firstJ !== cell.cj) continue;
          if (pc + 2 > pairs.length) pairs = this.growPairs();
          pairs[pc] = L < sj ? L : sj;
          pairs[pc + 1] = L < sj ? sj : L;
          pc += 2;
        }
      }
      for (let m = k + 1; m < this.largeCount; m++) {
        const M = this.largeList[m];
        const cM = category[M];
        if (!anyL && cM !== CAT_AWAKE && cM !== wakeL && cM !== sensedL) continue;
        const m6 = M * 6;
        if (aabb[m6] > aabb[l6 + 3] || aabb[m6 + 3] < aabb[l6]) continue;
        if (aabb[m6 + 1] > aabb[l6 + 4] || aabb[m6 + 4] < aabb[l6 + 1]) continue;
        if (aabb[m6 + 2] > aabb[l6 + 5] || aabb[m6 + 5] < aabb[l6 + 2]) continue;
        if (pc + 2 > pairs.length) pairs = this.growPairs();
        pairs[pc] = L < M ? L : M;
        pairs[pc + 1] = L < M ? M : L;
        pc += 2;
      }
    }
    this.pairCount = pc >> 1;
  }

  /** Slots found by the last `queryAabb`, ascending, in `queryResult[0 .. count)`. */
  queryResult: Int32Array = new Int32Array(64);

  /**
   * The bodies whose AABB in `bodies.aabb` overlaps the box `box[o .. o + 6)` (min xyz, max xyz; closed
   * intervals, so touching counts): their slots in ascending order in `queryResult`, and their count.
   * Slot order makes the result independent of the grid's history, so callers stay deterministic.
   *
   * Visits the columns the box covers (or, for a box spanning more columns than exist, every column),
   * the large bodies, and checks directly the bodies no column holds yet (added since the last
   * `findPairs`) and every kinematic body: a character move and the end of a kinematic target rewrite a
   * kinematic body's AABB between steps without placing it again. Every other AABB changes only together
   * with the body's placement. `box` may be `bodies.aabb` itself. Allocates only to grow the result.
   */
  queryAabb(bodies: BodyStore, box: Float64Array, o: number): number {
    const aabb = bodies.aabb;
    let n = 0;
    if (this.cells.length > 0) {
      const i0 = this.coord(box[o + this.o1]);
      const i1 = this.coord(box[o + 3 + this.o1]);
      const j0 = this.coord(box[o + this.o2]);
      const j1 = this.coord(box[o + 3 + this.o2]);
      if (i0 <= i1 && j0 <= j1) {
        const range = this.range;
        const cells = this.cells;
        const all = (i1 - i0 + 1) * (j1 - j0 + 1) > cells.length;
        const ni = all ? cells.length : i1 - i0 + 1;
        const nj = all ? 1 : j1 - j0 + 1;
        for (let a = 0; a < ni; a++) {
          for (let b = 0; b < nj; b++) {
            let cell: Cell;
            if (all) {
              cell = cells[a];
              if (cell.ci < i0 || cell.ci > i1 || cell.cj < j0 || cell.cj > j1) continue;
            } else {
              const idx = this.cellIndex.get((i0 + a + MAX_CELL_COORD) * KEY_STRIDE + (j0 + b + MAX_CELL_COORD));
              if (idx === undefined) continue;
              cell = cells[idx];
            }
            const slots = cell.slots;
            for (let k = 0; k < cell.count; k++) {
              const s = slots[k];
              // A body in several of the covered columns is reported from the first of them only.
              const r = s * 4;
              if ((range[r] > i0 ? range[r] : i0) !== cell.ci || (range[r + 2] > j0 ? range[r + 2] : j0) !== cell.cj) continue;
              if (overlaps(aabb, s * 6, box, o)) n = this.pushResult(n, s);
            }
          }
        }
      }
    }
    for (let k = 0; k < this.largeCount; k++) {
      const s = this.largeList[k];
      if (overlaps(aabb, s * 6, box, o)) n = this.pushResult(n, s);
    }
    // Pending entries may repeat a slot (removed and reused) or name a body placed or removed since.
    for (let k = 0; k < this.pendingCount; k++) {
      const s = this.pending[k];
      if (this.member[s] === 1 && this.range[s * 4] === NOT_PLACED && overlaps(aabb, s * 6, box, o)) {
        n = this.pushResult(n, s);
      }
    }
    const kinematic = bodies.kinematicList;
    for (let k = 0; k < bodies.kinematicCount; k++) {
      const s = kinematic[k];
      if (overlaps(aabb, s * 6, box, o)) n = this.pushResult(n, s);
    }
    return this.sortResult(n);
  }

  private pushResult(n: number, slot: number): number {
    if (n === this.queryResult.length) {
      const r = new Int32Array(n * 2);
      r.set(this.queryResult);
      this.queryResult = r;
    }
    this.queryResult[n] = slot;
    return n + 1;
  }

  /** Sorts the first n results ascending and drops repeats (a kinematic or pending body found twice). */
  private sortResult(n: number): number {
    const r = this.queryResult;
    if (n <= 32) {
      for (let i = 1; i < n; i++) {
        const v = r[i];
        let j = i - 1;
        while (j >= 0 && r[j] > v) {
          r[j + 1] = r[j];
          j--;
        }
        r[j + 1] = v;
      }
    } else {
      r.subarray(0, n).sort();
    }
    let m = 0;
    for (let i = 0; i < n; i++) if (m === 0 || r[m - 1] !== r[i]) r[m++] = r[i];
    return m;
  }
}

/**
 * Closed-interval overlap of the AABB at `aabb[s6 ..]` with the box at `box[o ..]`, written as "not
 * separated on any axis". Arrays and offsets rather than six coordinates: V8 boxes doubles passed to a
 * call it does not inline.
 */
function overlaps(aabb: Float64Array, s6: number, box: Float64Array, o: number): boolean {
  return !(
    aabb[s6] > box[o + 3] ||
    aabb[s6 + 3] < box[o] ||
    aabb[s6 + 1] > box[o + 4] ||
    aabb[s6 + 4] < box[o + 1] ||
    aabb[s6 + 2] > box[o + 5] ||
    aabb[s6 + 5] < box[o + 2]
  );
}
