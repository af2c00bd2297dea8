import { type BodyStore, DYNAMIC } from "./body-store.ts";
import { type ContactStore, FLAG_TOUCHING } from "./contact-store.ts";

/**
 * Islands and sleeping. Each step the awake dynamic bodies are grouped by touching contacts
 * (union-find, smaller slot is the root, so grouping is deterministic). An island sleeps when every body
 * in it has stayed below the velocity thresholds for `sleepTime`; its bodies are linked into a list so
 * waking any one of them wakes the whole island.
 */
export class Islands {
  private parent = new Int32Array(64);
  private minTimer = new Float64Array(64);
  /** Last body linked into each island's list while putting it to sleep (by root slot). */
  private tail = new Int32Array(64);

  private ensure(n: number): void {
    if (n <= this.parent.length) return;
    let cap = this.parent.length;
    while (cap < n) cap *= 2;
    this.parent = new Int32Array(cap);
    this.minTimer = new Float64Array(cap);
    this.tail = new Int32Array(cap);
  }

  private find(x: number): number {
    const parent = this.parent;
    while (parent[x] !== x) {
      parent[x] = parent[parent[x]];
      x = parent[x];
    }
    return x;
  }

  /**
   * Advances sleep timers and puts resting islands to sleep. `awake` lists the awake dynamic bodies in
   * slot order. `pushed` marks bodies touched by a moving kinematic body this step (they never sleep).
   * Returns the number of bodies put to sleep.
   */
  update(
    bodies: BodyStore,
    contacts: ContactStore,
    awake: Int32Array,
    awakeCount: number,
    dt: number,
    sleepTime: number,
    linearThreshold: number,
    angularThreshold: number,
  ): number {
    this.ensure(bodies.slotCount);
    const parent = this.parent;
    const lin2 = linearThreshold * linearThreshold;
    const ang2 = angularThreshold * angularThreshold;
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      parent[s] = s;
      const s3 = s * 3;
      const v = bodies.vel;
      const w = bodies.angVel;
      const v2 = v[s3] * v[s3] + v[s3 + 1] * v[s3 + 1] + v[s3 + 2] * v[s3 + 2];
      const w2 = w[s3] * w[s3] + w[s3 + 1] * w[s3 + 1] + w[s3 + 2] * w[s3 + 2];
      if (v2 > lin2 || w2 > ang2) bodies.sleepTimer[s] = 0;
      else bodies.sleepTimer[s] += dt;
    }
    for (let c = 0; c < contacts.count; c++) {
      if ((contacts.flags[c] & FLAG_TOUCHING) === 0) continue;
      const a = contacts.bodyA[c];
      const b = contacts.bodyB[c];
      const aAwake = bodies.type[a] === DYNAMIC && bodies.sleeping[a] === 0;
      const bAwake = bodies.type[b] === DYNAMIC && bodies.sleeping[b] === 0;
      if (aAwake && bAwake) {
        const ra = this.find(a);
        const rb = this.find(b);
        if (ra < rb) parent[rb] = ra;
        else if (rb < ra) parent[ra] = rb;
      } else if (aAwake !== bAwake) {
        // A body held by a moving kinematic body keeps its island awake.
        const other = aAwake ? b : a;
        if (bodies.type[other] !== DYNAMIC && isMoving(bodies, other)) bodies.sleepTimer[aAwake ? a : b] = 0;
      }
    }
    const minTimer = this.minTimer;
    for (let k = 0; k < awakeCount; k++) minTimer[awake[k]] = Number.POSITIVE_INFINITY;
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      const r = this.find(s);
      if (bodies.sleepTimer[s] < minTimer[r]) minTimer[r] = bodies.sleepTimer[s];
    }
    let slept = 0;
    const tail = this.tail;
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      const r = this.find(s);
      if (minTimer[r] < sleepTime) continue;
      // Bodies arrive in slot order and the root is the island's smallest slot, so it comes first.
      if (r === s) {
        bodies.islandHead[s] = s;
        bodies.sleepNext[s] = -1;
        tail[r] = s;
      } else {
        bodies.islandHead[s] = r;
        bodies.sleepNext[s] = -1;
        bodies.sleepNext[tail[r]] = s;
        tail[r] = s;
      }
      bodies.sleeping[s] = 1;
      const s3 = s * 3;
      bodies.vel[s3] = bodies.vel[s3 + 1] = bodies.vel[s3 + 2] = 0;
      bodies.angVel[s3] = bodies.angVel[s3 + 1] = bodies.angVel[s3 + 2] = 0;
      slept++;
    }
    return slept;
  }
}

function isMoving(bodies: BodyStore, s: number): boolean {
  const s3 = s * 3;
  const v = bodies.vel;
  const w = bodies.angVel;
  return v[s3] !== 0 || v[s3 + 1] !== 0 || v[s3 + 2] !== 0 || w[s3] !== 0 || w[s3 + 1] !== 0 || w[s3 + 2] !== 0 || bodies.moved[s] === 1;
}

/** Wakes the sleeping island that `slot` belongs to. Returns how many bodies woke. */
export function wakeIsland(bodies: BodyStore, slot: number): number {
  if (bodies.sleeping[slot] === 0) return 0;
  let s = bodies.islandHead[slot];
  if (s < 0) s = slot;
  let woken = 0;
  while (s >= 0) {
    const next = bodies.sleepNext[s];
    bodies.sleeping[s] = 0;
    bodies.sleepTimer[s] = 0;
    bodies.islandHead[s] = -1;
    bodies.sleepNext[s] = -1;
    woken++;
    s = next;
  }
  return woken;
}
