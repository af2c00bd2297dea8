import type { Vec3Tuple } from "../../shared/engine/index.ts";
import {
  type BodyState,
  dequantizeAxis,
  dequantizeRotation,
  LIMITS,
  MSG_IMPULSE,
  MSG_MOVE,
  MSG_SPAWN,
  type RoomState,
  type WelcomeMessage,
} from "../../shared/net/index.ts";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { AVATAR, avatarBodyId } from "../../shared/sim/index.ts";
import { AdminApi, type RoomInfo } from "./net/admin-api.ts";
import { Connection, type JoinTarget, type PhysicsRoom } from "./net/connection.ts";
import { ServerClock } from "./net/server-clock.ts";
import { createPose, SnapshotBuffer, sampleTrack } from "./net/snapshot-buffer.ts";
import { SceneView } from "./render/scene-view.ts";
import { AvatarPredictor } from "./sim/avatar-predictor.ts";
import { createEnergyReading, EnergyMeter } from "./sim/energy.ts";
import { WorldMirror } from "./sim/world-mirror.ts";
import { createHudValues, Hud } from "./ui/hud.ts";
import { type ClickEvent, Input } from "./ui/input.ts";
import { KnobsPanel } from "./ui/knobs.ts";
import { LivePlot } from "./ui/plot.ts";

/** Speed given to a body pushed with shift-click, m/s (capped by the impulse limit). */
const PUSH_SPEED = 6;
/** Launch speed of a clicked sphere, m/s, and its radius, metres. */
const SPAWN_SPEED = 12;
const SPAWN_RADIUS = 0.3;
/** Move messages are sent at most this often while the direction changes (the server keeps the last one). */
const MOVE_SEND_MS = 50;
/** ...and repeated this often even when nothing changes (cheap insurance after a reconnect). */
const MOVE_REPEAT_MS = 1000;
const INFO_POLL_MS = 1000;

export interface AppElements {
  canvas: HTMLCanvasElement;
  hud: HTMLElement;
  knobs: HTMLElement;
  banner: HTMLElement;
  kePlot: HTMLCanvasElement;
  tickPlot: HTMLCanvasElement;
}

/**
 * The browser client: joins a room, feeds every decoded patch into the snapshot buffer (rendering), the
 * world mirror (prediction and raycasts) and the energy meter, predicts the own avatar, and draws.
 */
export class PhysicsApp {
  readonly admin = new AdminApi();
  readonly conn: Connection;
  readonly view: SceneView;
  readonly buffer = new SnapshotBuffer();
  readonly clock = new ServerClock({ patchIntervalMs: 50, tickMs: 1000 / 60 });
  readonly mirror = new WorldMirror();
  readonly predictor: AvatarPredictor;
  readonly energy = new EnergyMeter();
  readonly reading = createEnergyReading();
  readonly hudValues = createHudValues();
  private readonly hud: Hud;
  private readonly knobs: KnobsPanel;
  private readonly kePlot: LivePlot;
  private readonly tickPlot: LivePlot;
  private readonly input: Input;
  private readonly banner: HTMLElement;

  room: PhysicsRoom | null = null;
  avatarId = "";
  joined = false;
  /** Bodies in the newest snapshot. */
  bodyCount = 0;
  readonly avatarServer: Vec3Tuple = [Number.NaN, Number.NaN, Number.NaN];
  private avatarSeen = false;
  private lastBodies: unknown = null;
  private lastScenario = "";
  private tickMs = 1000 / 60;
  private lastInfo: RoomInfo | null = null;

  // Per-frame scratch (no allocation in the loop).
  private readonly pose = createPose();
  private readonly q = [0, 0, 0, 1];
  private readonly avatarPos: Vec3Tuple = [0, 0, 0];
  private readonly axes = { forward: 0, right: 0 };
  private readonly ground = { fx: 0, fz: 1, rx: 1, rz: 0 };
  private readonly rayOrigin = [0, 0, 0];
  private readonly rayDir = [0, 0, 1];
  private lastFrame = Number.NaN;
  private accumulator = 0;
  private sentVx = 0;
  private sentVz = 0;
  private lastMoveSent = 0;
  private fpsFrames = 0;
  private fpsSince = 0;
  private bytesMark = 0;
  private bytesSince = 0;
  private hudSince = 0;
  framesRendered = 0;
  /** Largest kinetic energy read since the scenario last changed, joules. */
  kineticPeak = 0;

  constructor(el: AppElements, endpoint: string) {
    this.view = new SceneView(el.canvas);
    this.predictor = new AvatarPredictor(this.mirror);
    this.conn = new Connection(endpoint, this.admin);
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
    this.knobs = new KnobsPanel(el.knobs, this.admin, () => this.room?.roomId ?? "", (m) => this.say(m));
    this.input = new Input(el.canvas);
    this.input.onClick = (e) => this.click(e);
    this.input.onToggleFollow = () => (this.view.follow = !this.view.follow);
    this.conn.onRoom = (room) => this.attachRoom(room);
    this.conn.onWelcome = (w) => this.welcome(w);
    this.conn.onStateChange = (state, detail) => {
      this.hudValues.connection = detail ? `${state} · ${detail}` : state;
      this.banner.hidden = state === "connected";
      this.banner.textContent = detail || state;
    };
    const resize = () => this.view.resize(el.canvas.clientWidth, el.canvas.clientHeight);
    window.addEventListener("resize", resize);
    resize();
    setInterval(() => void this.pollInfo(), INFO_POLL_MS);
    requestAnimationFrame(this.frame);
  }

  async join(target: JoinTarget): Promise<void> {
    await this.conn.join(target);
  }

  say(message: string): void {
    this.hudValues.message = message;
  }

  // ---------------------------------------------------------------- room and state

  private attachRoom(room: PhysicsRoom): void {
    const fresh = this.room !== null && this.room.roomId !== room.roomId;
    const newSession = this.room === null || this.room.sessionId !== room.sessionId || fresh;
    this.room = room;
    this.hudValues.room = room.roomId;
    if (newSession) {
      // A different seat: everything known so far belongs to the old one.
      this.buffer.clear();
      this.clock.reset();
      this.mirror.rebuild(1000 / this.tickMs);
      this.predictor.detach();
      this.view.clear();
      this.lastBodies = null;
      this.avatarSeen = false;
    }
    this.avatarId = avatarBodyId(room.sessionId);
    this.view.refreshAvatar(this.avatarId);
    room.onStateChange((state) => this.ingest(state));
    this.joined = true;
    const url = new URL(window.location.href);
    if (url.searchParams.get("room") !== room.roomId) {
      url.searchParams.set("room", room.roomId);
      url.searchParams.delete("scenario");
      window.history.replaceState(null, "", url);
    }
    this.sentVx = this.sentVz = 0;
    this.lastMoveSent = 0;
  }

  private welcome(w: WelcomeMessage): void {
    this.tickMs = 1000 / w.tickRate;
    this.clock.setRates(w.patchRateMs, this.tickMs);
    this.buffer.maxExtrapolationMs = w.patchRateMs;
    this.mirror.setTickRate(w.tickRate);
    this.hudValues.patchRateMs = w.patchRateMs;
    this.avatarId = w.avatarId;
    this.view.refreshAvatar(w.avatarId);
  }

  /** One decoded patch: snapshot buffer, world mirror, avatar reconciliation, energy. */
  private ingest(state: RoomState): void {
    const now = performance.now();
    const tickRate = state.tickRate || 60;
    const time = (state.tick * 1000) / tickRate;
    const cut = this.lastBodies !== null && state.bodies !== this.lastBodies;
    if (cut) this.mirror.rebuild(tickRate);
    this.lastBodies = state.bodies;
    this.mirror.setTickRate(tickRate);
    this.clock.onSnapshot(time, now);
    this.buffer.begin(time, cut);
    this.mirror.begin();
    this.avatarSeen = false;
    state.bodies.forEach(this.ingestBody);
    this.buffer.end();
    this.mirror.end();
    this.bodyCount = state.bodies.size;

    if (this.avatarSeen) {
      const [x, y, z] = this.avatarServer;
      if (!this.predictor.attached) this.predictor.attach(this.room?.sessionId ?? "", this.avatarId, [x, y, z]);
      else this.predictor.reconcile(state.tick, x, y, z);
    }
    if (state.scenario !== this.lastScenario) {
      this.lastScenario = state.scenario;
      this.conn.target.scenario = getBuiltinScenario(state.scenario) ? state.scenario : undefined;
      this.energy.setScenario(getBuiltinScenario(state.scenario));
      this.kePlot.clear();
      this.kineticPeak = 0;
    }
    this.energy.measure(this.buffer, this.reading);
    if (this.reading.kinetic > this.kineticPeak) this.kineticPeak = this.reading.kinetic;
    this.kePlot.push(this.reading.kinetic, this.lastInfo?.kineticEnergy ?? Number.NaN);
    const v = this.hudValues;
    v.scenario = state.scenario;
    v.tickRate = tickRate;
    v.bodies = this.bodyCount;
    v.dynamic = this.reading.dynamic;
    v.sleeping = this.reading.sleeping;
    v.kinetic = this.reading.kinetic;
    v.mechanical = this.reading.kinetic + this.reading.potential;
  }

  private readonly ingestBody = (b: BodyState, id: string): void => {
    const x = dequantizeAxis(b.cx, b.fx);
    const y = dequantizeAxis(b.cy, b.fy);
    const z = dequantizeAxis(b.cz, b.fz);
    const q = this.q;
    dequantizeRotation(b.rh, b.rl, q);
    this.buffer.push(id, b.kind, b.hx, b.hy, b.hz, x, y, z, q[0], q[1], q[2], q[3], b.sleeping);
    this.mirror.upsert(id, b.kind, b.hx, b.hy, b.hz, x, y, z, q[0], q[1], q[2], q[3]);
    if (id === this.avatarId) {
      this.avatarServer[0] = x;
      this.avatarServer[1] = y;
      this.avatarServer[2] = z;
      this.avatarSeen = true;
    }
  };

  private async pollInfo(): Promise<void> {
    const id = this.room?.roomId;
    if (!id) return;
    try {
      const info = await this.admin.room(id);
      this.lastInfo = info;
      this.hudValues.tickP50 = info.tickMsP50 ?? Number.NaN;
      this.hudValues.tickP99 = info.tickMsP99 ?? Number.NaN;
      this.tickPlot.push(this.hudValues.tickP50, this.hudValues.tickP99);
      if (info.settings) {
        this.energy.gravity = [...info.settings.gravity];
        this.mirror.setGravity(info.settings.gravity);
      }
      this.knobs.sync(info.settings, info.scenario);
    } catch {
      // The room may be gone (reconnecting); the connection state says so.
    }
  }

  // ---------------------------------------------------------------- input

  /** One prediction tick: read the keys, send the move if it changed, step the predicted avatar. */
  private predictTick(now: number): void {
    this.input.axes(this.axes);
    this.view.groundAxes(this.ground);
    const g = this.ground;
    let vx = (g.fx * this.axes.forward + g.rx * this.axes.right) * AVATAR.maxSpeed;
    let vz = (g.fz * this.axes.forward + g.rz * this.axes.right) * AVATAR.maxSpeed;
    const speed = Math.hypot(vx, vz);
    if (speed > LIMITS.maxMoveSpeed) {
      vx *= LIMITS.maxMoveSpeed / speed;
      vz *= LIMITS.maxMoveSpeed / speed;
    }
    vx = Math.round(vx * 100) / 100;
    vz = Math.round(vz * 100) / 100;
    const jump = this.input.takeJump();
    const changed = vx !== this.sentVx || vz !== this.sentVz;
    const startOrStop = changed && (vx === 0 && vz === 0 || (this.sentVx === 0 && this.sentVz === 0));
    if (jump || startOrStop || (changed && now - this.lastMoveSent >= MOVE_SEND_MS) || now - this.lastMoveSent >= MOVE_REPEAT_MS) {
      this.conn.send(MSG_MOVE, jump ? { vx, vz, jump: true } : { vx, vz });
      this.sentVx = vx;
      this.sentVz = vz;
      this.lastMoveSent = now;
    }
    // Predict with what the server was told, so both run the same input.
    this.predictor.setInput(this.sentVx, this.sentVz, jump);
    const rtt = Number.isNaN(this.conn.rttMs) ? 0 : this.conn.rttMs;
    const serverNow = this.clock.serverNow(now);
    if (!Number.isNaN(serverNow)) this.predictor.step(serverNow / this.tickMs + rtt / this.tickMs + 1);
  }

  private click(e: ClickEvent): void {
    if (!this.room) return;
    const world = this.mirror.world;
    this.view.rayAt(e.x, e.y, this.rayOrigin, this.rayDir);
    const own = this.predictor.avatar?.handle ?? -1;
    const hit = world.raycast(this.rayOrigin, this.rayDir, 500, (h) => h === own);
    const d = this.rayDir;
    if (e.shift) {
      if (!hit || world.getType(hit.handle) !== "dynamic") {
        this.say("shift-click: no movable body under the cursor");
        return;
      }
      const j = Math.min(LIMITS.maxImpulse, world.getMass(hit.handle) * PUSH_SPEED);
      const impulse = [clamp(d[0] * j, LIMITS.maxImpulse), clamp(d[1] * j, LIMITS.maxImpulse), clamp(d[2] * j, LIMITS.maxImpulse)];
      this.conn.send(MSG_IMPULSE, { bodyId: hit.id, impulse, point: hit.point });
      this.say(`pushed ${hit.id}`);
      return;
    }
    // Spawn a sphere from the avatar toward the point under the cursor.
    const o = this.rayOrigin;
    const target = hit ? hit.point : [o[0] + d[0] * 40, o[1] + d[1] * 40, o[2] + d[2] * 40];
    const from = this.predictor.attached ? this.predictor.current : this.avatarServer;
    if (Number.isNaN(from[0])) return;
    const dx = target[0] - from[0];
    const dy = target[1] - (from[1] + 0.5);
    const dz = target[2] - from[2];
    const dist = Math.hypot(dx, dy, dz) || 1;
    const flight = dist / SPAWN_SPEED;
    const g = -this.energy.gravity[1];
    const velocity = [
      clamp((dx / dist) * SPAWN_SPEED, LIMITS.maxSpawnSpeed),
      clamp((dy / dist) * SPAWN_SPEED + 0.5 * g * flight, LIMITS.maxSpawnSpeed),
      clamp((dz / dist) * SPAWN_SPEED, LIMITS.maxSpawnSpeed),
    ];
    // The server spawns on the avatar's facing side (its last move direction): face the target for this
    // one message with a negligible move, then restore the current input. All three apply on one tick.
    const planar = Math.hypot(dx, dz);
    if (planar > 1e-3) this.conn.send(MSG_MOVE, { vx: (dx / planar) * 1e-3, vz: (dz / planar) * 1e-3 });
    this.conn.send(MSG_SPAWN, { shape: "sphere", size: SPAWN_RADIUS, velocity });
    this.conn.send(MSG_MOVE, { vx: this.sentVx, vz: this.sentVz });
  }

  // ---------------------------------------------------------------- frame

  private readonly frame = (now: number): void => {
    requestAnimationFrame(this.frame);
    const dt = Number.isNaN(this.lastFrame) ? 0 : Math.min(250, now - this.lastFrame);
    this.lastFrame = now;
    this.accumulator += dt;
    let steps = 0;
    while (this.accumulator >= this.tickMs && steps < 8) {
      this.predictTick(now);
      this.accumulator -= this.tickMs;
      steps++;
    }
    if (steps === 8) this.accumulator = 0;
    this.drawBodies(now);
    this.view.render();
    this.framesRendered++;
    this.stats(now);
  };

  private drawBodies(now: number): void {
    const render = this.clock.update(now);
    if (Number.isNaN(render)) return;
    for (const id of this.buffer.prune(render)) this.view.remove(id);
    const pose = this.pose;
    const predicting = this.predictor.attached;
    for (const track of this.buffer.tracks.values()) {
      const entry = this.view.ensure(track);
      if (predicting && track.id === this.avatarId) {
        // The own avatar is drawn where the prediction has it now, not an interpolation delay ago.
        this.predictor.renderPosition(this.accumulator / this.tickMs, this.avatarPos);
        pose.x = this.avatarPos[0];
        pose.y = this.avatarPos[1];
        pose.z = this.avatarPos[2];
        pose.qx = pose.qy = pose.qz = 0;
        pose.qw = 1;
        pose.sleeping = false;
        this.view.setPose(entry, pose);
        this.view.followPoint(pose.x, pose.y, pose.z);
      } else if (sampleTrack(track, render, this.buffer.maxExtrapolationMs, pose)) {
        this.view.setPose(entry, pose);
      } else {
        entry.mesh.visible = false;
      }
    }
  }

  private stats(now: number): void {
    this.fpsFrames++;
    if (now - this.fpsSince >= 1000) {
      this.hudValues.fps = (this.fpsFrames * 1000) / (now - this.fpsSince);
      this.fpsFrames = 0;
      this.fpsSince = now;
      this.hudValues.bytesPerSecond = ((this.conn.bytesIn - this.bytesMark) * 1000) / (now - this.bytesSince || 1);
      this.bytesMark = this.conn.bytesIn;
      this.bytesSince = now;
    }
    if (now - this.hudSince >= 250) {
      this.hudSince = now;
      const v = this.hudValues;
      v.rttMs = this.conn.rttMs;
      v.delayMs = this.clock.delayMs;
      v.jitterMs = this.clock.jitterMs;
      v.predictionError = this.predictor.lastError;
      this.hud.update(v);
      this.kePlot.draw();
      this.tickPlot.draw();
    }
  }
}

function clamp(v: number, limit: number): number {
  return v > limit ? limit : v < -limit ? -limit : v;
}
