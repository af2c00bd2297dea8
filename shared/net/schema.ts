import { type SchemaType, schema, t } from "@colyseus/schema";
import { BodyTypeCode, type JointInfo, type JointType, JointTypeCode, type ShapeDef, ShapeTypeCode, type Vec3Tuple } from "../engine/index.ts";

/**
 * The synchronised room state (@colyseus/schema v5). The wire cost of a patch is, per changed body,
 * ~3-4 B to address it plus 1 B field index + the value per changed field, so:
 * - shape fields are written once, when the body is added;
 * - position is split per axis into a rarely changing coarse cell (varint) and a 1-byte fine part;
 * - rotation is split into a uint32 (index + high bits) and a uint8 (low bits), see quantize.ts;
 * - the server assigns a field only when its quantized value changed, so a sleeping or static body
 *   costs nothing.
 * Every numeric field has a `.default()`: schema 5 encodes a field left undefined as 0 (`state.tick++` on
 * undefined gives NaN, which arrives as 0 forever). Except BodyState's last two, `shape` and `inside`:
 * a field with a default is encoded when its body is added, so these have none; most bodies never assign
 * them, and a sphere or box costs exactly what it did before they existed (they are last for the same
 * reason: the fields before them keep their wire indexes). Readers take them as `?? ""` and `?? 0`.
 */

/** `kind` bits 0-1: the engine's body type code (BodyTypeCode). */
export const KIND_STATIC = BodyTypeCode.STATIC;
export const KIND_KINEMATIC = BodyTypeCode.KINEMATIC;
export const KIND_DYNAMIC = BodyTypeCode.DYNAMIC;
export const KIND_TYPE_MASK = 3;
/** `kind` bits 2-4: the engine's shape code (ShapeTypeCode), so a box is 1 << 2 as it always was. */
export const KIND_SHAPE_SHIFT = 2;
export const KIND_SHAPE_MASK = 7 << KIND_SHAPE_SHIFT;
/** A box's shape bits (ShapeTypeCode.BOX << KIND_SHAPE_SHIFT); a sphere's are 0. Compare with `kind & KIND_SHAPE_MASK`. */
export const KIND_BOX = ShapeTypeCode.BOX << KIND_SHAPE_SHIFT;
/** `kind` bit 5: a sensor (clients draw it translucent; it never blocks anything). */
export const KIND_SENSOR = 32;

/** `kind` of a body from the engine's type and shape codes and sensor flag (BodyView.type / .shape / .sensor). */
export function kindOf(type: number, shape: number, sensor = 0): number {
  return (type & KIND_TYPE_MASK) | ((shape << KIND_SHAPE_SHIFT) & KIND_SHAPE_MASK) | (sensor === 1 ? KIND_SENSOR : 0);
}

/** The shape code (ShapeTypeCode) a `kind` carries. */
export function shapeCodeOf(kind: number): number {
  return (kind & KIND_SHAPE_MASK) >> KIND_SHAPE_SHIFT;
}

/**
 * Whether a shape travels as its `hx`/`hy`/`hz` alone (spheres and boxes) rather than as a `shape`
 * descriptor: those two are most bodies of most rooms, and keep their wire cost.
 */
export function sizedByHalfExtents(shapeCode: number): boolean {
  return shapeCode === ShapeTypeCode.SPHERE || shapeCode === ShapeTypeCode.BOX;
}

/** ShapeDef["type"] per ShapeTypeCode. */
const SHAPE_NAMES: readonly ShapeDef["type"][] = ["sphere", "box", "capsule", "cylinder", "hull", "compound", "mesh", "heightfield"];

/** The `shape` field of a body that is not a sphere or box: its definition, as the engine holds it, in JSON. */
export function shapeDescriptor(def: ShapeDef): string {
  return JSON.stringify(def);
}

/**
 * A received body's shape definition: built from hx/hy/hz for a sphere or box, parsed from its `shape`
 * descriptor otherwise. Null when the descriptor is missing, is not JSON, or names another shape than
 * `kind` does (the caller leaves such a body out rather than guess its geometry).
 */
export function shapeOfBody(kind: number, hx: number, hy: number, hz: number, descriptor: string | undefined): ShapeDef | null {
  const code = shapeCodeOf(kind);
  if (code === ShapeTypeCode.SPHERE) return { type: "sphere", radius: hx };
  if (code === ShapeTypeCode.BOX) return { type: "box", halfExtents: [hx, hy, hz] };
  if (!descriptor) return null;
  let def: unknown;
  try {
    def = JSON.parse(descriptor);
  } catch {
    return null;
  }
  const type = (def as { type?: unknown } | null)?.type;
  return type === SHAPE_NAMES[code] ? (def as ShapeDef) : null;
}

export const BodyState = schema(
  {
    /** Type (bits 0-1), shape code (bits 2-4) and sensor (bit 5), see KIND_*. Written once. */
    kind: t.uint8().default(0),
    /**
     * Box half extents, or the sphere radius in `hx` (hy = hz = radius too), metres. Written once, for
     * spheres and boxes only (0 for every other shape: its size is in `shape`).
     */
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
    /**
     * Every other shape's definition (the engine's ShapeDef: capsule, cylinder, hull, compound, mesh,
     * heightfield) as JSON, in the body's reference frame. Written once, when the body is added, and
     * never again: a mesh or height field crosses the wire once per client, not per patch.
     */
    shape: t.string(),
    /** A sensor's count of the bodies inside it now (RoomSim.sensorCounts): assigned when added (0), then when it changes. */
    inside: t.uint16(),
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

/** The engine's code (JointTypeCode) of a joint type: the code is the type's name in capitals. */
export function jointTypeCodeOf(type: JointType): JointTypeCode {
  return JointTypeCode[type.toUpperCase() as Uppercase<JointType>];
}

/** The joint type of a code (JointTypeCode), or null for a code this build does not know. */
export function jointTypeOfCode(code: number): JointType | null {
  for (const [name, value] of Object.entries(JointTypeCode)) if (value === code) return name.toLowerCase() as JointType;
  return null;
}

/** Joint types whose `axis` means something (hinge: the rotation axis; slider: the travel axis). */
export function jointHasAxis(code: number): boolean {
  return code === JointTypeCode.HINGE || code === JointTypeCode.SLIDER;
}

/**
 * One joint, for drawing: what it joins and where, as the engine holds it (JointInfo). Every field is
 * written once, when the joint is added, and never changes: a joint that breaks or loses a body is
 * deleted from `joints`, and the client draws it from its bodies' interpolated poses
 * (anchor = position + rotation × local anchor). The anchors and axis are float32 like a body's size
 * fields (hx/hy/hz, also written once): at 100 m from the origin a float32 is within 4 µm, far under the
 * 1 mm position quantum the bodies are drawn with, and the few bytes more than a millimetre varint are
 * spent once per joint and client.
 * The axis has no default, so a joint without one (fixed, ball, distance) sends none of its three fields;
 * readers take a missing axis as [1, 0, 0] (jointAxisOf), as JointInfo reports it.
 */
export const JointState = schema(
  {
    /** The engine's joint type code (JointTypeCode). */
    type: t.uint8().default(0),
    /** Body ids: A, and B or "" for the world. */
    bodyA: t.string().default(""),
    bodyB: t.string().default(""),
    /** A's anchor in A's reference frame, metres. */
    ax: t.float32().default(0),
    ay: t.float32().default(0),
    az: t.float32().default(0),
    /** B's anchor in B's reference frame, or in world space when B is the world, metres. */
    bx: t.float32().default(0),
    by: t.float32().default(0),
    bz: t.float32().default(0),
    /** The axis in A's reference frame (unit): hinges and sliders only. */
    ux: t.float32(),
    uy: t.float32(),
    uz: t.float32(),
  },
  "JointState",
);
export type JointState = SchemaType<typeof JointState>;

/** The schema entry of an engine joint (the map key is its id). */
export function jointStateOf(info: JointInfo): JointState {
  const j = new JointState();
  const code = jointTypeCodeOf(info.type);
  j.type = code;
  j.bodyA = info.bodyA;
  j.bodyB = info.bodyB ?? "";
  [j.ax, j.ay, j.az] = info.localAnchorA;
  [j.bx, j.by, j.bz] = info.localAnchorB;
  if (jointHasAxis(code)) [j.ux, j.uy, j.uz] = info.localAxisA;
  return j;
}

/** A received joint's axis in A's frame, [1, 0, 0] for a joint that sent none, written into `out`. */
export function jointAxisOf(j: JointState, out: Vec3Tuple | number[]): void {
  out[0] = j.ux ?? 1;
  out[1] = j.uy ?? 0;
  out[2] = j.uz ?? 0;
}

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
    /**
     * Joints keyed by joint id (the scenario's), each sent once (JointState); a broken or removed joint is
     * deleted. Optional: absent (not even an empty map on the wire, so a room without joints sends the
     * bytes it always did) until the room's world first has a joint; replaced by a fresh map when the
     * world is rebuilt. Readers take a missing map as no joints.
     */
    joints: t.map(JointState).optional(),
    /**
     * The game's fields (GameOptions.state) keyed by name, and each player's (playerState) keyed
     * `<sessionId>:<name>`; values are JSON text (`3`, `"red"`, `true`), each sent when it changes.
     * Optional: absent for a game without fields (sandbox), so its rooms send the bytes they always did.
     */
    fields: t.map("string").optional(),
  },
  "RoomState",
);
export type RoomState = SchemaType<typeof RoomState>;
