// @ts-check
/**
 * k6 load script for the physics room server, speaking the Colyseus 0.18 protocol directly (the SDK
 * does not run in k6). For people who have k6; the Node load generator (`npm run loadtest`) measures
 * more (server tick timing, CPU) and is what the repository's capacity figure comes from.
 *
 *   ADMIN_TOKEN=… k6 run -e BASE_URL=http://127.0.0.1:2567 -e ROOMS=16 -e CLIENTS=8 -e DURATION=60 loadtest/k6/rooms.js
 *
 * Env: BASE_URL (default http://127.0.0.1:2567), ADMIN_TOKEN (rooms are created over the admin API in
 * setup() and deleted in teardown(); without it every VU uses joinOrCreate under the player caps),
 * ROOMS (16), CLIENTS per room (8), DURATION seconds per VU session (60), INPUT_HZ (20), SCENARIO
 * (arena), PATCH_MS (50: the room patch interval the thresholds expect).
 *
 * Each VU is one player: matchmake (HTTP), WebSocket join handshake, then moves at INPUT_HZ with a new
 * heading every ~1 s, shoves a random arena body every 2-4 s, spawns a small body every ~20 s (at most
 * 3), and leaves after DURATION. Thresholds: join latency p95 < 1 s, patch interval p99 < 1.5 × PATCH_MS,
 * ≥ 99% successful joins, no protocol errors.
 */
import { check, fail } from "k6";
import http from "k6/http";
import { Counter, Rate, Trend } from "k6/metrics";
import { clearInterval, setInterval, setTimeout } from "k6/timers";
import { WebSocket } from "k6/websockets";
import { matchmakeUrl, Protocol, parseSeatReservation, RoomSession, roomEndpoint } from "./protocol.js";

const BASE_URL = (__ENV.BASE_URL || "http://127.0.0.1:2567").replace(/\/$/, "");
const ADMIN_TOKEN = __ENV.ADMIN_TOKEN || "";
const ROOMS = Number(__ENV.ROOMS || 16);
const CLIENTS = Number(__ENV.CLIENTS || 8);
const DURATION = Number(__ENV.DURATION || 60);
const INPUT_HZ = Number(__ENV.INPUT_HZ || 20);
const SCENARIO = __ENV.SCENARIO || "arena";
const PATCH_MS = Number(__ENV.PATCH_MS || 50);

const joinMs = new Trend("colyseus_join_ms", true);
const patchIntervalMs = new Trend("colyseus_patch_interval_ms", true);
const patches = new Counter("colyseus_patches");
const bytesIn = new Counter("colyseus_bytes_in");
const messagesOut = new Counter("colyseus_messages_out");
const joined = new Rate("colyseus_join_ok");
const protocolErrors = new Counter("colyseus_errors");

/** @type {import("k6/options").Options} */
export const options = {
  scenarios: {
    players: {
      executor: "per-vu-iterations",
      vus: ROOMS * CLIENTS,
      iterations: 1,
      maxDuration: `${DURATION + 60}s`,
    },
  },
  thresholds: {
    colyseus_join_ms: ["p(95)<1000"],
    colyseus_patch_interval_ms: [`p(99)<${1.5 * PATCH_MS}`],
    colyseus_join_ok: ["rate>0.99"],
    colyseus_errors: ["count<1"],
  },
};

/** @param {string} path @param {string} method @param {unknown} [body] */
function adminCall(method, path, body) {
  const params = { headers: { authorization: `Bearer ${ADMIN_TOKEN}`, "content-type": "application/json" } };
  return http.request(method, `${BASE_URL}${path}`, body === undefined ? null : JSON.stringify(body), params);
}

export function setup() {
  if (!ADMIN_TOKEN) return { roomIds: /** @type {string[]} */ ([]) };
  /** @type {string[]} */
  const roomIds = [];
  for (let i = 0; i < ROOMS; i++) {
    const res = adminCall("POST", "/rooms", { scenario: SCENARIO, maxClients: CLIENTS });
    if (res.status !== 201) fail(`POST /rooms → ${res.status} ${String(res.body)}`);
    roomIds.push(/** @type {{ roomId: string }} */ (res.json()).roomId);
  }
  return { roomIds };
}

/** @param {{ roomIds: string[] }} data */
export default function (data) {
  const t0 = Date.now();
  const roomId = data.roomIds.length > 0 ? data.roomIds[(__VU - 1) % data.roomIds.length] : "";
  const url = roomId ? matchmakeUrl(BASE_URL, "joinById", roomId) : matchmakeUrl(BASE_URL, "joinOrCreate", "physics");
  const res = http.post(url, JSON.stringify(roomId ? {} : { scenario: SCENARIO }), { headers: { "content-type": "application/json" } });
  /** @type {import("./protocol.js").SeatReservation} */
  let seat;
  try {
    seat = parseSeatReservation(res.status, String(res.body));
  } catch (err) {
    joined.add(false);
    protocolErrors.add(1);
    console.error(String(err));
    return;
  }

  const ws = new WebSocket(roomEndpoint(BASE_URL, seat));
  ws.binaryType = "arraybuffer";
  // Frames are built in exact-size arrays (protocol.js), so the whole buffer is the frame.
  const session = new RoomSession((bytes) => ws.send(/** @type {ArrayBuffer} */ (bytes.slice().buffer)));
  let heading = Math.random() * 2 * Math.PI;
  let speed = 4;
  let spawned = 0;
  /** @type {ReturnType<typeof setInterval> | null} */
  let inputTimer = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let turnTimer = null;
  /** @type {ReturnType<typeof setInterval> | null} */
  let actionTimer = null;

  ws.onmessage = (event) => {
    if (!event || typeof event.data === "string" || !(event.data instanceof ArrayBuffer)) return;
    const before = session.stats.patchIntervals.length;
    const frame = session.receive(event.data);
    bytesIn.add(event.data.byteLength);
    if (frame.code === Protocol.JOIN_ROOM) {
      joinMs.add(Date.now() - t0);
      joined.add(true);
      start();
    } else if (frame.code === Protocol.ROOM_STATE_PATCH) {
      patches.add(1);
      if (session.stats.patchIntervals.length > before) patchIntervalMs.add(session.stats.patchIntervals[session.stats.patchIntervals.length - 1]);
    } else if (frame.code === Protocol.ERROR) {
      protocolErrors.add(1);
    } else if (frame.code === Protocol.ROOM_DATA && "type" in frame && frame.type === "rejected") {
      console.warn(`rejected: ${JSON.stringify(frame.message)}`);
    }
  };
  ws.onerror = (event) => {
    protocolErrors.add(1);
    console.error(`websocket error: ${event ? String(event.error) : "?"}`);
  };
  ws.onclose = () => stop();

  function start() {
    inputTimer = setInterval(() => {
      const vx = Math.round(Math.cos(heading) * speed * 100) / 100;
      const vz = Math.round(Math.sin(heading) * speed * 100) / 100;
      if (session.sendMessage("move", { vx, vz })) messagesOut.add(1);
    }, 1000 / INPUT_HZ);
    turnTimer = setInterval(() => {
      heading = Math.random() * 2 * Math.PI;
      speed = 3 + Math.random() * 3;
    }, 1000);
    actionTimer = setInterval(() => {
      // A shove on a random arena body (its id is known from the scenario; no state decoding here).
      const id = Math.random() < 0.75 ? `box${Math.floor(Math.random() * 150)}` : `ball${Math.floor(Math.random() * 50)}`;
      const k = 4 + Math.random() * 6;
      session.sendMessage("impulse", { bodyId: id, impulse: [Math.round(Math.cos(heading) * k * 100) / 100, 2, Math.round(Math.sin(heading) * k * 100) / 100] });
      if (spawned < 3 && Math.random() < 0.15) {
        spawned++;
        session.sendMessage("spawn", { shape: Math.random() < 0.5 ? "sphere" : "box", size: 0.3 });
      }
      messagesOut.add(1);
    }, 3000);
    setTimeout(() => {
      session.leave();
      ws.close();
    }, DURATION * 1000);
  }

  function stop() {
    if (inputTimer) clearInterval(inputTimer);
    if (turnTimer) clearInterval(turnTimer);
    if (actionTimer) clearInterval(actionTimer);
    inputTimer = turnTimer = actionTimer = null;
    check(session.stats, {
      "joined the room": (s) => s.fullStates === 1,
      "received patches": (s) => s.patches > 0,
      "no protocol errors": (s) => s.errors === 0,
    });
  }
}

/** @param {{ roomIds: string[] }} data */
export function teardown(data) {
  for (const id of data.roomIds) adminCall("DELETE", `/rooms/${id}`);
}
