import { Client, type Room } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { MSG_MOVE, MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { api, cleanupDirs, json, sleep, spawnServer, stopAllServers, tempDir } from "../server/processes.ts";
import { ATTACKER_ADDRESSES, metricValue, postFrom, roomBuckets, shareAtOrBelow, spherePile, spheresInWell, timedGet } from "./attack.ts";

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

/** The attack lasts this long, ms. */
const ATTACK_MS = 15_000;
/** Attacker requests in flight at once. */
const ATTACKERS = 3;

/** A scenario the attacker sends, the refusal it must get (null: it may be admitted), and its request body. */
interface NastyScenario {
  kind: string;
  body: unknown;
  expect: RegExp | null;
  text: string;
}

/** The nastiest player rooms the caps allow, each sent again and again. */
function nastyScenarios(): NastyScenario[] {
  return [
    // First, while the process share is free. A time bomb: 4 s of free fall is all the probe sees, then a pile that never sleeps.
    { kind: "245 never-sleeping spheres dropped from 120 m into a well", body: { scenario: spheresInWell(245, { sleep: false }, 120, "bomb") }, expect: null },
    // Refused by the derived body cap (120 Hz x 65 iterations leaves room for 9 bodies).
    { kind: "99 overlapping spheres at 120 Hz, 64 iterations", body: { scenario: spherePile(99, { tickRate: 120, velocityIterations: 64 }) }, expect: /scenario\.bodies: 100 bodies/ },
    // Within the cap, refused by the sandbox probe: every pair overlaps.
    { kind: "100 overlapping spheres", body: { scenario: spherePile(100) }, expect: /too expensive/ },
    { kind: "240 overlapping spheres", body: { scenario: spherePile(240) }, expect: /too expensive|did not finish|server busy/ },
    // Cheap for its first ticks (nothing touches), expensive once it lands: the per-room budget's case.
    { kind: "240 spheres falling into one pile", body: { scenario: spherePile(240, {}, 1.05, "block") }, expect: null },
    { kind: "8 overlapping spheres at 120 Hz, 64 iterations (within the budget)", body: { scenario: spherePile(8, { tickRate: 120, velocityIterations: 64 }) }, expect: null },
  ].map((n) => ({ ...n, text: JSON.stringify(n.body) }));
}

/** One attacker: sends the nasty scenarios in turn, from the attacker addresses in turn, until the deadline, counting outcomes. */
async function attackLoop(
  url: string,
  nasty: NastyScenario[],
  deadline: number,
  outcomes: Map<string, Map<number, number>>,
  unexpected: string[],
  offset: number,
): Promise<void> {
  for (let i = offset; performance.now() < deadline; i++) {
    const n = nasty[i % nasty.length];
    const from = ATTACKER_ADDRESSES[i % ATTACKER_ADDRESSES.length];
    const res = await postFrom(from, `${url}/matchmake/create/physics`, n.text);
    const body = JSON.parse(res.body) as { error?: string };
    const counts = outcomes.get(n.kind) ?? new Map<number, number>();
    counts.set(res.status, (counts.get(res.status) ?? 0) + 1);
    outcomes.set(n.kind, counts);
    // 503 is the process share ("server busy"): a refusal too, for any kind.
    if (n.expect && res.status === 200) unexpected.push(`${n.kind}: admitted`);
    if (n.expect && res.status === 400 && !n.expect.test(body.error ?? "")) unexpected.push(`${n.kind}: ${body.error}`);
    // 429: this address spent its allowance of room creations.
    if (![200, 400, 429, 503].includes(res.status)) unexpected.push(`${n.kind}: ${res.status} ${body.error}`);
  }
}

/** Times GET /health every 100 ms until the deadline; each answer must be 200. */
async function probeHealth(url: string, deadline: number, health: number[]): Promise<void> {
  while (performance.now() < deadline) {
    const { ms, status } = await timedGet(`${url}/health`);
    expect(status).toBe(200);
    health.push(ms);
    await sleep(100);
  }
}

/** The numbers the test prints: the bystander's schedule, /health, what each attack got, the defences' counters. */
function buildReport(
  ticksPerSecond: number,
  loop: { share: number; count: number },
  quiet: { share: number; count: number },
  worstHealth: number,
  health: number[],
  outcomes: Map<string, Map<number, number>>,
  after: string,
): Record<string, unknown> {
  return {
    ticksPerSecond: Number(ticksPerSecond.toFixed(2)),
    tickLoopShareWithin16_67ms: Number(loop.share.toFixed(4)),
    quietTickLoopShareWithin16_67ms: Number(quiet.share.toFixed(4)),
    ticksObserved: loop.count,
    healthMaxMs: Number(worstHealth.toFixed(1)),
    healthChecks: health.length,
    outcomes: Object.fromEntries([...outcomes].map(([k, v]) => [k, Object.fromEntries(v)])),
    overBudget: ["slow", "close", "recover"].map((a) => `${a}=${metricValue(after, "physics_rooms_over_budget_total", `action="${a}"`)}`).join(" "),
    refused: [...after.matchAll(/^physics_admission_refused_total\{reason="([^"]+)"\} (\S+)$/gm)].map((m) => `${m[1]}=${m[2]}`).join(" "),
  };
}

describe("CPU isolation between rooms", () => {
  it("an anonymous client creating the nastiest player rooms the caps allow, again and again, does not make a bystander room late", async () => {
    // Default settings. The attacker sends from 8 addresses (a small botnet), so each address's allowance
    // of room creations gets spent and the CPU defences (derived body cap, sandbox probe, per-room budget,
    // process share, load shedding) meet every kind of scenario several times.
    const server = await spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays") });
    const bystander = (await json<{ roomId: string }>(api(server.url, "POST", "/rooms", { scenario: "arena" }))).roomId;
    const player = (await new Client(server.url).joinById(bystander, {}, RoomState)) as Room<unknown, RoomState>;
    player.onMessage(MSG_WELCOME, () => {});
    const mover = setInterval(() => player.send(MSG_MOVE, { vx: Math.random() * 4 - 2, vz: Math.random() * 4 - 2 }), 200);

    const nasty = nastyScenarios();

    await sleep(2000);
    // A quiet window first, for the report: what the machine alone does to the bystander's schedule.
    const quietStart = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    await sleep(5000);
    const before = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    const quiet = shareAtOrBelow(roomBuckets(quietStart, "physics_tick_loop_ms", bystander), roomBuckets(before, "physics_tick_loop_ms", bystander), 16.67);
    const start = { tick: (await json<{ tick: number }>(api(server.url, "GET", `/rooms/${bystander}`))).tick, at: performance.now() };

    const outcomes = new Map<string, Map<number, number>>();
    const unexpected: string[] = [];
    const deadline = performance.now() + ATTACK_MS;
    const health: number[] = [];
    const prober = probeHealth(server.url, deadline, health);
    await Promise.all([...Array.from({ length: ATTACKERS }, (_, i) => attackLoop(server.url, nasty, deadline, outcomes, unexpected, i)), prober]);

    const end = { tick: (await json<{ tick: number }>(api(server.url, "GET", `/rooms/${bystander}`))).tick, at: performance.now() };
    const after = await (await api(server.url, "GET", "/metrics", undefined, null)).text();
    clearInterval(mover);
    await player.leave();

    const ticksPerSecond = ((end.tick - start.tick) * 1000) / (end.at - start.at);
    const loop = shareAtOrBelow(roomBuckets(before, "physics_tick_loop_ms", bystander), roomBuckets(after, "physics_tick_loop_ms", bystander), 16.67);
    const worstHealth = Math.max(...health);
    const report = buildReport(ticksPerSecond, loop, quiet, worstHealth, health, outcomes, after);
    console.log(`cpu isolation: ${JSON.stringify(report)}`);

    expect(unexpected).toEqual([]);
    // Every nasty kind was tried several times (re-sent), and the cheap-looking ones got rooms at first.
    for (const n of nasty) expect([...(outcomes.get(n.kind)?.entries() ?? [])].filter(([status]) => status !== 429).length, n.kind).toBeGreaterThan(0);
    expect(outcomes.get("245 never-sleeping spheres dropped from 120 m into a well")?.get(200) ?? 0).toBeGreaterThan(0);
    // The bystander. The issue's targets (>= 58 ticks/s, tick-loop p99 <= 16.7 ms, /health within 50 ms) are
    // timings on a shared, noisy machine: the report above prints them and the closing note quotes them. The
    // test asserts bounds an order of magnitude away from the undefended failure (under 1 tick/s, /health
    // taking 4-6 s, every tick late), so it fails when a defence is missing and not when the machine is busy.
    expect(ticksPerSecond).toBeGreaterThanOrEqual(50);
    expect(loop.share).toBeGreaterThanOrEqual(0.9);
    expect(worstHealth).toBeLessThanOrEqual(500);
    // The refusals are counted: by the derived body cap, the sandbox probe and the process share.
    expect(metricValue(after, "physics_admission_refused_total", 'reason="cpu-budget"')).toBeGreaterThan(0);
    expect(metricValue(after, "physics_probe_refused_total")).toBeGreaterThan(0);
    expect(metricValue(after, "physics_admission_refused_total", 'reason="process-cpu"')).toBeGreaterThan(0);
  }, 90_000);
});
