import type { SimInput } from "../../../shared/sim/index.ts";
import type { ReplayPlayer } from "./replay-player.ts";
import { INPUT_COLORS } from "./timeline.ts";

/** Text elements of the viewer's side panel. */
export interface PanelElements {
  title: HTMLElement;
  status: HTMLElement;
  readout: HTMLElement;
  divergence: HTMLElement;
  tickLabel: HTMLElement;
  legend: HTMLElement;
}

/** A short, readable form of one input for the panel. */
export function describeInput(input: SimInput): string {
  switch (input.type) {
    case "join":
    case "leave":
      return `${input.type} ${input.session}`;
    case "move":
      return `move ${input.session} (${input.vx.toFixed(2)}, ${input.vz.toFixed(2)})${input.jump ? " jump" : ""}`;
    case "input": {
      const text = JSON.stringify(input.message);
      return `${input.name} ${text.length > 60 ? `${text.slice(0, 60)}…` : text} by ${input.session}`;
    }
    case "settings":
      return `settings ${JSON.stringify(input.patch)}`;
    case "load":
      return `load scenario "${input.scenario.name ?? "?"}"`;
  }
  return (input as { type: string }).type;
}

const fmt = (p: [number, number, number] | null) => (p ? `(${p.map((v) => v.toFixed(3)).join(", ")})` : "absent");

/**
 * The side panel and the tick label: verification status, the state hash of the tick shown (recorded
 * and re-simulated), its inputs, and the divergence report. Only rewritten when what it shows changed.
 */
export class ReplayPanel {
  private readonly el: PanelElements;
  private lastKey = "";

  constructor(el: PanelElements) {
    this.el = el;
    el.legend.innerHTML = Object.entries(INPUT_COLORS)
      .map(([type, color]) => `<span style="color:${color}">▮ ${type}</span>`)
      .join("");
  }

  loaded(source: string, player: ReplayPlayer): void {
    const h = player.data.header;
    this.el.title.textContent = `replay of ${h.roomId} (${source})`;
    this.lastKey = "";
  }

  update(player: ReplayPlayer, playing: boolean, speed: number): void {
    const key = `${player.tick}|${player.verifiedTo}|${player.error}|${playing}|${speed}|${player.divergence?.keyframeTick}`;
    if (key === this.lastKey) return;
    this.lastKey = key;
    this.status(player);
    this.readout(player);
    this.divergence(player);
    const h = player.data.header;
    this.el.tickLabel.textContent = `tick ${player.tick} / ${player.ticks} · ${(player.tick / h.tickRate).toFixed(2)} s · ${speed}×${playing ? " ▶" : ""}`;
  }

  private status(player: ReplayPlayer): void {
    const s = this.el.status;
    const kf = `${player.keyframesMatched}/${player.keyframeResults.length} keyframes`;
    if (player.error !== null) {
      s.textContent = `cannot re-simulate: ${player.error}`;
      s.className = "bad";
    } else if (player.divergence !== null) {
      s.textContent = `DIVERGED at tick ${player.divergence.tick} (re-simulated ${player.verifiedTo}/${player.ticks} ticks, ${kf} match)`;
      s.className = "bad";
    } else if (!player.verified) {
      s.textContent = `verifying in this browser… ${player.verifiedTo}/${player.ticks} ticks, ${kf} match so far`;
      s.className = "";
    } else {
      s.textContent = `verified: all ${player.ticks} tick hashes and ${kf} match the recording`;
      s.className = "ok";
    }
  }

  private readout(player: ReplayPlayer): void {
    const t = player.tick;
    const h = player.data.header;
    const recorded = t > 0 ? player.data.hashes[t - 1] : "(start)";
    const replayed = player.cursor.world.stateHash();
    const mismatch = t > 0 && recorded !== replayed;
    const inputs = t > 0 ? player.data.inputs[t - 1] : [];
    const rows: [string, string, string?][] = [
      ["scenario", h.scenario.name ?? "?"],
      ["tick rate", `${h.tickRate} Hz · ${player.ticks} ticks · ${h.keyframeInterval}-tick keyframes`],
      ["ending", player.data.endReason ?? (player.data.truncatedTail ? "cut short (last line dropped)" : "none (still recording?)")],
      ["tick", String(t)],
      ["recorded hash", recorded],
      ["replayed hash", t > 0 ? replayed : "(start)", mismatch ? "mismatch" : undefined],
      ["bodies", String(player.cursor.world.bodyCount)],
      ["inputs", inputs.length === 0 ? "—" : inputs.map(describeInput).join("\n")],
    ];
    this.el.readout.replaceChildren(
      ...rows.flatMap(([name, value, cls]) => {
        const dt = document.createElement("dt");
        dt.textContent = name;
        const dd = document.createElement("dd");
        dd.textContent = value;
        dd.dataset.field = name;
        if (cls) dd.className = cls;
        return [dt, dd];
      }),
    );
  }

  private divergence(player: ReplayPlayer): void {
    const d = player.divergence;
    const box = this.el.divergence;
    box.hidden = d === null;
    if (d === null) return;
    const lines = [
      `first diverging tick: ${d.tick} (line ${d.line})`,
      d.recordedHash ? `recorded ${d.recordedHash} · replayed ${d.replayedHash}` : "tick hashes agreed; bodies differ",
      `inputs at that tick: ${d.inputs.length === 0 ? "none" : d.inputs.map(describeInput).join("; ")}`,
      d.keyframeTick === null
        ? "no keyframe after it: the bodies cannot be named"
        : `${d.bodies.length} bodies differ at keyframe ${d.keyframeTick} (highlighted in red from tick ${d.tick}):`,
      ...d.bodies.slice(0, 20).map((b) => `  ${b.id}: recorded ${fmt(b.recorded)} → replayed ${fmt(b.replayed)}`),
    ];
    if (d.bodies.length > 20) lines.push(`  … ${d.bodies.length - 20} more`);
    box.textContent = lines.join("\n");
    box.style.whiteSpace = "pre-wrap";
  }
}
