import AjvCompiler from "@fastify/ajv-compiler";
import { ENGINE_VERSION, resolveSettings } from "../../shared/engine/index.ts";
import { KNOB_RANGES, type RoomSettingsPatch, roomSettingsPatchSchema } from "../../shared/net/knobs.ts";
import type { GameDefinition } from "../../shared/game/define.ts";
import type { GameRegistry } from "../../shared/game/registry.ts";
import { formatZodIssues, LIMITS, MSG_MOVE, parseClientMessage } from "../../shared/net/messages.ts";
import type { Scenario, ScenarioIssue } from "../../shared/scenarios/index.ts";
import { type BodyDigest, decodeRoomSnapshot, type RoomSimSnapshot, SIM_VERSION, type SimInput, type SimOptions } from "../../shared/sim/index.ts";
import { AJV_OPTIONS } from "../admin/schemas.ts";
import { ADMIN_ROOM_CAPS, scenarioCaps } from "../rooms/room-caps.ts";
import { resolveScenario } from "../scenario-input.ts";
import { ReplayFileError } from "./errors.ts";
import { type EndLine, type KeyframeLine, REPLAY_FORMAT, type ReplayGame, type ReplayHeader, type ResumeLine, type TickLine } from "./format.ts";

export { ReplayFileError } from "./errors.ts";

/**
 * Validation of replay files, line by line, with the validators the server itself applies before
 * anything reaches a RoomSim: scenarios through `resolveScenario` with the admin room caps (the loosest a
 * room runs under), player inputs through `parseClientMessage` (the room's message schemas), settings
 * patches through the admin API's JSON schema compiled by Fastify's own Ajv compiler, sim options within
 * the admin caps. A file that passes cannot make the verifier do more than the server could have done.
 * Every problem is a ReplayFileError naming the line and the field.
 */

/** Longest informational string accepted (room id, Node version, end reason…). */
const MAX_TEXT_LENGTH = 200;
/** Session ids are Colyseus ids; avatar body ids are built from them. */
const MAX_SESSION_LENGTH = LIMITS.maxIdLength;
/** Body ids in keyframes: scenario ids, avatar ids (`avatar-` + session) and spawn ids. */
const MAX_BODY_ID_LENGTH = 2 * LIMITS.maxIdLength;
/** Hex digits of a world hash or a body hash at most. */
const MAX_HASH_LENGTH = 64;
const HEX = /^[0-9a-f]+$/;
/** A tick's hash: the world's, then `:` and 8 hex digits of the game's fields when the game has fields. */
const TICK_HASH = /^[0-9a-f]{1,64}(:[0-9a-f]{8})?$/;
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching control characters is the point.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * The admin API's validator of PATCH /rooms/:id/settings bodies: Fastify's Ajv compiler, same options,
 * the schema built from the knob table's own ranges (the widest any server accepts).
 */
const validateSettingsBody = AjvCompiler()({}, { customOptions: AJV_OPTIONS })({ schema: roomSettingsPatchSchema(KNOB_RANGES), httpPart: "body" });

const ROOM_SCENARIO_CAPS = scenarioCaps(ADMIN_ROOM_CAPS);
/**
 * Longest header line: a scenario within the admin caps' JSON size plus the other fields (a few hundred
 * bytes). Longer is refused before parsing, so a 20 MB header costs no more than reading this much.
 */
export const MAX_HEADER_LINE_BYTES = ADMIN_ROOM_CAPS.maxScenarioJsonBytes + 64 * 1024;

type Obj = Record<string, unknown>;

function isObject(v: unknown): v is Obj {
  return v !== null && typeof v === "object" && !Array.isArray(v);
}

function describe(v: unknown): string {
  if (v === null) return "null";
  if (Array.isArray(v)) return "a list";
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 32 ? `${v.slice(0, 32)}…` : v)}`;
  if (typeof v === "number") return String(v);
  return typeof v === "object" ? "an object" : `a ${typeof v}`;
}

function quote(key: string): string {
  return JSON.stringify(key.length > 32 ? `${key.slice(0, 32)}…` : key);
}

/** A field path: `i[0].patch` + `gravity` → `i[0].patch.gravity`. */
function at(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return path === "" ? key : `${path}.${key}`;
}

/** Rejects keys outside `allowed` (recordings hold exactly what the recorder writes). */
function onlyKeys(v: Obj, allowed: readonly string[], path: string, line: number): void {
  for (const key of Object.keys(v)) {
    if (!allowed.includes(key)) throw new ReplayFileError(line, `${at(path, key)}: unknown field ${quote(key)}`);
  }
}

function requireKey(v: Obj, key: string, path: string, line: number): unknown {
  if (!Object.hasOwn(v, key)) throw new ReplayFileError(line, `${at(path, key)}: is required`);
  return v[key];
}

function integerIn(v: unknown, min: number, max: number, path: string, line: number): number {
  if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) {
    throw new ReplayFileError(line, `${path}: must be an integer in ${min}..${max}, got ${describe(v)}`);
  }
  return v;
}

function text(v: unknown, path: string, line: number, maxLength = MAX_TEXT_LENGTH): string {
  if (typeof v !== "string") throw new ReplayFileError(line, `${path}: must be a string, got ${describe(v)}`);
  if (v.length === 0 || v.length > maxLength) throw new ReplayFileError(line, `${path}: must be 1..${maxLength} characters long`);
  if (CONTROL.test(v)) throw new ReplayFileError(line, `${path}: must not contain control characters`);
  return v;
}

function hash(v: unknown, path: string, line: number, length?: number): string {
  if (typeof v !== "string" || !HEX.test(v) || v.length > (length ?? MAX_HASH_LENGTH) || (length !== undefined && v.length !== length)) {
    const size = length !== undefined ? `${length}` : `1..${MAX_HASH_LENGTH}`;
    throw new ReplayFileError(line, `${path}: must be a hash of ${size} lowercase hex digits, got ${describe(v)}`);
  }
  return v;
}

function tickHash(v: unknown, line: number): string {
  if (typeof v !== "string" || !TICK_HASH.test(v)) {
    throw new ReplayFileError(line, `h: must be a world hash of 1..${MAX_HASH_LENGTH} lowercase hex digits, then ":" and 8 for a game with fields, got ${describe(v)}`);
  }
  return v;
}

function scenarioProblem(issues: readonly ScenarioIssue[]): string {
  const shown = issues.slice(0, 3).map((i) => `${i.path}: ${i.message}`);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : "";
  return `${shown.join("; ")}${more}`;
}

/** A scenario as the server resolves one (built-in name or JSON), within the admin room caps. */
export function checkScenario(v: unknown, path: string, line: number): Scenario {
  const resolved = resolveScenario(v, path, ROOM_SCENARIO_CAPS);
  if (!resolved.ok) throw new ReplayFileError(line, scenarioProblem(resolved.issues));
  return resolved.scenario;
}

const HEADER_KEYS = [
  "type",
  "format",
  "engineVersion",
  "simVersion",
  "node",
  "roomId",
  "createdAt",
  "tickRate",
  "keyframeInterval",
  "options",
  "game",
  "scenario",
  "settings",
] as const;

/**
 * The header line: the format and versions this build reads, sim options within the admin caps, the
 * scenario through the server's own validation (the returned header holds the validated copy), and a
 * tick rate that is the scenario's.
 */
export function checkHeader(v: unknown, line: number, games: GameRegistry): { header: ReplayHeader; game: GameDefinition } {
  if (!isObject(v) || v.type !== "header") throw new ReplayFileError(line, `not a replay header (a JSON object with "type":"header")`);
  onlyKeys(v, HEADER_KEYS, "header", line);
  const format = requireKey(v, "format", "header", line);
  if (format !== REPLAY_FORMAT) throw new ReplayFileError(line, `header.format: replay format ${describe(format)}, this verifier reads format ${REPLAY_FORMAT}`);
  const engineVersion = text(requireKey(v, "engineVersion", "header", line), "header.engineVersion", line);
  if (engineVersion !== ENGINE_VERSION) {
    throw new ReplayFileError(line, `header.engineVersion: recorded with engine ${engineVersion}, this build is engine ${ENGINE_VERSION}`);
  }
  const simVersion = text(requireKey(v, "simVersion", "header", line), "header.simVersion", line);
  if (simVersion !== SIM_VERSION) {
    throw new ReplayFileError(line, `header.simVersion: recorded with room sim ${simVersion}, this build is room sim ${SIM_VERSION}`);
  }
  const node = text(requireKey(v, "node", "header", line), "header.node", line);
  const roomId = text(requireKey(v, "roomId", "header", line), "header.roomId", line);
  const createdAt = text(requireKey(v, "createdAt", "header", line), "header.createdAt", line);
  const keyframeInterval = integerIn(requireKey(v, "keyframeInterval", "header", line), 1, Number.MAX_SAFE_INTEGER, "header.keyframeInterval", line);
  const rawOptions = requireKey(v, "options", "header", line);
  if (!isObject(rawOptions)) throw new ReplayFileError(line, `header.options: must be an object, got ${describe(rawOptions)}`);
  onlyKeys(rawOptions, ["maxBodies", "seed"], "header.options", line);
  const options: SimOptions = {
    maxBodies: integerIn(requireKey(rawOptions, "maxBodies", "header.options", line), 1, ADMIN_ROOM_CAPS.maxBodies, "header.options.maxBodies", line),
    seed: integerIn(requireKey(rawOptions, "seed", "header.options", line), 0, 0xffffffff, "header.options.seed", line),
  };
  const { recorded, game } = checkGame(requireKey(v, "game", "header", line), line, games);
  const scenario = checkScenario(requireKey(v, "scenario", "header", line), "header.scenario", line);
  const tickRate = requireKey(v, "tickRate", "header", line);
  const scenarioRate = resolveSettings(scenario.world ?? {}).tickRate;
  if (tickRate !== scenarioRate) {
    throw new ReplayFileError(line, `header.tickRate: ${describe(tickRate)}, but the scenario runs at ${scenarioRate} Hz`);
  }
  // Informational (the resolved engine settings at creation): only its shape is checked.
  const settings = requireKey(v, "settings", "header", line);
  if (!isObject(settings)) throw new ReplayFileError(line, `header.settings: must be an object, got ${describe(settings)}`);
  const header: ReplayHeader = {
    type: "header",
    format: REPLAY_FORMAT,
    engineVersion,
    simVersion,
    node,
    roomId,
    createdAt,
    tickRate: scenarioRate,
    keyframeInterval,
    options,
    game: recorded,
    scenario,
    settings: settings as unknown as ReplayHeader["settings"],
  };
  return { header, game };
}

/**
 * The header's game: one of `games` by name, at the recorded version. A game from a module is never
 * loaded from the path the file names (a replay is data, not code to run): GAMES must name it.
 */
function checkGame(v: unknown, line: number, games: GameRegistry): { recorded: ReplayGame; game: GameDefinition } {
  if (!isObject(v)) throw new ReplayFileError(line, `header.game: must be an object, got ${describe(v)}`);
  onlyKeys(v, ["name", "version", "module"], "header.game", line);
  const name = text(requireKey(v, "name", "header.game", line), "header.game.name", line, 64);
  const version = text(requireKey(v, "version", "header.game", line), "header.game.version", line, 64);
  const module = Object.hasOwn(v, "module") ? text(v.module, "header.game.module", line, 1024) : undefined;
  const game = games.get(name);
  if (!game) {
    const hint = module !== undefined ? `: set GAMES=${module} (the module it was recorded with)` : "";
    throw new ReplayFileError(line, `header.game.name: the room played game "${name}", which this verifier does not have (it has ${games.names().join(", ")})${hint}`);
  }
  if (game.version !== version) {
    throw new ReplayFileError(line, `header.game.version: recorded with game "${name}" version ${version}, this verifier has version ${game.version}`);
  }
  return { recorded: { name, version, ...(module !== undefined ? { module } : {}) }, game };
}


/**
 * The admin API's validation of a settings patch: null when valid, else the first problem (Ajv stops at
 * the first, as the API does) with the field's path under `path`.
 */
export function settingsPatchProblem(patch: unknown, path: string): string | null {
  if (validateSettingsBody(patch)) return null;
  const error = validateSettingsBody.errors?.[0];
  if (!error) return `${path}: invalid`;
  let field = path;
  for (const key of error.instancePath.split("/").slice(1)) {
    const k = key.replaceAll("~1", "/").replaceAll("~0", "~");
    field = /^\d+$/.test(k) ? at(field, Number(k)) : at(field, k);
  }
  const params = error.params as { additionalProperty?: unknown };
  const extra = error.keyword === "additionalProperties" ? ` (${quote(String(params.additionalProperty))})` : "";
  return `${field}: ${error.message ?? "invalid"}${extra}`;
}

/**
 * One recorded input, validated as the server validated it before queueing it. Returns a clean copy
 * (a `load` carries the re-validated scenario).
 */
export function checkInput(v: unknown, path: string, line: number, game: GameDefinition): SimInput {
  if (!isObject(v)) throw new ReplayFileError(line, `${path}: must be an input object, got ${describe(v)}`);
  const type = requireKey(v, "type", path, line);
  if (typeof type !== "string") throw new ReplayFileError(line, `${at(path, "type")}: must be a string, got ${describe(type)}`);
  switch (type) {
    case "join":
    case "leave": {
      onlyKeys(v, ["type", "session"], path, line);
      return { type, session: text(requireKey(v, "session", path, line), at(path, "session"), line, MAX_SESSION_LENGTH) };
    }
    case "move": {
      if (game.avatar === null) throw new ReplayFileError(line, `${path}: a move, but game "${game.name}" has no avatar`);
      const session = text(requireKey(v, "session", path, line), at(path, "session"), line, MAX_SESSION_LENGTH);
      // What the client sent: the input without the two fields the room adds (spread: own keys only).
      const { type: _type, session: _session, ...payload } = v;
      const parsed = parseClientMessage(MSG_MOVE, payload);
      if (!parsed.ok) throw new ReplayFileError(line, `${path} (${type}): ${parsed.reason}`);
      return { type, session, ...parsed.value };
    }
    case "input": {
      onlyKeys(v, ["type", "session", "name", "message"], path, line);
      const session = text(requireKey(v, "session", path, line), at(path, "session"), line, MAX_SESSION_LENGTH);
      const name = text(requireKey(v, "name", path, line), at(path, "name"), line, 64);
      const def = Object.hasOwn(game.inputs, name) ? game.inputs[name] : undefined;
      if (def === undefined) throw new ReplayFileError(line, `${at(path, "name")}: game "${game.name}" has no input ${quote(name)}`);
      // Parsed again with the game's own schema, as the room did before queueing it.
      const parsed = def.schema.safeParse(requireKey(v, "message", path, line));
      if (!parsed.success) throw new ReplayFileError(line, `${path} (input ${name}): ${formatZodIssues(parsed.error.issues)}`);
      return { type, session, name, message: parsed.data };
    }
    case "settings": {
      onlyKeys(v, ["type", "patch"], path, line);
      const patch = requireKey(v, "patch", path, line);
      const problem = settingsPatchProblem(patch, at(path, "patch"));
      if (problem !== null) throw new ReplayFileError(line, problem);
      return { type, patch: patch as RoomSettingsPatch };
    }
    case "load": {
      onlyKeys(v, ["type", "scenario"], path, line);
      return { type, scenario: checkScenario(requireKey(v, "scenario", path, line), at(path, "scenario"), line) };
    }
    default:
      throw new ReplayFileError(line, `${at(path, "type")}: unknown input type ${quote(type)} (known: join, leave, move, input, settings, load)`);
  }
}

/** Where the reader is: the last tick seen, whether the end line was, the players in the room. */
export interface LineState {
  tick: number;
  ended: boolean;
  /** Sessions joined and not left: a room holds at most its maxClients (the admin cap at most). */
  players: Set<string>;
  /** The header's game (its inputs' schemas validate the recorded messages). */
  game: GameDefinition | null;
  /** Lines read after the header (a `resume` line may only be the first). */
  lines?: number;
}

/** Keeps the players in the room within the admin cap on clients, as the room itself does. */
function trackPlayers(input: SimInput, state: LineState, path: string, line: number): void {
  if (input.type === "join") {
    state.players.add(input.session);
    if (state.players.size > ADMIN_ROOM_CAPS.maxClients) {
      throw new ReplayFileError(line, `${path}: ${state.players.size} players at once, more than any room admits (${ADMIN_ROOM_CAPS.maxClients})`);
    }
  } else if (input.type === "leave") {
    state.players.delete(input.session);
  }
}

/**
 * A line after the header: a tick (the next one, with its inputs validated), a keyframe (for the current
 * tick, well-formed digests) or the end line (for the current tick; nothing may follow it).
 */
export function checkLine(v: unknown, line: number, state: LineState): TickLine | KeyframeLine | EndLine | ResumeLine {
  if (!isObject(v)) throw new ReplayFileError(line, `must be a JSON object, got ${describe(v)}`);
  if (state.ended) throw new ReplayFileError(line, "a line after the end line");
  state.lines = (state.lines ?? 0) + 1;
  if (!Object.hasOwn(v, "type")) {
    onlyKeys(v, ["t", "h", "i"], "", line);
    const expected = state.tick + 1;
    const t = requireKey(v, "t", "", line);
    if (t !== expected) {
      const found = typeof t === "number" && Number.isInteger(t) ? `tick ${t}` : describe(t);
      throw new ReplayFileError(line, `t: expected tick ${expected}, found ${found}`);
    }
    const h = tickHash(requireKey(v, "h", "", line), line);
    const tick: TickLine = { t: expected, h };
    if (Object.hasOwn(v, "i")) {
      const raw = v.i;
      if (!Array.isArray(raw)) throw new ReplayFileError(line, `i: must be a list of inputs, got ${describe(raw)}`);
      tick.i = raw.map((value, k) => {
        if (state.game === null) throw new ReplayFileError(line, "a tick before the header");
        const input = checkInput(value, `i[${k}]`, line, state.game);
        trackPlayers(input, state, `i[${k}]`, line);
        return input;
      });
    }
    state.tick = expected;
    return tick;
  }
  const type = v.type;
  if (type === "keyframe") {
    onlyKeys(v, ["type", "t", "bodies"], "", line);
    const t = requireKey(v, "t", "", line);
    if (t !== state.tick) throw new ReplayFileError(line, `t: a keyframe for ${describe(t)} after tick ${state.tick} (keyframes follow the tick they describe)`);
    const bodies = requireKey(v, "bodies", "", line);
    if (!Array.isArray(bodies)) throw new ReplayFileError(line, `bodies: must be a list, got ${describe(bodies)}`);
    const digests: BodyDigest[] = bodies.map((d, k) => checkDigest(d, `bodies[${k}]`, line));
    return { type: "keyframe", t: state.tick, bodies: digests };
  }
  if (type === "end") {
    onlyKeys(v, ["type", "t", "reason"], "", line);
    const t = requireKey(v, "t", "", line);
    if (t !== state.tick) throw new ReplayFileError(line, `t: an end line for ${describe(t)} after tick ${state.tick}`);
    const reason = text(requireKey(v, "reason", "", line), "reason", line);
    state.ended = true;
    return { type: "end", t: state.tick, reason };
  }
  if (type === "header") throw new ReplayFileError(line, "a second header (a file holds one recording)");
  if (type === "resume") return checkResume(v, line, state).line;
  throw new ReplayFileError(line, `type: unknown line type ${typeof type === "string" ? quote(type) : describe(type)} (known: tick lines, "keyframe", "end", "resume")`);
}

/** Longest base64 snapshot a resume line may carry (a room within the admin caps is far smaller). */
const MAX_RESUME_SNAPSHOT_CHARS = 48 * 1024 * 1024;

/**
 * A resumed segment's `resume` line (the first after the header): its snapshot must decode (checksum,
 * engine and sim versions, shared/sim/room-snapshot-bytes.ts) and be of tick `t`; the segment's ticks
 * follow from t + 1, and the players in the snapshot count as joined.
 */
export function checkResume(v: Obj, line: number, state: LineState): { line: ResumeLine; snapshot: RoomSimSnapshot } {
  if (state.lines !== 1) throw new ReplayFileError(line, "a resume line after the first line of the recording (it starts a resumed segment)");
  onlyKeys(v, ["type", "t", "segment", "snapshot"], "", line);
  const t = integerIn(requireKey(v, "t", "", line), 0, Number.MAX_SAFE_INTEGER, "t", line);
  const segment = integerIn(requireKey(v, "segment", "", line), 2, Number.MAX_SAFE_INTEGER, "segment", line);
  const text64 = requireKey(v, "snapshot", "", line);
  if (typeof text64 !== "string" || text64.length > MAX_RESUME_SNAPSHOT_CHARS || !/^[A-Za-z0-9+/]*={0,2}$/.test(text64)) {
    throw new ReplayFileError(line, `snapshot: must be base64 of a room snapshot (at most ${MAX_RESUME_SNAPSHOT_CHARS} characters)`);
  }
  let snapshot: RoomSimSnapshot;
  try {
    snapshot = decodeRoomSnapshot(new Uint8Array(Buffer.from(text64, "base64")));
  } catch (err) {
    throw new ReplayFileError(line, `snapshot: ${(err as Error).message}`);
  }
  if (snapshot.tick !== t) throw new ReplayFileError(line, `t: ${t}, but the snapshot is of tick ${snapshot.tick}`);
  state.tick = t;
  for (const p of snapshot.game.players) state.players.add(p.session);
  for (const a of snapshot.avatars) state.players.add(a.session);
  return { line: { type: "resume", t, segment, snapshot: text64 }, snapshot };
}

function checkDigest(v: unknown, path: string, line: number): BodyDigest {
  if (!Array.isArray(v) || v.length !== 5) throw new ReplayFileError(line, `${path}: must be [id, hash, x, y, z], got ${describe(v)}`);
  const id = text(v[0], `${path}[0]`, line, MAX_BODY_ID_LENGTH);
  const h = hash(v[1], `${path}[1]`, line, 8);
  for (let k = 2; k < 5; k++) {
    if (typeof v[k] !== "number" || !Number.isFinite(v[k])) throw new ReplayFileError(line, `${path}[${k}]: must be a finite number, got ${describe(v[k])}`);
  }
  return [id, h, v[2], v[3], v[4]];
}
