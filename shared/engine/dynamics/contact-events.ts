import type { BodyStore } from "./body-store.ts";

/** Event codes, in the log's `kind` array. */
export const CONTACT_BEGIN = 0;
export const CONTACT_END = 1;
export const SENSOR_ENTER = 2;
export const SENSOR_EXIT = 3;
export const JOINT_BREAK = 4;

export const EVENT_NAMES = ["contactBegin", "contactEnd", "sensorEnter", "sensorExit", "jointBreak"] as const;
export type ContactEventType = (typeof EVENT_NAMES)[number];

/** One event as `World.forEachEvent` hands it out. */
export interface ContactEvent {
  type: ContactEventType;
  /** Body ids: for sensor events, `a` is the sensor and `b` the body; for a joint break, the joint's bodies ("" for the world). */
  a: string;
  b: string;
  /** jointBreak: the joint's id (it is already removed); "" for other events. */
  joint: string;
  handleA: number;
  handleB: number;
  /**
   * contactBegin: the normal impulse applied during the step (an impact's m·Δv), summed over the contact's
   * points, N·s. jointBreak: the force (or torque) that broke the joint, N (N·m). Else 0.
   */
  impulse: number;
}

/**
 * Contact and sensor events as the step produces them, in typed arrays (no allocation once grown). Ids
 * are copied when the event is recorded, so an event about a body removed in the same step still names
 * it. For sensor events, A is the sensor and B the other body.
 *
 * What a reader sees after `step()`: the events of that step, preceded by those caused between steps
 * (a body removed while touching ends its contacts at once). `beginStep` drops only the previous step's
 * events, so nothing recorded between steps is lost before it can be read.
 */
export class ContactEventLog {
  count = 0;
  kind = new Uint8Array(64);
  handleA = new Int32Array(64);
  handleB = new Int32Array(64);
  /** Begin events: the normal impulse the contact applied during the step (all sub-steps and the bounce), summed over its points, N·s. */
  impulse = new Float64Array(64);
  idA: string[] = [];
  idB: string[] = [];
  /** Joint ids of jointBreak events ("" for the others). */
  joint: string[] = [];
  /** Events [0, stepEnd) came from the last step; later ones were recorded since it returned. */
  private stepEnd = 0;

  /**
   * Records an event and returns its index; for sensor events the sensor is put first whichever slot it
   * was given in. The impulse is 0; a begin event's caller writes `impulse[index]` (a double passed to a
   * call V8 does not inline would be boxed: an allocation per event).
   */
  push(b: BodyStore, kind: number, slotA: number, slotB: number): number {
    if (this.count === this.kind.length) this.grow();
    const i = this.count++;
    if (kind >= SENSOR_ENTER && b.sensor[slotA] === 0) {
      const t = slotA;
      slotA = slotB;
      slotB = t;
    }
    this.kind[i] = kind;
    this.handleA[i] = b.handleOf(slotA);
    this.handleB[i] = b.handleOf(slotB);
    this.impulse[i] = 0;
    this.idA[i] = b.ids[slotA]!;
    this.idB[i] = b.ids[slotB]!;
    this.joint[i] = "";
    return i;
  }

  /** Records a joint break between body slots a and b (-1: the world); the caller writes impulse[index]. */
  pushJointBreak(b: BodyStore, jointId: string, slotA: number, slotB: number): number {
    if (this.count === this.kind.length) this.grow();
    const i = this.count++;
    this.kind[i] = JOINT_BREAK;
    this.handleA[i] = b.handleOf(slotA);
    this.handleB[i] = slotB < 0 ? -1 : b.handleOf(slotB);
    this.impulse[i] = 0;
    this.idA[i] = b.ids[slotA]!;
    this.idB[i] = slotB < 0 ? "" : b.ids[slotB]!;
    this.joint[i] = jointId;
    return i;
  }

  /** Called as a step starts: forgets the previous step's events, keeps the ones recorded since. */
  beginStep(): void {
    const keep = this.count - this.stepEnd;
    if (this.stepEnd > 0 && keep > 0) {
      const from = this.stepEnd;
      this.kind.copyWithin(0, from, this.count);
      this.handleA.copyWithin(0, from, this.count);
      this.handleB.copyWithin(0, from, this.count);
      this.impulse.copyWithin(0, from, this.count);
      for (let i = 0; i < keep; i++) {
        this.idA[i] = this.idA[from + i]!;
        this.idB[i] = this.idB[from + i]!;
        this.joint[i] = this.joint[from + i]!;
      }
    }
    this.count = keep;
  }

  /** Called as a step ends. */
  endStep(): void {
    this.stepEnd = this.count;
  }

  /** Visits the events in order (allocates one object per event: for readers, not the step). */
  forEach(fn: (event: ContactEvent) => void): void {
    for (let i = 0; i < this.count; i++) {
      fn({
        type: EVENT_NAMES[this.kind[i]]!,
        a: this.idA[i]!,
        b: this.idB[i]!,
        joint: this.joint[i]!,
        handleA: this.handleA[i],
        handleB: this.handleB[i],
        impulse: this.impulse[i],
      });
    }
  }

  /** Forgets everything (a world reset). */
  clear(): void {
    this.count = 0;
    this.stepEnd = 0;
  }

  private grow(): void {
    const n = this.kind.length * 2;
    const k = new Uint8Array(n);
    k.set(this.kind);
    this.kind = k;
    const a = new Int32Array(n);
    a.set(this.handleA);
    this.handleA = a;
    const b = new Int32Array(n);
    b.set(this.handleB);
    this.handleB = b;
    const imp = new Float64Array(n);
    imp.set(this.impulse);
    this.impulse = imp;
  }
}
