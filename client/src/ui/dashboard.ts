import type { RoomInfo, RoomState, WelcomeMessage } from "../../../shared/net/index.ts";
import { getBuiltinScenario } from "../../../shared/scenarios/index.ts";
import type { AdminApi } from "../net/admin-api.ts";
import type { ConnectionState } from "../net/connection.ts";
import type { SnapshotBuffer } from "../net/snapshot-buffer.ts";
import { createEnergyReading, EnergyMeter } from "../sim/energy.ts";
import { createHudValues, Hud } from "./hud.ts";
import { KnobsPanel } from "./knobs.ts";
import { LivePlot } from "./plot.ts";

/** How often the HUD text and the plots are redrawn, ms. */
const HUD_REFRESH_MS = 250;

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
 * Everything the player reads and turns: the HUD (connection, rates, bodies, energy, bandwidth, FPS),
 * the disconnect banner, the kinetic-energy and server-tick plots, and the knobs panel. The kinetic
 * energy is the client's own estimate from the two newest snapshots (sim/energy.ts).
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

  /** `gravity`: the room's gravity as the session keeps it (potential energy uses it). */
  constructor(el: DashboardElements, admin: AdminApi, roomId: () => string, gravity: [number, number, number]) {
    this.energy.gravity = gravity;
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

  say(message: string): void {
    this.values.message = message;
  }

  connection(state: ConnectionState, detail: string): void {
    this.values.connection = detail ? `${state} · ${detail}` : state;
    this.banner.hidden = state === "connected";
    this.banner.textContent = detail || state;
  }

  room(roomId: string): void {
    this.values.room = roomId;
  }

  welcome(w: WelcomeMessage): void {
    this.values.patchRateMs = w.patchRateMs;
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
    v.mechanical = r.kinetic + r.potential;
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
