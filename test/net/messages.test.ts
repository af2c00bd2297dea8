import { describe, expect, it } from "vitest";
import { LIMITS, parseClientMessage } from "../../shared/net/index.ts";

describe("client message validation", () => {
  it("accepts well-formed messages", () => {
    expect(parseClientMessage("move", { vx: 1, vz: -2, jump: true })).toEqual({ ok: true, value: { vx: 1, vz: -2, jump: true } });
    expect(parseClientMessage("spawn", { shape: "box", size: 0.5, velocity: [0, 1, 0] }).ok).toBe(true);
    expect(parseClientMessage("impulse", { bodyId: "b1", impulse: [0, 1, 0], point: [1, 2, 3] }).ok).toBe(true);
  });

  it("names the field and the bound in the reason", () => {
    const cases: [Parameters<typeof parseClientMessage>[0], unknown, string][] = [
      ["move", { vx: 21, vz: 0 }, `vx: Too big: expected number to be <=${LIMITS.maxMoveSpeed}`],
      ["move", { vx: 0 }, "vz: "],
      ["move", { vx: Number.POSITIVE_INFINITY, vz: 0 }, "vx: "],
      ["spawn", { shape: "box", size: 5 }, "size: Too big"],
      ["spawn", { shape: "box", size: 0.5, velocity: [0, 99, 0] }, "velocity[1]: Too big"],
      ["impulse", { bodyId: "", impulse: [0, 0, 0] }, "bodyId: "],
      ["impulse", { bodyId: "a", impulse: [0, 0] }, "impulse"],
      ["impulse", { bodyId: "a", impulse: [0, 0, 0], evil: true }, "evil"],
      ["move", null, "(message): "],
    ];
    for (const [type, payload, reason] of cases) {
      const r = parseClientMessage(type, payload);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.reason).toContain(reason);
    }
  });
});
