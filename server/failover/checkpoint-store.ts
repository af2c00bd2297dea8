import type { TickLine } from "../replay/format.ts";

/**
 * Room checkpoints in Redis: what a surviving process needs to resume a room whose process died.
 *
 * A checkpoint is a base (the room simulation's exact snapshot as bytes, shared/sim/room-snapshot-bytes.ts)
 * plus a log of what happened since: every tick's replay line (its hash and the inputs applied at it,
 * replay/format.ts: the same text the room records), appended in small entries. Resuming restores the base and re-runs the log, checking every tick's hash, so the room
 * continues at the last logged tick bit for bit, as if it had never stopped (the engine is deterministic).
 * A base is cheap to write only now and then (an arena room's is ~250 KB); a log entry is a few hundred
 * bytes, so entries go out often (RoomCheckpointer) and little simulation is lost.
 *
 * Keys (under the deployment's REDIS_KEY_PREFIX):
 *   checkpoint:rooms          hash   roomId → id of the process that writes its checkpoint
 *   checkpoint:<roomId>       hash   meta (JSON, CheckpointMeta), base (bytes), baseTick, seats (JSON)
 *   checkpoint-log:<roomId>   list   JSON LogEntry, oldest first (cleared with every new base)
 *   checkpoint-claim:<roomId> string the process resuming the room (SET NX: exactly one winner)
 * Every write renews a TTL on the room's keys, so the checkpoints of rooms nobody resumes (every process
 * gone) do not outlive it; the `checkpoint:rooms` entry goes when the room closes or is resumed.
 *
 * Writes are fenced (one Lua script each, atomic in Redis): a process writes a room's checkpoint only
 * while it owns the room in `checkpoint:rooms`, or holds its claim (a resume's first base), or the room
 * is new (no owner, no claim). A process that was only cut off from Redis, declared dead meanwhile, and
 * whose rooms were resumed elsewhere finds its next write refused (RoomTakenOver) and closes its copy:
 * one room id, one running room.
 */

export const ROOMS_KEY = "checkpoint:rooms";
const baseKey = (roomId: string) => `checkpoint:${roomId}`;
const logKey = (roomId: string) => `checkpoint-log:${roomId}`;
const claimKey = (roomId: string) => `checkpoint-claim:${roomId}`;

/** How long a room's checkpoint keys live after their last write, ms (a live room writes every half second). */
export const CHECKPOINT_TTL_MS = 60_000;
/** How long a claim holds: a resume that has not finished by then (its process died too) can be claimed again. */
export const CLAIM_TTL_MS = 30_000;

/** The room's own settings a resumed room needs besides its simulation (it is created again without its creator's options). */
export interface CheckpointMeta {
  roomId: string;
  /** The game's name (the resuming process must have it, at the same version). */
  game: string;
  gameVersion: string;
  /** Created over the admin API (admin caps). */
  trusted: boolean;
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
  patchRateMs: number;
  /** The room simulation's options (the seed of its random generator among them). */
  seed: number;
  /** Replay segment the room is recording (1 for a room never resumed). */
  segment: number;
}

/** Ticks since the previous entry (their replay lines, in order), and who holds a seat. */
export interface LogEntry {
  ticks: TickLine[];
  /** Sessions and their reconnection tokens at the end of these ticks (connected, dropped or not yet back). */
  seats: [string, string][];
}

export interface Checkpoint {
  meta: CheckpointMeta;
  base: Uint8Array;
  baseTick: number;
  /** The seats when the base was written. */
  seats: [string, string][];
  log: LogEntry[];
}

/** This process no longer owns the room's checkpoint: another process resumed it. */
export class RoomTakenOver extends Error {}
/** The room's checkpoint is gone from Redis (restarted empty, or expired): the next write must be a base. */
export class CheckpointLost extends Error {}

/** KEYS rooms, base, log, claim; ARGV roomId, me, meta, base, baseTick, seats, ttl. 1 written, 0 refused. */
const WRITE_BASE = `
local owner = redis.call('HGET', KEYS[1], ARGV[1])
local claim = redis.call('GET', KEYS[4])
if owner and owner ~= ARGV[2] and claim ~= ARGV[2] then return 0 end
if (not owner) and claim and claim ~= ARGV[2] then return 0 end
redis.call('HSET', KEYS[2], 'meta', ARGV[3], 'base', ARGV[4], 'baseTick', ARGV[5], 'seats', ARGV[6])
redis.call('DEL', KEYS[3])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return 1`;
/** KEYS rooms, base, log; ARGV roomId, me, entry, ttl. 1 written, 0 another owner, -1 no owner (Redis lost it: a base is needed). */
const APPEND = `
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if not owner then return -1 end
if owner ~= ARGV[2] then return 0 end
redis.call('RPUSH', KEYS[3], ARGV[3])
redis.call('PEXPIRE', KEYS[3], ARGV[4])
redis.call('PEXPIRE', KEYS[2], ARGV[4])
return 1`;
/** KEYS rooms, base, log, claim; ARGV roomId, me. Removes only a checkpoint this process owns or claimed (or nobody does). */
const REMOVE = `
local owner = redis.call('HGET', KEYS[1], ARGV[1])
if owner and owner ~= ARGV[2] and redis.call('GET', KEYS[4]) ~= ARGV[2] then return 0 end
redis.call('DEL', KEYS[2], KEYS[3])
redis.call('HDEL', KEYS[1], ARGV[1])
if redis.call('GET', KEYS[4]) == ARGV[2] then redis.call('DEL', KEYS[4]) end
return 1`;

/** The parts of an ioredis client the store uses (a real ioredis client in the server; Buffer replies for the base). */
export interface CheckpointRedis {
  eval(script: string, numKeys: number, ...args: (string | Buffer | number)[]): Promise<unknown>;
  defineCommand(name: string, definition: { numberOfKeys: number; lua: string }): void;
  pipeline(): { exec(): Promise<[Error | null, unknown][] | null> } & Record<string, unknown>;
  hgetall(key: string): Promise<Record<string, string>>;
  hgetBuffer(key: string, field: string): Promise<Buffer | null>;
  hmget(key: string, ...fields: string[]): Promise<(string | null)[]>;
  lrange(key: string, start: number, stop: number): Promise<string[]>;
  set(key: string, value: string, px: "PX", ms: number, nx: "NX"): Promise<"OK" | null>;
}

/** Log entries of several rooms sent to Redis together: one pipeline, one socket write (CheckpointStore.send). */
export class AppendBatch {
  readonly items: { roomId: string; text: string; resolve: () => void; reject: (err: Error) => void }[] = [];

  /** Queues one room's entry; settles when the batch's pipeline answers (RoomTakenOver, CheckpointLost as `append`). */
  append(roomId: string, text: string): Promise<void> {
    return new Promise((resolve, reject) => this.items.push({ roomId, text, resolve, reject }));
  }
}

export class CheckpointStore {
  private readonly redis: CheckpointRedis;
  /** This process's id (the owner written with every base). */
  readonly processId: () => string;

  constructor(redis: CheckpointRedis, processId: () => string) {
    this.redis = redis;
    this.processId = processId;
    // EVALSHA through ioredis (the script is sent once, then named by its hash), in pipelines too.
    redis.defineCommand("checkpointAppend", { numberOfKeys: 3, lua: APPEND });
  }

  /** Sends a batch of log entries in one pipeline (the write happens now; each entry's promise settles with its answer). */
  send(batch: AppendBatch): void {
    if (batch.items.length === 0) return;
    const pipeline = this.redis.pipeline();
    const append = pipeline.checkpointAppend as (...args: (string | number)[]) => unknown;
    for (const item of batch.items) append.call(pipeline, ROOMS_KEY, baseKey(item.roomId), logKey(item.roomId), item.roomId, this.processId(), item.text, CHECKPOINT_TTL_MS);
    const items = batch.items;
    pipeline.exec().then(
      (results) => {
        items.forEach((item, k) => {
          const [err, answer] = results?.[k] ?? [new Error("no answer"), null];
          if (err) item.reject(err);
          else if (answer === -1) item.reject(new CheckpointLost(`room ${item.roomId} has no checkpoint in Redis`));
          else if (answer !== 1) item.reject(new RoomTakenOver(`room ${item.roomId} is owned by another process`));
          else item.resolve();
        });
      },
      (err: Error) => {
        for (const item of items) item.reject(err);
      },
    );
  }

  /** A new base for the room: replaces the previous one and clears its log. RoomTakenOver when another process owns the room. */
  async writeBase(meta: CheckpointMeta, base: Uint8Array, baseTick: number, seats: [string, string][]): Promise<void> {
    const id = meta.roomId;
    const bytes = Buffer.from(base.buffer, base.byteOffset, base.byteLength);
    const keys = [ROOMS_KEY, baseKey(id), logKey(id), claimKey(id)];
    const written = await this.redis.eval(WRITE_BASE, 4, ...keys, id, this.processId(), JSON.stringify(meta), bytes, String(baseTick), JSON.stringify(seats), CHECKPOINT_TTL_MS);
    if (written !== 1) throw new RoomTakenOver(`room ${id} is owned by another process`);
  }

  /**
   * Appends one log entry, as JSON text (after the base written last). RoomTakenOver when another process
   * owns the room; CheckpointLost when nobody does (Redis lost the base: the entry would follow nothing).
   */
  async append(roomId: string, entryJson: string): Promise<void> {
    const written = await this.redis.eval(APPEND, 3, ROOMS_KEY, baseKey(roomId), logKey(roomId), roomId, this.processId(), entryJson, CHECKPOINT_TTL_MS);
    if (written === -1) throw new CheckpointLost(`room ${roomId} has no checkpoint in Redis`);
    if (written !== 1) throw new RoomTakenOver(`room ${roomId} is owned by another process`);
  }

  /** The room closed (or its resume failed): nothing to resume. Leaves alone a checkpoint another process owns and this one did not claim. */
  async remove(roomId: string): Promise<void> {
    await this.redis.eval(REMOVE, 4, ROOMS_KEY, baseKey(roomId), logKey(roomId), claimKey(roomId), roomId, this.processId());
  }

  /** Every checkpointed room with the process that writes it. */
  async owners(): Promise<Map<string, string>> {
    return new Map(Object.entries(await this.redis.hgetall(ROOMS_KEY)));
  }

  /** The checkpointed rooms `processId` writes. */
  async roomsOf(processId: string): Promise<string[]> {
    const rooms: string[] = [];
    for (const [roomId, owner] of await this.owners()) if (owner === processId) rooms.push(roomId);
    return rooms;
  }

  /** Takes the right to resume the room: true for exactly one caller until CLAIM_TTL_MS passes. */
  async claim(roomId: string): Promise<boolean> {
    return (await this.redis.set(claimKey(roomId), this.processId(), "PX", CLAIM_TTL_MS, "NX")) === "OK";
  }

  /** The room's checkpoint, or null when it has none (expired, or the room closed meanwhile). */
  async load(roomId: string): Promise<Checkpoint | null> {
    const [metaText, baseTickText, seatsText] = await this.redis.hmget(baseKey(roomId), "meta", "baseTick", "seats");
    const base = await this.redis.hgetBuffer(baseKey(roomId), "base");
    if (metaText === null || baseTickText === null || seatsText === null || base === null) return null;
    const log = (await this.redis.lrange(logKey(roomId), 0, -1)).map((line) => JSON.parse(line) as LogEntry);
    return {
      meta: JSON.parse(metaText) as CheckpointMeta,
      base: new Uint8Array(base.buffer, base.byteOffset, base.byteLength),
      baseTick: Number(baseTickText),
      seats: JSON.parse(seatsText) as [string, string][],
      log,
    };
  }
}
