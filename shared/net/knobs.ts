import { type Static, type TSchema, Type } from "typebox";
import { MATERIAL_LIMITS, type PositionCorrectionSettings, type WorldSettings, type WorldSettingsPatch } from "../engine/index.ts";
import { PHYSICAL_LIMITS } from "../scenarios/validate.ts";

/**
 * The live knobs of a room, as one table: each row names the engine setting (or room-level material
 * override) the knob drives, how the knobs panel shows it, and the values it may take. Everything else
 * derives from it: the admin API's PATCH /rooms/:id/settings schema and the settings it reports
 * (`roomSettingsPatchSchema`, `RoomSettingsSchema`, their TypeScript types), the room simulation's
 * mapping into WorldSettingsPatch (`worldPatchOf`, `roomSettingsOf`), and the client's knobs panel.
 * Adding a knob is one row here (and the engine setting it drives, if that is new).
 */

/** Values a numeric knob may take (inclusive): the admin API's bounds and the panel control's span. */
export interface KnobRange {
  min: number;
  max: number;
}

type WorldKey = Exclude<keyof WorldSettings, "positionCorrection">;
type CorrectionKey = keyof PositionCorrectionSettings;
/** An engine setting: a WorldSettings field, or `positionCorrection.<field>`. */
export type SettingPath = WorldKey | `positionCorrection.${CorrectionKey}`;
type SettingValue<P extends SettingPath> = P extends `positionCorrection.${infer K extends CorrectionKey}`
  ? PositionCorrectionSettings[K]
  : P extends WorldKey
    ? WorldSettings[P]
    : never;
type PathsOf<V> = { [P in SettingPath]: SettingValue<P> extends V ? P : never }[SettingPath];

/**
 * A coefficient the room sets on every body instead of the body's own (contacts combine sqrt(μa·μb)
 * and max(ea, eb), so an override of μ gives exactly μ between any two bodies); null restores each
 * body's own value. Not an engine setting: the room simulation keeps it (shared/sim/room-sim.ts).
 */
export type MaterialKey = "friction" | "restitution";

/** How the knobs panel shows a knob. */
export type KnobControl =
  /** A slider with the value beside it. */
  | { kind: "slider"; step: number }
  /** A checkbox (off: null, each body's own value) and a slider. */
  | { kind: "override"; step: number }
  /** One number field per component. */
  | { kind: "vector"; step: number }
  | { kind: "choice"; options: readonly { value: string; label: string }[] }
  | { kind: "toggle" };

interface KnobUi {
  label: string;
  /** Unit of the value, shown after the label. */
  unit?: string;
  /** What the knob does, in a few words (the panel's tooltip). */
  hint?: string;
}

/**
 * One row of the table. The rows are made by the helpers below, whose return types keep each value
 * schema's exact TypeBox type, so the patch and settings types are derived from the schemas (Static).
 */
export interface KnobDef extends KnobUi {
  control: KnobControl;
  /** Numeric knobs: the values the engine is held to (the widest a server may accept). */
  range?: KnobRange;
  /** The value's schema within `range` (a server may narrow the range: `narrowKnobRanges`). */
  schema: (range: KnobRange) => TSchema;
  /** What the value drives: an engine setting, or a room-level material override. */
  target: { setting: SettingPath } | { material: MaterialKey };
}

const NO_RANGE: KnobRange = { min: Number.NEGATIVE_INFINITY, max: Number.POSITIVE_INFINITY };
const bounded = (r: KnobRange) => ({ minimum: r.min, maximum: r.max });

/** An integer engine setting (iteration counts), shown as a slider in steps of 1. */
function integerKnob(setting: PathsOf<number>, range: KnobRange, ui: KnobUi) {
  return { ...ui, range, control: { kind: "slider", step: 1 }, schema: (r: KnobRange) => Type.Integer(bounded(r)), target: { setting } } satisfies KnobDef;
}

/** A real-valued engine setting, shown as a slider in steps of `step`. */
function numberKnob(setting: PathsOf<number>, range: KnobRange, step: number, ui: KnobUi) {
  return { ...ui, range, control: { kind: "slider", step }, schema: (r: KnobRange) => Type.Number(bounded(r)), target: { setting } } satisfies KnobDef;
}

/** A vector engine setting (x, y, z), each component within `range`. */
function vectorKnob(setting: PathsOf<[number, number, number]>, range: KnobRange, step: number, ui: KnobUi) {
  const schema = (r: KnobRange) => Type.Tuple([Type.Number(bounded(r)), Type.Number(bounded(r)), Type.Number(bounded(r))]);
  return { ...ui, range, control: { kind: "vector", step }, schema, target: { setting } } satisfies KnobDef;
}

/** A boolean engine setting, shown as a checkbox. */
function toggleKnob(setting: PathsOf<boolean>, ui: KnobUi) {
  return { ...ui, control: { kind: "toggle" }, schema: () => Type.Boolean(), target: { setting } } satisfies KnobDef;
}

/** An engine setting with a fixed set of string values, shown as a select. */
function choiceKnob<const V extends string>(setting: PathsOf<V>, options: readonly { value: V; label: string }[], ui: KnobUi) {
  const values = options.map((o) => o.value);
  return { ...ui, control: { kind: "choice", options }, schema: () => Type.Enum(values), target: { setting } } satisfies KnobDef;
}

/** A room-level material override: a coefficient within `range`, or null for each body's own value. */
function overrideKnob(material: MaterialKey, range: KnobRange, step: number, ui: KnobUi) {
  const schema = (r: KnobRange) => Type.Union([Type.Number(bounded(r)), Type.Null()]);
  return { ...ui, range, control: { kind: "override", step }, schema, target: { material } } satisfies KnobDef;
}

/**
 * The table. Row order is the knobs panel's order. Ranges come from the limits the scenario format holds
 * a world to (PHYSICAL_LIMITS, MATERIAL_LIMITS), so a knob cannot set what a scenario may not.
 */
export const ROOM_KNOBS = {
  velocityIterations: integerKnob("velocityIterations", { min: 1, max: PHYSICAL_LIMITS.maxIterations }, {
    label: "velocity iterations",
    hint: "solver passes per tick (soft: sub-steps)",
  }),
  method: choiceKnob(
    "positionCorrection.method",
    [
      { value: "soft", label: "soft (sub-stepping)" },
      { value: "projection", label: "projection (Baumgarte)" },
    ],
    { label: "position correction" },
  ),
  slop: numberKnob("positionCorrection.slop", { min: 0, max: PHYSICAL_LIMITS.maxSlop }, 0.001, {
    label: "slop",
    unit: "m",
    hint: "penetration allowed before correction",
  }),
  percent: numberKnob("positionCorrection.percent", { min: 0, max: 1 }, 0.05, {
    label: "percent",
    hint: "share of the penetration removed per pass (projection only)",
  }),
  restitution: overrideKnob("restitution", { min: 0, max: MATERIAL_LIMITS.maxRestitution }, 0.05, {
    label: "restitution",
    hint: "override every body's own value",
  }),
  friction: overrideKnob("friction", { min: 0, max: MATERIAL_LIMITS.maxFriction }, 0.05, {
    label: "friction",
    hint: "override every body's own value",
  }),
  gravity: vectorKnob("gravity", { min: -PHYSICAL_LIMITS.maxGravity, max: PHYSICAL_LIMITS.maxGravity }, 0.1, { label: "gravity", unit: "m/s²" }),
  ccd: toggleKnob("ccd", { label: "CCD", hint: "continuous collision (speculative contacts)" }),
  sleep: toggleKnob("sleep", { label: "sleep", hint: "resting islands stop costing anything" }),
  warmStarting: toggleKnob("warmStarting", { label: "warm starting", hint: "start each contact from last tick's impulses" }),
};

export type RoomKnobs = typeof ROOM_KNOBS;
export type KnobKey = keyof RoomKnobs;
/** Every knob, in the table's order. */
export const KNOB_KEYS = Object.keys(ROOM_KNOBS) as KnobKey[];

type KnobSchema<K extends KnobKey> = ReturnType<RoomKnobs[K]["schema"]>;
/** The knobs that have a range. */
export type RangedKnobKey = { [K in KnobKey]: RoomKnobs[K] extends { range: KnobRange } ? K : never }[KnobKey];
/** The range each numeric knob accepts. */
export type KnobRanges = { readonly [K in RangedKnobKey]: Readonly<KnobRange> };

function isRanged(key: KnobKey): key is RangedKnobKey {
  return (ROOM_KNOBS[key] as KnobDef).range !== undefined;
}

/** The table's own ranges: the widest any server accepts (the replay verifier holds recordings to them). */
export const KNOB_RANGES: KnobRanges = Object.freeze(
  Object.fromEntries(KNOB_KEYS.filter(isRanged).map((key) => [key, Object.freeze({ ...(ROOM_KNOBS[key] as KnobDef).range! })])) as KnobRanges,
);

/**
 * A server's knob ranges: the table's, narrowed by `overrides`. A range wider than the table's (or
 * empty) is an error: the table's range is what the engine is held to.
 */
export function narrowKnobRanges(overrides: Partial<Record<RangedKnobKey, KnobRange>> = {}): KnobRanges {
  const out: Record<string, Readonly<KnobRange>> = { ...KNOB_RANGES };
  for (const [key, range] of Object.entries(overrides) as [RangedKnobKey, KnobRange | undefined][]) {
    const table = KNOB_RANGES[key];
    if (range === undefined) continue;
    if (table === undefined) throw new Error(`knob "${key}" has no range`);
    if (!(range.min >= table.min && range.max <= table.max && range.min <= range.max)) {
      throw new Error(`knob ${key}: range ${range.min}..${range.max} is not within ${table.min}..${table.max}`);
    }
    out[key] = Object.freeze({ min: range.min, max: range.max });
  }
  return Object.freeze(out) as KnobRanges;
}

function knobSchema<K extends KnobKey>(key: K, ranges: KnobRanges): KnobSchema<K> {
  const range = isRanged(key) ? ranges[key] : NO_RANGE;
  return (ROOM_KNOBS[key].schema as (r: KnobRange) => KnobSchema<K>)(range);
}

/**
 * PATCH /rooms/:id/settings: any knobs, at least one, each within `ranges`; an unknown key is refused
 * (not stripped), so a typo in a knob name is a 400 naming it.
 */
export function roomSettingsPatchSchema(ranges: KnobRanges = KNOB_RANGES) {
  const properties = {} as { [K in KnobKey]: ReturnType<typeof Type.Optional<KnobSchema<K>>> };
  for (const key of KNOB_KEYS) (properties as Record<string, TSchema>)[key] = Type.Optional(knobSchema(key, ranges));
  return Type.Object(properties, { additionalProperties: false, minProperties: 1 });
}

/** A change of some of a room's knobs (an admin request, a `settings` input of the room simulation). */
export type RoomSettingsPatch = Static<ReturnType<typeof roomSettingsPatchSchema>>;

function settingsSchema() {
  const properties = {} as { [K in KnobKey]: KnobSchema<K> };
  for (const key of KNOB_KEYS) (properties as Record<string, TSchema>)[key] = knobSchema(key, KNOB_RANGES);
  return Type.Object(properties);
}

/** The effective value of every knob of a room (GET /rooms/:id `settings`). */
export const RoomSettingsSchema = settingsSchema();
export type RoomSettings = Static<typeof RoomSettingsSchema>;

/** Room-level material overrides (null: each body keeps its own coefficient). */
export type MaterialOverrides = Record<MaterialKey, number | null>;

function settingParts(path: SettingPath): [WorldKey] | ["positionCorrection", CorrectionKey] {
  const dot = path.indexOf(".");
  return dot < 0 ? [path as WorldKey] : ["positionCorrection", path.slice(dot + 1) as CorrectionKey];
}

/** Arrays are copied both ways, so a patch and the world never share one. */
function copied<T>(value: T): T {
  return (Array.isArray(value) ? [...value] : value) as T;
}

/** The engine settings a patch changes (knobs that drive a material override are left out). */
export function worldPatchOf(patch: RoomSettingsPatch): WorldSettingsPatch {
  const out: Record<string, unknown> = {};
  let correction: Record<string, unknown> | undefined;
  for (const key of KNOB_KEYS) {
    const value = patch[key];
    const target = ROOM_KNOBS[key].target;
    if (value === undefined || !("setting" in target)) continue;
    const [head, field] = settingParts(target.setting);
    if (field === undefined) {
      out[head] = copied(value);
    } else {
      correction ??= out.positionCorrection = {};
      correction[field] = value;
    }
  }
  return out as WorldSettingsPatch;
}

/** The material overrides a patch sets (null lifts one). */
export function materialPatchOf(patch: RoomSettingsPatch): Partial<MaterialOverrides> {
  const out: Partial<MaterialOverrides> = {};
  for (const key of KNOB_KEYS) {
    const value = patch[key];
    const target = ROOM_KNOBS[key].target;
    if (value !== undefined && "material" in target) out[target.material] = value as number | null;
  }
  return out;
}

/** Every knob's effective value: read from the engine's settings, or the room's material overrides. */
export function roomSettingsOf(settings: Readonly<WorldSettings>, materials: Readonly<MaterialOverrides>): RoomSettings {
  const out: Record<string, unknown> = {};
  for (const key of KNOB_KEYS) {
    const target = ROOM_KNOBS[key].target;
    if ("material" in target) {
      out[key] = materials[target.material];
      continue;
    }
    const [head, field] = settingParts(target.setting);
    out[key] = copied(field === undefined ? settings[head] : settings.positionCorrection[field]);
  }
  return out as RoomSettings;
}
