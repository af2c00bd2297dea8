import { describe, expect, it } from "vitest";
import { avatarShapeDef } from "../../shared/game/define.ts";
import { DEFAULT_AVATAR, defineGame, GameDefinitionError, type GameOptions, isGameDefinition, MOVE_INPUT, z } from "../../shared/game/index.ts";

/**
 * defineGame: a complete, valid game comes back frozen with every default resolved; an invalid one throws
 * GameDefinitionError whose message starts with the path of the field at fault.
 */

/** A valid game using every option. */
function fullGame(): GameOptions {
  return {
    name: "kick-ball-2",
    version: "3",
    description: "Kick the ball into the goal.",
    scenario: "stack10",
    anyScenario: true,
    avatar: { size: [0.6, 1.6, 0.6], speed: 7, jump: 4 },
    inputs: {
      kick: { schema: z.strictObject({ power: z.number().min(0).max(10).default(5) }), perSecond: 4, label: "kick the ball" },
      reset: { schema: z.strictObject({}), roomInterval: 5 },
      drop: { schema: z.strictObject({ shape: z.enum(["box", "sphere"]) }), addsBodies: true, check: () => null },
    },
    state: { score: 0, phase: "warm-up", open: true },
    playerState: { goals: 0, team: "red" },
    setup() {},
    onJoin() {},
    onLeave() {},
    onInput() {},
    onTick() {},
    onContact() {},
    onSensor() {},
    onJointBreak() {},
    client: { keys: [{ key: "KeyE", input: "kick" }, { key: "Digit1", input: "drop", message: { shape: "box" } }], help: "E kicks", labels: { score: "Score" } },
  };
}

/** The GameDefinitionError defineGame throws for `options`. */
function definitionError(options: unknown): GameDefinitionError {
  try {
    defineGame(options as GameOptions);
  } catch (err) {
    expect(err).toBeInstanceOf(GameDefinitionError);
    return err as GameDefinitionError;
  }
  throw new Error("defineGame accepted an invalid game");
}

/** A full game with `edit` applied: its error message. */
function errorOf(edit: (g: Record<string, unknown>) => void): string {
  const g = fullGame() as unknown as Record<string, unknown>;
  edit(g);
  return definitionError(g).message;
}

describe("defineGame: a valid game", () => {
  it("accepts a game with every option and resolves it", () => {
    const game = defineGame(fullGame());
    expect(isGameDefinition(game)).toBe(true);
    expect(Object.isFrozen(game)).toBe(true);
    expect(game.name).toBe("kick-ball-2");
    expect(game.version).toBe("3");
    expect(game.anyScenario).toBe(true);
    expect(game.avatar).toEqual({ shape: "box", halfExtents: [0.3, 0.8, 0.3], maxSpeed: 7, jumpSpeed: 4 });
    expect(Object.keys(game.inputs)).toEqual(["kick", "reset", "drop"]);
    expect(game.inputs.kick.perSecond).toBe(4);
    expect(game.state).toEqual({ score: 0, phase: "warm-up", open: true });
    expect(game.playerState).toEqual({ goals: 0, team: "red" });
    expect(Object.isFrozen(game.state)).toBe(true);
    expect(typeof game.onTick).toBe("function");
  });

  it("fills the defaults of a minimal game: version 1, the standard avatar, no inputs or fields", () => {
    const game = defineGame({ name: "x", description: "", scenario: "arena" });
    expect(game.version).toBe("1");
    expect(game.anyScenario).toBe(false);
    expect(game.avatar).toEqual(DEFAULT_AVATAR);
    expect(game.inputs).toEqual({});
    expect(game.state).toEqual({});
    expect(game.playerState).toEqual({});
    expect(defineGame({ name: "y", description: "", scenario: "arena", avatar: null }).avatar).toBeNull();
  });

  it("is not fooled by a look-alike: isGameDefinition wants defineGame's mark", () => {
    expect(isGameDefinition({ ...fullGame() })).toBe(false);
    expect(isGameDefinition(null)).toBe(false);
  });
});

describe("defineGame: invalid games name the field", () => {
  it("a bad name", () => {
    for (const name of ["Soccer", "", "-x", "a b", "x".repeat(33), 7]) {
      expect(errorOf((g) => (g.name = name))).toMatch(/^name: /);
    }
  });

  it("an unknown option", () => {
    expect(errorOf((g) => (g.onTickk = () => {}))).toBe("onTickk: unknown option");
    expect(errorOf((g) => ((g.inputs as Record<string, Record<string, unknown>>).kick.rate = 3))).toBe("inputs.kick.rate: unknown option");
    expect(errorOf((g) => ((g.avatar as Record<string, unknown>).height = 2))).toMatch(/^avatar\.height: unknown option/);
    expect(errorOf((g) => ((g.client as Record<string, unknown>).theme = "dark"))).toMatch(/^client\.theme: unknown option/);
  });

  it("an input named move (the avatar's own), or another service message", () => {
    const msg = errorOf((g) => ((g.inputs as Record<string, unknown>)[MOVE_INPUT] = { schema: z.strictObject({}) }));
    expect(msg).toMatch(/^inputs\.move: /);
    expect(msg).toContain("service's own message");
    expect(errorOf((g) => ((g.inputs as Record<string, unknown>).welcome = { schema: z.strictObject({}) }))).toMatch(/^inputs\.welcome: /);
    expect(errorOf((g) => ((g.inputs as Record<string, unknown>)["9lives"] = { schema: z.strictObject({}) }))).toMatch(/^inputs\.9lives: an input name/);
  });

  it("an input without a zod schema", () => {
    expect(errorOf((g) => ((g.inputs as Record<string, unknown>).jump = {}))).toMatch(/^inputs\.jump\.schema: expected a zod schema/);
    expect(errorOf((g) => ((g.inputs as Record<string, unknown>).jump = { schema: { type: "object" } }))).toMatch(/^inputs\.jump\.schema: expected a zod schema/);
    expect(errorOf((g) => ((g.inputs as Record<string, unknown>).jump = null))).toMatch(/^inputs\.jump: /);
  });

  it("a field with a non-primitive initial value", () => {
    expect(errorOf((g) => ((g.state as Record<string, unknown>).pos = [0, 0]))).toBe("state.pos: expected a number, string or boolean initial value");
    expect(errorOf((g) => ((g.playerState as Record<string, unknown>).bag = { a: 1 }))).toBe("playerState.bag: expected a number, string or boolean initial value");
    expect(errorOf((g) => ((g.state as Record<string, unknown>).none = null))).toMatch(/^state\.none: /);
    expect(errorOf((g) => ((g.state as Record<string, unknown>).inf = Number.POSITIVE_INFINITY))).toMatch(/^state\.inf: expected a finite number/);
    expect(errorOf((g) => ((g.state as Record<string, unknown>).long = "x".repeat(257)))).toMatch(/^state\.long: /);
  });

  it("a field with a bad name", () => {
    expect(errorOf((g) => ((g.state as Record<string, unknown>)["1st"] = 0))).toMatch(/^state\.1st: a field name/);
    expect(errorOf((g) => ((g.playerState as Record<string, unknown>)["my-goals"] = 0))).toMatch(/^playerState\.my-goals: a field name/);
  });

  it("avatar.size out of range", () => {
    expect(errorOf((g) => (g.avatar = { size: [0.8, 5, 0.8] }))).toMatch(/^avatar\.size\[1\]: expected a number from 0\.2 to 4/);
    expect(errorOf((g) => (g.avatar = { size: [0.1, 1, 1] }))).toMatch(/^avatar\.size\[0\]: /);
    expect(errorOf((g) => (g.avatar = { size: [1, 1] }))).toMatch(/^avatar\.size: /);
    expect(errorOf((g) => (g.avatar = { speed: 0 }))).toMatch(/^avatar\.speed: /);
    expect(errorOf((g) => (g.avatar = { jump: 21 }))).toMatch(/^avatar\.jump: /);
  });

  it("avatar.shape: an unknown one, a capsule that is not round across, a sphere that is not round", () => {
    expect(errorOf((g) => (g.avatar = { shape: "cone" }))).toMatch(/^avatar\.shape: expected one of box, capsule, sphere/);
    expect(errorOf((g) => (g.avatar = { shape: "capsule", size: [0.8, 1.8, 0.6] }))).toMatch(/^avatar\.size: a capsule's width and depth/);
    expect(errorOf((g) => (g.avatar = { shape: "capsule", size: [0.8, 0.6, 0.8] }))).toMatch(/^avatar\.size: a capsule's/);
    expect(errorOf((g) => (g.avatar = { shape: "sphere", size: [1, 1, 0.8] }))).toMatch(/^avatar\.size: a sphere's/);
  });

  it("avatar shapes resolve to the engine shape in their box", () => {
    const capsule = defineGame({ ...fullGame(), avatar: { shape: "capsule", size: [0.6, 1.8, 0.6] } }).avatar;
    expect(capsule).toEqual({ shape: "capsule", halfExtents: [0.3, 0.9, 0.3], maxSpeed: DEFAULT_AVATAR.maxSpeed, jumpSpeed: DEFAULT_AVATAR.jumpSpeed });
    expect(avatarShapeDef(capsule!)).toEqual({ type: "capsule", radius: 0.3, halfHeight: 0.9 - 0.3 });
    const ball = defineGame({ ...fullGame(), avatar: { shape: "sphere", size: [1, 1, 1] } }).avatar;
    expect(avatarShapeDef(ball!)).toEqual({ type: "sphere", radius: 0.5 });
    expect(avatarShapeDef(DEFAULT_AVATAR)).toEqual({ type: "box", halfExtents: [0.4, 0.9, 0.4] });
  });

  it("client.keys naming a missing input, or with a message failing the input's schema", () => {
    expect(errorOf((g) => (g.client = { keys: [{ key: "KeyQ", input: "fly" }] }))).toBe('client.keys[0].input: no input "fly"');
    // move is the service's own, not one of the game's inputs.
    expect(errorOf((g) => (g.client = { keys: [{ key: "KeyE", input: "kick" }, { key: "KeyW", input: "move" }] }))).toMatch(/^client\.keys\[1\]\.input: no input "move"/);
    expect(errorOf((g) => (g.client = { keys: [{ key: "KeyE", input: "kick", message: { power: 99 } }] }))).toBe("client.keys[0].message: does not pass inputs.kick.schema");
    // drop has no default for its shape: a key without a message sends {}, which fails.
    expect(errorOf((g) => (g.client = { keys: [{ key: "KeyD", input: "drop" }] }))).toBe("client.keys[0].message: does not pass inputs.drop.schema");
    expect(errorOf((g) => (g.client = { keys: [{ key: "Key E", input: "kick" }] }))).toMatch(/^client\.keys\[0\]\.key: /);
    expect(errorOf((g) => (g.client = { keys: "KeyE" }))).toMatch(/^client\.keys: expected a list/);
    expect(errorOf((g) => (g.client = { labels: 5 }))).toMatch(/^client\.labels: /);
    expect(errorOf((g) => (g.client = { labels: { score: 1 } }))).toBe("client.labels.score: expected a string");
  });

  it("other fields: a hook that is not a function, description, scenario, version, input options", () => {
    expect(errorOf((g) => (g.onTick = "tick"))).toBe("onTick: expected a function");
    expect(errorOf((g) => delete g.description)).toMatch(/^description: /);
    expect(errorOf((g) => (g.scenario = 3))).toMatch(/^scenario: /);
    expect(errorOf((g) => (g.version = ""))).toMatch(/^version: /);
    expect(errorOf((g) => ((g.inputs as Record<string, Record<string, unknown>>).kick.perSecond = 0))).toMatch(/^inputs\.kick\.perSecond: /);
    expect(errorOf((g) => ((g.inputs as Record<string, Record<string, unknown>>).kick.check = "no"))).toMatch(/^inputs\.kick\.check: /);
    expect(definitionError(null).message).toMatch(/defineGame/);
  });
});
