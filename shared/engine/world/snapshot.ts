import type { BroadPhase } from "../collision/broad-phase.ts";

/**
 * Exact snapshots of a world: everything a step reads that outlives a step, copied, so that a world
 * restored from a snapshot continues bit for bit like the original (same state hash every tick after).
 *
 * The world's own fields and its stores (bodies, contacts, broad phase, event log) are copied field by
 * field, private fields included, by walking their own properties rather than from a list: a field added
 * to a store later is captured without anyone remembering to add it here. A value this module does not
 * know how to copy (a class instance inside a store, other than the broad phase's columns) is an error,
 * never silently skipped. The step pipeline and the spatial queries keep per-step scratch buffers
 * (solver rows, island union-find, manifold output) that every step rewrites before reading; of those
 * two only the scalar fields are kept (the pair stamp the contacts compare with, the drift cache), and
 * an object field that is not in their known scratch list is an error too.
 *
 * A snapshot holds only typed arrays, numbers, strings, booleans, null/undefined, arrays and plain
 * objects (maps as `{ $map: [key, value][] }`), so it could be written out and read back in another
 * process; restoring copies out of it and never aliases it, so one snapshot can be restored any number
 * of times.
 */
export const WORLD_SNAPSHOT_FORMAT = 1;

/** A copied field: a typed array, a primitive, or a container of those. */
export type SnapshotValue =
  | number
  | string
  | boolean
  | null
  | undefined
  | Float64Array
  | Int32Array
  | Uint32Array
  | Uint16Array
  | Uint8Array
  | SnapshotValue[]
  | { $map: [SnapshotValue, SnapshotValue][] }
  | SnapshotRecord;

export interface SnapshotRecord {
  [field: string]: SnapshotValue;
}

export interface WorldSnapshot {
  format: number;
  /** The world's own data fields: tick, settings, the last step's removals and counters… */
  fields: SnapshotRecord;
  /** Every store the world owns (bodies, contacts, event logs…), field by field. */
  stores: Record<string, SnapshotRecord>;
  broad: SnapshotRecord;
  /** Scalar fields of the step pipeline (pair stamp, moving kinematic count). */
  pipeline: SnapshotRecord;
  /** Scalar fields of the spatial queries (the per-tick drift cache). */
  queries: SnapshotRecord;
}

/** The parts of a world this module reaches into besides the world's own fields. */
export interface WorldParts {
  broad: BroadPhase;
  pipeline: object;
  queries: object;
}

/** World fields handled apart: the pipeline and queries (scalars only), the body view (rebuilt by `view()`). */
const WORLD_APART = new Set(["pipeline", "queries", "storeView"]);
/**
 * A world field replaced whole rather than written in place: the world swaps its settings object on every
 * change and the step re-resolves its scalars when the object differs.
 */
const REPLACED = new Set(["settings"]);

/** Object fields of the pipeline and the queries that every step (or query) rewrites before reading. */
const PIPELINE_SCRATCH = new Set(["broad", "solverMemory", "solverBodies", "solver", "jointSolver", "islands", "manifold", "pieces", "ctx", "world"]);
const QUERIES_SCRATCH = new Set(["queryBox", "bodies", "broad", "inSkip", "caster", "candidates"]);

/**
 * Store fields derived from others and never written after creation (a body's hull, compound, mesh or
 * height-field data, built from its shape definition): not copied; the store rebuilds them on restore.
 */
const DERIVED = new Set(["geometry"]);

type Fields = Record<string, unknown>;

function isTypedArray(v: unknown): v is Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array {
  return ArrayBuffer.isView(v) && !(v instanceof DataView);
}

function isPlainObject(v: unknown): v is Fields {
  if (typeof v !== "object" || v === null) return false;
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

/** A deep copy of one value; `where` names it in errors. */
function copyValue(v: unknown, where: string): SnapshotValue {
  if (v === null || v === undefined || typeof v === "number" || typeof v === "string" || typeof v === "boolean") return v;
  if (isTypedArray(v)) return v.slice();
  if (Array.isArray(v)) return v.map((x, i) => copyValue(x, `${where}[${i}]`));
  if (v instanceof Map) return { $map: [...v].map(([k, x]) => [copyValue(k, `${where} key`), copyValue(x, `${where}.get(${String(k)})`)]) };
  if (isPlainObject(v)) return copyRecord(v, where);
  throw new Error(`world snapshot: cannot copy ${where} (${Object.prototype.toString.call(v)})`);
}

function copyRecord(v: Fields, where: string): SnapshotRecord {
  const out: SnapshotRecord = {};
  for (const key of Object.keys(v)) out[key] = copyValue(v[key], `${where}.${key}`);
  return out;
}

/** Every own field of a store, functions excluded; `special` fields are left to the caller. */
function captureStore(store: object, where: string, special: ReadonlySet<string> = new Set()): SnapshotRecord {
  const fields = store as Fields;
  const out: SnapshotRecord = {};
  for (const key of Object.keys(fields)) {
    if (special.has(key) || typeof fields[key] === "function") continue;
    out[key] = copyValue(fields[key], `${where}.${key}`);
  }
  return out;
}

/** The scalar fields of an object whose object fields are all known scratch. */
function captureScalars(obj: object, where: string, scratch: ReadonlySet<string>): SnapshotRecord {
  const fields = obj as Fields;
  const out: SnapshotRecord = {};
  for (const key of Object.keys(fields)) {
    const v = fields[key];
    if (typeof v === "number" || typeof v === "boolean" || typeof v === "string") out[key] = v;
    else if (!scratch.has(key) && typeof v !== "function") {
      throw new Error(`world snapshot: ${where}.${key} is neither a scalar nor known per-step scratch; teach snapshot.ts about it`);
    }
  }
  return out;
}

/** A fresh copy of a snapshot value, for writing back into a live object. */
function revive(v: SnapshotValue): unknown {
  if (v === null || v === undefined || typeof v !== "object") return v;
  if (isTypedArray(v)) return v.slice();
  if (Array.isArray(v)) return v.map(revive);
  if (Array.isArray((v as { $map?: unknown }).$map)) {
    return new Map((v as { $map: [SnapshotValue, SnapshotValue][] }).$map.map(([k, x]) => [revive(k), revive(x)]));
  }
  const out: Fields = {};
  for (const key of Object.keys(v)) out[key] = revive((v as SnapshotRecord)[key]);
  return out;
}

function restoreFields(target: object, record: SnapshotRecord, special: ReadonlySet<string> = new Set()): void {
  const fields = target as Fields;
  for (const key of Object.keys(record)) if (!special.has(key)) fields[key] = revive(record[key]);
}

/** Broad-phase columns are class instances: `cells` is rebuilt through the broad phase's own factory. */
const BROAD_SPECIAL = new Set(["cells", "cellIndex"]);

interface CellLike {
  count: number;
  activeStamp: number;
  slots: Int32Array;
  keys: Float64Array;
}

function captureBroad(broad: BroadPhase): SnapshotRecord {
  const out = captureStore(broad, "broad", BROAD_SPECIAL);
  const cells = (broad as unknown as { cells: object[] }).cells;
  out.cells = cells.map((cell, i) => captureStore(cell, `broad.cells[${i}]`));
  return out;
}

function restoreBroad(broad: BroadPhase, record: SnapshotRecord): void {
  restoreFields(broad, record, BROAD_SPECIAL);
  const internals = broad as unknown as { cells: CellLike[]; cellIndex: Map<number, number>; cellAt(ci: number, cj: number): CellLike };
  internals.cells = [];
  internals.cellIndex = new Map();
  for (const saved of record.cells as SnapshotRecord[]) {
    // cellAt creates the column at the next index and registers its key, as the original did.
    const cell = internals.cellAt(saved.ci as number, saved.cj as number);
    restoreFields(cell, saved, new Set(["ci", "cj", "index"]));
  }
}

/** Copies everything a world's future steps depend on. */
export function captureWorld(world: object, parts: WorldParts): WorldSnapshot {
  const fields = world as Fields;
  const snapshot: WorldSnapshot = {
    format: WORLD_SNAPSHOT_FORMAT,
    fields: {},
    stores: {},
    broad: captureBroad(parts.broad),
    pipeline: captureScalars(parts.pipeline, "pipeline", PIPELINE_SCRATCH),
    queries: captureScalars(parts.queries, "queries", QUERIES_SCRATCH),
  };
  for (const key of Object.keys(fields)) {
    const v = fields[key];
    if (WORLD_APART.has(key) || typeof v === "function") continue;
    if (typeof v === "object" && v !== null && !isPlainObject(v) && !Array.isArray(v) && !isTypedArray(v)) {
      snapshot.stores[key] = captureStore(v, key, DERIVED);
    } else {
      snapshot.fields[key] = copyValue(v, key);
    }
  }
  return snapshot;
}

/**
 * Writes a snapshot's state into a world (any world: fresh or with another history). Stores are written
 * field by field and containers the step holds on to (the removals list, the counters) in place, so every
 * reference the pipeline keeps stays valid.
 */
export function restoreWorld(world: object, parts: WorldParts, snapshot: WorldSnapshot): void {
  if (snapshot.format !== WORLD_SNAPSHOT_FORMAT) throw new Error(`world snapshot: format ${snapshot.format}, expected ${WORLD_SNAPSHOT_FORMAT}`);
  const fields = world as Fields;
  for (const key of Object.keys(snapshot.stores)) {
    const store = fields[key];
    if (typeof store !== "object" || store === null) throw new Error(`world snapshot: this world has no store "${key}"`);
    restoreFields(store, snapshot.stores[key]);
    const rebuild = (store as { rebuildGeometry?: () => void }).rebuildGeometry;
    if (typeof rebuild === "function") rebuild.call(store);
  }
  restoreBroad(parts.broad, snapshot.broad);
  restoreFields(parts.pipeline, snapshot.pipeline);
  restoreFields(parts.queries, snapshot.queries);
  for (const key of Object.keys(snapshot.fields)) {
    const current = fields[key];
    const value = revive(snapshot.fields[key]);
    if (REPLACED.has(key)) fields[key] = value;
    else if (Array.isArray(current)) current.splice(0, current.length, ...(value as unknown[]));
    else if (isPlainObject(current)) {
      for (const k of Object.keys(current)) delete current[k];
      Object.assign(current, value);
    } else fields[key] = value;
  }
}
