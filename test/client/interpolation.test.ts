import { describe, expect, it } from "vitest";
import { ServerClock } from "../../client/src/net/server-clock.ts";
import { createPose, type Pose, SnapshotBuffer } from "../../client/src/net/snapshot-buffer.ts";
import { rotationAngleDeg } from "../../shared/net/index.ts";
import { createPrng, type Scenario } from "../../shared/scenarios/index.ts";
import { feed, type NetworkModel, type RecordedSnapshot, recordStream } from "./stream.ts";

const PATCH_EVERY = 3; // 60 Hz ticks, 20 Hz patches
const PATCH_MS = 50;
const TICK_MS = 1000 / 60;

/**
 * Free fall from 100 m (no ground, so it falls the whole time), a box thrown sideways while spinning, and
 * a resting, sleeping box on a ground.
 */
function scene(): Scenario {
  return {
    name: "interp",
    bodies: [
      { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0] },
      { id: "faller", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [30, 100, 30] },
      {
        id: "spinner",
        type: "dynamic",
        shape: { type: "box", halfExtents: [0.5, 0.25, 0.4] },
        position: [-30, 200, -30],
        linearVelocity: [3, 0, 0],
        angularVelocity: [0.5, 4, 1],
      },
      { id: "rester", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 0.5, 0] },
    ],
  };
}

interface Frame {
  now: number;
  render: number;
  /** The render time was past the newest snapshot received (extrapolating or holding). */
  beyond: boolean;
  delay: number;
  poses: Map<string, Pose | null>;
}

/** Plays a recorded stream into a clock + buffer with ~60 Hz frames (frame times jittered ±3 ms). */
function play(stream: RecordedSnapshot[], ids: string[], untilMs: number, seed = 7): { frames: Frame[]; clock: ServerClock; buffer: SnapshotBuffer } {
  const clock = new ServerClock({ patchIntervalMs: PATCH_MS, tickMs: TICK_MS });
  const buffer = new SnapshotBuffer({ maxExtrapolationMs: PATCH_MS });
  const prng = createPrng(seed);
  const frames: Frame[] = [];
  let next = 0;
  for (let now = stream[0].arrival; now < untilMs; now += 1000 / 60 + prng.range(-3, 3)) {
    while (next < stream.length && stream[next].arrival <= now) {
      clock.onSnapshot(stream[next].time, stream[next].arrival);
      feed(buffer, stream[next]);
      next++;
    }
    const render = clock.update(now);
    const poses = new Map<string, Pose | null>();
    for (const id of ids) {
      const p = createPose();
      poses.set(id, buffer.sample(id, render, p) ? p : null);
    }
    frames.push({ now, render, beyond: render > buffer.newestTime, delay: clock.delayMs, poses });
  }
  return { frames, clock, buffer };
}

function bodyAt(s: RecordedSnapshot, id: string) {
  return s.bodies.find((b) => b.id === id)!;
}

function dist(a: { x: number; y: number; z: number }, b: { x: number; y: number; z: number }): number {
  return Math.hypot(a.x - b.x, a.y - b.y, a.z - b.z);
}

/**
 * Largest motion of `id` between two consecutive received snapshots that bracket the render interval
 * [r0, r1] (from the last snapshot at or before r0 to the first at or after r1), plus what bounded
 * extrapolation may add past the newest one.
 */
function allowedStep(
  stream: RecordedSnapshot[],
  id: string,
  r0: number,
  r1: number,
  received: number,
): { pos: number; deg: number; speed: number; spin: number } {
  let a = 0;
  while (a + 1 < received && stream[a + 1].time <= r0) a++;
  let b = a;
  while (b + 1 < received && stream[b].time < r1) b++;
  // Extrapolation runs on the motion of the last interval, so it is covered by the same bound.
  let pos = 0;
  let deg = 0;
  let speed = 0;
  let spin = 0;
  for (let i = Math.max(0, a - 1); i < b; i++) {
    const p = bodyAt(stream[i], id);
    const q = bodyAt(stream[i + 1], id);
    const span = stream[i + 1].time - stream[i].time;
    pos = Math.max(pos, dist(p, q));
    deg = Math.max(deg, rotationAngleDeg(p.q, q.q));
    speed = Math.max(speed, dist(p, q) / span);
    spin = Math.max(spin, rotationAngleDeg(p.q, q.q) / span);
  }
  return { pos, deg, speed, spin };
}

function checkNoJumps(stream: RecordedSnapshot[], frames: Frame[], id: string): number {
  let checked = 0;
  let interpolated = 0;
  for (let k = 1; k < frames.length; k++) {
    const p0 = frames[k - 1].poses.get(id);
    const p1 = frames[k].poses.get(id);
    if (!p0 || !p1) continue;
    const received = stream.filter((s) => s.arrival <= frames[k].now).length;
    const bound = allowedStep(stream, id, frames[k - 1].render, frames[k].render, received);
    const step = dist(p0, p1);
    expect(step, `${id} frame ${k}: moved ${step} m, bound ${bound.pos} m`).toBeLessThanOrEqual(bound.pos + 1e-9);
    const turned = rotationAngleDeg([p0.qx, p0.qy, p0.qz, p0.qw], [p1.qx, p1.qy, p1.qz, p1.qw]);
    expect(turned, `${id} frame ${k}: turned ${turned}°, bound ${bound.deg}°`).toBeLessThanOrEqual(bound.deg + 1e-6);
    checked++;
    // Stronger, while interpolating: the motion is spread over the frames, never faster than the
    // snapshots' own speed for the render time that passed (snapping from sample to sample fails here).
    // Leaving an extrapolation is exempt: that correction is bounded by the check above.
    if (frames[k].beyond || frames[k - 1].beyond) continue;
    interpolated++;
    const dr = frames[k].render - frames[k - 1].render;
    expect(step, `${id} frame ${k}: ${step} m in ${dr} ms of render time`).toBeLessThanOrEqual(bound.speed * dr + 1e-6);
    expect(turned, `${id} frame ${k}: ${turned}° in ${dr} ms of render time`).toBeLessThanOrEqual(bound.spin * dr + 1e-3);
  }
  expect(interpolated).toBeGreaterThan(checked / 2);
  return checked;
}

const JITTERY: NetworkModel = { latencyMs: 30, jitterMs: 40, lost: [17], seed: 3 };

const stream = recordStream(scene(), 240, PATCH_EVERY, JITTERY); // 4 s, patch 17 lost
const { frames, clock } = play(stream, ["faller", "spinner", "rester"], stream[stream.length - 1].arrival + 20);

describe("snapshot interpolation on recorded streams: the render clock", () => {
  it("the stream has jitter and a lost patch", () => {
    const gaps = stream.slice(1).map((s, i) => s.tick - stream[i].tick);
    expect(gaps).toContain(2 * PATCH_EVERY);
    const arrivalGaps = stream.slice(1).map((s, i) => s.arrival - stream[i].arrival);
    expect(Math.max(...arrivalGaps) - Math.min(...arrivalGaps)).toBeGreaterThan(30);
  });

  it("render time never runs backwards and the delay adapts from 3 patch intervals to the jitter", () => {
    expect(frames[0].delay).toBe(3 * PATCH_MS);
    for (let k = 1; k < frames.length; k++) {
      expect(frames[k].render).toBeGreaterThanOrEqual(frames[k - 1].render);
      // The clock slews (at most 20 % faster than real time), it does not jump.
      expect(frames[k].render - frames[k - 1].render).toBeLessThanOrEqual(1.2 * (frames[k].now - frames[k - 1].now) + 1e-9);
    }
    // patch interval + p95 lateness (≤ 40 ms jitter) + one tick
    expect(clock.delayMs).toBeGreaterThan(PATCH_MS + 20);
    expect(clock.delayMs).toBeLessThan(PATCH_MS + 40 + TICK_MS + 1);
    expect(clock.jitterMs).toBeGreaterThan(20);
  });

  it("rendered positions and rotations never jump by more than the motion between two snapshots", () => {
    expect(checkNoJumps(stream, frames, "faller")).toBeGreaterThan(150);
    expect(checkNoJumps(stream, frames, "spinner")).toBeGreaterThan(150);
  });

  it("estimates server time from the least delayed snapshot, not the latest", () => {
    // Arrival = server time + 30 ms + U(0, 40 ms): the estimate is now - 30 ms, give or take the
    // smallest jitter draw of the window.
    const clock = new ServerClock({ patchIntervalMs: PATCH_MS, tickMs: TICK_MS });
    let checked = 0;
    for (const [i, s] of stream.entries()) {
      clock.onSnapshot(s.time, s.arrival);
      if (i < 20) continue;
      const estimate = clock.serverNow(s.arrival + 5);
      expect(estimate).toBeGreaterThan(s.arrival + 5 - JITTERY.latencyMs - 6);
      expect(estimate).toBeLessThanOrEqual(s.arrival + 5 - JITTERY.latencyMs + 1e-9);
      checked++;
    }
    expect(checked).toBeGreaterThan(40);
  });

});

describe("snapshot interpolation on recorded streams: rendered poses", () => {
  it("a falling body's rendered height is monotonic", () => {
    let last = Number.POSITIVE_INFINITY;
    let moved = 0;
    for (const f of frames) {
      const p = f.poses.get("faller");
      if (!p) continue;
      expect(p.y).toBeLessThanOrEqual(last);
      if (p.y < last) moved++;
      last = p.y;
    }
    expect(moved).toBeGreaterThan(150);
    expect(last).toBeLessThan(100 - 0.5 * 9.81 * 3 * 3);
  });

  it("a sleeping body stays exactly still", () => {
    const truth = bodyAt(stream[stream.length - 1], "rester");
    expect(truth.sleeping).toBe(true);
    const asleepFrom = stream.find((s) => bodyAt(s, "rester").sleeping)!.time;
    let checked = 0;
    for (const f of frames) {
      if (f.render < asleepFrom) continue;
      const p = f.poses.get("rester")!;
      expect([p.x, p.y, p.z, p.qx, p.qy, p.qz, p.qw]).toEqual([truth.x, truth.y, truth.z, ...truth.q]);
      expect(p.sleeping).toBe(true);
      checked++;
    }
    expect(checked).toBeGreaterThan(100);
  });

  it("uses the true pose at snapshot times (lerp endpoints are exact)", () => {
    const buffer = new SnapshotBuffer();
    for (const s of stream.slice(0, 10)) feed(buffer, s);
    const p = createPose();
    for (const s of stream.slice(0, 10)) {
      expect(buffer.sample("faller", s.time, p)).toBe(true);
      expect(p.y).toBe(bodyAt(s, "faller").y);
    }
  });
});

describe("when the buffer runs dry", () => {
  it("extrapolates for at most one patch interval, then holds", () => {
    const stream = recordStream(scene(), 120, PATCH_EVERY, { latencyMs: 20, jitterMs: 5, endAfter: 25, seed: 5 });
    const last = stream[stream.length - 1];
    const before = stream[stream.length - 2];
    const { frames, clock } = play(stream, ["faller"], last.arrival + 1000);
    const lastY = bodyAt(last, "faller").y;
    const v = (lastY - bodyAt(before, "faller").y) / (last.time - before.time); // m per ms, < 0
    for (const f of frames) expect(f.render).toBeLessThanOrEqual(last.time + clock.maxExtrapolationMs + 1e-9);
    const final = frames[frames.length - 1].poses.get("faller")!;
    expect(final.y).toBeCloseTo(lastY + v * PATCH_MS, 6);
    expect(final.y).toBeLessThan(lastY);
    // Held: the last 30 frames (0.5 s) show the same pose.
    const tail = frames.slice(-30).map((f) => f.poses.get("faller")!.y);
    expect(new Set(tail).size).toBe(1);
    // The buffer bounds extrapolation on its own too, whatever render time it is asked for.
    const buffer = new SnapshotBuffer({ maxExtrapolationMs: PATCH_MS });
    for (const s of stream) feed(buffer, s);
    const held = createPose();
    const far = createPose();
    buffer.sample("faller", last.time + PATCH_MS, held);
    buffer.sample("faller", last.time + 5000, far);
    expect(far.y).toBe(held.y);
    expect(held.y).toBeCloseTo(lastY + v * PATCH_MS, 9);
  });

  it("a stall (head-of-line blocking) freezes motion, then catches up without running backwards", () => {
    const stream = recordStream(scene(), 240, PATCH_EVERY, { latencyMs: 20, jitterMs: 5, stallFrom: 30, stallUntilMs: 2300, seed: 9 });
    const { frames } = play(stream, ["faller"], stream[stream.length - 1].arrival + 200);
    for (let k = 1; k < frames.length; k++) expect(frames[k].render).toBeGreaterThanOrEqual(frames[k - 1].render);
    let last = Number.POSITIVE_INFINITY;
    for (const f of frames) {
      const y = f.poses.get("faller")!.y;
      expect(y).toBeLessThanOrEqual(last);
      last = y;
    }
    expect(checkNoJumps(stream, frames, "faller")).toBeGreaterThan(100);
  });
});

describe("bodies coming and going", () => {
  const body = (id: string, x: number, sleeping = false) => ({ id, kind: 6, hx: 0.5, hy: 0.5, hz: 0.5, x, y: 1, z: 0, q: [0, 0, 0, 1], sleeping });
  const snap = (tick: number, bodies: ReturnType<typeof body>[]): RecordedSnapshot => ({ tick, time: tick * TICK_MS, arrival: 0, bodies });

  it("a spawned body appears when the render time reaches it, a removed one disappears", () => {
    const buffer = new SnapshotBuffer();
    feed(buffer, snap(3, [body("a", 0)]));
    feed(buffer, snap(6, [body("a", 1), body("b", 5)]));
    feed(buffer, snap(9, [body("b", 6)]));
    const p = createPose();
    expect(buffer.sample("a", 0, p)).toBe(true); // from the first (join) snapshot on: visible at once
    expect(buffer.sample("b", 5 * TICK_MS, p)).toBe(false);
    expect(buffer.sample("b", 6 * TICK_MS, p)).toBe(true);
    expect(buffer.sample("a", 7.5 * TICK_MS, p)).toBe(true);
    expect(p.x).toBe(1); // a is not in snapshot 9: it holds its last pose (no extrapolation) until it goes
    expect(buffer.sample("a", 9 * TICK_MS, p)).toBe(false);
    expect(buffer.prune(9 * TICK_MS)).toEqual(["a"]);
    expect(buffer.tracks.has("a")).toBe(false);
  });

  it("a world rebuild that reuses ids does not slide bodies to their new place", () => {
    const buffer = new SnapshotBuffer();
    feed(buffer, snap(3, [body("box0", 0)]));
    feed(buffer, snap(6, [body("box0", 0)]));
    buffer.begin(9 * TICK_MS, true);
    buffer.push("box0", 6, 0.5, 0.5, 0.5, 10, 1, 0, 0, 0, 0, 1, false);
    buffer.end();
    const p = createPose();
    buffer.sample("box0", 8 * TICK_MS, p);
    expect(p.x).toBe(0);
    buffer.sample("box0", 9 * TICK_MS, p);
    expect(p.x).toBe(10);
  });
});
