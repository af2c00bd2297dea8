import { execFileSync } from "node:child_process";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { histogram, histogramDelta, histogramMaxBound, histogramQuantile, histogramShareAbove, parsePrometheus, sum, value } from "../../loadtest/prom.ts";
import { summarize } from "../../loadtest/stats.ts";
import { LOOP_BUCKETS_MS, RoomMetrics, ServerMetrics, TickLoop } from "../../server/metrics.ts";

/**
 * Colyseus 0.18's setFixedTimestep callback (core Room.mjs), driven by a fake Date.now clock: the
 * accumulator the room's TickLoop mirrors.
 */
function simulate(callbackTimes: number[], stepMs: number, tickMs: number): { loop: TickLoop; ran: number[]; dropped: number } {
  const loop = new TickLoop();
  loop.stepMs = stepMs;
  const clock = { currentTime: 0, elapsedTime: 0, deltaTime: 0 };
  let acc = 0;
  let dropped = 0;
  const ran: number[] = [];
  for (const t of callbackTimes) {
    clock.deltaTime = t - clock.currentTime;
    clock.currentTime = t;
    clock.elapsedTime += clock.deltaTime;
    acc += clock.deltaTime;
    let n = 0;
    let now = t;
    while (acc >= stepMs && n < 5) {
      acc -= stepMs;
      loop.observe(clock, now, now + tickMs);
      now += tickMs;
      n++;
    }
    if (n === 5) {
      dropped += Math.floor(acc / stepMs);
      acc = 0;
    }
    ran.push(n);
  }
  return { loop, ran, dropped };
}

describe("TickLoop (server/metrics.ts)", () => {
  const step = 1000 / 60;

  it("on time: Node's 17 ms callbacks run one tick each with an occasional catch-up, nothing skipped, loop time ≈ timer slack + tick", () => {
    const times = Array.from({ length: 600 }, (_, i) => (i + 1) * 17);
    const { loop, ran } = simulate(times, step, 0.5);
    const ticks = ran.reduce((a, b) => a + b, 0);
    expect(loop.count).toBe(ticks);
    expect(loop.catchUp).toBe(ran.reduce((a, n) => a + Math.max(0, n - 1), 0));
    expect(loop.catchUp).toBeGreaterThan(0);
    expect(loop.skipped).toBe(0);
    // Every tick finished within the budget: 17 - 16.67 ms of timer slack + up to two 0.5 ms ticks.
    expect(loop.buckets.slice(LOOP_BUCKETS_MS.indexOf(16.67) + 1).reduce((a, b) => a + b, 0)).toBe(0);
    expect(loop.sumMs / loop.count).toBeLessThan(1.5);
  });

  it("a 200 ms stall: 5 catch-up steps, the dropped backlog counted as skipped ticks, loop time over budget", () => {
    const times = [17, 34, 51, 68, 85, 285, 302, 319];
    const { loop, dropped } = simulate(times, step, 0.2);
    expect(dropped).toBeGreaterThan(0);
    expect(loop.skipped).toBe(dropped);
    expect(loop.catchUp).toBe(4);
    const over = loop.buckets.slice(LOOP_BUCKETS_MS.indexOf(16.67) + 1).reduce((a, b) => a + b, 0);
    expect(over).toBe(5);
  });

  it("a callback that runs no tick does not inflate the next tick's loop time", () => {
    // 10 ms then 17 ms apart: the 10 ms callback runs nothing (acc < step).
    const { loop, ran } = simulate([17, 27, 44, 61], step, 0.1);
    expect(ran).toEqual([1, 0, 1, 1]);
    expect(loop.sumMs / loop.count).toBeLessThan(2);
  });
});

describe("Prometheus text (loadtest/prom.ts)", () => {
  it("reads the server's exposition: histograms, quantiles, deltas, counters", () => {
    const m = new RoomMetrics("room-a");
    const metrics = new ServerMetrics();
    metrics.register(m);
    for (let i = 0; i < 98; i++) m.observeTick(0.3);
    m.observeTick(3);
    m.observeTick(50);
    m.patches = 7;
    const before = parsePrometheus("");
    const s = parsePrometheus(metrics.renderMetrics());
    expect(value(s, "physics_rooms")).toBeGreaterThanOrEqual(1);
    expect(sum(s, "physics_patches_total", (l) => l.room === "room-a")).toBe(7);
    expect(value(s, "process_cpu_user_seconds_total")).toBeGreaterThan(0);
    const h = histogramDelta(histogram(s, "physics_tick_duration_ms", (l) => l.room === "room-a"), histogram(before, "physics_tick_duration_ms"));
    expect(h.get(Number.POSITIVE_INFINITY)).toBe(100);
    // 98 of 100 in (0.25, 0.5]: the median interpolates inside that bucket.
    const p50 = histogramQuantile(h, 0.5);
    expect(p50).toBeGreaterThan(0.25);
    expect(p50).toBeLessThanOrEqual(0.5);
    expect(histogramQuantile(h, 0.99)).toBeGreaterThan(2);
    expect(histogramShareAbove(h, 16)).toBeCloseTo(0.01);
    expect(histogramMaxBound(h)).toBe(66);
  });

  it("parses labels with escapes and +Inf", () => {
    const s = parsePrometheus('x_bucket{room="a\\"b",le="+Inf"} 3\n# HELP y\ny 2.5\n');
    expect(s[0].labels).toEqual({ room: 'a"b', le: "+Inf" });
    expect(value(s, "y")).toBe(2.5);
  });

  it("summarize gives nearest-rank quantiles", () => {
    const v = Array.from({ length: 100 }, (_, i) => i + 1);
    expect(summarize(v)).toMatchObject({ count: 100, p50: 50, p95: 95, p99: 99, max: 100 });
  });
});

describe("k6 script", () => {
  it("type-checks against @types/k6 (tsc -p loadtest/k6)", () => {
    const root = resolve(import.meta.dirname, "../..");
    // Throws with tsc's diagnostics on stdout when the script or its protocol module do not type-check.
    execFileSync(resolve(root, "node_modules/.bin/tsc"), ["-p", "loadtest/k6"], { cwd: root, encoding: "utf8" });
  });
});
