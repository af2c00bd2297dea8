import type { LoadReport, StageResult, TimelinePoint } from "./types.ts";

/**
 * The report's plot as a standalone SVG, drawn by hand (a few polylines do not need a chart library).
 * Four panels share the x axis: tick-loop and tick percentiles with the budget line; patch interval at
 * the clients with the lateness limit; bandwidth per client; CPU of server, bots and other processes.
 *
 * The x axis is what varied. A capacity ramp plots its stages against rooms: ramp stages joined by
 * lines, stages that did not hold ringed red, the ramp-down (recovery) stage a separate diamond. A plain
 * run is one stage (one room count), so it plots its window against time instead: one point per
 * second (the stage's timeline).
 */

const W = 860;
const PANEL_H = 200;
const TOP = 100;
const GAP = 60;
const LEFT = 70;
const RIGHT = 150;
const COLORS = { p50: "#7fb3d5", p95: "#2e86c1", p99: "#1b4f72", tick: "#d35400", budget: "#c0392b", bw: "#27ae60", cpu: "#8e44ad", bots: "#b7950b" };

interface Series<P> {
  label: string;
  color: string;
  dashed?: boolean;
  values: (p: P) => number;
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

/** What one panel shows. */
interface PanelSpec<P> {
  title: string;
  unit: string;
  series: Series<P>[];
  lines: { value: number; label: string; color: string; below?: boolean }[];
  /** Largest y shown; higher values are drawn at the top edge with their value written next to them. */
  cap?: number;
}

/** What every panel shares: the output, the x axis, and the points (joined by lines; some drawn apart). */
interface PanelFrame<P> {
  out: string[];
  xs: { min: number; max: number };
  /** x values that get a tick and a label. */
  xTicks: number[];
  /** A point's x value (rooms, or seconds). */
  x: (p: P) => number;
  /** Points joined by a line (the ramp, or the timeline). */
  joined: P[];
  /** Points drawn apart as diamonds (the ramp-down stage). */
  apart: P[];
  /** The ring a point gets: a stage that did not hold, or held only inconclusively. */
  ring: (p: P) => "failed" | "inconclusive" | null;
  /** Dot radius (smaller for the many points of a timeline). */
  dot: number;
}

/** Scales of one panel: x value → x, value → y (clipped at `top`). */
interface Scales {
  x0: number;
  x1: number;
  y0: number;
  y1: number;
  /** Grid step and the top of the y axis (a whole number of steps). */
  step: number;
  top: number;
  px: (x: number) => number;
  py: (v: number) => number;
}

function panel<P>(frame: PanelFrame<P>, y0: number, spec: PanelSpec<P>): void {
  const sc = scales(frame, y0, spec);
  axes(frame, sc, spec);
  for (const l of spec.lines) {
    const y = sc.py(l.value);
    frame.out.push(`<line x1="${sc.x0}" y1="${y}" x2="${sc.x1}" y2="${y}" stroke="${l.color}" stroke-width="1.5" stroke-dasharray="6 4"/>`);
    frame.out.push(`<text x="${sc.x0 + 6}" y="${l.below ? y + 15 : y - 6}" class="linelabel" fill="${l.color}">${esc(l.label)}</text>`);
  }
  let ly = y0 + 14;
  for (const s of spec.series) {
    seriesMarks(frame, sc, s);
    frame.out.push(`<line x1="${sc.x1 + 12}" y1="${ly - 4}" x2="${sc.x1 + 34}" y2="${ly - 4}" stroke="${s.color}" stroke-width="2.5"${s.dashed ? ' stroke-dasharray="5 3"' : ""}/>`);
    frame.out.push(`<text x="${sc.x1 + 40}" y="${ly}" class="legend">${esc(s.label)}</text>`);
    ly += 18;
  }
}

function scales<P>(frame: PanelFrame<P>, y0: number, spec: PanelSpec<P>): Scales {
  const { xs } = frame;
  const x0 = LEFT;
  const x1 = W - RIGHT;
  const y1 = y0 + PANEL_H;
  let maxY = 0;
  for (const s of spec.series) for (const p of [...frame.joined, ...frame.apart]) maxY = Math.max(maxY, s.values(p));
  for (const l of spec.lines) maxY = Math.max(maxY, l.value * 1.15);
  maxY = Math.min(maxY, spec.cap ?? Number.POSITIVE_INFINITY);
  if (maxY <= 0) maxY = 1;
  const step = niceStep(maxY);
  const top = Math.ceil((maxY * 1.05) / step) * step;
  const px = (x: number) => (xs.max === xs.min ? (x0 + x1) / 2 : x0 + ((x - xs.min) / (xs.max - xs.min)) * (x1 - x0));
  const py = (v: number) => y1 - (Math.min(v, top) / top) * (y1 - y0);
  return { x0, x1, y0, y1, step, top, px, py };
}

/** Title, frame, y grid with its labels, unit, and the x ticks. */
function axes<P>(frame: PanelFrame<P>, sc: Scales, spec: PanelSpec<P>): void {
  const { out } = frame;
  const { x0, x1, y0, y1, top } = sc;
  out.push(`<text x="${x0}" y="${y0 - 12}" class="title">${esc(spec.title)}</text>`);
  out.push(`<rect x="${x0}" y="${y0}" width="${x1 - x0}" height="${PANEL_H}" class="frame"/>`);
  for (let v = 0; v <= top + 1e-9; v += sc.step) {
    const y = sc.py(v);
    out.push(`<line x1="${x0}" y1="${y}" x2="${x1}" y2="${y}" class="grid"/>`);
    out.push(`<text x="${x0 - 8}" y="${y + 4}" class="ytick">${fmt(v)}</text>`);
  }
  out.push(`<text x="${x0 - 52}" y="${(y0 + y1) / 2}" class="axis" transform="rotate(-90 ${x0 - 52} ${(y0 + y1) / 2})">${esc(spec.unit)}</text>`);
  for (const v of frame.xTicks) {
    const x = sc.px(v);
    out.push(`<line x1="${x}" y1="${y1}" x2="${x}" y2="${y1 + 5}" class="frameline"/>`);
    out.push(`<text x="${x}" y="${y1 + 18}" class="xtick">${fmt(v)}</text>`);
  }
}

/** One series: the joined points as a polyline with dots (ringed when a stage did not hold), the others as diamonds. */
function seriesMarks<P>(frame: PanelFrame<P>, sc: Scales, s: Series<P>): void {
  const { out, joined, apart } = frame;
  const { px, py, top } = sc;
  const pts = joined.map((p) => `${px(frame.x(p)).toFixed(1)},${py(s.values(p)).toFixed(1)}`);
  if (pts.length > 1) {
    out.push(`<polyline points="${pts.join(" ")}" fill="none" stroke="${s.color}" stroke-width="2.2"${s.dashed ? ' stroke-dasharray="5 3"' : ""}/>`);
  }
  for (const p of joined) {
    const x = px(frame.x(p));
    const y = py(s.values(p));
    if (s.values(p) > top) {
      out.push(`<path d="M ${x - 5} ${y + 8} L ${x + 5} ${y + 8} L ${x} ${y} Z" fill="${s.color}"/>`);
      out.push(`<text x="${x - 8}" y="${y + 14}" class="clip" fill="${s.color}">${fmt(s.values(p))}</text>`);
      continue;
    }
    out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="${frame.dot}" fill="${s.color}"/>`);
    const ring = frame.ring(p);
    if (ring !== null) {
      const stroke = ring === "inconclusive" ? 'stroke="#e67e22" stroke-dasharray="3 2"' : `stroke="${COLORS.budget}"`;
      out.push(`<circle cx="${x.toFixed(1)}" cy="${y.toFixed(1)}" r="7" fill="none" ${stroke} stroke-width="1.5"/>`);
    }
  }
  for (const p of apart) {
    const x = px(frame.x(p));
    const y = py(s.values(p));
    if (s.values(p) > top) out.push(`<text x="${x + 8}" y="${y + 14}" class="clip" fill="${s.color}" text-anchor="start">${fmt(s.values(p))}</text>`);
    out.push(`<path d="M ${x} ${y - 6} L ${x + 6} ${y} L ${x} ${y + 6} L ${x - 6} ${y} Z" fill="white" stroke="${s.color}" stroke-width="2"/>`);
  }
}


/** True when the report is plotted against time: a plain run with a timeline (reports from before timelines have none). */
export function plotsOverTime(r: LoadReport): boolean {
  return r.kind === "run" && (r.stages[0]?.timeline?.length ?? 0) > 0;
}

/** The plot of a report: a plain run's window against time, a capacity ramp's stages against rooms. */
export function renderPlot(r: LoadReport): string {
  return plotsOverTime(r) ? renderTimePlot(r, r.stages[0]) : renderRoomsPlot(r);
}

/** Stages against rooms (a capacity ramp; also a run recorded without a timeline). */
function renderRoomsPlot(r: LoadReport): string {
  const roomsAll = r.stages.map((s) => s.rooms);
  const frame: PanelFrame<StageResult> = {
    out: [],
    xs: { min: Math.min(...roomsAll, 0), max: Math.max(...roomsAll, 1) },
    xTicks: [...new Set(roomsAll)].sort((a, b) => a - b),
    x: (s) => s.rooms,
    joined: r.stages.filter((s) => s.phase !== "recovery"),
    apart: r.stages.filter((s) => s.phase === "recovery"),
    ring: (s) => (s.held ? null : s.inconclusive ? "inconclusive" : "failed"),
    dot: 3.5,
  };
  const figures: Figures<StageResult> = {
    loopP50: (s) => s.tickLoopMs.p50,
    loopP95: (s) => s.tickLoopMs.p95,
    loopP99: (s) => s.tickLoopMs.p99,
    tickP99: (s) => s.tickMs.p99,
    patchP50: (s) => s.patchIntervalMs.p50,
    patchP99: (s) => s.patchIntervalMs.p99,
    kB: (s) => s.bytesPerSecondPerClient.mean / 1024,
    server: (s) => s.server.cpuPercent,
    bots: (s) => s.bots.cpuPercent,
    other: (s) => s.otherCpuPercent ?? 0,
  };
  return draw(r, frame, figures, [
    `rooms (× ${r.options.clients} bots each)`,
    "red ring: did not hold  ·  dashed orange ring: inconclusive (other processes busy)  ·  diamond: after ramping back down",
  ]);
}

/** A plain run's one stage second by second: its timeline against the time since its window began. */
function renderTimePlot(r: LoadReport, stage: StageResult): string {
  const points = stage.timeline;
  const end = Math.max(1, ...points.map((p) => p.t));
  const step = niceStep(end, 8);
  const xTicks: number[] = [];
  for (let t = 0; t <= end + 1e-9; t += step) xTicks.push(Math.round(t * 1000) / 1000);
  const frame: PanelFrame<TimelinePoint> = { out: [], xs: { min: 0, max: end }, xTicks, x: (p) => p.t, joined: points, apart: [], ring: () => null, dot: 2.5 };
  const figures: Figures<TimelinePoint> = {
    loopP50: (p) => p.tickLoopMs.p50,
    loopP99: (p) => p.tickLoopMs.p99,
    tickP99: (p) => p.tickMsP99,
    patchP50: (p) => p.patchIntervalMs.p50,
    patchP99: (p) => p.patchIntervalMs.p99,
    kB: (p) => p.kBPerSecondPerClient,
    server: (p) => p.serverCpuPercent,
    bots: (p) => p.botsCpuPercent,
    other: (p) => p.otherCpuPercent ?? 0,
  };
  return draw(r, frame, figures, [
    `seconds into the measured window (${stage.rooms} rooms × ${stage.clientsPerRoom} bots, after a ${r.options.warmupSeconds} s warm-up)`,
    `one point per second (between /metrics scrapes)  ·  whole window: ${stage.held ? "held" : "did not hold"}, tick-loop p99 ${stage.tickLoopMs.p99} ms`,
  ]);
}

/** The SVG: heading, the four panels over `frame`'s x axis, and two footer lines (the x axis' name, then the legend). */
function draw<P>(r: LoadReport, frame: PanelFrame<P>, figures: Figures<P>, footer: [string, string]): string {
  const first = r.stages[0];
  const budget = first?.budgetMs ?? 16.7;
  const nominal = first?.patchRateMs ?? 50;
  const h = TOP + 4 * PANEL_H + 3 * GAP + 75;
  const out = frame.out;
  header(out, r, h, budget);
  const specs = panelSpecs(budget, nominal, r.machine.cpus, figures);
  for (let i = 0; i < specs.length; i++) panel(frame, TOP + i * (PANEL_H + GAP), specs[i]);
  const yb = TOP + 3 * (PANEL_H + GAP) + PANEL_H + 40;
  out.push(`<text x="${(LEFT + W - RIGHT) / 2}" y="${yb}" class="axis">${esc(footer[0])}</text>`);
  out.push(`<text x="${(LEFT + W - RIGHT) / 2}" y="${yb + 18}" class="axis">${esc(footer[1])}</text>`);
  out.push("</svg>");
  return `${out.join("\n")}\n`;
}

/** The SVG element, its styles and background, and the two heading lines (what held, when, where). */
function header(out: string[], r: LoadReport, h: number, budget: number): void {
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
}

/** How the panels read their figures from a point (a stage, or a second of one); a timeline has no p95. */
interface Figures<P> {
  loopP50: (p: P) => number;
  loopP95?: (p: P) => number;
  loopP99: (p: P) => number;
  tickP99: (p: P) => number;
  patchP50: (p: P) => number;
  patchP99: (p: P) => number;
  kB: (p: P) => number;
  server: (p: P) => number;
  bots: (p: P) => number;
  other: (p: P) => number;
}

/** The four panels, top to bottom: tick times against the budget, patch interval, bandwidth, CPU. */
function panelSpecs<P>(budget: number, nominal: number, cores: number, f: Figures<P>): PanelSpec<P>[] {
  const loop: Series<P>[] = [
    { label: "tick-loop p50", color: COLORS.p50, values: f.loopP50 },
    ...(f.loopP95 ? [{ label: "tick-loop p95", color: COLORS.p95, values: f.loopP95 }] : []),
    { label: "tick-loop p99", color: COLORS.p99, values: f.loopP99 },
    { label: "tick p99", color: COLORS.tick, dashed: true, values: f.tickP99 },
  ];
  return [
    {
      title: "Server tick-loop time (timer due → tick done) and tick duration",
      unit: "ms",
      series: loop,
      lines: [{ value: budget, label: `budget ${budget} ms`, color: COLORS.budget }],
      cap: 4 * budget,
    },
    {
      title: "Patch interval seen by the bots",
      unit: "ms",
      series: [
        { label: "p50", color: COLORS.p50, values: f.patchP50 },
        { label: "p99", color: COLORS.p99, values: f.patchP99 },
      ],
      lines: [
        { value: nominal * 1.5, label: `late: 1.5 × ${nominal} ms`, color: COLORS.budget },
        { value: nominal, label: "nominal", color: "#999", below: true },
      ],
      cap: 4 * nominal,
    },
    {
      title: "Bandwidth received per client (WebSocket payload)",
      unit: "kB/s",
      series: [{ label: "mean", color: COLORS.bw, values: f.kB }],
      lines: [],
    },
    {
      title: `CPU, % of one core (${cores} cores in all)`,
      unit: "%",
      series: [
        { label: "server", color: COLORS.cpu, values: f.server },
        { label: "bots", color: COLORS.bots, values: f.bots },
        { label: "other processes", color: "#95a5a6", dashed: true, values: f.other },
      ],
      lines: [],
    },
  ];
}
