import { KIND_SENSOR, type RoomState } from "../../../shared/net/index.ts";
import { formatNumber } from "./plot.ts";

/** Values the HUD shows; the app writes them, the HUD formats them a few times per second. */
export interface HudValues {
  room: string;
  scenario: string;
  connection: string;
  tickRate: number;
  patchRateMs: number;
  rttMs: number;
  delayMs: number;
  jitterMs: number;
  bodies: number;
  dynamic: number;
  sleeping: number;
  /** Kinetic energy of the room's dynamic bodies, J (the client's estimate from the snapshots). */
  kinetic: number;
  bytesPerSecond: number;
  fps: number;
  tickP50: number;
  tickP99: number;
  predictionError: number;
  /** Bodies inside each sensor, by sensor id, in the room state's order (readSensorCounts). */
  sensors: Map<string, number>;
  /** The latest notice for the player (cleared after a few seconds), and whether it is a refusal. */
  message: string;
  messageKind: MessageKind;
}

export type MessageKind = "info" | "refused";

export function createHudValues(): HudValues {
  return {
    room: "",
    scenario: "",
    connection: "connecting",
    tickRate: 0,
    patchRateMs: 0,
    rttMs: Number.NaN,
    delayMs: Number.NaN,
    jitterMs: Number.NaN,
    bodies: 0,
    dynamic: 0,
    sleeping: 0,
    kinetic: Number.NaN,
    bytesPerSecond: 0,
    fps: 0,
    tickP50: Number.NaN,
    tickP99: Number.NaN,
    predictionError: 0,
    sensors: new Map(),
    message: "",
    messageKind: "info",
  };
}

const ROWS: [keyof HudValues, string][] = [
  ["room", "room"],
  ["scenario", "scenario"],
  ["connection", "connection"],
  ["tickRate", "tick rate"],
  ["rttMs", "RTT"],
  ["delayMs", "interp delay"],
  ["bodies", "bodies"],
  ["kinetic", "kinetic energy"],
  ["bytesPerSecond", "in"],
  ["fps", "FPS"],
  ["tickP50", "server tick"],
  ["predictionError", "prediction err"],
  ["sensors", "sensors"],
];

/**
 * The sensors' counts from a room state into `out` (cleared first): every sensor body's `inside`, by its
 * id. A sensor's count arrives with it (0 until something enters).
 */
export function readSensorCounts(state: RoomState, out: Map<string, number>): void {
  out.clear();
  state.bodies.forEach((body, id) => {
    if ((body.kind & KIND_SENSOR) !== 0) out.set(id, body.inside ?? 0);
  });
}

/** "zone: 3 · goal: 0", or "" without sensors. */
export function formatSensorCounts(counts: ReadonlyMap<string, number>): string {
  let text = "";
  for (const [id, n] of counts) text += `${text ? " · " : ""}${id}: ${n}`;
  return text;
}

export class Hud {
  private readonly cells = new Map<keyof HudValues, HTMLElement>();
  /** The sensors row's label: shown only in a room that has sensors. */
  private readonly sensorsLabel: HTMLElement;
  private readonly message: HTMLElement;
  private readonly root: HTMLElement;

  constructor(root: HTMLElement) {
    this.root = root;
    const table = document.createElement("dl");
    for (const [key, label] of ROWS) {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.dataset.key = key;
      table.append(dt, dd);
      this.cells.set(key, dd);
    }
    this.sensorsLabel = this.cells.get("sensors")!.previousElementSibling as HTMLElement;
    this.message = document.createElement("div");
    this.message.className = "hud-message";
    this.message.setAttribute("role", "status");
    root.append(table, this.message);
  }

  update(v: HudValues): void {
    const set = (key: keyof HudValues, text: string) => {
      const el = this.cells.get(key)!;
      if (el.textContent !== text) el.textContent = text;
    };
    set("room", v.room || "–");
    set("scenario", v.scenario || "–");
    set("connection", v.connection);
    this.root.dataset.connection = v.connection.split(" ")[0];
    set("tickRate", v.tickRate ? `${v.tickRate} Hz · patches ${v.patchRateMs ? Math.round(1000 / v.patchRateMs) : "–"} Hz` : "–");
    set("rttMs", Number.isNaN(v.rttMs) ? "–" : `${Math.round(v.rttMs)} ms`);
    set("delayMs", Number.isNaN(v.delayMs) ? "–" : `${Math.round(v.delayMs)} ms (jitter ${Math.round(v.jitterMs)} ms)`);
    set("bodies", `${v.bodies} (${v.dynamic - v.sleeping} awake / ${v.sleeping} asleep)`);
    set("kinetic", Number.isNaN(v.kinetic) ? "–" : `${formatNumber(v.kinetic)} J`);
    set("bytesPerSecond", `${formatNumber(v.bytesPerSecond / 1024)} KiB/s`);
    set("fps", v.fps.toFixed(0));
    set("tickP50", Number.isNaN(v.tickP50) ? "–" : `p50 ${v.tickP50.toFixed(2)} ms · p99 ${v.tickP99.toFixed(2)} ms`);
    set("predictionError", `${(v.predictionError * 100).toFixed(1)} cm`);
    const sensors = formatSensorCounts(v.sensors);
    set("sensors", sensors);
    this.cells.get("sensors")!.hidden = this.sensorsLabel.hidden = sensors === "";
    if (this.message.textContent !== v.message) this.message.textContent = v.message;
    this.message.dataset.kind = v.messageKind;
  }
}
