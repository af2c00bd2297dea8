import { describe, expect, it } from "vitest";
import { getBuiltinScenario, type Scenario } from "../../shared/scenarios/index.ts";
import { decodeRoomSnapshot, encodeRoomSnapshot, RoomSim, type SimInput } from "../../shared/sim/index.ts";

/**
 * RoomSim snapshots (what the replay viewer keeps as checkpoints): snapshot a room between ticks, keep
 * stepping it; restore the snapshot (into a fresh sim and into the same sim after it ran on) and feed
 * the same inputs: every later tick's hash is identical. The script exercises the room's own state too:
 * avatars (kinematic characters) and their controller state, queued inputs, spawn ids, material
 * overrides, a scenario load mid-run.
 */
const arena = getBuiltinScenario("arena") as Scenario;

const script = new Map<number, SimInput[]>([
  [1, [{ type: "join", session: "p1" }, { type: "join", session: "p2" }]],
  [5, [{ type: "move", session: "p1", vx: 4, vz: 1 }]],
  [30, [{ type: "input", session: "p2", name: "spawn", message: { shape: "sphere", size: 0.3, velocity: [0, 2, 1] } }]],
  [60, [{ type: "input", session: "p2", name: "impulse", message: { bodyId: "box3", impulse: [0, 3, 0] } }]],
  [90, [{ type: "move", session: "p2", vx: 0, vz: 5, jump: true }]],
  [120, [{ type: "settings", patch: { friction: 0.2 } }]],
  [150, [{ type: "input", session: "p1", name: "spawn", message: { shape: "box", size: 0.25 } }]],
  [200, [{ type: "move", session: "p1", vx: -3, vz: -3, jump: true }]],
  [260, [{ type: "load", scenario: getBuiltinScenario("stack10") as Scenario }]],
  [280, [{ type: "move", session: "p2", vx: 2, vz: 0 }]],
  [300, [{ type: "leave", session: "p1" }]],
]);

function runTo(sim: RoomSim, end: number): string[] {
  const out: string[] = [];
  while (sim.tick < end) {
    for (const input of script.get(sim.tick + 1) ?? []) sim.enqueue(input);
    out.push(sim.step().hash);
  }
  return out;
}

describe("RoomSim snapshots", () => {
  it("cover every field of the room simulation (a field added later must be added to the snapshot)", () => {
    const sim = new RoomSim(structuredClone(arena));
    // Fixed at construction (the sim a snapshot is restored into is built with the same ones): `options`,
    // and `wantsEvents` (from the game). `runtime` is the snapshot's `game`; `events` (and the
    // `collectEvent` that fills it) is the step's scratch list, empty between ticks.
    const covered = new Set([...Object.keys(sim.snapshot()), "options", "wantsEvents", "runtime", "events", "collectEvent"]);
    expect(Object.keys(sim).filter((k) => !covered.has(k))).toEqual([]);
  });

  const END = 360;
  for (const k of [0, 29, 100, 240, 270]) {
    it(`a room restored at tick ${k} replays the same hashes to tick ${END}`, () => {
      const sim = new RoomSim(structuredClone(arena));
      runTo(sim, k);
      // An input queued but not applied yet belongs to the snapshot as well.
      const queued: SimInput = { type: "move", session: "p2", vx: 1, vz: -1 };
      if (k > 0) sim.enqueue(queued);
      const snap = sim.snapshot();
      const expected = runTo(sim, END);

      const fresh = new RoomSim(structuredClone(arena));
      fresh.restore(snap);
      expect(fresh.tick).toBe(k);
      expect(fresh.pendingCount).toBe(k > 0 ? 1 : 0);
      expect(runTo(fresh, END)).toEqual(expected);

      // The original, rewound after running on: same hashes again (the snapshot was not aliased).
      sim.restore(snap);
      expect(runTo(sim, END)).toEqual(expected);
      expect(sim.avatars.map((a) => a.session)).toEqual(fresh.avatars.map((a) => a.session));
      expect(sim.roomSettings()).toEqual(fresh.roomSettings());
    });
  }

  it("survive being written as bytes: a room decoded mid-run (avatars, a queued input, a knob changed) replays the same hashes", () => {
    const k = 170;
    const sim = new RoomSim(structuredClone(arena));
    runTo(sim, k);
    sim.enqueue({ type: "move", session: "p2", vx: 1, vz: -1 });
    const bytes = encodeRoomSnapshot(sim.snapshot());
    expect(Buffer.compare(encodeRoomSnapshot(sim.snapshot()), bytes)).toBe(0);
    const expected = runTo(sim, END);

    const fresh = new RoomSim(structuredClone(arena));
    fresh.restore(decodeRoomSnapshot(bytes));
    expect(fresh.tick).toBe(k);
    expect(fresh.pendingCount).toBe(1);
    expect(fresh.avatars.map((a) => a.session)).toEqual(["p1", "p2"]);
    expect(runTo(fresh, END)).toEqual(expected);
    console.log(`room snapshot at tick ${k}: ${bytes.length} bytes, ${END - k} ticks compared`);
    expect(() => decodeRoomSnapshot(encodeRoomSnapshot({ ...sim.snapshot() }).subarray(0, 40))).toThrow(/truncated snapshot/);
  });
});
