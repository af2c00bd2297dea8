import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import type { LoadReport } from "../../loadtest/types.ts";

/**
 * `npm run loadtest -- …` as the READMEs write it: the help, bad arguments (exit 2), and one short real
 * run (a spawned server, 1 room × 2 bots, 4 s) whose stdout (verdict, report paths) and stderr
 * (timestamped progress lines) keep the documented shape. The report goes to --out (a temporary
 * directory) and nowhere else: without --publish the tracked loadtest/reports/latest.* stay as they are.
 */
const ROOT = resolve(import.meta.dirname, "../..");

function npmLoadtest(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile("npm", ["run", "--silent", "loadtest", "--", ...args], { cwd: ROOT, timeout: 120_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof err.code === "number" ? err.code : -1) : 0;
      done({ code, stdout, stderr });
    });
  });
}

describe("npm run loadtest", () => {
  const out = mkdtempSync(join(tmpdir(), "loadtest-cli-"));
  afterAll(() => rmSync(out, { recursive: true, force: true }));

  it("--help prints the usage and exits 0", async () => {
    const r = await npmLoadtest(["--help"]);
    expect(r.code).toBe(0);
    expect(r.stdout.startsWith("usage: npm run loadtest -- [options]\n")).toBe(true);
    for (const flag of ["--rooms R", "--find-capacity", "--url URL", "--nice N", "--profile", "--out DIR", "--publish"]) expect(r.stdout).toContain(flag);
  });

  it("refuses bad arguments with exit 2 and the reason", async () => {
    const bad = await npmLoadtest(["--rooms", "0"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--rooms must be an integer ≥ 1, got "0"');
    const remote = await npmLoadtest(["--url", "http://example.com:2567", "--token", "x"]);
    expect(remote.code).toBe(2);
    expect(remote.stderr).toContain("--url must be a loopback address");
  });

  it("a short run prints the verdict and the report's paths; progress goes to stderr", async () => {
    const tracked = ["latest", "capacity-latest"].flatMap((n) => ["json", "md", "svg"].map((ext) => join(ROOT, "loadtest", "reports", `${n}.${ext}`)));
    const trackedBefore = tracked.map((f) => readFileSync(f, "utf8"));
    const r = await npmLoadtest(["--rooms", "1", "--clients", "2", "--seconds", "4", "--warmup", "1", "--retries", "0", "--out", out]);
    const lines = r.stdout.trimEnd().split("\n");
    expect(lines).toHaveLength(4);
    expect(lines[0]).toMatch(/^(held: 1 rooms × 2 clients|did not hold: .+)$/);
    expect(r.code).toBe(lines[0].startsWith("held") ? 0 : 1);
    const [md, json, svg] = [lines[1].replace(/^report: /, ""), lines[2].trim(), lines[3].trim()];
    expect(lines[1]).toMatch(/^report: .*-run\.md$/);
    expect(lines[2]).toMatch(/^ {8}.*-run\.json$/);
    expect(lines[3]).toMatch(/^ {8}.*-run\.svg$/);
    for (const f of [md, json, svg]) expect(existsSync(f)).toBe(true);
    // The run's own three files, no latest.* anywhere, the tracked reports untouched.
    expect(readdirSync(out).filter((f) => !f.startsWith("profiles")).sort()).toEqual([md, json, svg].map((f) => f.slice(out.length + 1)).sort());
    expect(tracked.map((f) => readFileSync(f, "utf8"))).toEqual(trackedBefore);
    const written = JSON.parse(readFileSync(json, "utf8")) as LoadReport;
    expect(written.verdict).toBe(lines[0]);
    // One timeline point a second of the 4 s window (scrapes at 1, 2 and 3 s, and the window's end).
    const times = written.stages[0].timeline.map((p) => p.t);
    console.log(`timeline t: ${times.join(", ")}`);
    expect(times).toHaveLength(4);
    expect(times).toEqual([...times].sort((a, b) => a - b));
    expect(times[3]).toBeGreaterThanOrEqual(4);
    // A plain run is plotted against time.
    expect(readFileSync(svg, "utf8")).toContain("seconds into the measured window (1 rooms × 2 bots, after a 1 s warm-up)");

    const progress = r.stderr.trimEnd().split("\n");
    const shapes = [
      /^server: pid \d+ at http:\/\/127\.0\.0\.1:\d+$/,
      /^joining 2 bots into 1 new rooms…$/,
      /^\[1 rooms × 2\] warming up 1 s$/,
      /^\[1 rooms × 2\] 2\/4 s {2}bots \d\/2 {2}tick-loop p99 [\d.]+ ms {2}patches \d+\/s {2}server CPU \d+%$/,
      /^\[1 rooms × 2\] (HELD|DID NOT HOLD): tick-loop p99 [\d.]+ ms \(budget 16\.7\), tick p99 [\d.]+ ms, patch interval p99 [\d.]+ ms, server CPU [\d.]+%, bots CPU [\d.]+%/,
    ];
    for (const line of progress) {
      const m = /^\d\d:\d\d:\d\d (.*)$/.exec(line);
      expect(m, `progress line without a timestamp: ${line}`).not.toBeNull();
      expect(shapes.some((s) => s.test(m![1])), `unexpected progress line: ${line}`).toBe(true);
    }
    // In this order: server, joins, warm-up, (a progress line at 2 s), the stage's verdict.
    const order = progress.map((l) => shapes.findIndex((s) => s.test(l.slice(9))));
    expect(order.filter((k) => k !== 3)).toEqual([0, 1, 2, 4]);
  });
});
