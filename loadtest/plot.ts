import type { LoadReport, StageResult } from "./run.ts";

/**
 * The report's plot as a standalone SVG, drawn by hand (a few polylines do not need a chart library).
 * Three panels share the x axis (rooms): tick-loop and tick percentiles with the budget line; patch
 * interval at the clients with the lateness limit; bandwidth per client and CPU of server and bots.
 * Ramp stages are joined by lines; stages that did not hold get a red ring; the ramp-down (recovery)
 * stage is a separate diamond.
 */

const W = 860;
const PANEL_H = 200;
const TOP = 100;
const GAP = 60;
const LEFT = 70;
const RIGHT = 150;
const COLORS = { p50: "#7fb3d5", p95: "#2e86c1", p99: "#1b4f72", tick: "#d35400", budget: "#c0392b", bw: "#27ae60", cpu: "#8e44ad", bots: "#b7950b" };

interface Series {
  label: string;
  color: string;
  dashed?: boolean;
  values: (s: StageResult) => number;
}

function esc(s: string): string {
  return s.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** 1, 2, 5 × 10^k step giving about `target` ticks over [0, max]. */
function niceStep(max: number, target = 5): number {
  const raw = max / target;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const f = raw / mag;
  return (f <= 1 ? 1 : f <= 2 ? 2 : f <= 5 ? 5 : 10) * mag;
}

function fmt(v: number): string {
  return Math.abs(v) >= 100 || Number.isInteger(v) ? v.toFixed(0) : v.toFixed(1);
}

function panel(
  out: string[],
  y0: number,
  title: string,
  unit: string,
  xs: { min: number; max: number },
  ramp: StageResult[],
  extra: StageResult[],
  series: Series[],
  lines: { value: number; label: string; color: string; below?: boolean }[],
  /** Largest y shown; higher values are drawn at the top edge with their value written next to them. */
  cap = Number.POSITIVE_INFINITY,
): void {
  const x0 = LEFT;
  const x1 = W - RIGHT;
  const y1 = y0 + PANEL_H;
  const all = [...ramp, ...extra];
  let maxY = 0;
  for (const s of series) for (const st of all) maxY = Math.max(maxY, s.values(st));
  for (const l of lines) maxY = Math.max(maxY, l.value * 1.15);
  maxY = Math.min(maxY, cap);
  if (maxY <= 0) maxY = 1;
  const step = niceStep(maxY);
  const top = Math.ceil((maxY * 1.05) / step) * step;
  const px = (rooms: number) => (xs.max === xs.min ? (x0 + x1) / 2 : x0 + ((rooms - xs.min) / (xs.max - xs.min)) * (x1 - x0));
  const py = (v: number) => y1 - (Math.min(v, top) / top) * (y1 - y0);
  out.push(`<text x="${x0}" y="${y0 - 12}" class="title">${esc(title)}</text>`);
  out.push(`<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${PANEL_H}" class="frame"/>`);
  for (let v = 0; v <= top + 1e-9; v += step) {
    const y = py(v);
    out.push(`<line x1="${x0}" y1="${y}" x2="${x1}" y2="${y}" class="grid"/>`);
    out.push(`<text x="${x0 - 8}" y="${y + 4}" class="ytick">${fmt(v)}</text>`);
  }
  out.push(`<text x="${x0 - 52}" y="${(y0 + y1) / 2}" class="axis" transform="rotate(-90 ${x0 - 52} ${(y0 + y1) / 2})">${esc(unit)}</text>`);
  const ticks = [...new Set(all.map((s) => s.rooms))].sort((a, b) => a - b);
  for (const r of ticks) {
    const x = px(r);
    out.push(`<line x1="${x}" y1="${y1}" x2="${x}" y2="${y1 + 5}" class="frameline"/>`);
    out.push(`<text x="${x}" y="${y1 + 18}" class="xtick">${r}</text>`);
  }
  for (const l of lines) {
    const y = py(l.value);
    out.push(`<line x1="${x0}" y1="${y}" x2="${x1}" y2="${y}" stroke="${l.color}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    out.push(`<text x="${x0 + 6}" y="${l.below ? y + 15 : y - 6}" class="linelabel" fill="${l.color}">${esc(l.label)}</text>`);
  }
  let ly = y0 + 14;
  for (const s of series) {
    const pts = ramp.map((st) => `${px(st.rooms).toFixed(1)},${py(s.values(st)).toFixed(1)}`);
    if (pts.length > 1) {
      out.push(`<polyline points="${pts.join(" ")}" fill="none" stroke="${s.color}" stroke-width="2.2"${s.dashed ? ' stroke-dasharray="5 3"' : ""}/>`);
    }
    for (const st of ramp) {
      const x = px(st.rooms);
      const y = py(s.values(st));
      if (s.values(st) > top) {
        out.push(`<path d="M ${x - 5} ${y + 8} L ${x + 5} ${y + 8} L ${x} ${y} Z" fill="${s.color}"/>`);
        out.push(`<text x="${x - 8}" y="${y + 14}" class="clip" fill="${s.color}">${fmt(s.values(st))}</text>`);
        continue;
      }
      out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="3.5" fill="${s.color}"/>`);
      if (!st.held) {
        const ring = st.inconclusive ? 'stroke="#e67e22" stroke-dasharray="3 2"' : `stroke="${COLORS.budget}"`;
        out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="7" fill="none" ${ring} stroke-width="1.5"/>`);
      }
    }
    for (const st of extra) {
      const x = px(st.rooms);
      const y = py(s.values(st));
      if (s.values(st) > top) out.push(`<text x="${x + 8}" y="${y + 14}" class="clip" fill="${s.color}" text-anchor="start">${fmt(s.values(st))}</text>`);
      out.push(`<path d="M ${x} ${y - 6} L ${x + 6} ${y} L ${x} ${y + 6} L ${x - 6} ${y} Z" fill="white" stroke="${s.color}" stroke-width="2"/>`);
    }
    out.push(`<line x1="${x1 + 12}" y1="${ly - 4}" x2="${x1 + 34}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="5 3"' : ""}/>`);
    out.push(`<text x="${x1 + 40}" y="${ly}" class="legend">${esc(s.label)}</text>`);
    ly += 18;
  }
}

export function renderPlot(r: LoadReport): string {
  const ramp = r.stages.filter((s) => s.phase !== "recovery");
  const extra = r.stages.filter((s) => s.phase === "recovery");
  const roomsAll = r.stages.map((s) => s.rooms);
  const xs = { min: Math.min(...roomsAll, 0), max: Math.max(...roomsAll, 1) };
  const first = r.stages[0];
  const budget = first?.budgetMs ?? 16.7;
  const nominal = first?.patchRateMs ?? 50;
  const h = TOP + 4 * PANEL_H + 3 * GAP + 75;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${h}" viewBox="0 0 ${W} ${h}" font-family="DejaVu Sans, Arial, sans-serif">`);
  out.push(
    "<style>.title{font-size:15px;font-weight:bold;fill:#222}.frame{fill:none;stroke:#888}.frameline{stroke:#888}.grid{stroke:#e4e4e4}" +
      ".ytick{font-size:12px;fill:#444;text-anchor:end}.xtick{font-size:12px;fill:#444;text-anchor:middle}.axis{font-size:12px;fill:#444;text-anchor:middle}" +
      ".legend{font-size:12px;fill:#222}.linelabel{font-size:12px;text-anchor:start;paint-order:stroke;stroke:white;stroke-width:4px}" +
      ".clip{font-size:11px;text-anchor:end;paint-order:stroke;stroke:white;stroke-width:3px}.head{font-size:18px;font-weight:bold;fill:#111}.sub{font-size:12px;fill:#444}</style>",
  );
  out.push(`<rect width="${W}" height="${h}" fill="white"/>`);
  const cap = r.capacity;
  out.push(`<text x="${LEFT}" y="28" class="head">${esc(`${r.options.scenario}: ${r.kind === "capacity" ? "capacity ramp" : "load run"}, ${r.options.clients} bots per room`)}</text>`);
  out.push(
    `<text x="${LEFT}" y="50" class="sub">${esc(
      cap
        ? `held up to ${r.capacityIsLowerBound ? "≥ " : ""}${cap.rooms} rooms (${cap.players} players): tick-loop p99 ${cap.tickLoopMs.p99} ms ≤ ${budget} ms, patch p99 ${cap.patchIntervalMs.p99} ms`
        : r.verdict,
    )}  ·  ${esc(r.startedAt.slice(0, 16).replace("T", " "))} UTC · ${r.machine.cpus} CPUs</text>`,
  );
  const y0 = TOP;
  panel(
    out,
    y0,
    "Server tick-loop time (timer due → tick done) and tick duration",
    "ms",
    xs,
    ramp,
    extra,
    [
      { label: "tick-loop p50", color: COLORS.p50, values: (s) => s.tickLoopMs.p50 },
      { label: "tick-loop p95", color: COLORS.p95, values: (s) => s.tickLoopMs.p95 },
      { label: "tick-loop p99", color: COLORS.p99, values: (s) => s.tickLoopMs.p99 },
      { label: "tick p99", color: COLORS.tick, dashed: true, values: (s) => s.tickMs.p99 },
    ],
    [{ value: budget, label: `budget ${budget} ms`, color: COLORS.budget }],
    4 * budget,
  );
  const y2 = y0 + PANEL_H + GAP;
  panel(
    out,
    y2,
    "Patch interval seen by the bots",
    "ms",
    xs,
    ramp,
    extra,
    [
      { label: "p50", color: COLORS.p50, values: (s) => s.patchIntervalMs.p50 },
      { label: "p99", color: COLORS.p99, values: (s) => s.patchIntervalMs.p99 },
    ],
    [
      { value: nominal * 1.5, label: `late: 1.5 × ${nominal} ms`, color: COLORS.budget },
      { value: nominal, label: "nominal", color: "#999", below: true },
    ],
    4 * nominal,
  );
  const y3 = y2 + PANEL_H + GAP;
  panel(
    out,
    y3,
    "Bandwidth received per client (WebSocket payload)",
    "kB/s",
    xs,
    ramp,
    extra,
    [{ label: "mean", color: COLORS.bw, values: (s) => s.bytesPerSecondPerClient.mean / 1024 }],
    [],
  );
  const y4 = y3 + PANEL_H + GAP;
  panel(
    out,
    y4,
    "CPU, % of one core (2 cores in all)",
    "%",
    xs,
    ramp,
    extra,
    [
      { label: "server", color: COLORS.cpu, values: (s) => s.server.cpuPercent },
      { label: "bots", color: COLORS.bots, values: (s) => s.bots.cpuPercent },
      { label: "other processes", color: "#95a5a6", dashed: true, values: (s) => s.otherCpuPercent ?? 0 },
    ],
    [],
  );
  const yb = y4 + PANEL_H + 40;
  out.push(`<text x="${(LEFT + W - RIGHT) / 2}" y="${yb}" class="axis">rooms (× ${r.options.clients} bots each)</text>`);
  out.push(
    `<text x="${(LEFT + W - RIGHT) / 2}" y="${yb + 18}" class="axis">red ring: did not hold  ·  dashed orange ring: inconclusive (other processes busy)  ·  diamond: after ramping back down</text>`,
  );
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}
