import { describe, expect, it } from "vitest";
import { knobSpecs } from "../../client/src/ui/knobs.ts";
import { settingsPatchProblem } from "../../server/replay/validate.ts";
import type { WorldSettings } from "../../shared/engine/index.ts";
import {
  KNOB_KEYS,
  KNOB_RANGES,
  type KnobKey,
  narrowKnobRanges,
  QueuedChange,
  RoomInfo,
  RoomSettingsSchema,
  roomSettingsPatchSchema,
} from "../../shared/net/index.ts";
import type { Scenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";
import { knobOf, overRange, probeValue } from "./knob-probes.ts";

/**
 * The knob table (shared/net/knobs.ts) drives every consumer: the admin API's schemas, the replay
 * verifier, the room simulation and the client's knobs panel. Every check walks the table, so a new
 * row is covered without touching this file (test/server/knobs.test.ts drives each knob through a real
 * server).
 */

const flat: Scenario = {
  name: "flat",
  bodies: [
    { id: "ground", type: "static", shape: { type: "box", halfExtents: [50, 0.5, 50] }, position: [0, -0.5, 0], friction: 0.3 },
    { id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [3, 0.5, 0], restitution: 0.1 },
  ],
};

/** Every `minimum`/`maximum` in a schema (a vector's are on each component). */
function bounds(schema: unknown, out = new Set<number>()): Set<number> {
  if (schema === null || typeof schema !== "object") return out;
  for (const [k, v] of Object.entries(schema)) {
    if ((k === "minimum" || k === "maximum") && typeof v === "number") out.add(v);
    else bounds(v, out);
  }
  return out;
}

/** An engine setting read by the table's path (`positionCorrection.slop`), independently of the sim's mapping. */
function settingAt(settings: Readonly<WorldSettings>, path: string): unknown {
  return path.split(".").reduce<unknown>((v, k) => (v as Record<string, unknown>)[k], settings);
}

const keysOf = (schema: { properties: object }) => Object.keys(schema.properties).sort();

describe("the knob table drives every consumer", () => {
  it("the admin API: every knob (and nothing else) is in the settings patch schema and in the settings rooms report", () => {
    const table = [...KNOB_KEYS].sort();
    const patch = roomSettingsPatchSchema();
    expect(keysOf(patch)).toEqual(table);
    expect(keysOf(RoomSettingsSchema)).toEqual(table);
    expect(keysOf(RoomInfo.properties.settings)).toEqual(table);
    expect(keysOf(QueuedChange.properties.settings)).toEqual(table);
    expect(patch).toMatchObject({ additionalProperties: false, minProperties: 1 });
    for (const key of KNOB_KEYS) {
      const range = knobOf(key).range;
      expect([...bounds(patch.properties[key])].sort((a, b) => a - b), key).toEqual(range ? [range.min, range.max] : []);
    }
  });

  it("the schema is built from the server's ranges: narrower ones are taken, wider ones are an error", () => {
    const narrow = narrowKnobRanges({ velocityIterations: { min: 2, max: 8 } });
    expect(narrow.velocityIterations).toEqual({ min: 2, max: 8 });
    expect(narrow.slop).toEqual(KNOB_RANGES.slop);
    expect(bounds(roomSettingsPatchSchema(narrow).properties.velocityIterations)).toEqual(new Set([2, 8]));
    for (const key of Object.keys(KNOB_RANGES) as (keyof typeof KNOB_RANGES)[]) {
      const r = KNOB_RANGES[key];
      expect(() => narrowKnobRanges({ [key]: { min: r.min, max: r.max + 1 } }), key).toThrow(`knob ${key}: range`);
    }
  });

  it("the replay verifier holds a recorded patch to the admin schema (table ranges)", () => {
    const current = new RoomSim(flat).roomSettings();
    for (const key of KNOB_KEYS) {
      expect(settingsPatchProblem({ [key]: probeValue(key, current) }, "patch"), key).toBeNull();
      const over = overRange(key);
      if (over !== null) expect(settingsPatchProblem({ [key]: over }, "patch"), key).toMatch(new RegExp(`^patch\\.${key}(\\[0\\])?: must be <= `));
    }
    expect(settingsPatchProblem({ nope: 1 }, "patch")).toBe('patch: must NOT have additional properties ("nope")');
  });

  it("the room simulation maps each knob into its engine setting (or the room's material override), and only that knob", () => {
    for (const key of KNOB_KEYS) {
      const sim = new RoomSim(structuredClone(flat));
      const before = sim.roomSettings();
      const value = probeValue(key, before);
      sim.enqueue({ type: "settings", patch: { [key]: value } });
      sim.step();
      expect(sim.roomSettings(), key).toEqual({ ...before, [key]: value });
      const target = knobOf(key).target;
      if ("setting" in target) {
        expect(settingAt(sim.world.settings, target.setting), key).toEqual(value);
      } else {
        const read = { friction: (h: number) => sim.world.getFriction(h), restitution: (h: number) => sim.world.getRestitution(h) }[target.material];
        for (const h of sim.world.handles()) expect(read(h), `${key} of body ${sim.world.idOf(h)}`).toBe(value);
      }
    }
  });

  it("the client's knobs panel has one control per knob, spanning the table's range", () => {
    const specs = knobSpecs();
    expect(specs.map((s) => s.key)).toEqual(KNOB_KEYS);
    for (const spec of specs) {
      const knob = knobOf(spec.key as KnobKey);
      expect(spec.control, spec.key).toBe(knob.control);
      expect(spec.range, spec.key).toEqual(knob.range);
      expect(spec.label.startsWith(knob.label), spec.key).toBe(true);
    }
  });
});
