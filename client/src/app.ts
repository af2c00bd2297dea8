import type { JoinTarget } from "./net/connection.ts";
import { RoomSession } from "./net/room-session.ts";
import { SceneView } from "./render/scene-view.ts";
import { Motion } from "./sim/motion.ts";
import { Dashboard, type DashboardElements, type LiveStats } from "./ui/dashboard.ts";
import { InputPolicy } from "./ui/input-policy.ts";

export interface AppElements extends DashboardElements {
  canvas: HTMLCanvasElement;
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
  framesRendered = 0;
  private readonly live: LiveStats;

  constructor(el: AppElements, endpoint: string) {
    this.view = new SceneView(el.canvas);
    const session = (this.session = new RoomSession(endpoint));
    const motion = (this.motion = new Motion(session.snapshots));
    this.dashboard = new Dashboard(el, session.admin, () => session.room?.roomId ?? "", session.gravity);
    this.controls = new InputPolicy(el.canvas, session, this.view, motion, (m) => this.say(m));
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
    const resize = () => this.view.resize(el.canvas.clientWidth, el.canvas.clientHeight);
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
    };
    session.onWelcome = (w) => {
      dashboard.welcome(w);
      view.refreshAvatar(w.avatarId);
    };
    session.onSnapshot = (state, scenarioChanged) => {
      const feed = session.snapshots;
      if (feed.avatarSeen) this.motion.serverAvatar(state.tick, session.room?.sessionId ?? "", session.avatarId, feed.avatarServer);
      dashboard.snapshot(state, scenarioChanged, feed.buffer, feed.bodyCount, session.info?.kineticEnergy ?? Number.NaN);
    };
    session.onInfo = (info) => dashboard.info(info);
  }

  async join(target: JoinTarget): Promise<void> {
    await this.session.join(target);
  }

  say(message: string): void {
    this.dashboard.say(message);
  }

  private readonly frame = (now: number): void => {
    requestAnimationFrame(this.frame);
    this.motion.advance(now, this.tick);
    this.motion.draw(now, this.view, this.session.avatarId);
    this.view.render();
    this.framesRendered++;
    this.dashboard.frame(now, this.live);
  };

  /** One local tick: the input policy sends what the keys ask for, the prediction runs with what was sent. */
  private readonly tick = (now: number): void => {
    const jump = this.controls.tick(now);
    this.motion.predict(now, this.controls.sentVx, this.controls.sentVz, jump, this.session.conn.rttMs);
  };
}
