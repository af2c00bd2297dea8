import type { RejectedMessage, RoomInfo, RoomState, WelcomeMessage } from "../../../shared/net/index.ts";
import { getBuiltinScenario } from "../../../shared/scenarios/index.ts";
import type { AdminApi } from "../net/admin-api.ts";
import type { ConnectionState, RoomGoneError } from "../net/connection.ts";
import type { GameFields, GameListing } from "../net/games.ts";
import type { SnapshotBuffer } from "../net/snapshot-buffer.ts";
import { createEnergyReading, EnergyMeter } from "../sim/energy.ts";
import { createHudValues, Hud, type MessageKind, readGameFields, readSensorCounts } from "./hud.ts";
import { KnobsPanel } from "./knobs.ts";
import { LivePlot } from "./plot.ts";

/** How often the HUD text and the plots are redrawn, ms. */
const HUD_REFRESH_MS = 250;
/** How long a notice stays in the HUD, ms (a refusal a little longer: it is the answer to something the player did). */
const MESSAGE_MS = 6000;
const REFUSAL_MS = 8000;

export interface DashboardElements {
  hud: HTMLElement;
  knobs: HTMLElement;
  banner: HTMLElement;
  kePlot: HTMLCanvasElement;
  tickPlot: HTMLCanvasElement;
}

/** Live figures the dashboard samples when it redraws (read through getters: nothing is copied per frame). */
export interface LiveStats {
  readonly bytesIn: number;
  readonly rttMs: number;
  readonly delayMs: number;
  readonly jitterMs: number;
  readonly predictionError: number;
}

/**
 * Everything the player reads and turns: the HUD (connection, rates, bodies, kinetic energy, bandwidth,
 * FPS, and a notice line: what the page did, or what the server refused and why, for a few seconds),
 * the banner (lost connection, a room that is gone), the kinetic-energy and server-tick plots, and the
 * knobs panel. The kinetic energy is the client's own estimate from the two newest snapshots
 * (sim/energy.ts), plotted beside the engine's exact figure from the room's info.
 */
export class Dashboard {
  readonly values = createHudValues();
  readonly energy = new EnergyMeter();
  readonly reading = createEnergyReading();
  /** Largest kinetic energy read since the scenario last changed, joules. */
  kineticPeak = 0;
  private readonly hud: Hud;
  private readonly knobs: KnobsPanel;
  private readonly kePlot: LivePlot;
  private readonly tickPlot: LivePlot;
  private readonly banner: HTMLElement;
  private fpsFrames = 0;
  private fpsSince = 0;
  private bytesMark = 0;
  private bytesSince = 0;
  private hudSince = 0;
  /** When the notice shown goes away (performance.now() ms), and how often the same refusal came in a row. */
  private messageUntil = Number.POSITIVE_INFINITY;
  private repeats = 0;
  /** What the game block was last read from (the game, the fields' version, the own session). */
  private fieldsRead: { game: GameListing | null; version: number; session: string } = { game: null, version: -1, session: "" };

  constructor(el: DashboardElements, admin: AdminApi, roomId: () => string) {
    this.hud = new Hud(el.hud);
    this.banner = el.banner;
    this.kePlot = new LivePlot(el.kePlot, {
      title: "kinetic energy",
      unit: "J",
      log: true,
      floor: 1e-4,
      capacity: 600,
      series: [
        { color: "#ffb347", label: "client" },
        { color: "#7fd1ff", label: "server" },
      ],
    });
    this.tickPlot = new LivePlot(el.tickPlot, {
      title: "server tick",
      unit: "ms",
      capacity: 120,
      series: [
        { color: "#9be37d", label: "p50" },
        { color: "#ff6f6f", label: "p99" },
      ],
    });
    this.knobs = new KnobsPanel(el.knobs, admin, roomId, (m) => this.say(m));
  }

  /** A notice in the HUD for a few seconds. */
  say(message: string, kind: MessageKind = "info", ms = MESSAGE_MS): void {
    const v = this.values;
    v.message = message;
    v.messageKind = kind;
    this.repeats = 1;
    this.messageUntil = performance.now() + ms;
  }

  /** The server refused one of our messages: the reason, in the HUD (a run of the same one is counted, not repeated). */
  refused(m: RejectedMessage): void {
    const text = `server refused ${m.type === "*" ? "input" : m.type}: ${m.reason}`;
    const v = this.values;
    const again = v.messageKind === "refused" && v.message.startsWith(text) && performance.now() < this.messageUntil;
    const repeats = again ? this.repeats + 1 : 1;
    this.say(repeats > 1 ? `${text} (×${repeats})` : text, "refused", REFUSAL_MS);
    this.repeats = repeats;
  }

  connection(state: ConnectionState, detail: string): void {
    this.values.connection = detail ? `${state} · ${detail}` : state;
    this.banner.hidden = state === "connected";
    this.banner.textContent = detail || state;
  }

  /**
   * The room the address asked for is closed (a saved link): the banner says so and offers a new room of
   * the scenario the link remembered (when it did) and the lobby.
   */
  roomGone(err: RoomGoneError): void {
    const banner = this.banner;
    banner.replaceChildren(`Room ${err.roomId} is closed.`);
    if (err.scenario || err.game) {
      const query = new URLSearchParams();
      if (err.game) query.set("game", err.game);
      if (err.scenario) query.set("scenario", err.scenario);
      banner.append(" ", link(`?${query}`, `Start a new ${[err.game, err.scenario].filter(Boolean).join(" ")} room`, "new-room"));
    }
    banner.append(" ", link("/", "Go to the lobby", "lobby"));
    banner.hidden = false;
  }

  room(roomId: string): void {
    this.values.room = roomId;
  }

  welcome(w: WelcomeMessage): void {
    this.values.patchRateMs = w.patchRateMs;
    if (w.game !== this.values.game) {
      this.values.game = w.game;
      this.values.gameDescription = "";
    }
    this.knobs.sync(w.settings, this.values.scenario);
  }

  /** The room's game as listed (GET /games): its name and description. */
  game(game: GameListing): void {
    this.values.game = game.name;
    this.values.gameDescription = game.description;
  }

  /** The game block: the game's fields and the players', when they (or the game, or the seat) changed. */
  gameFields(game: GameListing | null, fields: GameFields, ownSession: string): void {
    const last = this.fieldsRead;
    if (last.game === game && last.version === fields.version && last.session === ownSession) return;
    this.fieldsRead = { game, version: fields.version, session: ownSession };
    readGameFields(game, fields, ownSession, this.values);
  }

  /** A patch went into the snapshot buffer: energy readout, its plot, and the HUD's room figures. */
  snapshot(state: RoomState, scenarioChanged: boolean, buffer: SnapshotBuffer, bodyCount: number, serverKinetic: number): void {
    if (scenarioChanged) {
      this.energy.setScenario(getBuiltinScenario(state.scenario));
      this.kePlot.clear();
      this.kineticPeak = 0;
    }
    const r = this.reading;
    this.energy.measure(buffer, r);
    if (r.kinetic > this.kineticPeak) this.kineticPeak = r.kinetic;
    this.kePlot.push(r.kinetic, serverKinetic);
    const v = this.values;
    v.scenario = state.scenario;
    v.tickRate = state.tickRate || 60;
    v.bodies = bodyCount;
    v.dynamic = r.dynamic;
    v.sleeping = r.sleeping;
    v.kinetic = r.kinetic;
    v.joints = state.joints?.size ?? 0;
    readSensorCounts(state, v.sensors);
  }

  /** The room's info (polled every second): server tick times, and the knobs show its settings. */
  info(info: RoomInfo): void {
    this.values.tickP50 = info.tickMsP50;
    this.values.tickP99 = info.tickMsP99;
    this.tickPlot.push(this.values.tickP50, this.values.tickP99);
    this.knobs.sync(info.settings, info.scenario);
  }

  /** Every frame: FPS and bandwidth once a second, the HUD and plots a few times a second. */
  frame(now: number, live: LiveStats): void {
    this.fpsFrames++;
    if (now - this.fpsSince >= 1000) {
      this.values.fps = (this.fpsFrames * 1000) / (now - this.fpsSince);
      this.fpsFrames = 0;
      this.fpsSince = now;
      this.values.bytesPerSecond = ((live.bytesIn - this.bytesMark) * 1000) / (now - this.bytesSince || 1);
      this.bytesMark = live.bytesIn;
      this.bytesSince = now;
    }
    if (now - this.hudSince >= HUD_REFRESH_MS) {
      this.hudSince = now;
      const v = this.values;
      if (now >= this.messageUntil) {
        v.message = "";
        this.messageUntil = Number.POSITIVE_INFINITY;
      }
      v.rttMs = live.rttMs;
      v.delayMs = live.delayMs;
      v.jitterMs = live.jitterMs;
      v.predictionError = live.predictionError;
      this.hud.update(v);
      this.kePlot.draw();
      this.tickPlot.draw();
    }
  }
}

function link(href: string, text: string, className: string): HTMLAnchorElement {
  const a = document.createElement("a");
  a.href = href;
  a.textContent = text;
  a.className = className;
  return a;
}
