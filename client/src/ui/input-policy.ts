import type { RaycastHit } from "../../../shared/engine/index.ts";
import { LIMITS } from "../../../shared/net/index.ts";
import { MSG_IMPULSE, MSG_SPAWN } from "../../../shared/net/index.ts";
import type { GameKey, GameListing } from "../net/games.ts";
import type { RoomSession } from "../net/room-session.ts";
import type { SceneView } from "../render/scene-view.ts";
import type { Motion } from "../sim/motion.ts";
import { type ClickEvent, Input } from "./input.ts";

/** Speed given to a body pushed with shift-click, m/s (capped by the impulse limit). */
const PUSH_SPEED = 6;
/** Launch speed of a clicked sphere, m/s, and its radius, metres. */
const SPAWN_SPEED = 12;
const SPAWN_RADIUS = 0.3;
/** Move messages are sent at most this often while the direction changes (the server keeps the last one). */
const MOVE_SEND_MS = 50;
/** ...and repeated this often even when nothing changes (cheap insurance after a reconnect). */
const MOVE_REPEAT_MS = 1000;

/**
 * What the player's keys and clicks ask of the room: WASD/arrows as a planar velocity relative to the
 * camera (sent when it changes, throttled), space as a jump, a click as a ball launched from the avatar
 * toward the cursor, a shift-click as a push of the body under the cursor, F to toggle following, and
 * the keys the room's game binds to its inputs (GET /games `client.keys`).
 *
 * Each only where the room's game takes it: moving and jumping with an avatar (at the welcome's avatar
 * speed), the click with a `spawn` input and the shift-click with an `impulse` input (the sandbox's).
 */
export class InputPolicy {
  /** The velocity last sent to the server (what the prediction runs with). */
  sentVx = 0;
  sentVz = 0;
  private lastMoveSent = 0;
  private readonly input: Input;
  private readonly session: RoomSession;
  private readonly view: SceneView;
  private readonly motion: Motion;
  private readonly say: (message: string) => void;
  /** Key bindings of the room's game, by KeyboardEvent code. */
  private keys = new Map<string, GameKey>();
  // Scratch (no allocation per tick).
  private readonly axes = { forward: 0, right: 0 };
  private readonly ground = { fx: 0, fz: 1, rx: 1, rz: 0 };
  private readonly rayOrigin = [0, 0, 0];
  private readonly rayDir = [0, 0, 1];

  constructor(canvas: HTMLCanvasElement, session: RoomSession, view: SceneView, motion: Motion, say: (message: string) => void) {
    this.session = session;
    this.view = view;
    this.motion = motion;
    this.say = say;
    this.input = new Input(canvas);
    this.input.onClick = (e) => this.click(e);
    this.input.onToggleFollow = () => (view.follow = !view.follow);
    this.input.onGameKey = (code) => this.gameKey(code);
    this.input.moving = false;
  }

  /** The room's game is known (or changed): its key bindings, and whether there is an avatar to walk. */
  setGame(game: GameListing | null): void {
    this.keys = new Map((game?.client.keys ?? []).map((k) => [k.key, k]));
    this.input.bound = new Set(this.keys.keys());
    this.input.moving = this.session.avatar !== null;
  }

  /** A bound key: its input with its payload (default `{}`). */
  private gameKey(code: string): void {
    const binding = this.keys.get(code);
    if (!binding || !this.session.room) return;
    this.session.sendInput(binding.input, binding.message ?? {});
  }

  /** A new seat: the server knows no velocity from us yet. */
  reset(): void {
    this.sentVx = this.sentVz = 0;
    this.lastMoveSent = 0;
  }

  /**
   * One local tick: reads the keys and sends a move when the policy says so (at once on start, stop
   * or jump; at most every MOVE_SEND_MS while steering; every MOVE_REPEAT_MS regardless).
   * Returns whether a jump was asked for this tick.
   */
  tick(now: number): boolean {
    // No avatar (a game without one), or no welcome yet: nothing to walk, and no `move` the room would refuse.
    const avatar = this.session.avatar;
    this.input.moving = avatar !== null;
    if (avatar === null) {
      this.sentVx = this.sentVz = 0;
      return false;
    }
    this.input.axes(this.axes);
    this.view.groundAxes(this.ground);
    const g = this.ground;
    let vx = (g.fx * this.axes.forward + g.rx * this.axes.right) * avatar.maxSpeed;
    let vz = (g.fz * this.axes.forward + g.rz * this.axes.right) * avatar.maxSpeed;
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
      this.session.move(vx, vz, jump);
      this.sentVx = vx;
      this.sentVz = vz;
      this.lastMoveSent = now;
    }
    return jump;
  }

  private click(e: ClickEvent): void {
    // Only in a game that takes these inputs (the sandbox): elsewhere a click just selects nothing.
    if (!this.session.room || !this.session.hasInput(e.shift ? MSG_IMPULSE : MSG_SPAWN)) return;
    const world = this.session.snapshots.mirror.world;
    this.view.rayAt(e.x, e.y, this.rayOrigin, this.rayDir);
    const own = this.motion.ownHandle();
    const hit = world.raycast(this.rayOrigin, this.rayDir, 500, (h) => h === own);
    if (e.shift) this.push(hit);
    else this.launch(hit);
  }

  /** Shift-click: an impulse on the dynamic body under the cursor, along the cursor ray. */
  private push(hit: RaycastHit | null): void {
    const world = this.session.snapshots.mirror.world;
    if (!hit || world.getType(hit.handle) !== "dynamic") {
      this.say("shift-click: no movable body under the cursor");
      return;
    }
    const d = this.rayDir;
    const j = Math.min(LIMITS.maxImpulse, world.getMass(hit.handle) * PUSH_SPEED);
    const impulse = [clamp(d[0] * j, LIMITS.maxImpulse), clamp(d[1] * j, LIMITS.maxImpulse), clamp(d[2] * j, LIMITS.maxImpulse)];
    this.session.impulse(hit.id, impulse, hit.point);
    this.say(`pushed ${hit.id}`);
  }

  /** Click: a sphere from the avatar toward the point under the cursor, lobbed against the room's gravity. */
  private launch(hit: RaycastHit | null): void {
    const o = this.rayOrigin;
    const d = this.rayDir;
    const target = hit ? hit.point : [o[0] + d[0] * 40, o[1] + d[1] * 40, o[2] + d[2] * 40];
    const from = this.motion.avatarPosition();
    if (Number.isNaN(from[0])) return;
    const dx = target[0] - from[0];
    const dy = target[1] - (from[1] + 0.5);
    const dz = target[2] - from[2];
    const dist = Math.hypot(dx, dy, dz) || 1;
    const flight = dist / SPAWN_SPEED;
    const g = -this.session.gravity[1];
    const velocity = [
      clamp((dx / dist) * SPAWN_SPEED, LIMITS.maxSpawnSpeed),
      clamp((dy / dist) * SPAWN_SPEED + 0.5 * g * flight, LIMITS.maxSpawnSpeed),
      clamp((dz / dist) * SPAWN_SPEED, LIMITS.maxSpawnSpeed),
    ];
    // The server spawns on the avatar's facing side (its last move direction): face the target for this
    // one message with a negligible move, then restore the current input. All three apply on one tick.
    const planar = Math.hypot(dx, dz);
    const walking = this.session.avatar !== null;
    if (walking && planar > 1e-3) this.session.move((dx / planar) * 1e-3, (dz / planar) * 1e-3);
    this.session.spawnSphere(SPAWN_RADIUS, velocity);
    if (walking) this.session.move(this.sentVx, this.sentVz);
  }
}

function clamp(v: number, limit: number): number {
  return v > limit ? limit : v < -limit ? -limit : v;
}
