/**
 * A small live line plot on a 2D canvas: fixed-size rings of samples (no allocation per sample), one or
 * more series, linear or log10 y axis. Redrawn on demand (the HUD does it a few times per second).
 */
export interface SeriesStyle {
  color: string;
  label: string;
}

export class LivePlot {
  private readonly ctx: CanvasRenderingContext2D;
  private readonly values: Float64Array[];
  private head = 0;
  private count = 0;
  readonly capacity: number;
  private readonly series: SeriesStyle[];
  private readonly log: boolean;
  /** Log axis: values at or below `floor` sit on the bottom line. */
  private readonly floor: number;
  private readonly title: string;
  private readonly unit: string;

  constructor(canvas: HTMLCanvasElement, options: { title: string; unit: string; series: SeriesStyle[]; capacity?: number; log?: boolean; floor?: number }) {
    this.ctx = canvas.getContext("2d")!;
    this.capacity = options.capacity ?? 300;
    this.series = options.series;
    this.values = options.series.map(() => new Float64Array(this.capacity).fill(Number.NaN));
    this.log = options.log ?? false;
    this.floor = options.floor ?? 1e-4;
    this.title = options.title;
    this.unit = options.unit;
  }

  /** One sample per series (NaN: no value). */
  push(...v: number[]): void {
    for (let s = 0; s < this.values.length; s++) this.values[s][this.head] = v[s] ?? Number.NaN;
    this.head = (this.head + 1) % this.capacity;
    if (this.count < this.capacity) this.count++;
  }

  clear(): void {
    for (const v of this.values) v.fill(Number.NaN);
    this.count = 0;
    this.head = 0;
  }

  private y(v: number, lo: number, hi: number, top: number, height: number): number {
    const f = this.log ? (Math.log10(Math.max(v, this.floor)) - lo) / (hi - lo) : (v - lo) / (hi - lo || 1);
    return top + height - Math.min(1, Math.max(0, f)) * height;
  }

  draw(): void {
    const ctx = this.ctx;
    const w = ctx.canvas.width;
    const h = ctx.canvas.height;
    ctx.clearRect(0, 0, w, h);
    ctx.fillStyle = "rgba(10, 14, 18, 0.55)";
    ctx.fillRect(0, 0, w, h);
    let max = Number.NEGATIVE_INFINITY;
    let last = Number.NaN;
    for (const v of this.values) {
      for (let i = 0; i < this.capacity; i++) if (v[i] > max) max = v[i];
    }
    const newest = (this.head - 1 + this.capacity) % this.capacity;
    last = this.values[0][newest];
    const top = 14;
    const height = h - top - 4;
    let lo: number;
    let hi: number;
    if (this.log) {
      lo = Math.log10(this.floor);
      hi = Math.max(lo + 2, Math.ceil(Math.log10(Math.max(max, this.floor * 100))));
      ctx.strokeStyle = "rgba(255,255,255,0.12)";
      ctx.lineWidth = 1;
      for (let d = Math.ceil(lo); d <= hi; d++) {
        const y = Math.round(this.y(10 ** d, lo, hi, top, height)) + 0.5;
        ctx.beginPath();
        ctx.moveTo(0, y);
        ctx.lineTo(w, y);
        ctx.stroke();
      }
    } else {
      lo = 0;
      hi = max > 0 && Number.isFinite(max) ? max * 1.15 : 1;
    }
    this.series.forEach((style, s) => {
      const v = this.values[s];
      ctx.strokeStyle = style.color;
      ctx.lineWidth = 1.5;
      ctx.beginPath();
      let pen = false;
      for (let k = 0; k < this.count; k++) {
        const i = (this.head - this.count + k + this.capacity) % this.capacity;
        const x = ((k + this.capacity - this.count) / (this.capacity - 1)) * w;
        if (Number.isNaN(v[i])) {
          pen = false;
          continue;
        }
        const y = this.y(v[i], lo, hi, top, height);
        if (pen) ctx.lineTo(x, y);
        else ctx.moveTo(x, y);
        pen = true;
      }
      ctx.stroke();
    });
    this.drawLabels(Number.isNaN(last) ? "–" : `${formatNumber(last)} ${this.unit}`, this.log ? `log 1e${Math.round(lo)}…1e${Math.round(hi)}` : `0…${formatNumber(hi)}`);
  }

  /**
   * The title with the newest value (top left), the series' names in their colours (top right), the
   * y range (bottom right, small). Each fits its place: what does not fit is dropped, never drawn past
   * the edge.
   */
  private drawLabels(value: string, scale: string): void {
    const ctx = this.ctx;
    const w = ctx.canvas.width;
    ctx.textAlign = "left";
    ctx.font = "11px system-ui, sans-serif";
    let x = w - 4;
    for (let s = this.series.length - 1; s >= 0; s--) {
      const label = this.series[s].label;
      x -= ctx.measureText(label).width;
      ctx.fillStyle = this.series[s].color;
      ctx.fillText(label, x, 11);
      x -= 8;
    }
    ctx.fillStyle = "#e8eef2";
    const title = `${this.title} ${value}`;
    ctx.fillText(ctx.measureText(title).width <= x - 4 ? title : value, 4, 11, Math.max(0, x - 4));
    ctx.font = "9px system-ui, sans-serif";
    ctx.fillStyle = "rgba(232, 238, 242, 0.6)";
    const sw = ctx.measureText(scale).width;
    ctx.fillText(scale, Math.max(4, w - 4 - sw), ctx.canvas.height - 4, w - 8);
  }
}

export function formatNumber(v: number): string {
  if (!Number.isFinite(v)) return "–";
  const a = Math.abs(v);
  if (a === 0) return "0";
  if (a >= 1000 || a < 0.01) return v.toExponential(1);
  if (a >= 100) return v.toFixed(0);
  if (a >= 10) return v.toFixed(1);
  return v.toFixed(2);
}
