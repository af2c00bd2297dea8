/**
 * How the admin routes' JSON schemas are compiled. The schemas themselves are the admin API's contract
 * in shared/net (admin.ts; the knob schemas come from the knob table, knobs.ts), shared with the browser
 * client and the load test; those that depend on a server's caps are built from its RoomConfig.
 */

/**
 * Ajv options of every route schema (the app passes them to Fastify) and of the replay verifier's
 * settings check (server/replay/validate.ts), so both judge a settings patch alike: unknown keys are
 * rejected, not stripped, so a typo in a knob name is a 400 naming it; types are not coerced; the first
 * problem is reported. `verbose` keeps the failing schema on the error, so the message of an unknown
 * property can list the allowed ones.
 */
export const AJV_OPTIONS = Object.freeze({ removeAdditional: false, coerceTypes: false, allErrors: false, verbose: true } as const);

/** What Fastify's schemaErrorFormatter receives of one Ajv error (the fields used here). */
interface SchemaError {
  keyword: string;
  instancePath?: string;
  message?: string;
  params?: Record<string, unknown>;
  parentSchema?: { properties?: Record<string, unknown> };
}

/** Names listed after an unknown property at most (a knob table has ~20). */
const MAX_LISTED_KEYS = 30;

/**
 * Fastify's schemaErrorFormatter: the first schema error as `<part><path> <message>` (Fastify's own
 * shape, e.g. `body/maxClients must be <= 64`), except an unknown property, for which Ajv says only "must
 * NOT have additional properties": that one names the property with its path, the closest allowed name
 * and the allowed names (`body/frictionn: unknown property (additional properties are not allowed); did
 * you mean "friction"? allowed: …`).
 */
export function formatSchemaErrors(errors: readonly SchemaError[], dataVar: string): Error {
  const e = errors[0];
  if (!e) return new Error(`${dataVar} is invalid`);
  const path = `${dataVar}${e.instancePath ?? ""}`;
  if (e.keyword === "additionalProperties" && typeof e.params?.additionalProperty === "string") {
    return new Error(unknownPropertyMessage(path, e.params.additionalProperty, Object.keys(e.parentSchema?.properties ?? {})));
  }
  if (e.keyword === "enum" && Array.isArray(e.params?.allowedValues)) {
    return new Error(`${path} must be one of ${e.params.allowedValues.map((v) => JSON.stringify(v)).join(", ")}`);
  }
  return new Error(`${path} ${e.message ?? "is invalid"}`);
}

function unknownPropertyMessage(path: string, key: string, allowed: string[]): string {
  const shownKey = key.length > 64 ? `${key.slice(0, 64)}…` : key;
  let message = `${path}/${escapePointer(shownKey)}: unknown property (additional properties are not allowed)`;
  if (allowed.length === 0) return message;
  const near = closest(key, allowed);
  if (near !== null) message += `; did you mean "${near}"?`;
  const listed = allowed.slice(0, MAX_LISTED_KEYS).join(", ");
  return `${message} allowed: ${listed}${allowed.length > MAX_LISTED_KEYS ? ", …" : ""}`;
}

/** A key as a JSON Pointer segment, like the rest of the path (RFC 6901). */
function escapePointer(key: string): string {
  return key.replaceAll("~", "~0").replaceAll("/", "~1");
}

/** The allowed name nearest to `key` (edit distance, case-insensitive), if it is near enough to be a typo. */
function closest(key: string, allowed: readonly string[]): string | null {
  const k = key.toLowerCase();
  let best: string | null = null;
  let bestDistance = Math.max(1, Math.floor(Math.min(k.length, 12) / 3)) + 1;
  for (const name of allowed) {
    const d = editDistance(k, name.toLowerCase(), bestDistance);
    if (d < bestDistance) {
      best = name;
      bestDistance = d;
    }
  }
  return best;
}

/** Levenshtein distance of `a` and `b`, or `limit` when it is at least that (long keys are not compared in full). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) >= limit || a.length > 64 || b.length > 64) return limit;
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return Math.min(limit, previous[b.length]);
}
