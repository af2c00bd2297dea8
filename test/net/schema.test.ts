import { Decoder, Encoder } from "@colyseus/schema";
import { describe, expect, it } from "vitest";
import { RoomState } from "../../shared/net/index.ts";
import { PHYSICAL_LIMITS, validateScenario } from "../../shared/scenarios/index.ts";

/** Every tick rate the scenario format accepts, probed through the validator itself. */
function allowedTickRates(): number[] {
  const rates: number[] = [];
  for (let r = 0; r <= PHYSICAL_LIMITS.maxTickRate + 1; r++) {
    if (validateScenario({ name: "t", world: { tickRate: r }, bodies: [] }).ok) rates.push(r);
  }
  return rates;
}

describe("RoomState.tickRate on the wire", () => {
  it("the format allows exactly the integers 1..1000", () => {
    const rates = allowedTickRates();
    expect(rates).toHaveLength(1000);
    expect(rates[0]).toBe(1);
    expect(rates.at(-1)).toBe(1000);
    for (const r of [0.5, 59.94, 999.5, 1001, 65536]) {
      expect(validateScenario({ name: "t", world: { tickRate: r }, bodies: [] }).ok, String(r)).toBe(false);
    }
  });

  it("every allowed rate arrives exactly, in patches and in the full state a joining client gets", () => {
    const state = new RoomState();
    const encoder = new Encoder(state);
    const decoder = new Decoder(new RoomState());
    decoder.decode(encoder.encodeAll());
    encoder.discardChanges();
    expect(decoder.state.tickRate).toBe(60);
    const wrong: string[] = [];
    for (const rate of allowedTickRates()) {
      state.tickRate = rate;
      state.tick = rate * 7;
      decoder.decode(encoder.encode());
      encoder.discardChanges();
      if (decoder.state.tickRate !== rate || decoder.state.tick !== rate * 7) wrong.push(`${rate} -> ${decoder.state.tickRate}`);
      // A client joining now decodes the full state, not a patch.
      const fresh = new Decoder(new RoomState());
      fresh.decode(encoder.encodeAll());
      if (fresh.state.tickRate !== rate) wrong.push(`${rate} -> ${fresh.state.tickRate} (full state)`);
    }
    // A uint8 field turned 300 into 44 and 1000 into 232.
    expect(wrong).toEqual([]);
  });
});
