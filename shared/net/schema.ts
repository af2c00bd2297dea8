import { type SchemaType, schema, t } from "@colyseus/schema";
import { BodyTypeCode, ShapeTypeCode } from "../engine/index.ts";

/**
 * The synchronised room state (@colyseus/schema v5). The wire cost of a patch is, per changed body,
 * ~3-4 B to address it plus 1 B field index + the value per changed field, so:
 * - shape fields are written once, when the body is added;
 * - position is split per axis into a rarely changing coarse cell (varint) and a 1-byte fine part;
 * - rotation is split into a uint32 (index + high bits) and a uint8 (low bits), see quantize.ts;
 * - the server assigns a field only when its quantized value changed, so a sleeping or static body
 *   costs nothing.
 * Every numeric field has a `.default()`: schema 5 encodes a field left undefined as 0 (`state.tick++` on
 * undefined gives NaN, which arrives as 0 forever).
 */

/** `kind` bits 0-1: the engine's body type code (BodyTypeCode). */
export const KIND_STATIC = BodyTypeCode.STATIC;
export const KIND_KINEMATIC = BodyTypeCode.KINEMATIC;
export const KIND_DYNAMIC = BodyTypeCode.DYNAMIC;
export const KIND_TYPE_MASK = 3;
/** `kind` bit 2: set for boxes, clear for spheres. */
export const KIND_BOX = 4;
/** `kind` bit 3: a sensor (clients draw it translucent; it never blocks anything). */
export const KIND_SENSOR = 8;

/** `kind` of a body from the engine's type and shape codes and sensor flag (BodyView.type / .shape / .sensor). */
export function kindOf(type: number, shape: number, sensor = 0): number {
  return (type & KIND_TYPE_MASK) | (shape === ShapeTypeCode.BOX ? KIND_BOX : 0) | (sensor === 1 ? KIND_SENSOR : 0);
}

export const BodyState = schema(
  {
    /** Type (bits 0-1), shape (bit 2) and sensor (bit 3), see KIND_*. Written once. */
    kind: t.uint8().default(0),
    /** Box half extents, or the sphere radius in `hx` (hy = hz = radius too), metres. Written once. */
    hx: t.float32().default(0),
    hy: t.float32().default(0),
    hz: t.float32().default(0),
    /** Coarse position cells (256 mm), see quantize.ts. */
    cx: t.number().default(0),
    cy: t.number().default(0),
    cz: t.number().default(0),
    /** Fine position, millimetres inside the cell (0..255). */
    fx: t.uint8().default(0),
    fy: t.uint8().default(0),
    fz: t.uint8().default(0),
    /** Smallest-three rotation, high and low parts. The default (0, 0) is not identity; always assigned. */
    rh: t.uint32().default(0),
    rl: t.uint8().default(0),
    sleeping: t.boolean().default(false),
  },
  "BodyState",
);
export type BodyState = SchemaType<typeof BodyState>;

export const AvatarState = schema(
  {
    /** Key of the avatar's body in `bodies`. */
    bodyId: t.string().default(""),
    /** Standing on something (from the character controller). */
    grounded: t.boolean().default(false),
  },
  "AvatarState",
);
export type AvatarState = SchemaType<typeof AvatarState>;

export const RoomState = schema(
  {
    /** Simulation tick the state belongs to (steps since the room started). */
    tick: t.uint32().default(0),
    /** Simulation time of `tick` in milliseconds (tick * 1000 / tickRate, rounded): what clients interpolate on. */
    time: t.uint32().default(0),
    /**
     * Simulation steps per second: an integer 1..1000 (the scenario format's range, world.tickRate), so a
     * uint16 carries every allowed rate exactly (a uint8 wrapped 300 to 44). Written when it changes.
     */
    tickRate: t.uint16().default(60),
    /** Name of the loaded scenario. */
    scenario: t.string().default(""),
    /**
     * The scenario's camera hint (Scenario.camera): position x, y, z then target x, y, z, metres; empty
     * when it has none (clients frame the bodies themselves). Written with `scenario`.
     */
    camera: t.array("float32"),
    /** Bodies keyed by body id (scenario ids, `avatar-<sessionId>`, `s<n>` for spawned bodies). */
    bodies: t.map(BodyState),
    /** Avatars keyed by the owner's session id. */
    avatars: t.map(AvatarState),
  },
  "RoomState",
);
export type RoomState = SchemaType<typeof RoomState>;
