import { copyFileSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { plotsOverTime, renderPlot } from "./plot.ts";
import type { ProfileSummary } from "./profile-summary.ts";
import type { LoadReport, StageResult } from "./types.ts";

/** The report files of one run. */
export interface ReportFiles {
  json: string;
  md: string;
  svg: string;
  /** The tracked copies it was published to (`--publish`), else empty. */
  published: string[];
}

/**
 * Writes a run's report as JSON, Markdown and an SVG plot, `<stamp>-<kind>.{json,md,svg}` in `dir`
 * (loadtest/reports/runs/ by default: ignored by git, so trial runs change nothing tracked). With
 * `publishDir` (`--publish`) it is also copied there as `latest.*`, and a capacity run also as
 * `capacity-latest.*` (what the README quotes, so a quick run does not replace it).
 */
export function writeReport(report: LoadReport, dir: string, publishDir?: string): ReportFiles {
  mkdirSync(dir, { recursive: true });
  const stamp = report.startedAt.replace(/[:.]/g, "-").replace(/Z$/, "");
  const base = join(dir, `${stamp}-${report.kind}`);
  const files: ReportFiles = { json: `${base}.json`, md: `${base}.md`, svg: `${base}.svg`, published: [] };
  writeFileSync(files.json, `${JSON.stringify(report, null, 2)}\n`);
  writeFileSync(files.svg, renderPlot(report));
  writeFileSync(files.md, renderMarkdown(report, `${stamp}-${report.kind}.svg`));
  if (publishDir === undefined) return files;
  mkdirSync(publishDir, { recursive: true });
  const copies = report.kind === "capacity" ? ["latest", "capacity-latest"] : ["latest"];
  for (const name of copies) {
    const to = (ext: string) => join(publishDir, `${name}.${ext}`);
    copyFileSync(files.json, to("json"));
    copyFileSync(files.svg, to("svg"));
    writeFileSync(to("md"), renderMarkdown(report, `${name}.svg`));
    files.published.push(to("md"), to("json"), to("svg"));
  }
  return files;
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`;

/** The report's closing definitions of every column. */
const DEFINITIONS = [
  "Definitions:",
  "",
  "- **tick-loop time**: from when a room's fixed-timestep timer callback was due to when the tick finished (timer delay caused by everything else the process runs + catch-up steps + the tick). The budget is one step (1000 / tickRate ms); a stage holds when at most 1% of ticks exceed it (p99 ≤ budget).",
  "- **tick**: server time of one tick (inputs, step, replay line), `physics_tick_duration_ms`. Max is the bucket bound.",
  "- **catch-up ticks**: ran as the 2nd-5th step of one timer callback (a few per thousand happen on an idle server: Node fires the 16.67 ms interval on whole milliseconds). **Skipped**: steps the accumulator dropped.",
  "- **patch interval**: time between consecutive state patches at each bot (nominal = the room's patch rate); a stage holds when p99 ≤ 1.5 × nominal. kB/s: WebSocket payload bytes received per client.",
  "- CPU: % of one core over the window (server from `process.cpuUsage` via /metrics, bots from the generator's own process, other = machine total minus both). ELU: event-loop utilization. Loop delay: windowed mean of `monitorEventLoopDelay`, resolution subtracted.",
  "- **probe**: an idle process beside the run wakes every 5 ms and records how late it is; a stall it sees too came from the machine (other processes, the hypervisor), not from the server. ⚠ marks a window with other processes above 25% of a core or such a machine stall; a ramp stage that fails only under ⚠ is *inconclusive*, measured again, and not taken as the limit.",
  "",
];

function stageRow(s: StageResult): string {
  const cells = [
    s.phase,
    `${s.rooms} × ${s.clientsPerRoom} (${s.players})`,
    s.held ? "yes" : s.inconclusive ? "inconclusive" : "**no**",
    `${s.tickLoopMs.p50} / ${s.tickLoopMs.p95} / **${s.tickLoopMs.p99}**`,
    pct(s.tickLoopMs.shareOverBudget),
    `${s.tickMs.p50} / ${s.tickMs.p99} (≤ ${s.tickMs.max})`,
    `${s.catchUpTicks} / ${s.skippedTicks}`,
    `${s.patchIntervalMs.p50} / **${s.patchIntervalMs.p99}**`,
    `${(s.bytesPerSecondPerClient.mean / 1024).toFixed(1)}`,
    `${s.joinMs.p50} / ${s.joinMs.max}`,
    `${s.server.cpuPercent.toFixed(1)}% / ${s.server.eventLoopUtilization.toFixed(2)}`,
    `${s.server.rssMB}`,
    `${s.eventLoopDelayMs.windowMean}`,
    `${s.bots.cpuPercent.toFixed(1)}% / ${s.bots.eventLoopUtilization.toFixed(2)}`,
    s.otherCpuPercent === null ? "–" : `${s.otherCpuPercent.toFixed(1)}%${s.contaminated ? " ⚠" : ""}${s.attempts > 1 ? ` (${s.attempts} tries)` : ""}`,
    `${s.machineNoise.maxLateMs}`,
    `${s.errors.length} / ${s.drops + s.unexpectedLeaves}`,
  ];
  return `| ${cells.join(" | ")} |`;
}

export function renderMarkdown(r: LoadReport, svgName: string): string {
  const o = r.options;
  const lines: string[] = [];
  lines.push(`# Load test ${r.kind === "capacity" ? "capacity ramp" : "run"}: ${o.scenario}`);
  lines.push("");
  lines.push(`${r.startedAt} → ${r.finishedAt} · ${r.machine.cpus} CPUs (${r.machine.model}) · Node ${r.machine.node}`);
  lines.push("");
  lines.push(`**Verdict:** ${r.verdict}`);
  lines.push("");
  lines.push(
    `Server: ${r.server.spawned ? `child process pid ${r.server.pid}` : r.server.url}, ${r.server.alive ? "alive at the end" : "**not alive at the end**"}` +
      `${r.server.exitCode !== null ? `, exit code ${r.server.exitCode}` : ""}. Bots: ${o.clients} per room in the load generator's own process, ` +
      `${o.inputHz} Hz moves, a shove every 2-4 s, a spawn every 15-25 s (≤ 4 per bot). Windows: ${o.warmupSeconds} s warm-up, then ${o.seconds} s measured.`,
  );
  lines.push("");
  const against = plotsOverTime(r) ? "over the measured window, second by second" : "against rooms";
  lines.push(`![tick-loop time, patch interval, bandwidth and CPU ${against}](${svgName})`);
  lines.push("");
  lines.push(
    "| phase | rooms × clients (players) | held | tick-loop ms p50 / p95 / p99 | ticks over budget | tick ms p50 / p99 (max) | catch-up / skipped ticks | patch interval ms p50 / p99 | kB/s per client | join ms p50 / max | server CPU / ELU | server RSS MB | loop delay ms | bots CPU / ELU | other CPU | probe max late ms | errors / disconnects |",
  );
  lines.push(`|${" --- |".repeat(17)}`);
  for (const s of r.stages) lines.push(stageRow(s));
  lines.push("");
  const failing = r.stages.filter((s) => !s.held);
  if (failing.length) {
    lines.push("Stages that did not hold:");
    lines.push("");
    for (const s of failing) {
      lines.push(`- ${s.phase} ${s.rooms} rooms: ${s.reasons.join("; ")}${s.inconclusive ? ` (inconclusive: other processes used ${s.otherCpuPercent}% of a core)` : ""}`);
    }
    lines.push("");
  }
  lines.push("Where the server's thread time went (ms per wall second; 1000 = one core):");
  lines.push("");
  lines.push(
    "| rooms | ticks | state sync | patch encode+send | checkpoints (% of ticks) | other (messages, HTTP, GC, timers) | sync ms/patch | encode ms/patch | patch bytes | bodies/room |",
  );
  lines.push(`|${" --- |".repeat(10)}`);
  for (const s of r.stages) {
    const b = s.server.busyMsPerSecond;
    const checkpoints = b.checkpoints ?? 0;
    const bases = s.server.checkpointBasesPerSecond
      ? `; bases ${s.server.checkpointBaseMsPerSecond} ms/s, ${s.server.checkpointBasesPerSecond}/s, encoded on a worker: ${s.server.checkpointWorkerMsPerSecond ?? 0} ms/s`
      : "";
    const share = b.ticks > 0 ? ` (${((100 * checkpoints) / b.ticks).toFixed(2)} % of ticks${bases})` : "";
    lines.push(
      `| ${s.rooms}${s.phase === "recovery" ? " (down)" : ""} | ${b.ticks} | ${b.sync} | ${b.patches} | ${checkpoints}${share} | ${b.other} | ${s.server.syncMsPerPatch} | ${s.server.encodeMsPerPatch} | ${s.server.patchBytes} | ${s.bodiesPerRoom.min}-${s.bodiesPerRoom.max} |`,
    );
  }
  lines.push("");
  if (r.profile) lines.push(...profileSection(r.profile));
  lines.push(...DEFINITIONS);
  return `${lines.join("\n")}\n`;
}

/** The spawned server's CPU profile (--profile): areas and self time side by side, then entry points. */
function profileSection(p: ProfileSummary): string[] {
  const lines: string[] = [];
  lines.push(`Server CPU profile (\`node --cpu-prof\`, whole run, ${(p.totalMs / 1000).toFixed(1)} s): \`${p.file}\``);
  lines.push("");
  lines.push("| area | ms | share |  | function (self time) | ms | share |");
  lines.push("| --- | --- | --- | --- | --- | --- | --- |");
  for (let i = 0; i < Math.max(p.areas.length, p.self.length) && i < 20; i++) {
    const a = p.areas[i];
    const f = p.self[i];
    lines.push(`| ${a ? `${a.area} | ${a.ms} | ${pct(a.share)}` : " | | "} |  | ${f ? `${f.fn} | ${f.ms} | ${pct(f.share)}` : " | | "} |`);
  }
  lines.push("");
  lines.push("Inclusive time of entry points (the function and everything it calls):");
  lines.push("");
  for (const e of p.inclusive) lines.push(`- ${e.fn}: ${e.ms} ms (${pct(e.share)})`);
  lines.push("");
  return lines;
}
