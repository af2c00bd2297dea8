import type { BodyStore } from "../dynamics/body-store.ts";

/** Body activity classes for pair filtering (see `relevantPair`). */
export const CAT_STATIC = 0;
export const CAT_SLEEPING = 1;
export const CAT_KINEMATIC_IDLE = 2;
export const CAT_KINEMATIC_MOVING = 3;
export const CAT_AWAKE = 4;

/** Switch sweep axis only when another axis' spread is clearly larger (avoids re-sorting back and forth). */
const AXIS_HYSTERESIS = 1.5;

/**
 * Sort-and-sweep on one axis: AABB minima are kept sorted between ticks (insertion sort on nearly
 * sorted data is ~O(n)), on the axis of greatest spread of the AABB centres, so a tall tower sharing
 * one x interval does not degrade to quadratic work (physics.md's known limit).
 */
export class BroadPhase {
  /** Body slots in sweep order. */
  order = new Int32Array(64);
  /** AABB minimum on the sweep axis, parallel to `order`. */
  keys = new Float64Array(64);
  count = 0;
  axis = 0;
  /** Pairs found by the last `findPairs` as (a, b) with a < b, in sweep order. */
  pairs: Int32Array = new Int32Array(256);
  pairCount = 0;

  private member = new Uint8Array(64);
  private membershipDirty = false;
  private needsFullSort = true;
  private scratchOrder = new Int32Array(64);
  private scratchKeys = new Float64Array(64);

  /** Registers a new body (it joins the sweep at the next update). */
  add(slot: number): void {
    this.ensureMember(slot + 1);
    this.member[slot] = 1;
    this.membershipDirty = true;
  }

  remove(slot: number): void {
    this.member[slot] = 0;
    this.membershipDirty = true;
  }

  private ensureMember(n: number): void {
    if (n <= this.member.length) return;
    let cap = this.member.length;
    while (cap < n) cap *= 2;
    const m = new Uint8Array(cap);
    m.set(this.member);
    this.member = m;
  }

  private ensureOrder(n: number): void {
    if (n <= this.order.length) return;
    let cap = this.order.length;
    while (cap < n) cap *= 2;
    const o = new Int32Array(cap);
    o.set(this.order);
    this.order = o;
    this.keys = new Float64Array(cap);
    this.scratchOrder = new Int32Array(cap);
    this.scratchKeys = new Float64Array(cap);
  }

  /** Drops removed bodies from the order and appends new ones (new ones get sorted in afterwards). */
  private syncMembership(bodies: BodyStore): void {
    let w = 0;
    // Mark which slots are already in the order.
    const inOrder = this.ensureInOrder(bodies.slotCount);
    inOrder.fill(0, 0, bodies.slotCount);
    for (let i = 0; i < this.count; i++) {
      const s = this.order[i];
      if (s < bodies.slotCount && this.member[s] === 1 && bodies.alive[s] === 1) {
        this.order[w++] = s;
        inOrder[s] = 1;
      }
    }
    this.ensureOrder(bodies.liveCount);
    for (let s = 0; s < bodies.slotCount; s++) {
      if (this.member[s] === 1 && bodies.alive[s] === 1 && inOrder[s] === 0) {
        this.ensureOrder(w + 1);
        this.order[w++] = s;
        this.needsFullSort = true;
      }
    }
    this.count = w;
    this.membershipDirty = false;
  }

  private inOrderFlags = new Uint8Array(64);
  private ensureInOrder(n: number): Uint8Array {
    if (n > this.inOrderFlags.length) {
      let cap = this.inOrderFlags.length;
      while (cap < n) cap *= 2;
      this.inOrderFlags = new Uint8Array(cap);
    }
    return this.inOrderFlags;
  }

  /**
   * Picks the sweep axis, re-sorts and sweeps. `category` classifies each slot (CAT_*). Results are in
   * `pairs[0 .. 2 * pairCount)`. AABBs must be current in `bodies.aabb`.
   */
  findPairs(bodies: BodyStore, category: Uint8Array): void {
    if (this.membershipDirty) this.syncMembership(bodies);
    const n = this.count;
    const order = this.order;
    const keys = this.keys;
    const aabb = bodies.aabb;
    this.pairCount = 0;
    if (n < 2) return;

    this.chooseAxis(aabb, n);
    const axis = this.axis;
    for (let i = 0; i < n; i++) keys[i] = aabb[order[i] * 6 + axis];
    if (this.needsFullSort) {
      this.mergeSort(n);
      this.needsFullSort = false;
    } else {
      this.insertionSort(n);
    }

    // Copy the other two axes and the categories into sweep order so the inner loop reads memory
    // sequentially instead of jumping through the AABB array.
    const o1 = axis === 0 ? 1 : 0;
    const o2 = axis === 2 ? 1 : 2;
    this.ensurePacked(n);
    const maxK = this.packedMax;
    const lo1 = this.packedLo1;
    const hi1 = this.packedHi1;
    const lo2 = this.packedLo2;
    const hi2 = this.packedHi2;
    const cats = this.packedCat;
    let pairs: Int32Array = this.pairs;
    let pc = 0;
    for (let i = 0; i < n; i++) {
      const s6 = order[i] * 6;
      maxK[i] = aabb[s6 + 3 + axis];
      lo1[i] = aabb[s6 + o1];
      hi1[i] = aabb[s6 + 3 + o1];
      lo2[i] = aabb[s6 + o2];
      hi2[i] = aabb[s6 + 3 + o2];
      cats[i] = category[order[i]];
    }
    for (let i = 0; i < n; i++) {
      const ci = cats[i];
      const maxI = maxK[i];
      const min1 = lo1[i];
      const max1 = hi1[i];
      const min2 = lo2[i];
      const max2 = hi2[i];
      // An awake body pairs with anything; otherwise only with awake bodies, or (moving kinematic vs
      // sleeping) so the sleeper can be woken. Two loops keep the common awake case free of the check.
      const any = ci === CAT_AWAKE;
      const wakeable = ci === CAT_KINEMATIC_MOVING ? CAT_SLEEPING : ci === CAT_SLEEPING ? CAT_KINEMATIC_MOVING : -1;
      const si = order[i];
      for (let j = i + 1; j < n && keys[j] <= maxI; j++) {
        if (!any) {
          const cj = cats[j];
          if (cj !== CAT_AWAKE && cj !== wakeable) continue;
        }
        // One combined test instead of four branches: the individual outcomes are unpredictable, the
        // combined one is almost always "no overlap".
        if ((+(lo1[j] <= max1) & +(hi1[j] >= min1) & +(lo2[j] <= max2) & +(hi2[j] >= min2)) === 0) continue;
        const sj = order[j];
        if (pc + 2 > pairs.length) pairs = this.growPairs();
        pairs[pc] = si < sj ? si : sj;
        pairs[pc + 1] = si < sj ? sj : si;
        pc += 2;
      }
    }
    this.pairCount = pc >> 1;
  }

  private growPairs(): Int32Array {
    const p = new Int32Array(this.pairs.length * 2);
    p.set(this.pairs);
    this.pairs = p;
    return p;
  }

  private packedMax = new Float64Array(64);
  private packedLo1 = new Float64Array(64);
  private packedHi1 = new Float64Array(64);
  private packedLo2 = new Float64Array(64);
  private packedHi2 = new Float64Array(64);
  private packedCat = new Uint8Array(64);

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

  private chooseAxis(aabb: Float64Array, n: number): void {
    let sx = 0;
    let sy = 0;
    let sz = 0;
    let sxx = 0;
    let syy = 0;
    let szz = 0;
    for (let i = 0; i < n; i++) {
      const o = this.order[i] * 6;
      const cx = 0.5 * (aabb[o] + aabb[o + 3]);
      const cy = 0.5 * (aabb[o + 1] + aabb[o + 4]);
      const cz = 0.5 * (aabb[o + 2] + aabb[o + 5]);
      sx += cx;
      sy += cy;
      sz += cz;
      sxx += cx * cx;
      syy += cy * cy;
      szz += cz * cz;
    }
    const vx = sxx - (sx * sx) / n;
    const vy = syy - (sy * sy) / n;
    const vz = szz - (sz * sz) / n;
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
    if (best !== this.axis) {
      this.axis = best;
      this.needsFullSort = true;
    }
  }

  /** Sorted by key, ties by slot, so the order is a pure function of the AABBs. */
  private insertionSort(n: number): void {
    const order = this.order;
    const keys = this.keys;
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
  }

  /** Bottom-up merge sort into preallocated scratch: O(n log n) when the order is far from sorted. */
  private mergeSort(n: number): void {
    let srcO = this.order;
    let srcK = this.keys;
    let dstO = this.scratchOrder;
    let dstK = this.scratchKeys;
    for (let width = 1; width < n; width *= 2) {
      for (let lo = 0; lo < n; lo += 2 * width) {
        const mid = Math.min(lo + width, n);
        const hi = Math.min(lo + 2 * width, n);
        let i = lo;
        let j = mid;
        let k = lo;
        while (i < mid && j < hi) {
          if (srcK[j] < srcK[i] || (srcK[j] === srcK[i] && srcO[j] < srcO[i])) {
            dstK[k] = srcK[j];
            dstO[k++] = srcO[j++];
          } else {
            dstK[k] = srcK[i];
            dstO[k++] = srcO[i++];
          }
        }
        while (i < mid) {
          dstK[k] = srcK[i];
          dstO[k++] = srcO[i++];
        }
        while (j < hi) {
          dstK[k] = srcK[j];
          dstO[k++] = srcO[j++];
        }
      }
      const to = srcO;
      const tk = srcK;
      srcO = dstO;
      srcK = dstK;
      dstO = to;
      dstK = tk;
    }
    if (srcO !== this.order) {
      this.order.set(srcO.subarray(0, n));
      this.keys.set(srcK.subarray(0, n));
    }
  }
}
