import { Client, type Room } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { api, cleanupDirs, json, spawnServer, stopAllServers, tempDir } from "../server/processes.ts";
import { postFrom } from "./attack.ts";

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

const ATTACKER = "127.0.0.2";
/** Requests the attacker keeps in flight (refusals are answered after a delay: it needs many at once). */
const IN_FLIGHT = 100;

/** Runs `total` requests, `inFlight` at a time; returns the count of each status. */
async function flood(total: number, inFlight: number, send: (i: number) => Promise<{ status: number }>): Promise<Map<number, number>> {
  const statuses = new Map<number, number>();
  let next = 0;
  const worker = async () => {
    while (next < total) {
      const i = next++;
      const { status } = await send(i);
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, worker));
  return statuses;
}

async function joinAndWelcome(url: string, roomId: string): Promise<Room<unknown, RoomState>> {
  const room = (await new Client(url).joinById(roomId, {}, RoomState)) as Room<unknown, RoomState>;
  await new Promise<void>((resolve) => room.onMessage(MSG_WELCOME, () => resolve()));
  return room;
}

describe("admission under a flood from one address", () => {
  it("1000 room creations and 1000 seat reservations from one address: the admin still creates rooms, players still join any room, the log stays small", async () => {
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays") });
    const logBytes = () => server.lines.reduce((n, line) => n + Buffer.byteLength(line) + 1, 0);
    // A small admin room (4 seats: the easiest to lock) and a room a player created.
    const small = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "stack10", maxClients: 4 }))).roomId;
    const owner = (await new Client(server.url).create("physics", { scenario: "stack10" }, RoomState)) as Room<unknown, RoomState>;
    owner.onMessage(MSG_WELCOME, () => {});
    const playerRoom = owner.roomId;
    const logBefore = logBytes();

    const created: string[] = [];
    const creations = await flood(1000, IN_FLIGHT, async () => {
      const res = await postFrom(ATTACKER, `${server.url}/matchmake/create/physics`, JSON.stringify({ scenario: "stack10" }));
      if (res.status === 200) created.push((JSON.parse(res.body) as { roomId: string }).roomId);
      return res;
    });
    const targets = [small, playerRoom, ...created.slice(0, 1)];
    const reservations = await flood(1000, IN_FLIGHT, (i) => postFrom(ATTACKER, `${server.url}/matchmake/joinById/${targets[i % targets.length]}`, "{}"));
    console.log(`admission: creations ${JSON.stringify(Object.fromEntries(creations))}, reservations ${JSON.stringify(Object.fromEntries(reservations))}, log +${logBytes() - logBefore} bytes`);

    // Only the first few of each got through; the rest were refused with 429 (never a 5xx or a crash).
    // 503: the process's CPU share for player rooms (each new one reserves its budget for a while) is taken.
    expect([...creations.keys()].every((s) => s === 200 || s === 429 || s === 503)).toBe(true);
    expect(creations.get(429) ?? 0).toBeGreaterThan(900);
    expect(creations.get(200)).toBeLessThanOrEqual(5);
    expect([...reservations.keys()].every((s) => s === 200 || s === 429)).toBe(true);
    expect(reservations.get(429) ?? 0).toBeGreaterThan(900);

    // The admin can still create a room, and a real player (another address) can join every room,
    // including the 4-seat one the attacker tried to lock and one the attacker created.
    const adminRoom = await api(server.url, "POST", "/rooms", { scenario: "arena" });
    expect(adminRoom.status).toBe(201);
    // The attacker did get a few rooms (its first creations): a player joins one of those too.
    expect(created.length).toBeGreaterThan(0);
    const joined: Room<unknown, RoomState>[] = [];
    for (const roomId of [small, playerRoom, created[0], ((await adminRoom.json()) as { roomId: string }).roomId]) {
      const room = await joinAndWelcome(server.url, roomId);
      expect(room.roomId).toBe(roomId);
      joined.push(room);
    }
    // A player from another address can still create a room of their own.
    const fresh = (await new Client(server.url).create("physics", { scenario: "stack10" }, RoomState)) as Room<unknown, RoomState>;
    fresh.onMessage(MSG_WELCOME, () => {});
    joined.push(fresh);

    // Refusals are logged at info, once per address per interval, without stacks: the log barely grows.
    const grown = logBytes() - logBefore;
    expect(grown).toBeLessThan(100 * 1024);
    expect(server.lines.some((l) => l.includes("    at "))).toBe(false);
    const refusals = server.logs(/admission refused/);
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.every((l) => l.level === 30)).toBe(true);
    const metrics = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    expect(metrics).toMatch(/physics_admission_refused_total\{reason="create-rate"\} \d+/);
    for (const room of [...joined, owner]) await room.leave();
  }, 120_000);

  it("player rooms leave the admin API its reserve of MAX_ROOMS, and a full server answers without a stack trace", async () => {
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), MAX_ROOMS: "6", ADMIN_ROOM_RESERVE: "2" });
    const addresses = ["127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"];
    const statuses: number[] = [];
    for (const from of addresses) {
      statuses.push((await postFrom(from, `${server.url}/matchmake/create/physics`, JSON.stringify({ scenario: "stack10" }))).status);
    }
    // 6 - 2 = 4 player rooms; the fifth is refused (503, "server full").
    expect(statuses).toEqual([200, 200, 200, 200, 503]);
    expect((await api(server.url, "POST", "/rooms", { scenario: "stack10" })).status).toBe(201);
    expect((await api(server.url, "POST", "/rooms", { scenario: "stack10" })).status).toBe(201);
    const full = await api(server.url, "POST", "/rooms", { scenario: "stack10" });
    expect(full.status).toBe(503);
    expect(server.lines.some((l) => l.includes("    at "))).toBe(false);
  }, 60_000);
});
