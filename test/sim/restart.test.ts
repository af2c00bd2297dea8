import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ReplayRecorder } from "../../server/replay/recorder.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { RoomSim, type SimInput } from "../../shared/sim/index.ts";

/** The failure-lab bullet's x after `ticks` more steps. */
function bulletX(sim: RoomSim, ticks = 0): number {
  for (let i = 0; i < ticks; i++) sim.step();
  return sim.world.getPosition(sim.world.handleOf("bullet"))[0];
}

const lab = () => getBuiltinScenario("failure-lab")!;
/** One 60 Hz tick of the bullet at 300 m/s, metres. */
const ONE_TICK = 300 / 60;

describe("the first player finds the scene as loaded", () => {
  it("failure-lab run unwatched for half a second restarts when the first player joins, not for the second", () => {
    const sim = new RoomSim(lab());
    const hit = bulletX(sim, 30);
    sim.enqueue({ type: "join", session: "first" });
    sim.step();
    const afterJoin = bulletX(sim);
    const fresh = new RoomSim(lab());
    fresh.enqueue({ type: "join", session: "first" });
    fresh.step();
    console.log(`bullet x: ${hit.toFixed(3)} after 30 unwatched ticks, ${afterJoin.toFixed(3)} one tick after the first join (fresh room: ${bulletX(fresh).toFixed(3)})`);
    expect(hit).toBeGreaterThan(7); // stopped at the wall (CCD) long before anyone came
    expect(afterJoin).toBeCloseTo(ONE_TICK, 9);
    expect(sim.world.stateHash()).toBe(fresh.world.stateHash());
    const generation = sim.worldGeneration;
    bulletX(sim, 30);
    sim.enqueue({ type: "join", session: "second" });
    sim.step();
    expect(sim.worldGeneration).toBe(generation);
    expect(bulletX(sim)).toBeGreaterThan(7);
  });
});

describe("restart", () => {
  it("reloads the scenario with the room's knobs kept: CCD off tunnels again after a restart", () => {
    const sim = new RoomSim(lab());
    sim.enqueue({ type: "join", session: "p" });
    sim.enqueue({ type: "settings", patch: { ccd: false } });
    const tunnelled = bulletX(sim, 60);
    const generation = sim.worldGeneration;
    sim.enqueue({ type: "input", session: "p", name: "restart", message: {} });
    const restarted = bulletX(sim, 1);
    expect(sim.worldGeneration).toBe(generation + 1);
    expect(sim.world.settings.ccd).toBe(false);
    const again = bulletX(sim, 59);
    console.log(`CCD off: bullet x ${tunnelled.toFixed(1)} after 1 s, ${restarted.toFixed(3)} one tick after the restart, ${again.toFixed(1)} a second later`);
    expect(tunnelled).toBeGreaterThan(100);
    expect(restarted).toBeCloseTo(ONE_TICK, 9);
    expect(again).toBeGreaterThan(100);
    // The player is back on the platform (top at y = 0) after the reload.
    expect(sim.world.getPosition(sim.avatars[0].handle)[1]).toBeCloseTo(0.95, 6);
  });

  it("with untouched knobs is exactly a reload: the same state as a room that loads the scenario again", () => {
    const a = new RoomSim(lab());
    const b = new RoomSim(lab());
    for (const sim of [a, b]) {
      sim.enqueue({ type: "join", session: "p" });
      bulletX(sim, 20);
    }
    a.enqueue({ type: "input", session: "p", name: "restart", message: {} });
    b.enqueue({ type: "load", scenario: lab() });
    a.step();
    b.step();
    expect(a.world.stateHash()).toBe(b.world.stateHash());
  });
});

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

/** Records `ticks` ticks of a room of `scenario` driven by `script` (inputs by tick), closes the file. */
async function record(script: Map<number, SimInput[]>, ticks: number): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "restart-replay-"));
  dirs.push(dir);
  const sim = new RoomSim(getBuiltinScenario("stack10")!);
  const recorder = new ReplayRecorder(dir, "restart-room", sim, 30);
  for (let t = 1; t <= ticks; t++) {
    for (const input of script.get(t) ?? []) sim.enqueue(input);
    recorder.record(sim.step(), sim);
  }
  await recorder.close(sim, "test");
  return recorder.path;
}

describe("restart in a replay", () => {
  it("is recorded like any input, and the replay verifies; without it the replay diverges", async () => {
    const script = new Map<number, SimInput[]>([
      [1, [{ type: "join", session: "p" }]],
      [10, [{ type: "input", session: "p", name: "impulse", message: { bodyId: "box9", impulse: [3, 0, 0] } }]],
      [50, [{ type: "input", session: "p", name: "restart", message: {} }]],
      [55, [{ type: "move", session: "p", vx: 2, vz: 0 }]],
    ]);
    const file = await record(script, 120);
    const text = readFileSync(file, "utf8");
    expect(text).toContain('{"type":"input","session":"p","name":"restart","message":{}}');
    const report = await verifyReplay(file);
    console.log(`replay with a restart: ${report.ticks} ticks, ${report.inputs} inputs, ${report.keyframesChecked} keyframes, divergence ${JSON.stringify(report.divergence)}`);
    expect(report.divergence).toBeNull();
    expect(report.ticks).toBe(120);
    // The same file with the restart taken out re-simulates a toppled stack: the verifier catches it.
    const without = join(file, "..", "without-restart.ndjson");
    writeFileSync(without, text.replace(',"i":[{"type":"input","session":"p","name":"restart","message":{}}]', ""));
    const tampered = await verifyReplay(without);
    console.log(`without the restart: diverges at tick ${tampered.divergence?.tick}`);
    expect(tampered.divergence?.tick).toBe(50);
  });
});
