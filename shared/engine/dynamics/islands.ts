import { type BodyStore, CAT_AWAKE, CAT_KINEMATIC_IDLE, CAT_KINEMATIC_MOVING, CAT_SLEEPING, DYNAMIC } from "./body-store.ts";
import type { StepContext } from "../step-context.ts";
import { type ContactStore, FLAG_TOUCHING } from "./contact-store.ts";
import type { JointStore } from "../joints/joint-store.ts";

/**
 * Islands and sleeping. Each step the awake dynamic bodies are grouped by their touching awake contacts and joints
 * (union-find; the smaller slot always becomes the root, so the grouping does not depend on the order
 * contacts are visited). An island sleeps when every body in it has stayed below the sleep velocity for
 * `sleepTime`: its bodies leave the awake set, its contacts with static and sleeping bodies leave the
 * awake contact set, and its bodies are linked into a list so that waking any one wakes them all.
 * Everything here is proportional to the awake bodies and contacts; sleeping ones cost nothing.
 */
export class Islands {
  private parent = new Int32Array(64);
  private minTimer = new Float64Array(64);
  /** Per island root: first and last body linked into its sleep list this step (-1: none yet). */
  private first = new Int32Array(64);
  private last = new Int32Array(64);
  /** Bodies put to sleep this step, in awake-set order. */
  private sleepers = new Int32Array(64);

  private ensure(n: number): void {
    if (n <= this.parent.length) return;
    let cap = this.parent.length;
    while (cap < n) cap *= 2;
    this.parent = new Int32Array(cap);
    this.minTimer = new Float64Array(cap);
    this.first = new Int32Array(cap);
    this.last = new Int32Array(cap);
    this.sleepers = new Int32Array(cap);
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
   * Advances sleep timers and puts resting islands to sleep. A body touching a moving kinematic body
   * never sleeps. Returns the number of bodies put to sleep.
   */
  update(bodies: BodyStore, contacts: ContactStore, joints: JointStore, ctx: StepContext): number {
    const dt = ctx.dt;
    const sleepTime = ctx.sleepTime;
    const linearThreshold = ctx.sleepLinearThreshold;
    const angularThreshold = ctx.sleepAngularThreshold;
    this.ensure(bodies.slotCount);
    const parent = this.parent;
    const awake = bodies.awakeList;
    const awakeCount = bodies.awakeCount;
    const activity = bodies.activity;
    const v = bodies.vel;
    const w = bodies.angVel;
    const lin2 = linearThreshold * linearThreshold;
    const ang2 = angularThreshold * angularThreshold;
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      parent[s] = s;
      const s3 = s * 3;
      const v2 = v[s3] * v[s3] + v[s3 + 1] * v[s3 + 1] + v[s3 + 2] * v[s3 + 2];
      const w2 = w[s3] * w[s3] + w[s3 + 1] * w[s3 + 1] + w[s3 + 2] * w[s3 + 2];
      if (v2 > lin2 || w2 > ang2) bodies.sleepTimer[s] = 0;
      else bodies.sleepTimer[s] += dt;
    }
    for (let i = 0; i < contacts.awakeCount; i++) {
      const c = contacts.awake[i];
      if ((contacts.flags[c] & FLAG_TOUCHING) === 0) continue;
      const a = contacts.bodyA[c];
      const b = contacts.bodyB[c];
      const aAwake = activity[a] === CAT_AWAKE;
      const bAwake = activity[b] === CAT_AWAKE;
      if (aAwake && bAwake) {
        const ra = this.find(a);
        const rb = this.find(b);
        if (ra < rb) parent[rb] = ra;
        else if (rb < ra) parent[ra] = rb;
      } else if (aAwake !== bAwake) {
        // A body held by a moving kinematic body keeps its island awake.
        if (activity[aAwake ? b : a] === CAT_KINEMATIC_MOVING) bodies.sleepTimer[aAwake ? a : b] = 0;
      }
    }
    // Joined bodies are one island; a body joined to a moving kinematic body stays awake.
    for (let k = 0; k < joints.liveCount; k++) {
      const j = joints.order[k];
      const a = joints.bodyA[j];
      const b = joints.bodyB[j];
      if (b < 0) continue;
      const aAwake = activity[a] === CAT_AWAKE;
      const bAwake = activity[b] === CAT_AWAKE;
      if (aAwake && bAwake) {
        const ra = this.find(a);
        const rb = this.find(b);
        if (ra < rb) parent[rb] = ra;
        else if (rb < ra) parent[ra] = rb;
      } else if (aAwake !== bAwake && activity[aAwake ? b : a] === CAT_KINEMATIC_MOVING) {
        bodies.sleepTimer[aAwake ? a : b] = 0;
      }
    }
    const minTimer = this.minTimer;
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      minTimer[s] = Number.POSITIVE_INFINITY;
      this.first[s] = -1;
    }
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      const r = this.find(s);
      if (bodies.sleepTimer[s] < minTimer[r]) minTimer[r] = bodies.sleepTimer[s];
    }
    let slept = 0;
    const first = this.first;
    const last = this.last;
    const sleepers = this.sleepers;
    for (let k = 0; k < awakeCount; k++) {
      const s = awake[k];
      const r = this.find(s);
      if (minTimer[r] < sleepTime) continue;
      // The island's list runs in awake-set order; every body names the list's first body.
      if (first[r] < 0) first[r] = s;
      else bodies.sleepNext[last[r]] = s;
      last[r] = s;
      sleepers[slept++] = s;
    }
    for (let k = 0; k < slept; k++) {
      const s = sleepers[k];
      const head = first[this.find(s)];
      bodies.setSleeping(s);
      bodies.islandHead[s] = head;
      if (last[this.find(s)] === s) bodies.sleepNext[s] = -1;
    }
    // Contacts whose bodies now all rest (asleep or static) leave the awake contact set.
    for (let k = 0; k < slept; k++) {
      const s = sleepers[k];
      for (let e = contacts.firstEdge(s); e >= 0; e = contacts.edgeNext[e]) {
        if (!keepsContactAwake(activity[contacts.otherBody(e)])) contacts.deactivate(e >> 1);
      }
    }
    return slept;
  }
}

/** Contacts stay in the awake set while one body is awake or kinematic (which may move at any time). */
function keepsContactAwake(activity: number): boolean {
  return activity === CAT_AWAKE || activity === CAT_KINEMATIC_IDLE || activity === CAT_KINEMATIC_MOVING;
}

/**
 * Wakes the sleeping island that `slot` belongs to: its bodies rejoin the awake set and their contacts
 * the awake contact set. Cost is proportional to the island. Returns how many bodies woke.
 */
export function wakeIsland(bodies: BodyStore, contacts: ContactStore, slot: number): number {
  if (bodies.activity[slot] !== CAT_SLEEPING) return 0;
  let s = bodies.islandHead[slot];
  if (s < 0) s = slot;
  let woken = 0;
  while (s >= 0) {
    const next = bodies.sleepNext[s];
    bodies.setAwake(s);
    for (let e = contacts.firstEdge(s); e >= 0; e = contacts.edgeNext[e]) contacts.activate(e >> 1);
    woken++;
    s = next;
  }
  return woken;
}

/** True when the body is dynamic and in the awake set. */
export function isAwakeDynamic(bodies: BodyStore, slot: number): boolean {
  return bodies.type[slot] === DYNAMIC && bodies.activity[slot] === CAT_AWAKE;
}
