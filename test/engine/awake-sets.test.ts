import { beforeAll, describe, expect, it } from "vitest";
import { builtin, steps } from "./helpers.ts";

/** Steps until every dynamic body sleeps; returns the step count (or -1 within `limit`). */
function settle(w: ReturnType<typeof builtin>["world"], limit: number): number {
  for (let i = 1; i <= limit; i++) {
    w.step();
    if (i > 60 && w.awakeBodyCount === 0) return i;
  }
  return -1;
}

function contactCount(w: ReturnType<typeof builtin>["world"]): number {
  let n = 0;
  w.forEachContact(() => n++);
  return n;
}

describe("awake sets (bodies, contacts) that sleeping ones never enter", () => {
  // One settled pile for the two pile tests (settling a thousand boxes is most of their time).
  const pile = builtin("pile1000", { sleep: true }).world;
  let settledAt = 0;
  beforeAll(() => {
    settledAt = settle(pile, 600);
  });

  it("pile1000 with sleeping is fully asleep by step 400, and a settled step visits no body, pair or contact", () => {
    const w = pile;
    expect(settledAt).toBeGreaterThan(0);
    expect(settledAt).toBeLessThanOrEqual(400);
    const sleepingContacts = contactCount(w);
    expect(sleepingContacts).toBeGreaterThan(1000);
    w.step();
    const s = w.lastStepStats;
    expect([s.awake, s.broadPairs, s.narrowPairs, s.constraints, s.awakeContacts]).toEqual([0, 0, 0, 0, 0]);
    // Their contacts are kept (for the wake-up), only outside the awake set.
    expect(contactCount(w)).toBe(sleepingContacts);
  });

  it("waking one stack of a sleeping pile brings back only that stack and its contacts", () => {
    const w = pile;
    expect(w.awakeBodyCount).toBe(0);
    // The stack in the pile's corner column (x = 0, z = 0): find its top box, the highest body there.
    const column = w.handles().filter((h) => w.idOf(h)!.startsWith("b0_") && w.idOf(h)!.endsWith("_0"));
    const top = column.reduce((a, b) => (w.getPosition(b)[1] > w.getPosition(a)[1] ? b : a));
    w.applyImpulse(top, [0.05, 0, 0]);
    const island = w.awakeBodyCount;
    expect(island).toBeGreaterThan(0);
    expect(island).toBeLessThanOrEqual(20);
    w.step();
    const s = w.lastStepStats;
    expect(s.awake).toBe(island);
    // Contacts within the island and with the ground: a few per body, nowhere near the pile's thousands.
    expect(s.awakeContacts).toBeLessThanOrEqual(3 * island);
    expect(s.constraints).toBeLessThanOrEqual(s.awakeContacts);
  });

  it("removing a body drops exactly its own contacts and wakes what rested on it", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 90);
    expect(w.awakeBodyCount).toBe(0);
    const before = contactCount(w);
    const middle = w.handleOf("box5");
    let own = 0;
    w.forEachContact((c) => {
      if (c.a === middle || c.b === middle) own++;
    });
    expect(own).toBe(2);
    w.removeBody(middle);
    expect(contactCount(w)).toBe(before - own);
    // The boxes above and below it woke (with their islands); the stack is one island, so all of it.
    expect(w.isSleeping(w.handleOf("box6"))).toBe(false);
    expect(w.isSleeping(w.handleOf("box4"))).toBe(false);
    expect(w.awakeBodyCount).toBe(9);
  });

  it("bodies created into a sleeping world are found by the broad phase on the next step", () => {
    const { world: w } = builtin("stack10", { sleep: true });
    steps(w, 90);
    expect(w.awakeBodyCount).toBe(0);
    // A static slab created right under a resting region, then a dynamic ball dropped onto the top box.
    w.createBody({ id: "slab", type: "static", shape: { type: "box", halfExtents: [3, 0.1, 3] }, position: [6, 0.1, 0] });
    w.createBody({ id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.25 }, position: [6, 1, 0] });
    steps(w, 90);
    // The ball rests on the new slab (found although nothing else in the world was awake).
    expect(w.getPosition(w.handleOf("ball"))[1]).toBeGreaterThan(0.4);
    expect(w.getPosition(w.handleOf("ball"))[1]).toBeLessThan(0.5);
  });
});
