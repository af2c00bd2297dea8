import { SceneView } from "../render/scene-view.ts";
import { ReplayPanel, type PanelElements } from "./panel.ts";
import { parseReplay } from "./replay-file.ts";
import { ReplayPlayer } from "./replay-player.ts";
import { ReplayScene } from "./replay-scene.ts";
import { Timeline } from "./timeline.ts";

/**
 * Verification runs in slices of this many ms as tasks of their own (not in the frame callback), so the
 * page stays responsive and a slow renderer (software WebGL) does not slow the verification down.
 */
const VERIFY_SLICE_MS = 40;
/** Simulation work per frame while playing, ms: faster speeds than the machine can step fall behind. */
const PLAY_BUDGET_MS = 30;
export const SPEEDS = [0.25, 0.5, 1, 2, 4];

export interface ReplayElements extends PanelElements {
  canvas: HTMLCanvasElement;
  timeline: HTMLCanvasElement;
  drop: HTMLElement;
}

export type ViewerState = "empty" | "loading" | "verifying" | "done" | "error";

/**
 * The replay viewer: loads a replay (text from the server or a dropped file), verifies it by
 * re-simulating in slices between frames, and plays and scrubs it: play/pause, speed, tick steps, the
 * timeline. Rendering reuses the main client's SceneView.
 */
export class ReplayApp {
  readonly view: SceneView;
  readonly scene: ReplayScene;
  private readonly panel: ReplayPanel;
  private readonly timeline: Timeline;
  private readonly el: ReplayElements;
  player: ReplayPlayer | null = null;
  state: ViewerState = "empty";
  error: string | null = null;
  source = "";
  playing = false;
  speed = 1;
  /** Fractional ticks owed to playback. */
  private owed = 0;
  private lastFrame = 0;
  private drawnTick = -1;
  private drawnHighlight = "";
  private diverging = new Set<string>();
  /** Something on screen changed (world, camera, size): render on the next frame. */
  private dirty = true;
  private timelineKey = "";
  private readonly verifyChannel = new MessageChannel();

  constructor(el: ReplayElements) {
    this.el = el;
    this.view = new SceneView(el.canvas);
    this.scene = new ReplayScene(this.view);
    this.panel = new ReplayPanel(el);
    this.timeline = new Timeline(el.timeline, (t) => this.seek(t), () => this.player?.ticks ?? 0);
    const resize = () => {
      this.view.resize(window.innerWidth, window.innerHeight);
      this.dirty = true;
      this.timelineKey = "";
    };
    window.addEventListener("resize", resize);
    resize();
    this.view.controls.addEventListener("change", () => {
      this.dirty = true;
    });
    this.verifyChannel.port1.onmessage = () => this.verifySlice();
    requestAnimationFrame((t) => this.frame(t));
  }

  /** One slice of verification, then the next one as a new task until the replay is verified. */
  private verifySlice(): void {
    const player = this.player;
    if (!player || player.verified) return;
    player.verifySlice(VERIFY_SLICE_MS);
    if (player.verified) this.state = player.error ? "error" : "done";
    else this.verifyChannel.port2.postMessage(null);
  }

  /** Shows a message in place of the replay (bad file, unknown room…). */
  fail(message: string): void {
    this.state = "error";
    this.error = message;
    this.el.status.textContent = message;
    this.el.status.className = "bad";
  }

  /** Loads replay text; a parse error is shown, not thrown. */
  load(text: string, source: string): void {
    this.state = "loading";
    this.source = source;
    this.error = null;
    this.playing = false;
    let player: ReplayPlayer;
    try {
      player = new ReplayPlayer(parseReplay(text));
    } catch (err) {
      this.fail(`${source}: ${(err as Error).message}`);
      return;
    }
    this.player = player;
    this.state = "verifying";
    this.el.drop.hidden = true;
    this.drawnTick = -1;
    const camera = player.data.header.scenario.camera;
    if (camera) {
      this.view.camera.position.set(...camera.position);
      this.view.controls.target.set(...camera.target);
      this.view.controls.update();
    }
    this.panel.loaded(source, player);
    player.seek(0);
    this.dirty = true;
    this.verifyChannel.port2.postMessage(null);
  }

  seek(tick: number): void {
    if (!this.player) return;
    this.player.seek(tick);
    this.owed = 0;
  }

  stepBy(n: number): void {
    if (!this.player) return;
    this.playing = false;
    this.seek(this.player.tick + n);
  }

  togglePlay(): void {
    if (!this.player) return;
    if (!this.playing && this.player.tick >= this.player.ticks) this.seek(0);
    this.playing = !this.playing;
    this.owed = 0;
  }

  private frame(now: number): void {
    const dt = this.lastFrame === 0 ? 0 : Math.min(0.25, (now - this.lastFrame) / 1000);
    this.lastFrame = now;
    const player = this.player;
    if (player) {
      if (this.playing) this.advance(player, dt);
      this.drawWorld(player);
      this.panel.update(player, this.playing, this.speed);
      this.drawTimeline(player);
    }
    if (this.dirty) {
      this.dirty = false;
      this.view.followPoint(0, 0, 0);
      this.view.render();
    }
    requestAnimationFrame((t) => this.frame(t));
  }

  private drawTimeline(player: ReplayPlayer): void {
    const key = `${player.tick}|${Math.floor(player.verifiedTo / 30)}|${player.verified}|${player.divergence?.tick}`;
    if (key === this.timelineKey) return;
    this.timelineKey = key;
    this.timeline.draw({
      ticks: player.ticks,
      inputs: player.data.inputs,
      keyframeTicks: [...player.data.keyframes.keys()],
      status: player.status,
      divergenceTick: player.divergence?.tick ?? null,
      cursor: player.tick,
    });
  }

  private advance(player: ReplayPlayer, dt: number): void {
    this.owed += dt * this.speed * player.data.header.tickRate;
    const start = performance.now();
    while (this.owed >= 1 && player.tick < player.ticks && performance.now() - start < PLAY_BUDGET_MS) {
      player.seek(player.tick + 1);
      this.owed -= 1;
    }
    // Behind (a speed the machine cannot step): drop the debt instead of piling it up.
    if (this.owed > 2) this.owed = 0;
    if (player.tick >= player.ticks) this.playing = false;
  }

  /** Puts the cursor's world into the scene when the tick or the highlighted set changed. */
  drawWorld(player: ReplayPlayer): void {
    const ids = player.divergingBodies();
    const key = ids.join(",");
    if (player.tick === this.drawnTick && key === this.drawnHighlight) return;
    this.diverging = new Set(ids);
    this.scene.draw(player.cursor.world, this.diverging);
    this.dirty = true;
    this.drawnTick = player.tick;
    this.drawnHighlight = key;
  }
}
