import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { renderPlot } from "../../loadtest/plot.ts";
import { parsePrometheus } from "../../loadtest/prom.ts";
import { writeReport } from "../../loadtest/report.ts";
import { buildStageResult, type StageWindow } from "../../loadtest/stage-result.ts";
import { TimelineSampler, timelinePoint } from "../../loadtest/timeline.ts";
import type { LoadReport, StageResult, TimelinePoint } from "../../loadtest/types.ts";

/**
 * A stage's timeline, the plot and where reports go, on the recorded window of fixtures/ (2 arena rooms ×
 * 4 bots, 6 s, see stage-result.test.ts): one timeline interval over the whole recorded window gives the
 * stage's own figures; a plain run plots its timeline against seconds, a capacity ramp its stages against
 * rooms; a report goes to its directory only, and to the tracked latest.* only when published.
 */
const dir = join(import.meta.dirname, "fixtures");
const before = readFileSync(join(dir, "metrics-before.prom"), "utf8");
const after = readFileSync(join(dir, "metrics-after.prom"), "utf8");
const { bystanderRoomId, ...window } = JSON.parse(readFileSync(join(dir, "window.json"), "utf8")) as StageWindow & { bystanderRoomId: string };
const stage = buildStageResult(before, after, window);

const tmp = mkdtempSync(join(tmpdir(), "loadtest-report-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The recorded window's bots, as the timeline sampler reads the fleet's counters. */
function recordedBots(bytes: number) {
  return { patchIntervalsMs: () => window.bots.patchIntervalsMs, bytes: () => bytes, bots: () => window.bots.bytesPerBot.length, connected: () => window.bots.connected };
}

function report(kind: LoadReport["kind"], stages: StageResult[]): LoadReport {
  return {
    kind,
    startedAt: "2026-12-01T04:00:00.000Z",
    finishedAt: "2026-12-01T04:01:00.000Z",
    options: { rooms: 2, clients: 4, scenario: "arena", seconds: 6, warmupSeconds: 1, inputHz: 60, findCapacity: kind === "capacity", steps: [2, 4, 8], overloadSteps: 1, retries: 0, seed: 1 },
    machine: { cpus: 2, model: "test", node: "v24" },
    server: { url: "http://127.0.0.1:1", spawned: true, pid: 1, exitCode: 0, alive: true, errorLines: [] },
    stages,
    capacity: kind === "capacity" ? stages[1] : null,
    capacityIsLowerBound: false,
    degradation: null,
    profile: null,
    verdict: kind === "run" ? "held: 2 rooms × 4 clients" : "4 rooms × 4 clients",
  };
}

/** The points of every polyline of an SVG, as [x, y] pairs. */
function polylines(svg: string): number[][][] {
  return [...svg.matchAll(/<polyline points="([^"]+)"/g)].map((m) => m[1].split(" ").map((p) => p.split(",").map(Number)));
}

/** A timeline of `n` one-second points around the recorded window's figures (tick-loop p99 rising by 1 ms a second). */
function timeline(n: number): TimelinePoint[] {
  const base = timelinePoint(parsePrometheus(before), parsePrometheus(after), window.roomIds, {
    t: 1,
    seconds: window.seconds,
    patchIntervalsMs: window.bots.patchIntervalsMs,
    bytes: window.bots.bytesPerBot.reduce((a, b) => a + b, 0),
    bots: window.bots.bytesPerBot.length,
    connected: window.bots.connected,
    botsCpuMicros: window.bots.cpuMicros,
    machineBusyShare: null,
    cores: 2,
  });
  return Array.from({ length: n }, (_, i) => ({ ...base, t: i + 1, tickLoopMs: { p50: base.tickLoopMs.p50, p99: base.tickLoopMs.p99 + i } }));
}

describe("timeline", () => {
  it("one interval over the whole recorded window has the stage's own figures", () => {
    const bytes = window.bots.bytesPerBot.reduce((a, b) => a + b, 0);
    const sampler = new TimelineSampler(before, 0, window.roomIds, recordedBots(0));
    const point = sampler.sample(after, window.seconds * 1000);
    // The bystander room's ticks are in the scrapes but not in the point.
    expect(window.roomIds).not.toContain(bystanderRoomId);
    expect(point).toMatchObject({ t: 6.003, tickLoopMs: { p50: stage.tickLoopMs.p50, p99: stage.tickLoopMs.p99 }, tickMsP99: stage.tickMs.p99, connected: 8 });
    expect(point.patchIntervalMs).toEqual({ p50: stage.patchIntervalMs.p50, p99: stage.patchIntervalMs.p99 });
    expect(point.tickLoopMs).toEqual({ p50: 0.51, p99: 1.68 });
    // The server's CPU over the same scrapes: 0.523974 s in 6.003 s.
    expect(point.serverCpuPercent).toBe(stage.server.cpuPercent);
    expect(sampler.points).toEqual([point]);
    // Bandwidth: the bytes of the interval per bot per second.
    const withBytes = new TimelineSampler(before, 0, window.roomIds, recordedBots(bytes)).sample(after, window.seconds * 1000);
    expect(withBytes.kBPerSecondPerClient).toBeCloseTo(stage.bytesPerSecondPerClient.mean / 1024, 2);
  });
});

describe("plot", () => {
  it("a plain run plots its window against seconds, one point a second", () => {
    const run = { ...structuredClone(stage), timeline: timeline(6) };
    const svg = renderPlot(report("run", [run]));
    expect(svg).toContain("seconds into the measured window (2 rooms × 4 bots, after a 1 s warm-up)");
    expect(svg).not.toContain("rooms (×");
    const lines = polylines(svg);
    // Tick-loop p50 and p99, tick p99; patch p50 and p99; bandwidth; server, bots, other CPU.
    expect(lines).toHaveLength(9);
    for (const line of lines) {
      expect(line).toHaveLength(6);
      // Time runs left to right, the last second at the right edge of the panels (x 0 → 70, 6 s → 710).
      expect(line.map(([x]) => x)).toEqual([...line.map(([x]) => x)].sort((a, b) => a - b));
      expect(line[5][0]).toBe(710);
    }
    // Tick-loop p99 rises by 1 ms a second: its line climbs (smaller y is higher).
    const p99 = lines[1].map(([, y]) => y);
    expect(p99[5]).toBeLessThan(p99[0]);
    for (const t of ["0", "1", "2", "3", "4", "5", "6"]) expect(svg).toContain(`class="xtick">${t}</text>`);
  });

  it("a capacity ramp plots its stages against rooms; a run without a timeline too", () => {
    const at = (rooms: number, phase: StageResult["phase"], held: boolean): StageResult => ({ ...structuredClone(stage), rooms, phase, held });
    const svg = renderPlot(report("capacity", [at(2, "ramp", true), at(4, "ramp", true), at(8, "ramp", false), at(2, "recovery", true)]));
    expect(svg).toContain("rooms (× 4 bots each)");
    expect(svg).not.toContain("seconds into");
    const lines = polylines(svg);
    // Tick-loop p50, p95 and p99, tick p99; patch p50 and p99; bandwidth; three CPU series: the ramp's 3 stages each.
    expect(lines).toHaveLength(10);
    // The rooms axis starts at 0 rooms (x 70) and ends at the most (8 rooms, x 710).
    for (const line of lines) expect(line.map(([x]) => x)).toEqual([230, 390, 710]);
    // The stage that did not hold is ringed red; the recovery stage is a diamond.
    expect(svg).toMatch(/r="7" fill="none" stroke="#c0392b"/);
    expect(svg).toMatch(/<path d="M 230 [\d.]+ L 236 /);
    const old = renderPlot(report("run", [{ ...structuredClone(stage), timeline: [] }]));
    expect(old).toContain("rooms (× 4 bots each)");
  });
});

describe("where reports go", () => {
  it("a run writes its own files only; --publish also replaces latest.* (and a capacity run capacity-latest.*)", () => {
    const runs = join(tmp, "runs");
    const published = join(tmp, "published");
    const run = report("run", [{ ...structuredClone(stage), timeline: timeline(3) }]);
    const files = writeReport(run, runs);
    expect(readdirSync(runs).sort()).toEqual(["2026-12-01T04-00-00-000-run.json", "2026-12-01T04-00-00-000-run.md", "2026-12-01T04-00-00-000-run.svg"]);
    expect(files.published).toEqual([]);
    expect(existsSync(published)).toBe(false);
    expect(readFileSync(files.md, "utf8")).toContain("![tick-loop time, patch interval, bandwidth and CPU over the measured window, second by second](2026-12-01T04-00-00-000-run.svg)");
    expect(JSON.parse(readFileSync(files.json, "utf8")).stages[0].timeline).toHaveLength(3);

    const again = writeReport(run, runs, published);
    expect(again.published).toEqual(["latest.md", "latest.json", "latest.svg"].map((f) => join(published, f)));
    expect(readdirSync(published).sort()).toEqual(["latest.json", "latest.md", "latest.svg"]);
    expect(readFileSync(join(published, "latest.md"), "utf8")).toContain("](latest.svg)");
    expect(readFileSync(join(published, "latest.svg"), "utf8")).toBe(readFileSync(files.svg, "utf8"));

    const ramp = report("capacity", [{ ...structuredClone(stage), rooms: 2, phase: "ramp" }, { ...structuredClone(stage), rooms: 4, phase: "ramp" }]);
    const capacity = writeReport(ramp, runs, published);
    expect(capacity.published.map((f) => f.slice(published.length + 1))).toEqual(["latest.md", "latest.json", "latest.svg", "capacity-latest.md", "capacity-latest.json", "capacity-latest.svg"]);
    expect(readFileSync(join(published, "capacity-latest.md"), "utf8")).toContain("against rooms](capacity-latest.svg)");
    expect(readdirSync(runs)).toHaveLength(6);
  });
});
