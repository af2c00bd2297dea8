import { z } from "zod";
import type { ContactEvent, ShapeDef, Vec3Tuple } from "../engine/index.ts";
import type { Scenario } from "../scenarios/format.ts";
import type { GameContext, Player } from "./context.ts";
import { type FieldValues, GameDefinitionError, validateFieldDefaults } from "./fields.ts";
import { AVATAR_LIMITS } from "./limits.ts";

export { AVATAR_LIMITS, GameDefinitionError };

/**
 * A game: the scenario a room starts from, the avatar its players get, the messages they may send, the
 * fields everybody sees, and deterministic hooks that run inside the room's fixed tick. One module
 * default-exports `defineGame({...})`; the service gives it the physics, the sync, the interpolating
 * client, the replays that verify, the admin API and the load test.
 *
 * Hooks run on the server's simulation and again, tick by tick, when a replay is verified: they must be
 * pure functions of `ctx` and their arguments. No clock (Date, performance), no Math.random (use
 * ctx.random), no state outside ctx (module-level variables, I/O): `npm run replay -- verify` names the
 * first tick where a hook broke the rule.
 */

/** Shapes an avatar may have. */
export const AVATAR_SHAPES = ["box", "capsule", "sphere"] as const;
export type AvatarShape = (typeof AVATAR_SHAPES)[number];

/** The avatar a game's players get: a kinematic body walked by the service's character controller. */
export interface AvatarOptions {
  /**
   * "box" (default), "capsule" (upright, round at both ends: slides along edges, rolls off corners) or
   * "sphere". `size` is the bounding box in every case: a capsule's width and depth are its diameter
   * (equal), its height at least that; a sphere's three are its diameter.
   */
  shape?: AvatarShape;
  /** Size [width, height, depth], metres. Default [0.8, 1.8, 0.8]. Each 0.2 to 4. */
  size?: Vec3Tuple;
  /** Largest walking speed, m/s. Default 6. At most 20. */
  speed?: number;
  /** Take-off speed of a jump, m/s (0: no jumping). Default 5.5. At most 20. */
  jump?: number;
}

/** The avatar with every option resolved. */
export interface AvatarSpec {
  shape: AvatarShape;
  /** Half the bounding box (the spawn search's clearance; a capsule's radius is halfExtents[0]). */
  halfExtents: Vec3Tuple;
  maxSpeed: number;
  jumpSpeed: number;
}

/**
 * One named client message. Its payload is validated with `schema` at the room's boundary (a failure is
 * answered `rejected` with the field's path and never reaches a hook); a valid one is queued for the next
 * tick, recorded in the replay and handed to `onInput`.
 */
// biome-ignore lint/suspicious/noExplicitAny: a game's inputs are a record of definitions of different payload types; `check` takes each one's own.
export interface InputDefinition<M = any> {
  /** A zod schema of the payload (use `z.strictObject`: unknown keys are then rejected). */
  schema: z.ZodType<M>;
  /** Most accepted per player per second (on top of the room's overall message limit). Default: no own limit. */
  perSecond?: number;
  /** Shortest time between two accepted ones in the whole room, seconds (a room-wide action such as a restart). */
  roomInterval?: number;
  /** It adds bodies: refused while the room is at its CPU budget or its body limit. */
  addsBodies?: boolean;
  /**
   * An early answer for the sender, against the room as it is when the message arrives (it may have
   * changed by the tick the input is applied, so `onInput` checks again): a reason to reject, or null.
   * Read-only: it must not change the world.
   */
  check?(ctx: GameContext, player: Player, message: M): string | null;
  /** What the client shows for it (a button, a key's help line). Default: the input's name. */
  label?: string;
}

/** A key the generic client binds to an input with a fixed payload. */
export interface KeyBinding {
  /** A KeyboardEvent.code: "KeyE", "Digit1", "Space"… (WASD, arrows and Space move the avatar unless rebound). */
  key: string;
  input: string;
  /** The payload sent. Default `{}`. */
  message?: unknown;
}

/** What a browser needs to play the game without code of its own. */
export interface ClientOptions {
  /** Keys bound to inputs; every input whose payload may be `{}` also gets a button. */
  keys?: KeyBinding[];
  /** A line of help under the HUD. */
  help?: string;
  /** HUD labels of fields (game and player), by field name. Default: the field's name. */
  labels?: Record<string, string>;
}

/** Field types as hooks see them: `{ status: "playing" }` declares a string field, not the literal "playing". */
export type Widen<T> = { -readonly [K in keyof T]: T[K] extends boolean ? boolean : T[K] extends string ? string : T[K] extends number ? number : T[K] };

/** Every input's name with its payload's type: what onInput's (name, message) can be. */
type InputArgs<I extends Record<string, InputDefinition>> = { [K in keyof I & string]: [name: K, message: z.output<I[K]["schema"]>] }[keyof I & string];

/**
 * The options of a game. S and P are the types of its fields (inferred from `state` and `playerState`),
 * I its inputs (so `onInput`'s message is typed once its name is tested).
 */
export interface GameOptions<S extends FieldValues = FieldValues, P extends FieldValues = FieldValues, I extends Record<string, InputDefinition> = Record<string, InputDefinition>> {
  /** Lower-case letters, digits and dashes, 1 to 32 characters; what rooms and replays name the game by. */
  name: string;
  /** Recorded in replays: a replay is verified against the same version. Default "1". */
  version?: string;
  description: string;
  /** A built-in scenario's name or scenario JSON. */
  scenario: string | Scenario;
  /** Whether a room's creator may start it from another scenario (`{ game, scenario }`). Default false. */
  anyScenario?: boolean;
  /** The players' avatar, or null for none (players then act through inputs alone). Default: the standard avatar. */
  avatar?: AvatarOptions | null;
  /** Named client messages. `move` is the avatar's own and cannot be redefined. */
  inputs?: I;
  /** Game fields and their initial values (numbers, strings up to 256 characters, booleans): synced to every client. */
  state?: S;
  /** Every player's fields and their initial values, synced the same way. */
  playerState?: P;
  /** Runs when the world is built: at the room's start and after every reload (restart, admin load). */
  setup?(ctx: GameContext<Widen<S>, Widen<P>>): void;
  /** A player joined (their avatar, if the game has one, already stands in the world). */
  onJoin?(ctx: GameContext<Widen<S>, Widen<P>>, player: Player<Widen<P>>): void;
  /** A player left (their avatar is removed after this hook). */
  onLeave?(ctx: GameContext<Widen<S>, Widen<P>>, player: Player<Widen<P>>): void;
  /** A valid input from a player, at the start of the tick after it arrived. */
  onInput?(ctx: GameContext<Widen<S>, Widen<P>>, player: Player<Widen<P>>, ...input: InputArgs<I>): void;
  /** After every step, once the step's events went to the event hooks. */
  onTick?(ctx: GameContext<Widen<S>, Widen<P>>): void;
  /** Two bodies started (contactBegin) or stopped (contactEnd) touching during the step. */
  onContact?(ctx: GameContext<Widen<S>, Widen<P>>, event: ContactEvent): void;
  /** A body entered (sensorEnter) or left (sensorExit) a sensor: `event.a` is the sensor. */
  onSensor?(ctx: GameContext<Widen<S>, Widen<P>>, event: ContactEvent): void;
  /** A joint broke (`event.joint`; it is already removed). */
  onJointBreak?(ctx: GameContext<Widen<S>, Widen<P>>, event: ContactEvent): void;
  /** How the generic browser client presents the game. */
  client?: ClientOptions;
}

/** Hooks as the service calls them (the game's own types erased). */
// biome-ignore lint/suspicious/noExplicitAny: the service calls every hook with the arguments its name implies; the game typed them.
type AnyHook = (ctx: GameContext, ...args: any[]) => void;
type HookName = (typeof HOOKS)[number];

/** A validated game, as the service runs it (what `defineGame` returns). */
export interface GameDefinition extends Readonly<Omit<GameOptions, "version" | "avatar" | "inputs" | "state" | "playerState" | "anyScenario" | HookName>> {
  readonly setup?: AnyHook;
  readonly onJoin?: AnyHook;
  readonly onLeave?: AnyHook;
  readonly onInput?: AnyHook;
  readonly onTick?: AnyHook;
  readonly onContact?: AnyHook;
  readonly onSensor?: AnyHook;
  readonly onJointBreak?: AnyHook;
  readonly version: string;
  readonly anyScenario: boolean;
  readonly avatar: AvatarSpec | null;
  readonly inputs: Readonly<Record<string, InputDefinition>>;
  readonly state: Readonly<FieldValues>;
  readonly playerState: Readonly<FieldValues>;
  /** Marks a value made by defineGame (a module's default export is checked for it). */
  readonly [GAME_MARK]: true;
}

export const GAME_MARK = Symbol.for("physics-rooms.game");

/** The avatar of today's rooms: a 0.8 x 1.8 x 0.8 m box walking at 6 m/s, jumping at 5.5 m/s. */
export const DEFAULT_AVATAR: Readonly<AvatarSpec> = Object.freeze({ shape: "box", halfExtents: [0.4, 0.9, 0.4] as Vec3Tuple, maxSpeed: 6, jumpSpeed: 5.5 });

/** The engine shape of an avatar: a box of its half extents, an upright capsule or a sphere in that box. */
export function avatarShapeDef(spec: Readonly<Pick<AvatarSpec, "shape" | "halfExtents">>): ShapeDef {
  const [hx, hy, hz] = spec.halfExtents;
  if (spec.shape === "capsule") return { type: "capsule", radius: hx, halfHeight: hy - hx };
  if (spec.shape === "sphere") return { type: "sphere", radius: hx };
  return { type: "box", halfExtents: [hx, hy, hz] };
}
/** The avatar's walking input, handled by the service for every game with an avatar. */
export const MOVE_INPUT = "move";

const NAME = /^[a-z0-9][a-z0-9-]{0,31}$/;
const INPUT_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,31}$/;
export const HOOKS = ["setup", "onJoin", "onLeave", "onInput", "onTick", "onContact", "onSensor", "onJointBreak"] as const;
const KNOWN = new Set<string>(["name", "version", "description", "scenario", "anyScenario", "avatar", "inputs", "state", "playerState", "client", ...HOOKS]);
/** Service message types a game input may not take. */
const RESERVED_INPUTS = new Set([MOVE_INPUT, "rejected", "welcome", "*"]);

function fail(message: string): never {
  throw new GameDefinitionError(message);
}

function isPositive(v: unknown, max: number): v is number {
  return typeof v === "number" && Number.isFinite(v) && v > 0 && v <= max;
}

function resolveAvatar(a: AvatarOptions | null | undefined): AvatarSpec | null {
  if (a === null) return null;
  if (a === undefined) return { shape: DEFAULT_AVATAR.shape, halfExtents: [...DEFAULT_AVATAR.halfExtents], maxSpeed: DEFAULT_AVATAR.maxSpeed, jumpSpeed: DEFAULT_AVATAR.jumpSpeed };
  if (typeof a !== "object") fail("avatar: expected an object or null");
  for (const key of Object.keys(a)) if (!["shape", "size", "speed", "jump"].includes(key)) fail(`avatar.${key}: unknown option (shape, size, speed, jump)`);
  const shape = a.shape ?? DEFAULT_AVATAR.shape;
  if (!AVATAR_SHAPES.includes(shape)) fail(`avatar.shape: expected one of ${AVATAR_SHAPES.join(", ")}, got ${JSON.stringify(shape)?.slice(0, 32)}`);
  const size = a.size ?? [0.8, 1.8, 0.8];
  if (!Array.isArray(size) || size.length !== 3) fail("avatar.size: expected [width, height, depth]");
  size.forEach((s, i) => {
    if (typeof s !== "number" || !(s >= AVATAR_LIMITS.minSize && s <= AVATAR_LIMITS.maxSize)) fail(`avatar.size[${i}]: expected a number from ${AVATAR_LIMITS.minSize} to ${AVATAR_LIMITS.maxSize} m`);
  });
  if (shape === "capsule" && (size[0] !== size[2] || size[1] < size[0])) fail("avatar.size: a capsule's width and depth are its diameter (equal), its height at least that");
  if (shape === "sphere" && (size[0] !== size[1] || size[1] !== size[2])) fail("avatar.size: a sphere's width, height and depth are its diameter (all equal)");
  const speed = a.speed ?? DEFAULT_AVATAR.maxSpeed;
  if (!isPositive(speed, AVATAR_LIMITS.maxSpeed)) fail(`avatar.speed: expected a number above 0 and at most ${AVATAR_LIMITS.maxSpeed} m/s`);
  const jump = a.jump ?? DEFAULT_AVATAR.jumpSpeed;
  if (!(typeof jump === "number" && jump >= 0 && jump <= AVATAR_LIMITS.maxJump)) fail(`avatar.jump: expected a number from 0 to ${AVATAR_LIMITS.maxJump} m/s`);
  return { shape, halfExtents: [size[0] / 2, size[1] / 2, size[2] / 2], maxSpeed: speed, jumpSpeed: jump };
}

function checkInputs(inputs: Record<string, InputDefinition> | undefined): Record<string, InputDefinition> {
  if (inputs === undefined) return {};
  if (typeof inputs !== "object" || inputs === null || Array.isArray(inputs)) fail("inputs: expected an object of named inputs");
  const out: Record<string, InputDefinition> = {};
  for (const [name, def] of Object.entries(inputs)) {
    const where = `inputs.${name}`;
    if (!INPUT_NAME.test(name)) fail(`${where}: an input name is a letter then letters, digits, _ or -, at most 32 characters`);
    if (RESERVED_INPUTS.has(name)) fail(`${where}: "${name}" is the service's own message`);
    if (typeof def !== "object" || def === null) fail(`${where}: expected { schema, … }`);
    for (const key of Object.keys(def)) {
      if (!["schema", "perSecond", "roomInterval", "addsBodies", "check", "label"].includes(key)) fail(`${where}.${key}: unknown option`);
    }
    if (!(def.schema instanceof z.ZodType)) fail(`${where}.schema: expected a zod schema (import { z } from the game entry point)`);
    try {
      z.toJSONSchema(def.schema);
    } catch (err) {
      fail(`${where}.schema: cannot be described as JSON Schema (${(err as Error).message})`);
    }
    if (def.perSecond !== undefined && !isPositive(def.perSecond, 1000)) fail(`${where}.perSecond: expected a number above 0 and at most 1000`);
    if (def.roomInterval !== undefined && !isPositive(def.roomInterval, 3600)) fail(`${where}.roomInterval: expected seconds above 0 and at most 3600`);
    if (def.check !== undefined && typeof def.check !== "function") fail(`${where}.check: expected a function`);
    if (def.label !== undefined && typeof def.label !== "string") fail(`${where}.label: expected a string`);
    out[name] = Object.freeze({ ...def });
  }
  return out;
}

function checkClient(client: ClientOptions | undefined, inputs: Record<string, InputDefinition>): void {
  if (client === undefined) return;
  if (typeof client !== "object" || client === null) fail("client: expected an object");
  for (const key of Object.keys(client)) if (!["keys", "help", "labels"].includes(key)) fail(`client.${key}: unknown option (keys, help, labels)`);
  if (client.keys !== undefined && !Array.isArray(client.keys)) fail("client.keys: expected a list of { key, input, message? }");
  (client.keys ?? []).forEach((k, i) => {
    if (typeof k?.key !== "string" || !/^[A-Za-z0-9]{1,20}$/.test(k.key)) fail(`client.keys[${i}].key: expected a KeyboardEvent.code such as "KeyE"`);
    const input = inputs[k.input];
    if (input === undefined) fail(`client.keys[${i}].input: no input "${String(k.input)}"`);
    const parsed = input.schema.safeParse(k.message ?? {});
    if (!parsed.success) fail(`client.keys[${i}].message: does not pass inputs.${k.input}.schema`);
  });
  if (client.help !== undefined && typeof client.help !== "string") fail("client.help: expected a string");
  const labels = client.labels;
  if (labels !== undefined && (typeof labels !== "object" || labels === null || Array.isArray(labels))) fail("client.labels: expected an object of field names and labels");
  for (const [field, label] of Object.entries(labels ?? {})) if (typeof label !== "string") fail(`client.labels.${field}: expected a string`);
}

/**
 * Checks a game's options and returns the definition the service runs. Throws GameDefinitionError naming
 * the field at fault; the server refuses to start with such a module.
 */
export function defineGame<S extends FieldValues, P extends FieldValues, I extends Record<string, InputDefinition>>(options: GameOptions<S, P, I>): GameDefinition {
  if (typeof options !== "object" || options === null) fail("expected defineGame({ name, description, scenario, … })");
  for (const key of Object.keys(options)) if (!KNOWN.has(key)) fail(`${key}: unknown option`);
  if (typeof options.name !== "string" || !NAME.test(options.name)) fail("name: lower-case letters, digits and dashes, 1 to 32 characters, starting with a letter or digit");
  const version = options.version ?? "1";
  if (typeof version !== "string" || version.length === 0 || version.length > 32) fail("version: expected a string of 1 to 32 characters");
  if (typeof options.description !== "string" || options.description.length > 500) fail("description: expected a string of at most 500 characters");
  const scenario = options.scenario;
  if (typeof scenario !== "string" && (typeof scenario !== "object" || scenario === null)) fail("scenario: expected a built-in scenario's name or scenario JSON");
  for (const hook of HOOKS) if (options[hook] !== undefined && typeof options[hook] !== "function") fail(`${hook}: expected a function`);
  const inputs = checkInputs(options.inputs as Record<string, InputDefinition> | undefined);
  const state = validateFieldDefaults(options.state, "state");
  const playerState = validateFieldDefaults(options.playerState, "playerState");
  checkClient(options.client, inputs);
  return Object.freeze({
    ...(options as unknown as GameOptions),
    version,
    anyScenario: options.anyScenario === true,
    avatar: resolveAvatar(options.avatar),
    inputs: Object.freeze(inputs),
    state,
    playerState,
    [GAME_MARK]: true as const,
  });
}

/** True for a value `defineGame` returned. */
export function isGameDefinition(v: unknown): v is GameDefinition {
  return typeof v === "object" && v !== null && (v as Record<symbol, unknown>)[GAME_MARK] === true;
}
