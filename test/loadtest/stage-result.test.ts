import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parsePrometheus } from "../../loadtest/prom.ts";
import { buildStageResult, type StageWindow } from "../../loadtest/stage-result.ts";

/**
 * buildStageResult against a recorded window (fixtures/, written by fixtures/capture.ts): the server's
 * /metrics text before and after a 6 s window of 2 arena rooms × 4 bots at 60 Hz, and what the load
 * generator saw meanwhile. The server also ran a bystander room (stack10, no clients) whose metrics are
 * in both scrapes. The expected numbers were worked out by hand from the fixture lines quoted below.
 */
const dir = join(import.meta.dirname, "fixtures");
const before = readFileSync(join(dir, "metrics-before.prom"), "utf8");
const after = readFileSync(join(dir, "metrics-after.prom"), "utf8");
const { bystanderRoomId, ...window } = JSON.parse(readFileSync(join(dir, "window.json"), "utf8")) as StageWindow & { bystanderRoomId: string };

const stage = buildStageResult(before, after, window);

describe("buildStageResult on recorded scrapes: the stage's figures", () => {
  it("tick rate, budget and ticks per second come from the run's rooms", () => {
    expect(stage).toMatchObject({ phase: "run", rooms: 2, clientsPerRoom: 4, players: 8, seconds: 6.003, tickRate: 60, budgetMs: 16.7, patchRateMs: 50 });
    // physics_tick_duration_ms_count: 143 → 503 and 139 → 499, i.e. 720 ticks / 2 rooms / 6.003 s.
    expect(stage.ticksPerSecondPerRoom).toBe(60);
    expect(stage.bodiesPerRoom).toEqual({ min: 213, max: 213 });
    // physics_tick_catchup_total: 11 → 14 and 9 → 10 (the bystander's 1 → 4 is not ours).
    expect(stage.catchUpTicks).toBe(4);
    expect(stage.skippedTicks).toBe(0);
    expect(stage.rejectedInputs).toBe(0);
  });

  it("tick duration quantiles interpolate inside the window's buckets", () => {
    // Window buckets (both rooms, after − before): ≤0.25: 638, ≤0.5: 703, ≤1: 709, ≤2: 715, ≤4: 719, ≤8: 720 of 720.
    // p99: rank 712.8 falls in (1, 2]: 1 + (712.8 − 709) / 6 = 1.633. p50: 0.25 · 360 / 638 = 0.141.
    expect(stage.tickMs).toEqual({ p50: 0.141, p95: 0.427, p99: 1.633, max: 8, roomP99Max: 5.823 });
  });

  it("tick-loop quantiles and the share of ticks over the 16.67 ms budget", () => {
    // Window buckets: ≤1: 706, ≤2: 716, ≤4: 719, ≤8: 720 of 720; p99 = 1 + (712.8 − 706) / 10 = 1.68.
    // (Before the window, joins had put 22 ticks over budget: they must not count.)
    expect(stage.tickLoopMs).toEqual({ p50: 0.51, p95: 0.969, p99: 1.68, max: 8, shareOverBudget: 0 });
  });

  it("server CPU, event loop and where its thread time went", () => {
    // process_cpu_*_seconds_total: 1.755298 → 2.279272 s, 0.523974 s of CPU in 6.003 s.
    expect(stage.server.cpuPercent).toBe(8.728);
    // nodejs_eventloop_active/idle_ms_total: +454.3 / +5549.2 ms.
    expect(stage.server.eventLoopUtilization).toBe(0.076);
    expect(stage.server.rssMB).toBe(207.5);
    expect(stage.server.heapMB).toBe(44.7);
    // physics_tick_duration_ms_sum: +78.98 and +81.99 ms over 6.003 s.
    expect(stage.server.busyMsPerSecond).toEqual({ ticks: 26.8, sync: 2.482, patches: 11.8, checkpoints: 0, other: 34.6 });
    // physics_patch_bytes_total: +19215 and +24994 bytes in 119 + 120 patches.
    expect(stage.server).toMatchObject({ syncMsPerPatch: 0.062, encodeMsPerPatch: 0.296, patchBytes: 185 });
    // nodejs_eventloop_delay_ms: (8420.096 − 2413.754) / (808 − 214) = 10.112 ms, less the 10 ms resolution.
    expect(stage.eventLoopDelayMs).toEqual({ windowMean: 0.112, lifetimeP99: 16.8, lifetimeMax: 31.3 });
  });

  it("what the bots saw, and the verdict", () => {
    expect(stage.patchIntervalMs).toEqual({ count: 952, p50: 50.1, p95: 51.1, p99: 51.8, max: 52.2 });
    expect(stage.patchesPerRoomMin).toBe(480);
    expect(stage.bytesPerSecondPerClient).toEqual({ mean: 3699, min: 3234, max: 4163 });
    expect(stage.joinMs).toEqual({ count: 8, p50: 210.5, p95: 228.5, p99: 228.5, max: 228.5 });
    expect(stage.bots).toEqual({ cpuPercent: 4.312, eventLoopUtilization: 0.04, eventLoopDelayP99Ms: 1.01 });
    expect(stage).toMatchObject({ connected: 8, expected: 8, errors: [], drops: 0, unexpectedLeaves: 0 });
    expect(stage).toMatchObject({ held: true, reasons: [], attempts: 1, inconclusive: false });
  });

});

describe("buildStageResult on recorded scrapes: contamination, room filter, purity, judgement", () => {
  it("other processes' CPU: machine busy share × cores minus server and bots; above 25% the window is contaminated", () => {
    // 0.578059 × 2 cores = 115.6% of a core, less 8.728% (server) and 4.312% (bots).
    expect(stage.otherCpuPercent).toBe(102.6);
    expect(stage.contaminated).toBe(true);
    expect(stage.machineNoise).toEqual({ maxLateMs: 3.02, stallsOverBudget: 0 });
    const offLinux = buildStageResult(before, after, { ...window, machine: { ...window.machine, busyShare: null } });
    expect(offLinux.otherCpuPercent).toBeNull();
    // The probe never woke later than the budget, so nothing else marks the window.
    expect(offLinux.contaminated).toBe(false);
  });

  it("only the window's rooms count: the bystander room's metrics are ignored unless asked for", () => {
    const bystander = buildStageResult(before, after, { ...window, roomIds: [bystanderRoomId], roomInfos: [] });
    // Its own counters: 120 → 480 ticks, 1 → 4 catch-ups, no patches (no clients).
    expect(bystander.ticksPerSecondPerRoom).toBe(60);
    expect(bystander.catchUpTicks).toBe(3);
    expect(bystander.server.patchBytes).toBe(0);
    // Room-independent figures are the same.
    expect(bystander.server.cpuPercent).toBe(stage.server.cpuPercent);
  });

  it("is pure: text or parsed scrapes give the same result, and the inputs are left as they were", () => {
    const copy = structuredClone(window);
    expect(buildStageResult(parsePrometheus(before), parsePrometheus(after), window)).toEqual(stage);
    expect(buildStageResult(before, after, window)).toEqual(stage);
    expect(window).toEqual(copy);
  });

  it("judges with the rooms' tick rate: at 1000 Hz (1 ms budget) the same window does not hold", () => {
    const fast = buildStageResult(before, after, { ...window, roomInfos: window.roomInfos.map((r) => ({ ...r, tickRate: 1000 })) });
    // 720 − 706 = 14 of 720 ticks took more than 1 ms.
    expect(fast.tickLoopMs.shareOverBudget).toBe(0.019);
    expect(fast.held).toBe(false);
    expect(fast.reasons).toEqual(["tick-loop p99 over budget (1.9% of ticks > 1 ms)"]);
    const broken = buildStageResult(before, after, { ...window, bots: { ...window.bots, connected: 7, drops: 1, errors: ["x"] } });
    expect(broken.reasons).toEqual(["1 bots not connected", "1 errors", "1 drops, 0 unexpected leaves"]);
  });
});
