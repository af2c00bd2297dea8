import type { AvatarSpec } from "../../shared/game/define.ts";
import { MSG_IMPULSE, MSG_RESTART, MSG_SPAWN, type RoomState } from "../../shared/net/index.ts";
import { type JoinTarget, RoomGoneError } from "./net/connection.ts";
import type { GameListing } from "./net/games.ts";
import { RoomSession } from "./net/room-session.ts";
import { SceneView } from "./render/scene-view.ts";
import { keyName, ViewButtons } from "./render/view-buttons.ts";
import { Motion } from "./sim/motion.ts";
import { Dashboard, type DashboardElements, type LiveStats } from "./ui/dashboard.ts";
import { InputPolicy } from "./ui/input-policy.ts";

export interface AppElements extends DashboardElements {
  canvas: HTMLCanvasElement;
  /** The line of help under the HUD: the room's game's (client.help), else what the game's inputs and keys do. */
  help?: HTMLElement | null;
}

/**
 * The browser client, composed of: the room session (connection, messages, snapshots), the motion
 * (interpolated bodies, predicted own avatar), the input policy (keys and clicks → messages), the
 * dashboard (HUD, plots, knobs panel) and the three.js view. This class only wires them together and
 * runs the frame loop.
 */
export class PhysicsApp {
  readonly view: SceneView;
  readonly session: RoomSession;
  readonly motion: Motion;
  readonly controls: InputPolicy;
  readonly dashboard: Dashboard;
  readonly buttons: ViewButtons;
  framesRendered = 0;
  private readonly live: LiveStats;
  /** A new seat: frame the scene with the next snapshot (which holds its camera hint). */
  private framePending = false;
  private readonly help: HTMLElement | null;

  constructor(el: AppElements, endpoint: string) {
    this.help = el.help ?? null;
    this.view = new SceneView(el.canvas);
    const session = (this.session = new RoomSession(endpoint));
    const motion = (this.motion = new Motion(session.snapshots));
    this.dashboard = new Dashboard(el, session.admin, () => session.room?.roomId ?? "");
    this.controls = new InputPolicy(el.canvas, session, this.view, motion, (m) => this.say(m));
    this.buttons = new ViewButtons(
      document.body,
      () => (this.view.follow = !this.view.follow),
      () => this.restart(),
    );
    this.live = {
      get bytesIn() {
        return session.conn.bytesIn;
      },
      get rttMs() {
        return session.conn.rttMs;
      },
      get delayMs() {
        return session.snapshots.clock.delayMs;
      },
      get jitterMs() {
        return session.snapshots.clock.jitterMs;
      },
      get predictionError() {
        return motion.predictor.lastError;
      },
    };
    this.wire();
    const resize = () => this.view.resize(el.canvas.clientWidth, el.canvas.clientHeight, coveredLeft(el.hud, el.canvas.clientWidth));
    window.addEventListener("resize", resize);
    resize();
    requestAnimationFrame(this.frame);
  }

  private wire(): void {
    const { session, view, dashboard } = this;
    session.conn.onStateChange = (state, detail) => dashboard.connection(state, detail);
    session.onSeat = (room, newSession) => {
      dashboard.room(room.roomId);
      if (newSession) {
        this.motion.detach();
        view.clear();
      }
      view.refreshAvatar(session.avatarId);
      this.controls.reset();
      if (newSession) this.framePending = true;
    };
    session.onWelcome = (w) => {
      dashboard.welcome(w);
      if (w.avatar) this.motion.predictor.setSpec(w.avatar);
      this.controls.setGame(session.game);
      view.refreshAvatar(w.avatarId);
    };
    session.onGame = (game) => {
      dashboard.game(game);
      dashboard.gameFields(game, session.fields, session.room?.sessionId ?? "");
      this.controls.setGame(game);
      this.buttons.setGame(game, (input) => session.sendInput(input, {}));
      if (this.help) this.help.textContent = helpText(game, session.avatar);
    };
    session.onSnapshot = (state, scenarioChanged) => {
      const feed = session.snapshots;
      if (scenarioChanged || this.framePending) {
        this.framePending = false;
        view.requestFraming(cameraHint(state));
      }
      if (feed.avatarSeen) this.motion.serverAvatar(state.tick, session.room?.sessionId ?? "", session.avatarId, feed.avatarServer);
      dashboard.snapshot(state, scenarioChanged, feed.buffer, feed.bodyCount, session.info?.kineticEnergy ?? Number.NaN);
      dashboard.gameFields(session.game, session.fields, session.room?.sessionId ?? "");
    };
    session.onInfo = (info) => dashboard.info(info);
    session.onRejected = (m) => dashboard.refused(m);
  }

  /** Joins; a saved link to a room since closed is answered in the banner (a new room of its scenario, the lobby), not thrown. */
  async join(target: JoinTarget): Promise<void> {
    try {
      await this.session.join(target);
    } catch (err) {
      if (!(err instanceof RoomGoneError)) throw err;
      this.dashboard.roomGone(err);
    }
  }

  /** Asks the server to reload the room's scenario (for everyone in the room), in a game that restarts so. */
  restart(): void {
    if (!this.session.hasInput(MSG_RESTART)) return;
    this.session.sendInput(MSG_RESTART, {});
    this.say("restart requested");
  }

  say(message: string): void {
    this.dashboard.say(message);
  }

  private readonly frame = (now: number): void => {
    requestAnimationFrame(this.frame);
    this.motion.advance(now, this.tick);
    this.motion.draw(now, this.view, this.session.avatarId);
    this.view.render();
    this.buttons.showMode(this.view.follow);
    this.framesRendered++;
    this.dashboard.frame(now, this.live);
  };

  /** One local tick: the input policy sends what the keys ask for, the prediction runs with what was sent. */
  private readonly tick = (now: number): void => {
    const jump = this.controls.tick(now);
    this.motion.predict(now, this.controls.sentVx, this.controls.sentVz, jump, this.session.conn.rttMs);
  };
}

/**
 * The help line for a game: its own (client.help), else what works in it: walking and jumping with an
 * avatar, the sandbox's click and shift-click, the game's keys; then the camera's.
 */
export function helpText(game: GameListing, avatar: AvatarSpec | null): string {
  if (game.client.help) return `${game.client.help} · drag orbits · F follow`;
  const parts: string[] = [];
  if (avatar) parts.push("WASD / arrows move", ...(avatar.jumpSpeed > 0 ? ["space jumps"] : []));
  const has = (name: string) => game.inputs.some((i) => i.name === name);
  if (has(MSG_SPAWN)) parts.push("click spawns a ball");
  if (has(MSG_IMPULSE)) parts.push("shift-click pushes");
  for (const k of game.client.keys) parts.push(`${keyName(k.key)}: ${game.inputs.find((i) => i.name === k.input)?.label ?? k.input}`);
  parts.push("drag orbits", "F follow");
  return parts.join(" · ");
}

/** The scenario's camera hint from the room state (position then target), or null. */
function cameraHint(state: RoomState): number[] | null {
  const c = state.camera;
  return c && c.length === 6 ? Array.from(c) : null;
}

/**
 * How far from the window's left edge the HUD's panel reaches, px, when the window is wide enough for
 * the view to make room for it (else 0: on a narrow screen the scene keeps the middle of the window).
 */
function coveredLeft(hud: HTMLElement, width: number): number {
  const panel = hud.parentElement ?? hud;
  const right = panel.getBoundingClientRect().right;
  return right > 0 && width > 2.2 * right ? right : 0;
}
