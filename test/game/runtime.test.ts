import { describe, expect, it } from "vitest";
import { type ContactEvent, defineGame, GameTester, MAX_HOOK_FAILURES_IN_A_ROW, type Scenario, z } from "../../shared/game/index.ts";
import { getBuiltinScenario } from "../../shared/scenarios/index.ts";
import { RoomSim } from "../../shared/sim/index.ts";

/**
 * The game runtime inside a room simulation, driven through GameTester: fields in the tick hash, sealed
 * and type-checked fields, guarded hooks (10 throws in a row fail the game), inputs, joins and leaves,
 * the seeded random generator across snapshots, the event hooks, createBody's limit and restart.
 */

const GROUND = { id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] } as const;

/** A ground and the bodies given; avatars spawn well away from the middle. */
function scene(bodies: Scenario["bodies"] = [], joints: Scenario["joints"] = []): Scenario {
  return { name: "tiny", world: { sleep: false }, bodies: [structuredClone(GROUND) as Scenario["bodies"][number], ...bodies], joints, spawn: [8, 1, 8] };
}

const worldPart = (hash: string) => hash.split(":")[0];
const fieldPart = (hash: string) => hash.split(":")[1];

/** A counter game: `add` adds n to the game's score and to the sender's own. */
function counter(initialScore = 0) {
  return defineGame({
    name: "counter",
    description: "adds",
    scenario: "stack10",
    state: { score: initialScore },
    playerState: { mine: 0 },
    inputs: { add: { schema: z.strictObject({ n: z.number() }) } },
    onInput(ctx, player, ...input) {
      if (input[0] !== "add") return;
      ctx.state.score += input[1].n;
      player.state.mine += input[1].n;
    },
  });
}

/** Hashes of `ticks` steps of a counter room where "a" adds `script.get(tick)` before that tick. */
function counterHashes(script: Map<number, number>, ticks: number, initialScore = 0): string[] {
  const t = new GameTester(counter(initialScore));
  t.join("a");
  const hashes: string[] = [];
  for (let k = 1; k <= ticks; k++) {
    const n = script.get(k);
    if (n !== undefined) t.input("a", "add", { n });
    hashes.push(t.step());
  }
  return hashes;
}

describe("fields and the tick hash", () => {
  it("the hash carries the fields: two rooms differing only in a field differ in hash, not in world", () => {
    const a = counterHashes(new Map(), 5, 0);
    const b = counterHashes(new Map(), 5, 1);
    for (const h of a) expect(h).toMatch(/^[0-9a-f]+:[0-9a-f]{8}$/);
    expect(a.map(worldPart)).toEqual(b.map(worldPart));
    for (const [k, h] of a.entries()) expect(fieldPart(h), `tick ${k + 1}`).not.toBe(fieldPart(b[k]));
  });

  it("same inputs give identical hashes tick by tick; one changed input diverges at its tick, in the fields alone", () => {
    const script = new Map([
      [3, 1],
      [7, 2],
      [12, 5],
    ]);
    const a = counterHashes(script, 20);
    expect(counterHashes(script, 20)).toEqual(a);
    const b = counterHashes(new Map([...script, [7, 3]]), 20);
    expect(b.slice(0, 6)).toEqual(a.slice(0, 6));
    expect(b[6]).not.toBe(a[6]);
    expect(b.map(worldPart)).toEqual(a.map(worldPart));
  });

  it("players' fields count too, and a game without fields hashes the world alone", () => {
    const t = new GameTester(counter());
    t.join("a");
    t.join("b");
    t.step();
    t.input("a", "add", { n: 1 });
    const h1 = t.step();
    const u = new GameTester(counter());
    u.join("a");
    u.join("b");
    u.step();
    u.input("b", "add", { n: 1 });
    const h2 = u.step();
    expect(t.state.score).toBe(u.state.score);
    expect(t.player("a")?.state.mine).toBe(1);
    expect(worldPart(h1)).toBe(worldPart(h2));
    expect(fieldPart(h1)).not.toBe(fieldPart(h2));

    const plain = new GameTester(defineGame({ name: "plain", description: "", scenario: "stack10" }));
    const hash = plain.step();
    expect(hash).not.toContain(":");
    expect(hash).toBe(plain.sim.world.stateHash());
  });
});

describe("fields are sealed and typed", () => {
  it("assigning an undeclared field throws inside the hook and is reported as that hook's error", () => {
    const game = defineGame({
      name: "sealed",
      description: "",
      scenario: "stack10",
      state: { score: 0 },
      onTick(ctx) {
        (ctx.state as Record<string, unknown>).bonus = 1;
        ctx.state.score = 1; // not reached
      },
    });
    const t = new GameTester(game);
    t.step(2);
    expect(t.hookErrors).toHaveLength(2);
    expect(t.hookErrors[0]).toMatchObject({ hook: "onTick", tick: 1 });
    expect(t.hookErrors[0].message).toMatch(/bonus/);
    expect(t.hookErrors[1].tick).toBe(2);
    expect(t.state).toEqual({ score: 0 });
    expect(t.failed).toBeNull();
  });

  it("a field given the wrong type is reported and goes back to its value before the hook", () => {
    const game = defineGame({
      name: "typed",
      description: "",
      scenario: "stack10",
      state: { score: 5 },
      playerState: { team: "red" },
      onJoin(_ctx, player) {
        (player.state as Record<string, unknown>).team = 7;
      },
      onTick(ctx) {
        if (ctx.tick === 3) (ctx.state as Record<string, unknown>).score = "high";
        else ctx.state.score += 1;
      },
    });
    const t = new GameTester(game);
    t.join("a");
    t.step(4);
    expect(t.hookErrors.map((e) => [e.hook, e.tick])).toEqual([
      ["onJoin", 1],
      ["onTick", 3],
    ]);
    expect(t.hookErrors[0].message).toMatch(/^player a state\.team: expected a string, got number/);
    expect(t.hookErrors[1].message).toMatch(/^state\.score: expected a number, got string/);
    expect(t.player("a")?.state.team).toBe("red");
    // 5, +1 on tick 1 and 2, tick 3 undone, +1 on tick 4.
    expect(t.state.score).toBe(8);
  });

  it("a hook that leaves a field of the wrong type and then throws: the field goes back too, the next hook is not blamed", () => {
    const game = defineGame({
      name: "typed-throw",
      description: "",
      scenario: "stack10",
      state: { score: 0 },
      onTick(ctx) {
        if (ctx.tick === 2) {
          (ctx.state as Record<string, unknown>).score = "x";
          throw new Error("late");
        }
        ctx.state.score += 1;
      },
    });
    const t = new GameTester(game);
    t.step(5);
    expect(t.hookErrors.map((e) => [e.tick, e.message])).toEqual([[2, "late"]]);
    expect(t.state.score).toBe(4);
    expect(t.failed).toBeNull();
  });
});

describe("hook failures", () => {
  /** A game whose onTick throws on ticks 1..throws and counts the ticks it ran on after. */
  const throwing = (throws: number) =>
    defineGame({
      name: "thrower",
      description: "",
      scenario: "stack10",
      state: { ran: 0 },
      onTick(ctx) {
        if (ctx.tick <= throws) throw new Error(`boom ${ctx.tick}`);
        ctx.state.ran += 1;
      },
    });

  it(`${MAX_HOOK_FAILURES_IN_A_ROW} throws in a row set failed, and the hooks stop running`, () => {
    expect(MAX_HOOK_FAILURES_IN_A_ROW).toBe(10);
    const t = new GameTester(throwing(10));
    t.step(9);
    expect(t.failed).toBeNull();
    t.step();
    expect(t.failed).toMatch(/^game "thrower": hooks threw 10 times in a row \(last: onTick on tick 10: boom 10\)/);
    t.step(5);
    expect(t.hookErrors).toHaveLength(10);
    expect(t.state.ran).toBe(0);
  });

  it("9 throws then a success do not: the count starts again", () => {
    const t = new GameTester(throwing(9));
    t.step(12);
    expect(t.failed).toBeNull();
    expect(t.hookErrors).toHaveLength(9);
    expect(t.state.ran).toBe(3);
  });

  it("the failed state is part of the snapshot", () => {
    const t = new GameTester(throwing(10));
    t.step(10);
    const snap = t.sim.snapshot();
    const fresh = new GameTester(throwing(10));
    expect(fresh.failed).toBeNull();
    fresh.sim.restore(snap);
    expect(fresh.failed).toBe(t.failed);
  });
});

describe("inputs, joins and leaves", () => {
  it("onInput receives the message as the schema parsed it, on the next tick, from players only", () => {
    const received: unknown[] = [];
    const game = defineGame({
      name: "parsed",
      description: "",
      scenario: "stack10",
      inputs: { drop: { schema: z.strictObject({ n: z.number().int(), tag: z.string().default("none") }) } },
      onInput(ctx, player, ...input) {
        received.push({ tick: ctx.tick, session: player.session, name: input[0], message: input[1] });
      },
    });
    const t = new GameTester(game);
    t.join("a");
    t.step();
    t.input("a", "drop", { n: 2 });
    t.input("ghost", "drop", { n: 3 }); // not a player: ignored
    expect(received).toEqual([]);
    t.step();
    expect(received).toEqual([{ tick: 2, session: "a", name: "drop", message: { n: 2, tag: "none" } }]);
    expect(() => t.input("a", "drop", { n: 1.5 })).toThrow();
    expect(() => t.input("a", "drop", { n: 1, extra: true })).toThrow();
    expect(() => t.input("a", "nope", {})).toThrow(/no input "nope"/);
    // An input name the game does not have, queued directly, reaches no hook.
    t.sim.enqueue({ type: "input", session: "a", name: "nope", message: {} });
    t.step();
    expect(received).toHaveLength(1);
  });

  it("onJoin and onLeave run in order; the avatar stands during both; a second join is ignored", () => {
    const log: string[] = [];
    const game = defineGame({
      name: "seats",
      description: "",
      scenario: scene(),
      onJoin(ctx, player) {
        log.push(`join ${player.session}@${ctx.tick} joinedAt=${player.joinedAt} players=${ctx.players.map((p) => p.session)} avatar=${ctx.avatar(player) !== null}`);
      },
      onLeave(ctx, player) {
        log.push(`leave ${player.session}@${ctx.tick} players=${ctx.players.map((p) => p.session)} avatar=${ctx.avatar(player) !== null}`);
      },
    });
    const t = new GameTester(game);
    t.join("a");
    t.join("b");
    t.join("a");
    t.step();
    t.leave("a");
    t.join("c");
    t.step();
    t.leave("b");
    t.leave("zed"); // never joined: no hook
    t.step();
    expect(log).toEqual([
      "join a@1 joinedAt=1 players=a avatar=true",
      "join b@1 joinedAt=1 players=a,b avatar=true",
      "leave a@2 players=a,b avatar=true",
      "join c@2 joinedAt=2 players=b,c avatar=true",
      "leave b@3 players=b,c avatar=true",
    ]);
    expect(t.sim.players.map((p) => p.session)).toEqual(["c"]);
    expect(t.sim.world.handleOf("avatar-a")).toBe(-1);
    expect(t.player("c")?.avatarId).toBe("avatar-c");
  });

  it("a game without avatars has players without avatars", () => {
    let avatar: unknown = "unset";
    const game = defineGame({
      name: "no-avatar",
      description: "",
      scenario: scene(),
      avatar: null,
      onJoin(ctx, player) {
        avatar = ctx.avatar(player);
      },
    });
    const t = new GameTester(game);
    t.join("a");
    t.move("a", 3, 0);
    t.step(2);
    expect(avatar).toBeNull();
    expect(t.player("a")?.avatarId).toBe("");
    expect(t.sim.world.bodyCount).toBe(1);
  });
});

describe("ctx.random", () => {
  /** A game drawing from ctx.random every tick into a field (and every 15 ticks a body at a random spot). */
  const dice = defineGame({
    name: "dice",
    description: "",
    scenario: "stack10",
    state: { roll: 0, last: 0 },
    onTick(ctx) {
      ctx.state.roll = ctx.random.int(6) + 1;
      ctx.state.last = ctx.random.next();
      if (ctx.tick % 15 === 0) {
        ctx.createBody({
          id: ctx.uniqueId("die"),
          type: "dynamic",
          shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] },
          position: [ctx.random.range(-4, 4), 3, ctx.random.range(-4, 4)],
        });
      }
    },
  });

  const draws = (seed: number, ticks = 30) => {
    const t = new GameTester(dice, { seed });
    const out: number[] = [];
    for (let k = 0; k < ticks; k++) {
      t.step();
      out.push(t.state.last as number);
    }
    return out;
  };

  it("is seeded: the same seed gives the same sequence, another seed another", () => {
    const a = draws(7);
    expect(draws(7)).toEqual(a);
    expect(draws(8)).not.toEqual(a);
    for (const v of a) expect(v >= 0 && v < 1).toBe(true);
    expect(new Set(a).size).toBe(a.length);
  });

  it("survives a RoomSim snapshot and restore: the same hashes as the uninterrupted run", () => {
    const END = 90;
    const whole = new GameTester(dice, { seed: 3 });
    const expected: string[] = [];
    for (let k = 0; k < END; k++) expected.push(whole.step());

    const t = new GameTester(dice, { seed: 3 });
    t.step(40);
    const snap = t.sim.snapshot();
    const after: string[] = [];
    while (t.tick < END) after.push(t.step());
    expect(after).toEqual(expected.slice(40));

    // Into a room built with another seed: the generator's state comes from the snapshot.
    const fresh = new GameTester(dice, { seed: 12345 });
    fresh.sim.restore(snap);
    const restored: string[] = [];
    while (fresh.tick < END) restored.push(fresh.step());
    expect(restored).toEqual(expected.slice(40));
    expect(fresh.sim.world.handleOf("die6")).toBeGreaterThanOrEqual(0);

    // And the same room rewound.
    t.sim.restore(snap);
    const again: string[] = [];
    while (t.tick < END) again.push(t.step());
    expect(again).toEqual(expected.slice(40));
  });
});

describe("event hooks", () => {
  it("onSensor: a body falling through a sensor box enters it (event.a is the sensor)", () => {
    const events: ContactEvent[] = [];
    const game = defineGame({
      name: "zone",
      description: "",
      scenario: scene([
        { id: "zone", type: "static", sensor: true, shape: { type: "box", halfExtents: [1, 0.5, 1] }, position: [0, 0.5, 0] },
        { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.25 }, position: [0, 3, 0] },
      ]),
      state: { inside: 0 },
      onSensor(ctx, e) {
        events.push(e);
        ctx.state.inside += e.type === "sensorEnter" ? 1 : -1;
      },
      onContact(_ctx, e) {
        if (e.a === "zone" || e.b === "zone") throw new Error("a sensor event reached onContact");
      },
    });
    const t = new GameTester(game);
    t.step(150);
    expect(t.hookErrors).toEqual([]);
    expect(events.map((e) => [e.type, e.a, e.b])).toEqual([["sensorEnter", "zone", "ball"]]);
    expect(t.state.inside).toBe(1);
    // Pushed out sideways, it leaves.
    t.sim.world.applyImpulse(t.sim.world.handleOf("ball"), [0.5, 0, 0]);
    t.step(240);
    expect(events.at(-1)).toMatchObject({ type: "sensorExit", a: "zone", b: "ball" });
    expect(t.state.inside).toBe(0);
  });

  it("onContact: a box landing on the ground begins a contact with an impact impulse", () => {
    const events: ContactEvent[] = [];
    let landedAt = 0;
    const game = defineGame({
      name: "landing",
      description: "",
      scenario: scene([{ id: "crate", type: "dynamic", shape: { type: "box", halfExtents: [0.5, 0.5, 0.5] }, position: [0, 2, 0] }]),
      onContact(ctx, e) {
        events.push(e);
        if (e.type === "contactBegin" && landedAt === 0) landedAt = ctx.tick;
      },
    });
    const t = new GameTester(game);
    t.step(90);
    const begin = events.find((e) => e.type === "contactBegin");
    expect(begin).toBeDefined();
    expect([begin!.a, begin!.b].sort()).toEqual(["crate", "ground"]);
    expect(begin!.impulse).toBeGreaterThan(0);
    // A 1.5 m fall takes about 0.55 s.
    expect(landedAt).toBeGreaterThan(25);
    expect(landedAt).toBeLessThan(40);
    expect(events.every((e) => e.type === "contactBegin" || e.type === "contactEnd")).toBe(true);
  });

  it("onJointBreak: a joint with a tiny breakForce breaks under gravity, already removed when the hook runs", () => {
    const events: { e: ContactEvent; joints: number; tick: number }[] = [];
    const game = defineGame({
      name: "snap",
      description: "",
      scenario: scene(
        [{ id: "weight", type: "dynamic", shape: { type: "box", halfExtents: [0.3, 0.3, 0.3] }, position: [0, 5, 0] }],
        [{ id: "rope", type: "ball", bodyA: "weight", bodyB: null, anchor: [0, 5.3, 0], breakForce: 0.01 }],
      ),
      onJointBreak(ctx, e) {
        let joints = 0;
        ctx.world.forEachJoint(() => joints++);
        events.push({ e, joints, tick: ctx.tick });
      },
    });
    const t = new GameTester(game);
    t.step(30);
    expect(events).toHaveLength(1);
    expect(events[0].e).toMatchObject({ type: "jointBreak", joint: "rope", a: "weight", b: "" });
    expect(events[0].e.impulse).toBeGreaterThan(0.01);
    expect(events[0].joints).toBe(0);
    expect(events[0].tick).toBeLessThanOrEqual(2);
    expect(t.sim.world.getPosition(t.sim.world.handleOf("weight"))[1]).toBeLessThan(5);
  });
});

describe("ctx.createBody and ctx.restart", () => {
  it("createBody answers -1 once the room holds maxBodies bodies; avatars still get in", () => {
    const handles: number[] = [];
    const game = defineGame({
      name: "filler",
      description: "",
      scenario: "stack10",
      setup(ctx) {
        for (let i = 0; i < 10; i++) {
          handles.push(ctx.createBody({ id: ctx.uniqueId("extra"), type: "dynamic", shape: { type: "sphere", radius: 0.3 }, position: [5 + 2 * i, 1, -5] }));
        }
      },
    });
    const t = new GameTester(game, { maxBodies: 14 });
    // stack10 has 11 bodies: three more fit.
    expect(handles.filter((h) => h >= 0)).toHaveLength(3);
    expect(handles.slice(3)).toEqual(Array(7).fill(-1));
    expect(t.sim.world.bodyCount).toBe(14);
    expect(t.sim.world.handleOf("extra3")).toBeGreaterThanOrEqual(0);
    expect(t.sim.world.handleOf("extra4")).toBe(-1);
    t.join("a");
    t.step();
    expect(t.sim.world.bodyCount).toBe(15);
  });

  it("restart rebuilds the world and runs setup again; fields and players stay", () => {
    const game = defineGame({
      name: "again",
      description: "",
      scenario: "stack10",
      state: { setups: 0, presses: 0 },
      inputs: { reset: { schema: z.strictObject({}) } },
      setup(ctx) {
        ctx.state.setups += 1;
        ctx.createBody({ id: "marker", type: "static", shape: { type: "sphere", radius: 0.2 }, position: [6, 0.2, 0] });
      },
      onInput(ctx) {
        ctx.state.presses += 1;
        ctx.restart();
      },
    });
    const t = new GameTester(game);
    expect(t.state.setups).toBe(1);
    t.join("a");
    t.step();
    t.sim.world.removeBody(t.sim.world.handleOf("marker"));
    t.sim.world.applyImpulse(t.sim.world.handleOf("box9"), [5, 0, 0]);
    t.step(30);
    const box9 = () => t.sim.world.getPosition(t.sim.world.handleOf("box9"))[0];
    expect(box9()).toBeGreaterThan(1);
    const generation = t.sim.worldGeneration;
    t.input("a", "reset");
    t.step();
    expect(t.hookErrors).toEqual([]);
    expect(t.sim.worldGeneration).toBe(generation + 1);
    expect(t.state).toEqual({ setups: 2, presses: 1 });
    expect(t.sim.world.handleOf("marker")).toBeGreaterThanOrEqual(0);
    expect(box9()).toBeCloseTo(0, 3); // back on the stack, one tick after the reload
    expect(t.sim.world.handleOf("avatar-a")).toBeGreaterThanOrEqual(0);
    expect(t.player("a")).toBeDefined();
    expect(t.tick).toBe(32);
  });

  it("uniqueId skips ids the world already has", () => {
    const ids: string[] = [];
    const game = defineGame({
      name: "ids",
      description: "",
      scenario: scene([{ id: "ball1", type: "dynamic", shape: { type: "sphere", radius: 0.2 }, position: [0, 1, 0] }]),
      setup(ctx) {
        ids.push(ctx.uniqueId("ball"), ctx.uniqueId("ball"), ctx.uniqueId("cube"));
      },
    });
    new GameTester(game);
    expect(ids).toEqual(["ball2", "ball3", "cube4"]);
  });

  it("the RoomSim defaults to the sandbox game, whose inputs are game inputs", () => {
    const sim = new RoomSim(getBuiltinScenario("stack10")!, { seed: 5 });
    expect(sim.game.name).toBe("sandbox");
    sim.enqueue({ type: "join", session: "p" });
    sim.enqueue({ type: "input", session: "p", name: "spawn", message: { shape: "box", size: 0.3 } });
    sim.step();
    expect(sim.world.bodyCount).toBe(13);
    expect(sim.world.handleOf("s1")).toBeGreaterThanOrEqual(0);
  });
});

describe("GameTester.tryInput", () => {
  it("answers as a room would: the schema's reason with the field's path, then the game's check; null when queued", () => {
    const game = defineGame({
      name: "gate",
      description: "one input with a check",
      scenario: scene(),
      state: { opened: 0 },
      inputs: {
        open: {
          schema: z.strictObject({ times: z.int().min(1).max(3) }),
          check: (ctx) => ((ctx.state.opened as number) >= 2 ? "already open" : null),
        },
      },
      onInput(ctx, _player, _name, message) {
        ctx.state.opened += message.times;
      },
    });
    const t = new GameTester(game);
    t.join("a");
    t.step();
    expect(t.tryInput("a", "open", { times: 9 })).toBe("times: Too big: expected number to be <=3");
    expect(t.tryInput("a", "shut", {})).toBe('unknown message type "shut"');
    expect(t.tryInput("a", "open", { times: 2 })).toBeNull();
    t.step();
    expect(t.state.opened).toBe(2);
    expect(t.tryInput("a", "open", { times: 1 })).toBe("already open");
    expect(t.ctx.state.opened).toBe(2);
  });
});
