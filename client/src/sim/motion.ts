import type { Vec3Tuple } from "../../../shared/engine/index.ts";
import type { SnapshotFeed } from "../net/snapshot-feed.ts";
import { createPose, sampleTrack } from "../net/snapshot-buffer.ts";
import type { SceneView } from "../render/scene-view.ts";
import { AvatarPredictor } from "./avatar-predictor.ts";

/** Local ticks run in one frame at most; after a longer stall the backlog is dropped, not replayed. */
const MAX_TICKS_PER_FRAME = 8;
/** Longest frame gap counted, ms (a background tab must not come back to seconds of ticks). */
const MAX_FRAME_GAP_MS = 250;

/**
 * Where things are drawn: every body interpolated from the snapshot buffer at the server clock's render
 * time (an adaptive delay behind the server), except the own avatar, which is predicted at the room's
 * tick rate with the input just sent and reconciled with the server's positions as they arrive.
 */
export class Motion {
  readonly predictor: AvatarPredictor;
  private readonly feed: SnapshotFeed;
  private lastFrame = Number.NaN;
  /** Frame time not yet run as local ticks, ms. */
  private accumulator = 0;
  // Per-frame scratch (no allocation in the loop).
  private readonly pose = createPose();
  private readonly avatarPos: Vec3Tuple = [0, 0, 0];

  constructor(feed: SnapshotFeed) {
    this.feed = feed;
    this.predictor = new AvatarPredictor(feed.mirror);
  }

  /** Runs the local ticks due since the last frame (`tick` reads the input and calls `predict`). */
  advance(now: number, tick: (now: number) => void): void {
    const tickMs = this.feed.tickMs;
    const dt = Number.isNaN(this.lastFrame) ? 0 : Math.min(MAX_FRAME_GAP_MS, now - this.lastFrame);
    this.lastFrame = now;
    this.accumulator += dt;
    let steps = 0;
    while (this.accumulator >= tickMs && steps < MAX_TICKS_PER_FRAME) {
      tick(now);
      this.accumulator -= tickMs;
      steps++;
    }
    if (steps === MAX_TICKS_PER_FRAME) this.accumulator = 0;
  }

  /** One predicted tick with the input the server was sent, stamped with the tick the server should apply it at. */
  predict(now: number, vx: number, vz: number, jump: boolean, rttMs: number): void {
    this.predictor.setInput(vx, vz, jump);
    // The full state arrives before the welcome: no tick runs under a gravity that may not be the room's.
    if (!this.feed.settingsKnown) return;
    const tickMs = this.feed.tickMs;
    const rtt = Number.isNaN(rttMs) ? 0 : rttMs;
    const serverNow = this.feed.clock.serverNow(now);
    if (!Number.isNaN(serverNow)) this.predictor.step(serverNow / tickMs + rtt / tickMs + 1);
  }

  /** The newest snapshot had the own avatar at `position` (tick `tick`): start predicting it, or reconcile. */
  serverAvatar(tick: number, sessionId: string, avatarId: string, position: Vec3Tuple): void {
    const [x, y, z] = position;
    if (!this.predictor.attached) this.predictor.attach(sessionId, avatarId, [x, y, z]);
    else this.predictor.reconcile(tick, x, y, z);
  }

  /** A different seat: the avatar predicted so far is not ours any more. */
  detach(): void {
    this.predictor.detach();
  }

  /** The own avatar's handle in the world mirror (-1 when not predicting), to leave it out of raycasts. */
  ownHandle(): number {
    return this.predictor.avatar?.handle ?? -1;
  }

  /** Where the own avatar is now: predicted, else the server's newest position. */
  avatarPosition(): Vec3Tuple {
    return this.predictor.attached ? this.predictor.current : this.feed.avatarServer;
  }

  /**
   * Poses every mesh for this frame (bodies gone from the buffer are removed from the view), then draws
   * the joints between them as posed.
   */
  draw(now: number, view: SceneView, avatarId: string): void {
    const { buffer, clock } = this.feed;
    const render = clock.update(now);
    if (Number.isNaN(render)) return;
    for (const id of buffer.prune(render)) view.remove(id);
    const pose = this.pose;
    const predicting = this.predictor.attached;
    for (const track of buffer.tracks.values()) {
      const entry = view.ensure(track);
      if (predicting && track.id === avatarId) {
        // The own avatar is drawn where the prediction has it now, not an interpolation delay ago.
        this.predictor.renderPosition(this.accumulator / this.feed.tickMs, this.avatarPos);
        pose.x = this.avatarPos[0];
        pose.y = this.avatarPos[1];
        pose.z = this.avatarPos[2];
        pose.qx = pose.qy = pose.qz = 0;
        pose.qw = 1;
        pose.sleeping = false;
        view.setPose(entry, pose);
        view.followPoint(pose.x, pose.y, pose.z);
      } else if (sampleTrack(track, render, buffer.maxExtrapolationMs, pose)) {
        view.setPose(entry, pose);
      } else {
        entry.mesh.visible = false;
      }
    }
    this.feed.joints.prune(render);
    view.drawJoints(this.feed.joints, render);
  }
}
