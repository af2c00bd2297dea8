import { Client, Protocol, type Room } from "@colyseus/sdk";
import { PROTOCOL_CODE_MASK } from "@colyseus/shared-types";
import {
  dequantizeAxis,
  KIND_DYNAMIC,
  KIND_TYPE_MASK,
  LIMITS,
  MSG_IMPULSE,
  MSG_MOVE,
  MSG_REJECTED,
  MSG_SPAWN,
  MSG_WELCOME,
  type RejectedMessage,
  RoomState,
  type WelcomeMessage,
} from "../shared/net/index.ts";
import { Samples } from "./stats.ts";

/**
 * Bot players: real @colyseus/sdk clients over real WebSockets, one avatar each, behaving like a person
 * at a keyboard or a stick:
 *
 * - `move` at the input rate (default 20 Hz, `--input-hz 60` for clients that send every frame), with a
 *   new heading about every second (0.7-1.3 s): towards a random point of the arena, at 3-6 m/s, so the
 *   avatars keep walking through the resting bodies. One move in 20 asks for a jump.
 * - `impulse` every 2-4 s on the nearest dynamic body within 4 m (a shove: 4-10 N·s away from the avatar,
 *   a little upwards), or on none if nothing is near.
 * - `spawn` every 15-25 s, at most 4 per bot (a small sphere or box), so rooms grow by at most 32 bodies.
 *
 * Every bot measures what a player would: join latency, when patches arrive (intervals between state
 * patch frames), payload bytes received, errors, drops and rejected inputs.
 */

/** Half width of the arena's free floor the bots aim at, metres (arena is ±20 m inside its walls). */
const TARGET_HALF_WIDTH = 17;
const MAX_SPAWNS_PER_BOT = 4;

export interface BotOptions {
  url: string;
  roomId: string;
  /** Move messages per second. */
  inputHz: number;
  /** Deterministic behaviour per bot (xorshift seed). */
  seed: number;
}

/** Counters shared by all bots of one process, reset at the start of every measurement window. */
export class FleetWindow {
  /** Milliseconds between consecutive patches of one client. */
  readonly patchIntervals = new Samples();
  /** Join latencies of bots that joined since the window began, ms. */
  readonly joinMs = new Samples();
  patches = 0;
  bytes = 0;
  sentMessages = 0;
  rejected = 0;
  errors: string[] = [];
  drops = 0;
  unexpectedLeaves = 0;
  startedAt = performance.now();

  reset(): void {
    this.patchIntervals.clear();
    this.joinMs.clear();
    this.patches = 0;
    this.bytes = 0;
    this.sentMessages = 0;
    this.rejected = 0;
    this.errors = [];
    this.drops = 0;
    this.unexpectedLeaves = 0;
    this.startedAt = performance.now();
  }
}

function xorshift(seed: number): () => number {
  let s = seed >>> 0 || 0x9e3779b9;
  return () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
}

const r2 = (v: number) => Math.round(v * 100) / 100;

export class Bot {
  readonly options: BotOptions;
  room: Room<unknown, RoomState> | null = null;
  connected = false;
  /** Patches and payload bytes this bot received (whole run). */
  patches = 0;
  bytes = 0;
  welcome: WelcomeMessage | null = null;
  private readonly window: FleetWindow;
  private readonly random: () => number;
  private timer: ReturnType<typeof setInterval> | null = null;
  private lastPatchAt = 0;
  private leaving = false;
  private heading = 0;
  private speed = 4;
  private target: [number, number] | null = null;
  private nextTurn = 0;
  private nextImpulse = 0;
  private nextSpawn = 0;
  private spawned = 0;

  constructor(options: BotOptions, window: FleetWindow) {
    this.options = options;
    this.window = window;
    this.random = xorshift(options.seed);
  }

  /** Joins the room (matchmaking HTTP + WebSocket + full state) and starts playing; resolves at the welcome. */
  async join(): Promise<void> {
    const t0 = performance.now();
    const client = new Client(this.options.url);
    const room = await client.joinById<RoomState>(this.options.roomId, {}, RoomState);
    this.room = room;
    const welcome = new Promise<WelcomeMessage>((resolve) => room.onMessage(MSG_WELCOME, (m: WelcomeMessage) => resolve(m)));
    room.onMessage(MSG_REJECTED, (_m: RejectedMessage) => {
      this.window.rejected++;
    });
    room.onError((code, message) => {
      this.window.errors.push(`room ${this.options.roomId}: error ${code} ${message ?? ""}`.trim());
    });
    room.onDrop(() => {
      if (!this.leaving) this.window.drops++;
      this.connected = false;
    });
    room.onReconnect(() => {
      this.connected = true;
    });
    room.onLeave((code) => {
      this.connected = false;
      this.stop();
      if (!this.leaving) {
        this.window.unexpectedLeaves++;
        this.window.errors.push(`room ${this.options.roomId}: bot ${room.sessionId} left unexpectedly (code ${code})`);
      }
    });
    const ws = (room.connection as unknown as { transport: { ws: WebSocket } }).transport.ws;
    ws.addEventListener("message", (e: MessageEvent) => this.onFrame(e.data as ArrayBuffer | string));
    this.welcome = await welcome;
    this.connected = true;
    this.window.joinMs.push(performance.now() - t0);
    const now = performance.now();
    this.nextImpulse = now + 1000 + this.random() * 3000;
    this.nextSpawn = now + 5000 + this.random() * 20000;
    // Start at a random phase so a room's bots do not send in lockstep.
    const period = 1000 / this.options.inputHz;
    setTimeout(
      () => {
        if (!this.leaving) this.timer = setInterval(() => this.act(), period);
      },
      this.random() * period,
    );
  }

  private onFrame(data: ArrayBuffer | string): void {
    const size = typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    this.bytes += size;
    this.window.bytes += size;
    if (typeof data === "string" || size === 0) return;
    if ((new Uint8Array(data, 0, 1)[0] & PROTOCOL_CODE_MASK) !== Protocol.ROOM_STATE_PATCH) return;
    const now = performance.now();
    if (this.lastPatchAt > 0 && this.lastPatchAt >= this.window.startedAt) this.window.patchIntervals.push(now - this.lastPatchAt);
    this.lastPatchAt = now;
    this.patches++;
    this.window.patches++;
  }

  /** Own avatar position (x, z) from the decoded state, or null before it arrived. */
  private position(): [number, number] | null {
    const room = this.room;
    if (!room || !this.welcome) return null;
    const b = room.state.bodies?.get(this.welcome.avatarId);
    if (!b) return null;
    return [dequantizeAxis(b.cx, b.fx), dequantizeAxis(b.cz, b.fz)];
  }

  private act(): void {
    const room = this.room;
    if (!room || !this.connected) return;
    const now = performance.now();
    const here = this.position();
    if (now >= this.nextTurn) {
      this.target = [(this.random() * 2 - 1) * TARGET_HALF_WIDTH, (this.random() * 2 - 1) * TARGET_HALF_WIDTH];
      this.speed = 3 + this.random() * 3;
      this.heading = this.random() * 2 * Math.PI;
      this.nextTurn = now + 700 + this.random() * 600;
    }
    if (here && this.target) this.heading = Math.atan2(this.target[1] - here[1], this.target[0] - here[0]);
    const vx = r2(Math.cos(this.heading) * this.speed);
    const vz = r2(Math.sin(this.heading) * this.speed);
    room.send(MSG_MOVE, this.random() < 0.05 ? { vx, vz, jump: true } : { vx, vz });
    this.window.sentMessages++;

    if (now >= this.nextImpulse) {
      this.nextImpulse = now + 2000 + this.random() * 2000;
      const near = here ? this.nearestDynamic(here, 4) : null;
      if (here && near) {
        const [id, bx, bz] = near;
        const d = Math.hypot(bx - here[0], bz - here[1]) || 1;
        const k = 4 + this.random() * 6;
        room.send(MSG_IMPULSE, { bodyId: id, impulse: [r2(((bx - here[0]) / d) * k), r2(1 + this.random() * 2), r2(((bz - here[1]) / d) * k)] });
        this.window.sentMessages++;
      }
    }
    if (now >= this.nextSpawn && this.spawned < MAX_SPAWNS_PER_BOT) {
      this.nextSpawn = now + 15000 + this.random() * 10000;
      this.spawned++;
      const size = r2(Math.max(LIMITS.minSpawnSize, 0.25 + this.random() * 0.25));
      room.send(MSG_SPAWN, { shape: this.random() < 0.5 ? "sphere" : "box", size, velocity: [vx, 2, vz] });
      this.window.sentMessages++;
    }
  }

  private nearestDynamic(here: [number, number], within: number): [string, number, number] | null {
    const bodies = this.room?.state.bodies;
    if (!bodies || !this.welcome) return null;
    let best: [string, number, number] | null = null;
    let bestD = within;
    bodies.forEach((b, id) => {
      if ((b.kind & KIND_TYPE_MASK) !== KIND_DYNAMIC || id === this.welcome?.avatarId || id.startsWith("avatar-")) return;
      const x = dequantizeAxis(b.cx, b.fx);
      const z = dequantizeAxis(b.cz, b.fz);
      const d = Math.hypot(x - here[0], z - here[1]);
      if (d < bestD) {
        bestD = d;
        best = [id, x, z];
      }
    });
    return best;
  }

  private stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
  }

  /** Leaves on purpose (consented); not counted as a disconnect. */
  async leave(): Promise<void> {
    this.leaving = true;
    this.stop();
    if (this.room && this.connected) {
      await Promise.race([this.room.leave(true), new Promise((r) => setTimeout(r, 3000))]);
    }
    this.connected = false;
  }
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function withConcurrency<T>(items: T[], limit: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const item = items[next++];
      await fn(item);
    }
  });
  await Promise.all(workers);
}
