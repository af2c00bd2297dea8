import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";

/**
 * `npm run -s sim -- <scenario> --events`: one NDJSON line per event before the state line of its tick;
 * without the flag the output is what it was (state lines only). A process per run, hence `.slow`.
 */
const ROOT = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "sim-events-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const scenario = {
  name: "goal",
  world: { tickRate: 60, sleep: false },
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [5, 0.5, 5] }, position: [0, -0.5, 0] },
    { id: "goal", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 0.5, 1] }, position: [0, 3, 0] },
    { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.25 }, position: [0, 6, 0] },
  ],
};

function sim(args: string[]): Record<string, unknown>[] {
  const file = join(dir, "goal.json");
  writeFileSync(file, JSON.stringify(scenario));
  const out = execFileSync(process.execPath, ["scripts/sim.ts", file, ...args], { cwd: ROOT, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
  return out
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("sim --events", () => {
  it("prints the sensor's enter and exit and the ball's landing, each before the state line of its tick", () => {
    const lines = sim(["--ticks", "120", "--every", "1", "--events"]);
    const events = lines.filter((l) => "event" in l);
    expect(events.map((e) => [e.event, e.sensor ?? e.a, e.body ?? e.b])).toEqual([
      ["sensorEnter", "goal", "ball"],
      ["sensorExit", "goal", "ball"],
      ["contactBegin", "ground", "ball"],
    ]);
    for (const e of events) {
      const i = lines.indexOf(e);
      // The next state line is the event's tick.
      const state = lines.slice(i).find((l) => "hash" in l);
      expect(state?.tick).toBe(e.tick);
    }
    // The landing's impulse is m·v at impact: density 1 kg/m³, fall of 5.75 m.
    const mass = (4 / 3) * Math.PI * 0.25 ** 3;
    const impact = mass * Math.sqrt(2 * 9.81 * 5.75);
    expect(Math.abs((events[2]!.impulse as number) - impact) / impact).toBeLessThan(0.05);
  });

  it("without --events the output has state lines only, and they are the same state lines", () => {
    const plain = sim(["--ticks", "120", "--every", "1"]);
    const withEvents = sim(["--ticks", "120", "--every", "1", "--events"]).filter((l) => !("event" in l));
    expect(plain.every((l) => "hash" in l)).toBe(true);
    expect(withEvents).toEqual(plain);
  });
});
