/**
 * How the admin routes' JSON schemas are compiled. The schemas themselves are the admin API's contract
 * in shared/net (admin.ts; the knob schemas come from the knob table, knobs.ts), shared with the browser
 * client and the load test; those that depend on a server's caps are built from its RoomConfig.
 */

/**
 * Ajv options of every route schema (the app passes them to Fastify) and of the replay verifier's
 * settings check (server/replay/validate.ts), so both judge a settings patch alike: unknown keys are
 * rejected, not stripped, so a typo in a knob name is a 400 naming it; types are not coerced; the first
 * problem is reported.
 */
export const AJV_OPTIONS = Object.freeze({ removeAdditional: false, coerceTypes: false, allErrors: false } as const);
