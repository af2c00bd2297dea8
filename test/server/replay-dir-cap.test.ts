import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LocalPresence } from "@colyseus/core";
import { afterEach, describe, expect, it } from "vitest";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";
import { ReplayRecorder } from "../../server/replay/recorder.ts";
import { DIR_LIMIT_REASON, ReplayStore } from "../../server/replay/store.ts";
import { verifyReplay } from "../../server/replay/verify.ts";

/**
 * REPLAY_DIR_MAX_BYTES counts recordings still being written (issue 10): a real ReplayStore with real
 * recorders of real RoomSims, driven the way a room drives them (a tick, its record, a flush every 30
 * ticks), with a small cap.
 */

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "replay-dir-cap-"));
  dirs.push(d);
  return d;
}

interface LiveRoom {
  sim: RoomSim;
  recorder: ReplayRecorder;
}

function startRoom(dir: string, roomId: string, store: ReplayStore): LiveRoom {
  const sim = new RoomSim(getBuiltinScenario("stack10")!);
  const recorder = new ReplayRecorder(dir, roomId, sim, 600);
  store.register(roomId, recorder);
  return { sim, recorder };
}

/** 30 ticks of a room (500 ms at 60 Hz) and its flush, then whatever the store does about it. */
async function halfSecond(room: LiveRoom, store: ReplayStore): Promise<void> {
  for (let k = 0; k < 30; k++) room.recorder.record(room.sim.step(), room.sim);
  await room.recorder.flush();
  await store.settled();
}

/** A closed replay of `bytes` bytes, last written `hoursAgo`. */
function closedReplay(dir: string, name: string, bytes: number, hoursAgo: number): string {
  const file = join(dir, `${name}.ndjson`);
  writeFileSync(file, `${"x".repeat(bytes - 1)}\n`);
  const when = Date.now() / 1000 - hoursAgo * 3600;
  utimesSync(file, when, when);
  return file;
}

function lastLine(file: string): Record<string, unknown> {
  const lines = readFileSync(file, "utf8").trimEnd().split("\n");
  return JSON.parse(lines[lines.length - 1]);
}

describe("the replay directory cap counts live recordings", () => {
  it("deletes the oldest closed replay first, then closes a live recording that alone exceeds the cap", async () => {
    const dir = tempDir();
    const old1 = closedReplay(dir, "old1", 3000, 3);
    const old2 = closedReplay(dir, "old2", 3000, 2);
    const cap = 12_000;
    const store = new ReplayStore(dir, cap);
    const room = startRoom(dir, "live", store);
    await store.settled();
    expect(store.liveBytes).toBe(room.recorder.bytesWritten);
    expect(store.totalBytes).toBe(6000 + room.recorder.bytesWritten);
    const scansAtStart = store.scans;

    let old1GoneAt = -1;
    let old2GoneAt = -1;
    while (!room.recorder.isClosed && room.sim.tick < 3000) {
      await halfSecond(room, store);
      if (old1GoneAt < 0 && !existsSync(old1)) old1GoneAt = room.sim.tick;
      if (old2GoneAt < 0 && !existsSync(old2)) old2GoneAt = room.sim.tick;
      // Never the newer closed replay before the older one.
      if (existsSync(old1)) expect(existsSync(old2)).toBe(true);
      // Under the cap the recorders' own counts suffice: no directory scan per flush.
      if (old1GoneAt < 0 && store.totalBytes <= cap) expect(store.scans).toBe(scansAtStart);
    }

    // Both closed replays went while the recording was still live, the older one first; only then,
    // with the live file alone over the cap, the recording was closed.
    expect(old1GoneAt).toBeGreaterThan(0);
    expect(old2GoneAt).toBeGreaterThan(old1GoneAt);
    expect(room.recorder.isClosed).toBe(true);
    expect(room.sim.tick).toBeGreaterThan(old2GoneAt);
    const file = room.recorder.path;
    expect(lastLine(file)).toMatchObject({ type: "end", reason: DIR_LIMIT_REASON, t: room.sim.tick });
    expect(statSync(file).size).toBeGreaterThan(cap);
    expect(room.recorder.stoppedReason).toMatch(/over the replay directory cap of 12000/);
    expect(store.liveBytes).toBe(0);
    // The file just closed stays (it is the newest), and verifies.
    expect(existsSync(file)).toBe(true);
    const report = await verifyReplay(file);
    expect(report.ended).toBe(true);
    expect(report.divergence).toBeNull();

    // The room runs on; its recording does not grow any more.
    const size = statSync(file).size;
    await halfSecond(room, store);
    await halfSecond(room, store);
    expect(room.sim.tick).toBeGreaterThan(report.ticks + 50);
    expect(statSync(file).size).toBe(size);
  });

  it("closes the largest live recording first, and only as many as needed to fit", async () => {
    const dir = tempDir();
    const cap = 12_000;
    const store = new ReplayStore(dir, cap);
    const big = startRoom(dir, "big", store);
    for (let k = 0; k < 5; k++) await halfSecond(big, store);
    const small = startRoom(dir, "small", store);
    await store.settled();
    expect(store.liveBytes).toBe(big.recorder.bytesWritten + small.recorder.bytesWritten);
    while (!big.recorder.isClosed && !small.recorder.isClosed && big.sim.tick < 3000) {
      await halfSecond(big, store);
      await halfSecond(small, store);
    }
    expect(big.recorder.isClosed).toBe(true);
    expect(lastLine(big.recorder.path)).toMatchObject({ type: "end", reason: DIR_LIMIT_REASON });
    // The smaller one alone fits: it keeps recording.
    expect(small.recorder.isClosed).toBe(false);
    const before = small.recorder.bytesWritten;
    await halfSecond(small, store);
    expect(small.recorder.bytesWritten).toBeGreaterThan(before);
    expect(store.liveBytes).toBe(small.recorder.bytesWritten);
  });
});

describe("the replay directory keeps at most REPLAY_DIR_MAX_FILES files", () => {
  it("deletes the oldest closed replays and their replay-host keys once a new recording makes one too many", async () => {
    const dir = tempDir();
    const presence = new LocalPresence();
    const store = new ReplayStore(dir, 1024 * 1024 * 1024, 3);
    await store.start(presence, "proc1");
    try {
      for (let k = 0; k < 4; k++) {
        closedReplay(dir, `old${k}`, 500, 5 - k);
        await presence.setex(`replay-host:old${k}`, "proc1", 3600);
      }
      // Four closed files and a fifth recording starting: the two oldest closed ones go, keys included.
      const room = startRoom(dir, "live", store);
      await store.settled();
      expect(existsSync(join(dir, "old0.ndjson"))).toBe(false);
      expect(existsSync(join(dir, "old1.ndjson"))).toBe(false);
      expect(existsSync(join(dir, "old2.ndjson"))).toBe(true);
      expect(existsSync(join(dir, "old3.ndjson"))).toBe(true);
      expect(await presence.get("replay-host:old0")).toBeFalsy();
      expect(await presence.get("replay-host:old1")).toBeFalsy();
      expect(await presence.get("replay-host:old2")).toBe("proc1");
      expect(await presence.get("replay-host:live")).toBe("proc1");
      expect(room.recorder.isClosed).toBe(false);
    } finally {
      await store.stop();
      presence.shutdown();
    }
  });
});
