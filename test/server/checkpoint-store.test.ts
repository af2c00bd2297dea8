import { randomBytes } from "node:crypto";
import { spawnSync } from "node:child_process";
import { Redis } from "ioredis";
import { afterAll, describe, expect, it } from "vitest";
import { AppendBatch, CheckpointLost, type CheckpointMeta, type CheckpointRedis, CheckpointStore, RoomTakenOver } from "../../server/failover/checkpoint-store.ts";
import { needTool } from "../docs/system-tools.ts";

/**
 * The checkpoint store's guarantees against a real Redis (the machine's, 127.0.0.1:6379, under a key
 * prefix of this run): a dead process's room is claimed by exactly one of many processes racing for it;
 * writes are fenced on ownership (the resumer's first base takes the room over, the old owner's writes
 * are then refused and cannot delete the new checkpoint); a checkpoint lost in Redis asks for a base.
 */

const hasRedis = needTool("redis-cli", "test/server/checkpoint-store.test.ts", spawnSync("redis-cli", ["ping"], { encoding: "utf8" }).stdout?.trim() === "PONG");
const prefix = `cp-test-${randomBytes(4).toString("hex")}:`;
const clients: Redis[] = [];

function storeOf(processId: string): CheckpointStore {
  const redis = new Redis({ host: "127.0.0.1", port: 6379, keyPrefix: prefix, maxRetriesPerRequest: 3 });
  clients.push(redis);
  return new CheckpointStore(redis as unknown as CheckpointRedis, () => processId);
}

function meta(roomId: string): CheckpointMeta {
  return { roomId, game: "sandbox", gameVersion: "1", trusted: false, maxClients: 8, maxBodies: 100, maxSpawnsPerSecond: 4, patchRateMs: 50, seed: 7, segment: 1 };
}

const line = (t: number) => `{"ticks":[{"t":${t},"h":"00000000000000${String(t).padStart(2, "0")}"}],"seats":[["s1","tok"]]}`;

afterAll(async () => {
  if (clients.length > 0) {
    const keys = await clients[0].keys(`${prefix}*`);
    for (const key of keys) await clients[0].del(key.slice(prefix.length));
  }
  for (const c of clients) c.disconnect();
});

describe.runIf(hasRedis)("checkpoint store (real Redis)", () => {
  it("a dead process's room is claimed by exactly one of 8 processes racing for it", async () => {
    const owner = storeOf("dead");
    await owner.writeBase(meta("room-a"), new Uint8Array([1, 2, 3]), 10, [["s1", "tok"]]);
    const racers = Array.from({ length: 8 }, (_, k) => storeOf(`survivor-${k}`));
    const won = await Promise.all(racers.map((s) => s.claim("room-a")));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await racers[0].roomsOf("dead")).toEqual(["room-a"]);
  });

  it("writes are fenced: the resumer's base takes the room over; the old owner is refused and cannot delete it", async () => {
    const old = storeOf("old");
    const resumer = storeOf("resumer");
    await old.writeBase(meta("room-b"), new Uint8Array([1]), 0, []);
    await old.append("room-b", line(1));
    // Someone who neither owns nor claimed the room cannot write it.
    await expect(resumer.writeBase(meta("room-b"), new Uint8Array([2]), 1, [])).rejects.toBeInstanceOf(RoomTakenOver);
    expect(await resumer.claim("room-b")).toBe(true);
    const loaded = await resumer.load("room-b");
    expect(loaded?.log.map((e) => e.ticks[0].t)).toEqual([1]);
    await resumer.writeBase(meta("room-b"), new Uint8Array([2]), 1, []);
    expect((await resumer.owners()).get("room-b")).toBe("resumer");
    // The old owner, back from a partition: every write refused, its close leaves the checkpoint alone.
    await expect(old.append("room-b", line(2))).rejects.toBeInstanceOf(RoomTakenOver);
    await expect(old.writeBase(meta("room-b"), new Uint8Array([3]), 2, [])).rejects.toBeInstanceOf(RoomTakenOver);
    const batch = new AppendBatch();
    const refused = batch.append("room-b", line(2));
    old.send(batch);
    await expect(refused).rejects.toBeInstanceOf(RoomTakenOver);
    await old.remove("room-b");
    expect((await resumer.load("room-b"))?.base).toEqual(new Uint8Array([2]));
    await resumer.append("room-b", line(2));
    await resumer.remove("room-b");
    expect(await resumer.load("room-b")).toBeNull();
    expect((await resumer.owners()).has("room-b")).toBe(false);
  });

  it("an entry whose base Redis lost is refused as lost (the room writes a base next), not as taken over", async () => {
    const store = storeOf("p");
    await store.writeBase(meta("room-c"), new Uint8Array([9]), 0, []);
    await store.remove("room-c");
    await expect(store.append("room-c", line(1))).rejects.toBeInstanceOf(CheckpointLost);
    const batch = new AppendBatch();
    const lost = batch.append("room-c", line(1));
    const other = batch.append("room-d", line(1));
    await store.writeBase(meta("room-d"), new Uint8Array([9]), 0, []);
    store.send(batch);
    await expect(lost).rejects.toBeInstanceOf(CheckpointLost);
    await expect(other).resolves.toBeUndefined();
    expect((await store.load("room-d"))?.log).toHaveLength(1);
    await store.remove("room-d");
  });
});
