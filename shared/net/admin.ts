import { type Static, type TProperties, Type } from "typebox";
import { RoomSettingsSchema } from "./knobs.ts";

/**
 * The admin API's contract (server/README.md, "Admin API"), as JSON Schema built with TypeBox; the
 * TypeScript types are derived from the schemas (Static), so the server's routes, the browser client
 * and the load test read one declaration. The server validates requests and serializes responses with
 * these schemas; the knob schemas come from the knob table (knobs.ts). Schemas that depend on a
 * server's caps are functions of them.
 */

/** Milliseconds between state patches a room creator may ask for (the schema and the room's clamp). */
export const PATCH_RATE_MS = Object.freeze({ min: 16, max: 1000 });

/** `{status}` of /health and /ready. */
export const StatusReply = Type.Object({
  status: Type.String(),
  /** /ready's 503: why the process cannot take players ("starting or shutting down", "redis unreachable (…)"). */
  reason: Type.Optional(Type.String()),
});

/** GET /scenarios: the built-in scenes. */
export const ScenarioListing = Type.Object({ name: Type.String(), description: Type.String(), bodies: Type.Integer() });
export type ScenarioListing = Static<typeof ScenarioListing>;
export const ScenarioList = Type.Array(ScenarioListing);

export const NameParams = Type.Object({ name: Type.String({ maxLength: 64 }) });

/** Room ids are Colyseus ids (9 chars); the pattern also keeps them safe as file names. */
export const RoomParams = Type.Object({ id: Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }) });

/** A built-in name or scenario JSON; the JSON itself is checked by the scenario validator (exact paths). */
const ScenarioField = Type.Union([Type.String({ minLength: 1, maxLength: 64 }), Type.Object({})]);

/** The per-room limits a creator may ask for at most (a server's admin room caps). */
export interface CreateRoomCaps {
  maxClients: number;
  maxBodies: number;
  maxSpawnsPerSecond: number;
}

/** POST /rooms: a game and/or a scenario, and the room's limits, each bounded by `caps`. */
export function createRoomBodySchema(caps: Readonly<CreateRoomCaps>) {
  return Type.Object(
    {
      /** The game the room plays (GET /games); default sandbox. */
      game: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
      /** The scenario it starts from: the game's own when absent (only a game with anyScenario takes another). */
      scenario: Type.Optional(ScenarioField),
      patchRateMs: Type.Optional(Type.Integer({ minimum: PATCH_RATE_MS.min, maximum: PATCH_RATE_MS.max })),
      maxClients: Type.Optional(Type.Integer({ minimum: 1, maximum: caps.maxClients })),
      maxBodies: Type.Optional(Type.Integer({ minimum: 1, maximum: caps.maxBodies })),
      maxSpawnsPerSecond: Type.Optional(Type.Integer({ minimum: 0, maximum: caps.maxSpawnsPerSecond })),
    },
    { additionalProperties: false },
  );
}
export type CreateRoomBody = Static<ReturnType<typeof createRoomBodySchema>>;

export const CreatedRoom = Type.Object({ roomId: Type.String() });
export type CreatedRoom = Static<typeof CreatedRoom>;

/** POST /rooms/:id/scenario. */
export const LoadScenarioBody = Type.Object({ scenario: ScenarioField }, { additionalProperties: false });

/** A room's CPU use against its budget (enforced for player rooms: slowed, then closed). */
const RoomCpu = Type.Object({
  msPerSecond: Type.Number(),
  budgetMsPerSecond: Type.Number(),
  state: Type.Enum(["normal", "slowed", "closed"]),
  enforced: Type.Boolean(),
  overrunSeconds: Type.Integer(),
});

/** The same properties, each optional (Type.Partial would bring TypeBox's type engine into the browser bundle). */
function optional<P extends TProperties>(properties: P) {
  const out = {} as { [K in keyof P]: ReturnType<typeof Type.Optional<P[K]>> };
  for (const key of Object.keys(properties) as (keyof P)[]) out[key] = Type.Optional(properties[key]);
  return out;
}

/** GET /rooms/:id: one room, as the room itself answers. */
export const RoomInfo = Type.Object({
  roomId: Type.String(),
  /** The game the room plays. */
  game: Type.String(),
  scenario: Type.String(),
  clients: Type.Integer(),
  maxClients: Type.Integer(),
  bodies: Type.Integer(),
  maxBodies: Type.Integer(),
  awake: Type.Integer(),
  tick: Type.Integer(),
  tickRate: Type.Number(),
  patchRateMs: Type.Number(),
  tickMsP50: Type.Number(),
  tickMsP99: Type.Number(),
  settings: RoomSettingsSchema,
  /** Process hosting the room. */
  processId: Type.String(),
  /** Every body's state is finite (the engine removes bodies that are not). */
  finite: Type.Boolean(),
  /** Bodies the engine removed (left world.bounds or became non-finite) since the room started. */
  removedBodies: Type.Integer(),
  /** The replay is being recorded (false after a disk error or the size limit). */
  recording: Type.Boolean(),
  /**
   * Several processes: the tick of the room's last failover base Redis has acknowledged (server/failover/).
   * Absent without Redis, and until the first base is written: only then can another process resume the room.
   */
  checkpointTick: Type.Optional(Type.Integer()),
  /** Σ ½mv² + ½ωᵀIω over dynamic bodies, joules (the client's energy plot: restitution must not add energy). */
  kineticEnergy: Type.Number(),
  cpu: RoomCpu,
});
export type RoomInfo = Static<typeof RoomInfo>;

/**
 * GET /rooms: every room of every process. A room hosted elsewhere shows the summary it keeps in its
 * matchmaking listing, `infoAgeMs` old, or only its id, scenario and clients until it has written one.
 */
export const RoomListEntry = Type.Object({
  ...optional(RoomInfo.properties),
  roomId: Type.String(),
  scenario: Type.String(),
  clients: Type.Integer(),
  /** Age of the summary, ms (0 for rooms of the answering process). */
  infoAgeMs: Type.Optional(Type.Number()),
});
export type RoomListEntry = Static<typeof RoomListEntry>;
export const RoomList = Type.Array(RoomListEntry);

/** GET /processes: processes sharing the matchmaker. */
export const ProcessInfo = Type.Object({ processId: Type.String(), rooms: Type.Integer(), clients: Type.Integer(), self: Type.Boolean() });
export type ProcessInfo = Static<typeof ProcessInfo>;
export const ProcessList = Type.Array(ProcessInfo);

/** What a queued change answers: the tick it applies at (and for a settings change, the settings then). */
export const QueuedChange = Type.Object({ appliesAtTick: Type.Integer(), settings: Type.Optional(RoomSettingsSchema) });
export type QueuedChange = Static<typeof QueuedChange>;
/** PATCH /rooms/:id/settings answers the settings as they will be. */
export type SettingsChange = Required<QueuedChange>;
