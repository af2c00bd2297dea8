/** Wire format of the physics room (schema state, messages, quantization) and the admin API's contract (admin routes, room knobs). */
export * from "./admin.ts";
export * from "./knobs.ts";
export * from "./messages.ts";
export * from "./quantize.ts";
export * from "./schema.ts";
