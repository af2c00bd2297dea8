import type { SimInput } from "../../../shared/sim/index.ts";
import { TICK_MATCH, TICK_MISMATCH } from "./replay-player.ts";

/** Colours of input marks by type (the legend under the timeline uses the same); other types are white. */
export const INPUT_COLORS: Record<string, string> = {
  join: "#58d68d",
  leave: "#f5b041",
  move: "#5dade2",
  spawn: "#af7ac5",
  impulse: "#f4d03f",
  settings: "#e59866",
  load: "#ffffff",
  restart: "#ec7063",
  /** Any other game's inputs. */
  input: "#bb8fce",
};

/** The colour of an input on the timeline: a sandbox input by its name, another game's in one colour. */
export function inputColor(input: { type: string; name?: string }): string {
  return (input.type === "input" ? INPUT_COLORS[input.name ?? ""] : undefined) ?? INPUT_COLORS[input.type] ?? INPUT_COLORS.input;
}

export interface TimelineModel {
  ticks: number;
  inputs: SimInput[][];
  keyframeTicks: number[];
  status: Uint8Array;
  divergenceTick: number | null;
  cursor: number;
}

/**
 * The scrub bar, drawn on a canvas: verification state per tick (grey unchecked, green matched, red
 * mismatched), a mark per tick with inputs (coloured by the first input's type, taller for more inputs),
 * keyframes as white ticks below, the divergence as a red line, the cursor as a bright line. Pointer
 * down and drag seek; the callback gets the tick under the pointer.
 */
export class Timeline {
  private readonly canvas: HTMLCanvasElement;
  private readonly ctx: CanvasRenderingContext2D;
  private dragging = false;

  constructor(canvas: HTMLCanvasElement, onSeek: (tick: number) => void, ticks: () => number) {
    this.canvas = canvas;
    this.ctx = canvas.getContext("2d")!;
    const at = (e: PointerEvent) => {
      const rect = canvas.getBoundingClientRect();
      const f = Math.max(0, Math.min(1, (e.clientX - rect.left) / rect.width));
      onSeek(Math.round(f * ticks()));
    };
    canvas.addEventListener("pointerdown", (e) => {
      this.dragging = true;
      canvas.setPointerCapture(e.pointerId);
      at(e);
    });
    canvas.addEventListener("pointermove", (e) => {
      if (this.dragging) at(e);
    });
    canvas.addEventListener("pointerup", () => {
      this.dragging = false;
    });
  }

  draw(m: TimelineModel): void {
    const c = this.canvas;
    const width = c.clientWidth;
    const height = c.clientHeight;
    if (c.width !== width || c.height !== height) {
      c.width = width;
      c.height = height;
    }
    const g = this.ctx;
    g.clearRect(0, 0, width, height);
    const n = Math.max(1, m.ticks);
    const x = (t: number) => (t / n) * width;
    const bandTop = height * 0.55;
    const bandHeight = height * 0.2;
    // Verification band, one run of equal states at a time (index i is tick i + 1, from x(i) to x(i + 1)).
    let i0 = 0;
    for (let i = 1; i <= m.ticks; i++) {
      if (i < m.ticks && m.status[i] === m.status[i0]) continue;
      const state = m.status[i0];
      g.fillStyle = state === TICK_MATCH ? "#2e8b57" : state === TICK_MISMATCH ? "#c0392b" : "#4a545c";
      g.fillRect(x(i0), bandTop, Math.max(1, x(i) - x(i0)), bandHeight);
      i0 = i;
    }
    for (let t = 1; t <= m.ticks; t++) {
      const inputs = m.inputs[t - 1];
      if (inputs.length === 0) continue;
      g.fillStyle = inputColor(inputs[0]);
      const h = Math.min(bandTop - 2, 6 + 4 * inputs.length);
      g.fillRect(Math.floor(x(t)), bandTop - h, 1, h);
    }
    g.fillStyle = "#e8eef2";
    for (const t of m.keyframeTicks) g.fillRect(Math.floor(x(t)) - 1, bandTop + bandHeight + 2, 2, height - bandTop - bandHeight - 2);
    if (m.divergenceTick !== null) {
      g.fillStyle = "#ff4d4d";
      g.fillRect(Math.floor(x(m.divergenceTick)) - 1, 0, 2, height);
    }
    g.fillStyle = "#ffe08a";
    g.fillRect(Math.floor(x(m.cursor)) - 1, 0, 3, height);
  }
}
