import { describe, expect, it } from "vitest";
import { AppliedCommands, applyOnce, COMMAND_MEMORY_MS, COMMAND_MEMORY_SIZE } from "../../server/admin/commands.ts";
import { leastLoaded } from "../../server/placement.ts";

/** The pure parts of the cluster fixes: where a room goes, and how a room remembers admin commands. */
describe("leastLoaded", () => {
  it("picks the process with the fewest rooms listed plus on their way", () => {
    const loads = [
      { processId: "a", listed: 3, inFlight: 0 },
      { processId: "b", listed: 1, inFlight: 1 },
      { processId: "c", listed: 2, inFlight: 2 },
    ];
    expect(leastLoaded(loads, "a")).toBe("b");
  });

  it("breaks a tie for the creating process, else for the lowest id (every process breaks it alike)", () => {
    const tie = [
      { processId: "c", listed: 1, inFlight: 0 },
      { processId: "b", listed: 0, inFlight: 1 },
      { processId: "a", listed: 1, inFlight: 0 },
    ];
    expect(leastLoaded(tie, "b")).toBe("b");
    expect(leastLoaded(tie, "c")).toBe("c");
    expect(leastLoaded(tie, "z")).toBe("a");
  });

  it("with no candidates, the creating process", () => {
    expect(leastLoaded([], "self")).toBe("self");
  });
});

describe("admin commands", () => {
  const answer = (n: number) => Promise.resolve({ n });

  it("runs a request id once: a retry gets the first answer, even while the first run is still going", async () => {
    const applied = new AppliedCommands<Promise<{ n: number }>>();
    let runs = 0;
    let release!: () => void;
    const slow = () =>
      new Promise<{ n: number }>((res) => {
        runs++;
        release = () => res({ n: runs });
      });
    const command = { requestId: "k1", deadline: Date.now() + 2000 };
    const first = applyOnce(applied, command, slow);
    const retry = applyOnce(applied, command, slow);
    release();
    expect(await first).toEqual({ answer: { n: 1 }, replayed: false });
    expect(await retry).toEqual({ answer: { n: 1 }, replayed: true });
    expect(runs).toBe(1);
    expect(await applyOnce(applied, { requestId: "k2", deadline: Date.now() + 2000 }, () => answer(7))).toEqual({ answer: { n: 7 }, replayed: false });
  });

  it("does not run a command that arrives after its deadline, and runs reads (no envelope) every time", async () => {
    const applied = new AppliedCommands<Promise<{ n: number }>>();
    let runs = 0;
    const run = () => answer(++runs);
    const late = await applyOnce(applied, { requestId: "old", deadline: Date.now() - 1500 }, run);
    expect("late" in late && late.late).toBeGreaterThanOrEqual(1500);
    expect(runs).toBe(0);
    // The late id was not remembered: the operator's retry (with a fresh deadline) is applied.
    expect(await applyOnce(applied, { requestId: "old", deadline: Date.now() + 2000 }, run)).toEqual({ answer: { n: 1 }, replayed: false });
    await applyOnce(applied, undefined, run);
    await applyOnce(applied, undefined, run);
    expect(runs).toBe(3);
  });

  it("forgets ids after COMMAND_MEMORY_MS, and keeps at most COMMAND_MEMORY_SIZE", () => {
    let t = 0;
    const applied = new AppliedCommands<number>(() => t);
    applied.remember("a", 1);
    t = COMMAND_MEMORY_MS;
    expect(applied.answerOf("a")).toBe(1);
    t = COMMAND_MEMORY_MS + 1;
    expect(applied.answerOf("a")).toBeUndefined();
    for (let i = 0; i <= COMMAND_MEMORY_SIZE; i++) applied.remember(`id${i}`, i);
    expect(applied.answerOf("id0")).toBeUndefined();
    expect(applied.answerOf("id1")).toBe(1);
    expect(applied.answerOf(`id${COMMAND_MEMORY_SIZE}`)).toBe(COMMAND_MEMORY_SIZE);
  });
});
