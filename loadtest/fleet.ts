import type { CreatedRoom, CreateRoomBody } from "../shared/net/index.ts";
import type { Admin } from "./admin-client.ts";
import { Bot, FleetWindow, withConcurrency } from "./bots.ts";

/**
 * This run's rooms and their bots: rooms are created with POST /rooms and filled with bots (8 joining
 * at a time), or removed (bots leave, DELETE /rooms/:id) when the ramp goes down. Also keeps what
 * happened while the rooms changed (join latencies, errors, drops): a stage reports those with its
 * window, and a stage measured again keeps them.
 */

interface RoomEntry {
  id: string;
  bots: Bot[];
}

export interface FleetSetup {
  url: string;
  scenario: string;
  clients: number;
  inputHz: number;
  patchRateMs?: number;
  /** Seed of the first bot; each further bot takes the next. */
  seed: number;
}

/** Joins, errors and drops since the rooms last changed. */
export interface Carried {
  joins: number[];
  errors: string[];
  drops: number;
  leaves: number;
}

/** Per-bot counters at the start of a window (patches and bytes are counted over the whole run). */
export interface BotMarks {
  patches: Map<Bot, number>;
  bytes: Map<Bot, number>;
}

export class Fleet {
  readonly rooms: RoomEntry[] = [];
  /** Counters of every bot since the last reset (one measurement window, or the joins before it). */
  readonly window = new FleetWindow();
  carried: Carried = { joins: [], errors: [], drops: 0, leaves: 0 };
  private readonly setup: FleetSetup;
  private readonly admin: Admin;
  private readonly log: (line: string) => void;
  private seed: number;

  constructor(setup: FleetSetup, admin: Admin, log: (line: string) => void) {
    this.setup = setup;
    this.admin = admin;
    this.log = log;
    this.seed = setup.seed;
  }

  get size(): number {
    return this.rooms.length;
  }

  roomIds(): string[] {
    return this.rooms.map((r) => r.id);
  }

  bots(): Bot[] {
    return this.rooms.flatMap((r) => r.bots);
  }

  connected(): number {
    return this.rooms.reduce((k, r) => k + r.bots.filter((b) => b.connected).length, 0);
  }

  /** Grows (creates rooms, joins their bots) or shrinks the run to `n` rooms. */
  async setRooms(n: number): Promise<void> {
    const added: RoomEntry[] = [];
    while (this.rooms.length < n) added.push(await this.createRoom());
    await this.join(added);
    while (this.rooms.length > n) {
      const entry = this.rooms.pop()!;
      await Promise.all(entry.bots.map((b) => b.leave()));
      await this.admin.call("DELETE", `/rooms/${entry.id}`);
    }
    const w = this.window;
    this.carried = { joins: Array.from(w.joinMs.view()), errors: w.errors.slice(), drops: w.drops, leaves: w.unexpectedLeaves };
    w.reset();
  }

  private async createRoom(): Promise<RoomEntry> {
    const { url, scenario, clients, inputHz, patchRateMs } = this.setup;
    const body: CreateRoomBody = { scenario, maxClients: Math.max(clients, 1) };
    if (patchRateMs) body.patchRateMs = patchRateMs;
    const res = await this.admin.call("POST", "/rooms", body);
    if (res.status !== 201) throw new Error(`POST /rooms → ${res.status} ${await res.text()}`);
    const { roomId } = (await res.json()) as CreatedRoom;
    const entry: RoomEntry = { id: roomId, bots: [] };
    for (let i = 0; i < clients; i++) entry.bots.push(new Bot({ url, roomId, inputHz, seed: this.seed++ }, this.window));
    this.rooms.push(entry);
    return entry;
  }

  private async join(added: RoomEntry[]): Promise<void> {
    const joining = added.flatMap((r) => r.bots);
    if (joining.length === 0) return;
    this.log(`joining ${joining.length} bots into ${added.length} new rooms…`);
    await withConcurrency(joining, 8, async (bot) => {
      try {
        await bot.join();
      } catch (err) {
        this.window.errors.push(`join failed (room ${bot.options.roomId}): ${(err as Error).message}`);
      }
    });
  }

  /** Joins since the rooms last changed; errors and drops since then up to now (a warm-up included). */
  sinceRoomsChanged(): Carried {
    const { carried, window } = this;
    return {
      joins: carried.joins,
      errors: [...carried.errors, ...window.errors],
      drops: carried.drops + window.drops,
      leaves: carried.leaves + window.unexpectedLeaves,
    };
  }

  /** Starts a stage over: nothing carried, counters reset. */
  clearCarried(): void {
    this.carried = { joins: [], errors: [], drops: 0, leaves: 0 };
    this.window.reset();
  }

  /** Every bot's patch and byte counters now, for the differences over a window. */
  mark(): BotMarks {
    const bots = this.bots();
    return { patches: new Map(bots.map((b) => [b, b.patches] as const)), bytes: new Map(bots.map((b) => [b, b.bytes] as const)) };
  }

  /** Patches each room's bots received since `marks`. */
  patchesPerRoom(marks: BotMarks): number[] {
    return this.rooms.map((r) => r.bots.reduce((k, b) => k + b.patches - (marks.patches.get(b) ?? 0), 0));
  }

  /** Payload bytes each bot received since `marks`. */
  bytesPerBot(marks: BotMarks): number[] {
    return this.bots().map((b) => b.bytes - (marks.bytes.get(b) ?? 0));
  }

  /** Every bot leaves and every room of the run is deleted (errors ignored: the server may be gone). */
  async dispose(): Promise<void> {
    await Promise.all(this.bots().map((b) => b.leave()));
    for (const r of this.rooms) await this.admin.call("DELETE", `/rooms/${r.id}`).catch(() => undefined);
  }
}
