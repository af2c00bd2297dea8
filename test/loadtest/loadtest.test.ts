import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeReport } from "../../loadtest/report.ts";
import { runLoadTest } from "../../loadtest/run.ts";
import { shortRun } from "./options.ts";

/**
 * A short real load run: the server as a child process (server/main.ts), 2 rooms × 4 SDK bots over
 * loopback WebSockets for 10 s. Asserts completion, connectivity, patches and the absence of errors;
 * no timing thresholds (timings belong to the report).
 */
describe("load generator", () => {
  const out = mkdtempSync(join(tmpdir(), "loadtest-report-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("runs 2 rooms × 4 bots for 10 s: every bot connected, patches in every room, no errors", async () => {
    const lines: string[] = [];
    const report = await runLoadTest(shortRun({ rooms: 2, clients: 4, seconds: 10, warmupSeconds: 1, progress: (line) => lines.push(line) }));
    expect(report.stages).toHaveLength(1);
    const stage = report.stages[0];
    expect(stage.errors).toEqual([]);
    expect(stage.expected).toBe(8);
    expect(stage.connected).toBe(8);
    expect(stage.joinMs.count).toBe(8);
    expect(stage.drops).toBe(0);
    expect(stage.unexpectedLeaves).toBe(0);
    expect(stage.rejectedInputs).toBe(0);
    expect(stage.patchesPerRoomMin).toBeGreaterThan(0);
    expect(stage.patchIntervalMs.count).toBeGreaterThan(0);
    expect(stage.bytesPerSecondPerClient.min).toBeGreaterThan(0);
    // The server's metrics were read: both rooms ticked and their tick-loop histogram filled.
    expect(stage.ticksPerSecondPerRoom).toBeGreaterThan(0);
    expect(stage.tickMs.p50).toBeGreaterThan(0);
    expect(stage.tickLoopMs.p50).toBeGreaterThan(0);
    expect(stage.server.cpuPercent).toBeGreaterThan(0);
    expect(stage.server.rssMB).toBeGreaterThan(0);
    expect(report.server.spawned).toBe(true);
    expect(report.server.alive).toBe(true);
    expect(report.server.exitCode).toBe(0);
    expect(report.server.errorLines).toEqual([]);
    expect(lines.some((l) => l.includes("2 rooms × 4"))).toBe(true);

    // One timeline point a second: scrapes at 1..9 s and the window's end.
    expect(stage.timeline).toHaveLength(10);
    expect(stage.timeline.every((p) => p.connected === 8 && p.tickLoopMs.p50 > 0 && p.serverCpuPercent > 0)).toBe(true);

    const files = writeReport(report, out);
    for (const f of [files.json, files.md, files.svg]) expect(existsSync(f)).toBe(true);
    expect(existsSync(join(out, "latest.json"))).toBe(false);
    expect(JSON.parse(readFileSync(files.json, "utf8")).stages[0].connected).toBe(8);
    const svg = readFileSync(files.svg, "utf8");
    expect(svg.startsWith("<svg")).toBe(true);
    expect(svg.trimEnd().endsWith("</svg>")).toBe(true);
    expect(readFileSync(files.md, "utf8")).toContain("| run | 2 × 4 (8) |");
  });
});
