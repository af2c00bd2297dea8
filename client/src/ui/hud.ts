import type { FieldValue } from "../../../shared/game/fields.ts";
import { KIND_SENSOR, type RoomState } from "../../../shared/net/index.ts";
import type { GameFields, GameListing } from "../net/games.ts";
import { formatNumber } from "./plot.ts";

/** One game or player field as the HUD shows it: its name, its label (the game's client.labels, else the name) and its value as text. */
export interface HudField {
  name: string;
  label: string;
  text: string;
}

/** Values the HUD shows; the app writes them, the HUD formats them a few times per second. */
export interface HudValues {
  room: string;
  /** The room's game (its name; "" before the welcome) and its description. */
  game: string;
  gameDescription: string;
  /** The game's fields, in the game's order. */
  gameFields: HudField[];
  /** The own player's fields. */
  ownFields: HudField[];
  /** The other players' fields, compactly ("" without other players or player fields). */
  players: string;
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
  /** Joints in the room now (a broken one is gone). */
  joints: number;
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
    game: "",
    gameDescription: "",
    gameFields: [],
    ownFields: [],
    players: "",
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
    joints: 0,
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
  ["joints", "joints"],
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
  /** The game's block above the room's figures: its name, its fields, the own player's, the others'. */
  private readonly gameTable: HTMLDListElement;
  private readonly gameCell: HTMLElement;
  private readonly playersLabel: HTMLElement;
  private readonly playersCell: HTMLElement;
  /** The field rows shown, as "g:name|p:name|…": rebuilt when it changes. */
  private fieldRows = "";
  private readonly fieldCells = new Map<string, HTMLElement>();
  /** The sensors row's label: shown only in a room that has sensors. */
  private readonly sensorsLabel: HTMLElement;
  /** The joints row's label: shown only in a room that has joints. */
  private readonly jointsLabel: HTMLElement;
  private readonly message: HTMLElement;
  private readonly root: HTMLElement;

  constructor(root: HTMLElement) {
    this.root = root;
    this.gameTable = document.createElement("dl");
    this.gameTable.className = "game";
    this.gameCell = row(this.gameTable, "game", "game");
    this.gameCell.dataset.key = "game";
    this.playersCell = row(this.gameTable, "players", "players");
    this.playersCell.dataset.key = "players";
    this.playersCell.className = "wrap";
    this.playersLabel = this.playersCell.previousElementSibling as HTMLElement;
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
    this.jointsLabel = this.cells.get("joints")!.previousElementSibling as HTMLElement;
    this.message = document.createElement("div");
    this.message.className = "hud-message";
    this.message.setAttribute("role", "status");
    root.append(this.gameTable, table, this.message);
  }

  /**
   * Rebuilds the field rows (between the game's name and the players row) when the set of fields or
   * their labels changed: fields can arrive in a patch before the game's listing brings their labels.
   */
  private layoutFields(v: HudValues): void {
    const key = [...v.gameFields.map((f) => `g:${f.name}=${f.label}`), ...v.ownFields.map((f) => `p:${f.name}=${f.label}`)].join("|");
    if (key === this.fieldRows) return;
    this.fieldRows = key;
    this.fieldCells.clear();
    // Everything between the game row and the players row goes.
    while (this.gameCell.nextElementSibling && this.gameCell.nextElementSibling !== this.playersLabel) this.gameCell.nextElementSibling.remove();
    const rows = document.createDocumentFragment();
    for (const f of v.gameFields) {
      const dd = row(rows, f.label, "");
      dd.dataset.field = f.name;
      this.fieldCells.set(`g:${f.name}`, dd);
    }
    v.ownFields.forEach((f, i) => {
      const dd = row(rows, f.label, "");
      dd.dataset.playerField = f.name;
      const dt = dd.previousElementSibling as HTMLElement;
      dt.className = "own";
      dt.title = "yours";
      // The first of the own fields opens the player's part of the block.
      if (i === 0) dt.classList.add("first");
      this.fieldCells.set(`p:${f.name}`, dd);
    });
    this.playersLabel.before(rows);
  }

  private updateGame(v: HudValues): void {
    const text = v.game || "–";
    if (this.gameCell.textContent !== text) this.gameCell.textContent = text;
    if (this.gameCell.title !== v.gameDescription) this.gameCell.title = v.gameDescription;
    this.layoutFields(v);
    const put = (key: string, text: string) => {
      const el = this.fieldCells.get(key);
      if (el && el.textContent !== text) el.textContent = text;
    };
    for (const f of v.gameFields) put(`g:${f.name}`, f.text);
    for (const f of v.ownFields) put(`p:${f.name}`, f.text);
    if (this.playersCell.textContent !== v.players) this.playersCell.textContent = v.players;
    this.playersCell.hidden = this.playersLabel.hidden = v.players === "";
  }

  update(v: HudValues): void {
    const set = (key: keyof HudValues, text: string) => {
      const el = this.cells.get(key)!;
      if (el.textContent !== text) el.textContent = text;
    };
    this.updateGame(v);
    set("room", v.room || "–");
    set("scenario", v.scenario || "–");
    set("connection", v.connection);
    this.root.dataset.connection = v.connection.split(" ")[0];
    set("tickRate", v.tickRate ? `${v.tickRate} Hz · patches ${v.patchRateMs ? Math.round(1000 / v.patchRateMs) : "–"} Hz` : "–");
    set("rttMs", Number.isNaN(v.rttMs) ? "–" : `${Math.round(v.rttMs)} ms`);
    set("delayMs", Number.isNaN(v.delayMs) ? "–" : `${Math.round(v.delayMs)} ms (jitter ${Math.round(v.jitterMs)} ms)`);
    set("bodies", `${v.bodies} (${v.dynamic - v.sleeping} awake / ${v.sleeping} asleep)`);
    set("joints", String(v.joints));
    this.cells.get("joints")!.hidden = this.jointsLabel.hidden = v.joints === 0;
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

/** Appends a dt/dd pair to `parent`; returns the dd. */
function row(parent: Node, label: string, text: string): HTMLElement {
  const dt = document.createElement("dt");
  dt.textContent = label;
  const dd = document.createElement("dd");
  dd.textContent = text;
  parent.appendChild(dt);
  parent.appendChild(dd);
  return dd;
}

/**
 * A game or player field's value as the HUD shows it: a whole number as it is, any other to two
 * decimals, true/false as yes/no, an empty string as "–", and a string naming a player in the room (a
 * leader, a winner) as "you" when it is the own session.
 */
export function formatField(value: FieldValue, ownSession: string): string {
  if (typeof value === "number") return Number.isInteger(value) ? String(value) : String(Math.round(value * 100) / 100);
  if (typeof value === "boolean") return value ? "yes" : "no";
  if (value === "") return "–";
  if (value === ownSession && ownSession !== "") return "you";
  return value;
}

/**
 * The HUD's game block from the room's game (its labels and declared fields) and the fields as the
 * room state has them now: every game field, the own player's fields, and the other players' in one
 * line ("abc: Team red · Goals 1; def: …"). Fields the listing declares come in its order, any others
 * after them.
 */
export function readGameFields(game: GameListing | null, fields: GameFields, ownSession: string, out: HudValues): void {
  const labels = game?.client.labels ?? {};
  const label = (name: string) => labels[name] ?? name;
  const ordered = (declared: Record<string, unknown> | undefined, values: ReadonlyMap<string, FieldValue> | undefined): HudField[] => {
    if (values === undefined) return [];
    const names = [...Object.keys(declared ?? {}).filter((n) => values.has(n)), ...[...values.keys()].filter((n) => !(declared && n in declared))];
    return names.map((name) => ({ name, label: label(name), text: formatField(values.get(name)!, ownSession) }));
  };
  out.gameFields = ordered(game?.state, fields.game);
  out.ownFields = ordered(game?.playerState, fields.players.get(ownSession));
  let players = "";
  for (const [session, values] of fields.players) {
    if (session === ownSession) continue;
    const text = ordered(game?.playerState, values)
      .map((f) => `${f.label} ${f.text}`)
      .join(" · ");
    players += `${players ? "; " : ""}${session}: ${text}`;
  }
  out.players = players;
}
