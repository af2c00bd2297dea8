/**
 * JSON schemas of the admin routes. Fastify validates with Ajv configured to reject (not strip)
 * unknown properties and not to coerce types, so a typo in a knob name is a 400 naming it.
 */

import { PHYSICAL_LIMITS } from "../../shared/scenarios/index.ts";

export const okResponse = {
  type: "object",
  properties: { status: { type: "string" } },
  required: ["status"],
} as const;

export const scenarioList = {
  type: "array",
  items: {
    type: "object",
    properties: { name: { type: "string" }, description: { type: "string" }, bodies: { type: "integer" } },
    required: ["name", "description", "bodies"],
  },
} as const;

export const nameParams = {
  type: "object",
  properties: { name: { type: "string", maxLength: 64 } },
  required: ["name"],
} as const;

/** Room ids are Colyseus ids (9 chars); the pattern also keeps them safe as file names. */
export const roomParams = {
  type: "object",
  properties: { id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" } },
  required: ["id"],
} as const;

/** A built-in name or scenario JSON; the JSON itself is checked by validateScenario (exact paths). */
const scenarioField = { anyOf: [{ type: "string", minLength: 1, maxLength: 64 }, { type: "object" }] } as const;

export interface CreateRoomBody {
  scenario: unknown;
  patchRateMs?: number;
  maxClients?: number;
  maxBodies?: number;
  maxSpawnsPerSecond?: number;
}

export const createRoomBody = {
  type: "object",
  properties: {
    scenario: scenarioField,
    patchRateMs: { type: "integer", minimum: 16, maximum: 1000 },
    maxClients: { type: "integer", minimum: 1, maximum: 64 },
    maxBodies: { type: "integer", minimum: 1, maximum: 20000 },
    maxSpawnsPerSecond: { type: "integer", minimum: 0, maximum: 20 },
  },
  required: ["scenario"],
  additionalProperties: false,
} as const;

export const loadScenarioBody = {
  type: "object",
  properties: { scenario: scenarioField },
  required: ["scenario"],
  additionalProperties: false,
} as const;

const coefficient = (max: number) => ({ anyOf: [{ type: "number", minimum: 0, maximum: max }, { type: "null" }] });

/**
 * The live knobs (RoomSettingsPatch in shared/sim/inputs.ts), bounded by the scenario format's physical
 * ranges (PHYSICAL_LIMITS in shared/scenarios/validate.ts) so a patch cannot set what a scenario may not.
 */
export const settingsBody = {
  type: "object",
  properties: {
    velocityIterations: { type: "integer", minimum: 1, maximum: PHYSICAL_LIMITS.maxIterations },
    gravity: {
      type: "array",
      items: { type: "number", minimum: -PHYSICAL_LIMITS.maxGravity, maximum: PHYSICAL_LIMITS.maxGravity },
      minItems: 3,
      maxItems: 3,
    },
    friction: coefficient(PHYSICAL_LIMITS.maxFriction),
    restitution: coefficient(1),
    slop: { type: "number", minimum: 0, maximum: PHYSICAL_LIMITS.maxSlop },
    percent: { type: "number", minimum: 0, maximum: 1 },
    method: { type: "string", enum: ["soft", "projection"] },
    ccd: { type: "boolean" },
    sleep: { type: "boolean" },
    warmStarting: { type: "boolean" },
  },
  additionalProperties: false,
  minProperties: 1,
} as const;

const settingsShape = {
  type: "object",
  properties: {
    velocityIterations: { type: "integer" },
    gravity: { type: "array", items: { type: "number" } },
    friction: { type: ["number", "null"] },
    restitution: { type: ["number", "null"] },
    slop: { type: "number" },
    percent: { type: "number" },
    method: { type: "string" },
    ccd: { type: "boolean" },
    sleep: { type: "boolean" },
    warmStarting: { type: "boolean" },
  },
} as const;

/** RoomInfo (server/rooms/physics-room.ts). */
export const roomInfo = {
  type: "object",
  properties: {
    roomId: { type: "string" },
    scenario: { type: "string" },
    clients: { type: "integer" },
    maxClients: { type: "integer" },
    bodies: { type: "integer" },
    maxBodies: { type: "integer" },
    awake: { type: "integer" },
    tick: { type: "integer" },
    tickRate: { type: "number" },
    patchRateMs: { type: "number" },
    tickMsP50: { type: "number" },
    tickMsP99: { type: "number" },
    settings: settingsShape,
    processId: { type: "string" },
    finite: { type: "boolean" },
    removedBodies: { type: "integer" },
    recording: { type: "boolean" },
    kineticEnergy: { type: "number" },
    cpu: {
      type: "object",
      properties: {
        msPerSecond: { type: "number" },
        budgetMsPerSecond: { type: "number" },
        state: { type: "string", enum: ["normal", "slowed", "closed"] },
        enforced: { type: "boolean" },
        overrunSeconds: { type: "integer" },
      },
    },
    /** GET /rooms: age of a remote room's summary (0 for rooms of the answering process), ms. */
    infoAgeMs: { type: "number" },
  },
  required: ["roomId", "scenario", "clients"],
} as const;

export const roomList = { type: "array", items: roomInfo } as const;

export const processList = {
  type: "array",
  items: {
    type: "object",
    properties: { processId: { type: "string" }, rooms: { type: "integer" }, clients: { type: "integer" }, self: { type: "boolean" } },
    required: ["processId", "rooms", "clients", "self"],
  },
} as const;

export const createdRoom = { type: "object", properties: { roomId: { type: "string" } }, required: ["roomId"] } as const;

export const queuedChange = {
  type: "object",
  properties: { appliesAtTick: { type: "integer" }, settings: settingsShape },
  required: ["appliesAtTick"],
} as const;
