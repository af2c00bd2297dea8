/** Wire format of the physics room: schema state, messages and quantization. */
export * from "./messages.ts";
export * from "./quantize.ts";
export * from "./schema.ts";
