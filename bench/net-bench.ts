import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { matchMaker } from "@colyseus/core";
import { Client, type Room } from "@colyseus/sdk";
import { createPhysicsServer } from "../server/app.ts";
import { TRUST_OPTION } from "../server/rooms/physics-room.ts";
import type { PhysicsRoom } from "../server/rooms/physics-room.ts";
import { dequantizeAxis, MSG_MOVE, MSG_WELCOME, ROOM_NAME, RoomState } from "../shared/net/index.ts";
import { getBuiltinScenario, type Scenario } from "../shared/scenarios/index.ts";

const BENCH_TOKEN = "bench";

/**
 * npm run bench:net [-- --short]
 *
 * Bytes per second received by one real SDK client over a real loopback WebSocket (message payloads,
 * join-time full state included), and the server's cost per tick split into physics (world.step),
 * the rest of the sim tick (inputs, avatar controller, state hash, replay line), state sync (quantize +
 * schema assignment, once per patch) and patch encode+send (once per patch). 20 Hz patches, 60 Hz ticks.
 *
 * Scenes (the targets of issue 4):
 * - pile1000: the first 10 s after the room starts (everything falls and settles; sleeping is off).
 * - heap1000 (when the scene library has it): the same with randomly turned, tumbling boxes.
 * - fiedler-cubes: 900 resting cubes, the client's avatar pushes through the grid for 60 s.
 * - all asleep: fiedler-cubes without a player, measured 10 s after everything fell asleep.
 */

const SHORT = process.argv.includes("--short");

interface Result {
  scene: string;
  seconds: number;
  bytesPerSecond: number;
  bytes: number;
  /** Full state + welcome at join. */
  joinBytes: number;
  /** Patches only (after the join). */
  steadyBytesPerSecond: number;
  patches: number;
  physicsMs: number;
  simOtherMs: number;
  tickP99Ms: number;
  syncMsPerPatch: number;
  encodeMsPerPatch: number;
  maxChangedBodies: number;
}

function localRoom(roomId: string): PhysicsRoom {
  return matchMaker.getLocalRoomById(roomId) as unknown as PhysicsRoom;
}

/** Counts every WebSocket message payload the client receives. */
function countBytes(room: Room<unknown, RoomState>): { bytes: number; messages: number } {
  const counter = { bytes: 0, messages: 0 };
  const ws = (room.connection as unknown as { transport: { ws: WebSocket } }).transport.ws;
  ws.addEventListener("message", (e: MessageEvent) => {
    const data = e.data as ArrayBuffer | string;
    counter.bytes += typeof data === "string" ? Buffer.byteLength(data) : data.byteLength;
    counter.messages++;
  });
  return counter;
}

async function measure(
  url: string,
  scene: string,
  scenario: Scenario,
  opts: { seconds: number; settleSeconds?: number; joinAfterSettle?: boolean; drive?: (room: Room<unknown, RoomState>, sessionId: string) => () => void },
): Promise<Result> {
  // Created as the admin API creates rooms: the 1000-body scenes are over a player room's CPU budget.
  const listing = await matchMaker.createRoom(ROOM_NAME, { scenario, [TRUST_OPTION]: BENCH_TOKEN });
  const server = localRoom(listing.roomId);
  // Time world.step separately from the rest of the sim tick.
  let physicsMs = 0;
  let steps = 0;
  const world = server.sim.world;
  const step = world.step.bind(world);
  world.step = () => {
    const t0 = performance.now();
    step();
    physicsMs += performance.now() - t0;
    steps++;
  };
  let keepAlive: Room<unknown, RoomState> | null = null;
  if (opts.settleSeconds) {
    // Settles with nobody in it (an admin room waits ADMIN_ROOM_IDLE_SECONDS empty), so no client receives bytes we count.
    await waitUntil(() => server.sim.tick >= opts.settleSeconds! * 60 && server.sim.world.awakeBodyCount === 0, 60_000);
  }
  const client = new Client(url);
  const room = await client.joinById<RoomState>(listing.roomId, {}, RoomState);
  const counter = countBytes(room);
  await new Promise<void>((resolve) => room.onMessage(MSG_WELCOME, () => resolve()));
  // The join-time full state (and the welcome) arrived before the welcome resolved.
  const joinBytes = counter.bytes;
  const m = server.metrics;
  const start = { ticks: m.tickCount, tickMs: m.tickSumMs, physicsMs, steps, sync: m.syncMs, patch: m.patchMs, patches: m.patches, bytes: counter.bytes };
  const t0 = performance.now();
  const stopDriving = opts.drive ? opts.drive(room, room.sessionId) : () => {};
  let maxChanged = 0;
  const sync = (server as unknown as { sync: { lastChanged: number } }).sync;
  const probe = setInterval(() => {
    maxChanged = Math.max(maxChanged, sync.lastChanged);
  }, 50);
  await waitUntil(() => performance.now() - t0 >= opts.seconds * 1000, opts.seconds * 1000 + 5000);
  clearInterval(probe);
  stopDriving();
  const elapsed = (performance.now() - t0) / 1000;
  const ticks = m.tickCount - start.ticks;
  const patches = m.patches - start.patches;
  const result: Result = {
    scene,
    seconds: elapsed,
    bytes: counter.bytes,
    bytesPerSecond: counter.bytes / elapsed,
    joinBytes,
    steadyBytesPerSecond: (counter.bytes - joinBytes) / elapsed,
    patches,
    physicsMs: (physicsMs - start.physicsMs) / Math.max(1, steps - start.steps),
    simOtherMs: (m.tickSumMs - start.tickMs - (physicsMs - start.physicsMs)) / Math.max(1, ticks),
    tickP99Ms: m.tickQuantile(0.99),
    syncMsPerPatch: (m.syncMs - start.sync) / Math.max(1, patches),
    encodeMsPerPatch: (m.patchMs - start.patch) / Math.max(1, patches),
    maxChangedBodies: maxChanged,
  };
  await room.leave();
  keepAlive = null;
  void keepAlive;
  server.adminDispose();
  return result;
}

function waitUntil(cond: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const timer = setInterval(() => {
      if (cond()) {
        clearInterval(timer);
        resolve();
      } else if (performance.now() - started > timeoutMs) {
        clearInterval(timer);
        reject(new Error("timed out"));
      }
    }, 20);
  });
}

/**
 * Steers the client's avatar along waypoints that cross the cube grid (rows z = 0, ±6, ±12 alternately
 * along ±x, entering and leaving outside the grid), at 5 m/s, from the positions it receives.
 */
function pushThroughGrid(room: Room<unknown, RoomState>, sessionId: string): () => void {
  const waypoints: [number, number][] = [[-24, -24], [-24, 0]];
  const rows = [0, 6, -6, 12, -12, 18, -18, 3, -3, 9, -9];
  let dir = 1;
  for (const z of rows) {
    waypoints.push([24 * dir, z]);
    dir = -dir;
    waypoints.push([24 * dir, z + (z >= 0 ? 1 : -1)]);
  }
  let next = 0;
  let lastSent = "";
  const timer = setInterval(() => {
    const body = room.state.bodies.get(`avatar-${sessionId}`);
    if (!body) return;
    const x = dequantizeAxis(body.cx, body.fx);
    const z = dequantizeAxis(body.cz, body.fz);
    let [tx, tz] = waypoints[next % waypoints.length];
    if (Math.hypot(tx - x, tz - z) < 0.5) {
      next++;
      [tx, tz] = waypoints[next % waypoints.length];
    }
    const d = Math.hypot(tx - x, tz - z) || 1;
    const vx = Math.round(((tx - x) / d) * 5 * 100) / 100;
    const vz = Math.round(((tz - z) / d) * 5 * 100) / 100;
    const msg = `${vx},${vz}`;
    if (msg !== lastSent) {
      room.send(MSG_MOVE, { vx, vz });
      lastSent = msg;
    }
  }, 50);
  return () => clearInterval(timer);
}

const replayDir = mkdtempSync(join(tmpdir(), "net-bench-"));
const server = await createPhysicsServer({ adminToken: BENCH_TOKEN, replayDir, logger: false });
const port = await server.listen(0, "127.0.0.1");
const url = `http://127.0.0.1:${port}`;
const results: Result[] = [];
try {
  const s = SHORT ? 0.3 : 1;
  process.stderr.write("pile1000, first 10 s…\n");
  results.push(await measure(url, "pile1000 (first 10 s)", getBuiltinScenario("pile1000")!, { seconds: 10 * s }));
  if (getBuiltinScenario("heap1000")) {
    // The tumbling heap (randomly turned boxes): the worst case for a 1000-body scene.
    process.stderr.write("heap1000, first 10 s…\n");
    results.push(await measure(url, "heap1000 (first 10 s)", getBuiltinScenario("heap1000")!, { seconds: 10 * s }));
  }
  process.stderr.write("fiedler-cubes, avatar pushing for 60 s…\n");
  results.push(await measure(url, "fiedler-cubes + avatar (60 s)", getBuiltinScenario("fiedler-cubes")!, { seconds: 60 * s, drive: pushThroughGrid }));
  process.stderr.write("all asleep, 10 s…\n");
  results.push(await measure(url, "all asleep (fiedler-cubes, no player)", getBuiltinScenario("fiedler-cubes")!, { seconds: 10 * s, settleSeconds: 2 }));
} finally {
  await server.close();
  rmSync(replayDir, { recursive: true, force: true });
}

const targets: Record<string, number> = { pile1000: 300, heap1000: 300, fiedler: 32, asleep: 0.5 };
const fmt = (n: number, d = 2) => n.toFixed(d);
const lines = [
  `net bench: ${process.version}, ${new Date().toISOString()}, 1 client on loopback, 60 Hz ticks, 20 Hz patches`,
  "",
  "| scene | s | KB/s per client (incl. join) | KB/s patches only | target KB/s | join bytes | bytes |  patches | physics ms/tick | other sim ms/tick | tick p99 ms | sync ms/patch | encode+send ms/patch | server ms/tick (amortized) | max bodies changed in one patch (incl. initial add) |",
  "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
];
for (const r of results) {
  const key = r.scene.startsWith("pile") ? "pile1000" : r.scene.startsWith("heap") ? "heap1000" : r.scene.startsWith("fiedler") ? "fiedler" : "asleep";
  const perTick = r.physicsMs + r.simOtherMs + (r.syncMsPerPatch + r.encodeMsPerPatch) / 3;
  lines.push(
    `| ${r.scene} | ${fmt(r.seconds, 1)} | ${fmt(r.bytesPerSecond / 1000, 2)} | ${fmt(r.steadyBytesPerSecond / 1000, 2)} | ≤ ${targets[key]} | ${r.joinBytes} | ${r.bytes} | ${r.patches} | ${fmt(r.physicsMs, 3)} | ${fmt(r.simOtherMs, 3)} | ${fmt(r.tickP99Ms, 2)} | ${fmt(r.syncMsPerPatch, 3)} | ${fmt(r.encodeMsPerPatch, 3)} | ${fmt(perTick, 3)} | ${r.maxChangedBodies} |`,
  );
}
process.stdout.write(`${lines.join("\n")}\n`);
process.exit(0);
