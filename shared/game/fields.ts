/**
 * Game fields: the small typed map a game keeps in `ctx.state` (and each player's `player.state`), synced
 * to every client and hashed with the world each tick (so a replay that reaches other fields diverges at
 * once). A field's type is its initial value's: a finite number, a string of at most MAX_STRING
 * characters, or a boolean. The objects hooks see are sealed: assigning a field the game did not declare
 * throws, and a field given another type is caught when the hook returns.
 */

export type FieldValue = number | string | boolean;
export type FieldValues = Record<string, FieldValue>;

export const FIELD_LIMITS = Object.freeze({ maxGameFields: 32, maxPlayerFields: 16, maxString: 256 });
const FIELD_NAME = /^[A-Za-z][A-Za-z0-9_]{0,31}$/;

/** Why `value` cannot be a field's value (of the type of `initial`), or null. */
export function fieldProblem(value: unknown, initial: FieldValue): string | null {
  if (typeof value !== typeof initial) return `expected a ${typeof initial}, got ${value === null ? "null" : typeof value}`;
  if (typeof value === "number" && !Number.isFinite(value)) return `expected a finite number, got ${value}`;
  if (typeof value === "string" && value.length > FIELD_LIMITS.maxString) return `a string of at most ${FIELD_LIMITS.maxString} characters (got ${value.length})`;
  return null;
}

/** Checks a game's declared fields (`state` or `playerState`); returns a frozen copy. Throws with the field's path. */
export function validateFieldDefaults(values: unknown, where: string): Readonly<FieldValues> {
  if (values === undefined) return Object.freeze({});
  if (typeof values !== "object" || values === null || Array.isArray(values)) throw new GameDefinitionError(`${where}: expected an object of field names and initial values`);
  const max = where === "state" ? FIELD_LIMITS.maxGameFields : FIELD_LIMITS.maxPlayerFields;
  const entries = Object.entries(values);
  if (entries.length > max) throw new GameDefinitionError(`${where}: at most ${max} fields (got ${entries.length})`);
  const out: FieldValues = {};
  for (const [name, value] of entries) {
    if (!FIELD_NAME.test(name)) throw new GameDefinitionError(`${where}.${name}: a field name is a letter then letters, digits or _, at most 32 characters`);
    if (typeof value !== "number" && typeof value !== "string" && typeof value !== "boolean") {
      throw new GameDefinitionError(`${where}.${name}: expected a number, string or boolean initial value`);
    }
    const problem = fieldProblem(value, value);
    if (problem !== null) throw new GameDefinitionError(`${where}.${name}: ${problem}`);
    out[name] = value;
  }
  return Object.freeze(out);
}

/** A game definition that cannot run; the message names the field (`inputs.kick.schema: …`). */
export class GameDefinitionError extends Error {}

/** A fresh, sealed field object with the declared initial values. */
export function createFields(defaults: Readonly<FieldValues>): FieldValues {
  return Object.seal({ ...defaults });
}

/** Writes `values` into a sealed field object (restoring a snapshot). */
export function assignFields(target: FieldValues, values: Readonly<FieldValues>): void {
  for (const key of Object.keys(values)) target[key] = values[key];
}

/** The first field of `fields` whose value does not fit its declaration, as `where.name: problem`, or null. */
export function checkFields(fields: FieldValues, defaults: Readonly<FieldValues>, where: string): string | null {
  for (const key of Object.keys(defaults)) {
    const problem = fieldProblem(fields[key], defaults[key]);
    if (problem !== null) return `${where}.${key}: ${problem}`;
  }
  return null;
}

/** A field's value on the wire: its JSON (numbers in their shortest round-trip form). */
export function encodeField(value: FieldValue): string {
  return JSON.stringify(value);
}

/**
 * FNV-1a over a string, 32 bits: folds the fields' text into the tick hash. Only integer operations
 * (Math.imul, xor) and charCodeAt, so every JavaScript engine gives the same bits.
 */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h;
}
