import type { WorldSnapshot } from "./snapshot.ts";
import { ENGINE_VERSION } from "./world.ts";

/**
 * Snapshots as bytes: an exact, self-describing binary encoding of the plain data a snapshot is made of
 * (numbers, strings, booleans, null, undefined, arrays, plain objects and typed arrays), so a world or a
 * room can be written to a file or sent to another process and continue bit for bit there.
 *
 * Layout (multi-byte integers little-endian):
 *
 *   magic "PHYSNAP\0" (8) | format version u32 | engine version: u8 length + UTF-8 | kind: u8 length +
 *   ASCII | payload length u32 | FNV-1a 32 of the payload u32 | payload
 *
 * The payload is one tagged value. Numbers keep every bit: as float64, or as u8 / u32 / i32 when they are
 * integers that fit (never -0). Strings are UTF-8 with their length; a string seen before (object keys
 * repeat in every record) is written as its index in the order of first appearance. Objects keep their
 * keys in insertion order; typed arrays keep their class, their length and their raw little-endian
 * element bytes up to the last non-zero element (the stores keep spare capacity, so their tails are
 * mostly unused zeros; decoding zero-fills them back), and are copied out on decode, so a decoded snapshot never
 * aliases the bytes it came from. The same value always gives the same bytes.
 *
 * Decoding checks, in order: magic, format version, engine version (a snapshot only continues exactly on
 * the engine that wrote it), kind, payload length (truncated or trailing bytes), checksum, then every tag
 * and length inside the payload; each failure is an Error saying which.
 */
export const SNAPSHOT_BYTES_FORMAT = 1;

const MAGIC = "PHYSNAP\0";
const KIND_PATTERN = /^[a-z][a-z0-9-]{0,31}$/;
/** Deeper nesting than any snapshot has: a guard against runaway recursion on crafted or cyclic input. */
const MAX_DEPTH = 512;
/**
 * At most this many zero-tail bytes in all of a payload's typed arrays: the tails are not in the file, so
 * its size does not bound them (a crafted file could otherwise ask for terabytes in a few bytes).
 */
const MAX_ZERO_TAIL_BYTES = 1 << 30;

const T_UNDEFINED = 0x01;
const T_NULL = 0x02;
const T_FALSE = 0x03;
const T_TRUE = 0x04;
const T_UINT8 = 0x05;
const T_UINT32 = 0x06;
const T_INT32 = 0x07;
const T_FLOAT64 = 0x08;
const T_STRING = 0x09;
const T_STRING_REF = 0x0a;
const T_ARRAY = 0x0b;
const T_OBJECT = 0x0c;
const T_TYPED_ARRAY = 0x0d;

type TypedArrayClass =
  | Int8ArrayConstructor
  | Uint8ArrayConstructor
  | Uint8ClampedArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor;

/** Element type codes on the wire: an entry's position in this list is part of the format. */
const TYPED_ARRAY_CLASSES: readonly TypedArrayClass[] = [
  Int8Array,
  Uint8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];
/** Exact prototypes only: a subclass (Node's Buffer) would decode as its base class, so it is refused. */
const TYPED_ARRAY_CODE = new Map<object, number>(TYPED_ARRAY_CLASSES.map((c, i) => [c.prototype, i]));

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Reverses each element's bytes in place (only needed on a big-endian host). */
function swapElementBytes(bytes: Uint8Array, size: number): void {
  if (size === 1) return;
  for (let i = 0; i < bytes.length; i += size) {
    for (let a = i, b = i + size - 1; a < b; a++, b--) {
      const t = bytes[a];
      bytes[a] = bytes[b];
      bytes[b] = t;
    }
  }
}

/** FNV-1a, 32 bits, over `bytes[from, to)`. */
export function fnv1a32(bytes: Uint8Array, from = 0, to = bytes.length): number {
  let hash = 0x811c9dc5;
  for (let i = from; i < to; i++) hash = Math.imul(hash ^ bytes[i], 0x01000193);
  return hash >>> 0;
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const utf8Encoder = new TextEncoder();
const utf8Decoder = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true });

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function kindOfValue(v: unknown): string {
  if (typeof v !== "object" || v === null) return typeof v;
  const name = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor?.name;
  return name ?? Object.prototype.toString.call(v);
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, "0")}`;
}

// ------------------------------------------------------------------------------------------- encoding

class Encoder {
  private bytes = new Uint8Array(1 << 16);
  private view = new DataView(this.bytes.buffer);
  length = 0;
  private readonly strings = new Map<string, number>();
  /** Keys from the root to the value being written, joined only for an error message. */
  private readonly path: (string | number)[] = [];
  /** Objects and arrays being written (a cycle would never end). */
  private readonly open = new Set<object>();

  private reserve(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    let size = this.bytes.length * 2;
    while (size < this.length + n) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(v: number): void {
    this.reserve(1);
    this.bytes[this.length++] = v;
  }

  u32(v: number): void {
    this.reserve(4);
    this.view.setUint32(this.length, v, true);
    this.length += 4;
  }

  /** Unsigned LEB128 of a value below 2^32 (lengths, counts, string indices). */
  varint(v: number): void {
    while (v >= 0x80) {
      this.u8((v & 0x7f) | 0x80);
      v = v >>> 7;
    }
    this.u8(v);
  }

  raw(bytes: Uint8Array): void {
    this.reserve(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  setU32At(offset: number, v: number): void {
    this.view.setUint32(offset, v, true);
  }

  /** A copy of everything written, sized exactly. */
  result(): Uint8Array {
    return this.bytes.slice(0, this.length);
  }

  written(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  private fail(what: string): never {
    let where = "";
    for (const key of this.path) where += typeof key === "number" ? `[${key}]` : where === "" ? key : `.${key}`;
    throw new Error(`${where === "" ? "(root)" : where}: ${what}`);
  }

  string(s: string): void {
    const seen = this.strings.get(s);
    if (seen !== undefined) {
      this.u8(T_STRING_REF);
      this.varint(seen);
      return;
    }
    // UTF-8 cannot carry a lone surrogate: it would come back as U+FFFD, not the same string.
    if (LONE_SURROGATE.test(s)) this.fail("cannot encode a string with a lone UTF-16 surrogate");
    this.strings.set(s, this.strings.size);
    const utf8 = utf8Encoder.encode(s);
    this.u8(T_STRING);
    this.varint(utf8.length);
    this.raw(utf8);
  }

  number(v: number): void {
    if (Number.isInteger(v) && !Object.is(v, -0)) {
      if (v >= 0 && v <= 0xff) {
        this.u8(T_UINT8);
        this.u8(v);
        return;
      }
      if (v >= 0 && v <= 0xffffffff) {
        this.u8(T_UINT32);
        this.u32(v);
        return;
      }
      if (v < 0 && v >= -0x80000000) {
        this.u8(T_INT32);
        this.reserve(4);
        this.view.setInt32(this.length, v, true);
        this.length += 4;
        return;
      }
    }
    this.u8(T_FLOAT64);
    this.reserve(8);
    this.view.setFloat64(this.length, v, true);
    this.length += 8;
  }

  /** Class code, byte length, how many bytes follow (up to the last non-zero element), those bytes. */
  typedArray(v: ArrayBufferView, code: number): void {
    const size = TYPED_ARRAY_CLASSES[code].BYTES_PER_ELEMENT;
    const bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    // An element is zero when all its bytes are, in either byte order.
    let end = bytes.length;
    while (end > 0 && bytes[end - 1] === 0) end--;
    const stored = Math.ceil(end / size) * size;
    this.u8(T_TYPED_ARRAY);
    this.u8(code);
    this.varint(bytes.length);
    this.varint(stored);
    const at = this.length;
    this.raw(bytes.subarray(0, stored));
    if (!LITTLE_ENDIAN_HOST) swapElementBytes(this.bytes.subarray(at, this.length), size);
  }

  value(v: unknown): void {
    switch (typeof v) {
      case "undefined":
        this.u8(T_UNDEFINED);
        return;
      case "boolean":
        this.u8(v ? T_TRUE : T_FALSE);
        return;
      case "number":
        this.number(v);
        return;
      case "string":
        this.string(v);
        return;
      case "object":
        if (v === null) {
          this.u8(T_NULL);
          return;
        }
        break;
      default:
        this.fail(`cannot encode ${typeof v}`);
    }
    if (ArrayBuffer.isView(v)) {
      const code = TYPED_ARRAY_CODE.get(Object.getPrototypeOf(v));
      if (code === undefined) this.fail(`cannot encode ${kindOfValue(v)}`);
      this.typedArray(v, code);
      return;
    }
    const isArray = Array.isArray(v);
    if (!isArray && !isPlainObject(v)) this.fail(`cannot encode ${kindOfValue(v)}`);
    if (this.open.has(v)) this.fail("cannot encode a cycle (the value contains itself)");
    if (this.open.size >= MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`);
    this.open.add(v);
    if (isArray) {
      const items = v as unknown[];
      this.u8(T_ARRAY);
      this.varint(items.length);
      for (let i = 0; i < items.length; i++) {
        this.path.push(i);
        this.value(items[i]);
        this.path.pop();
      }
    } else {
      const record = v as Record<string, unknown>;
      const keys = Object.keys(record);
      this.u8(T_OBJECT);
      this.varint(keys.length);
      for (const key of keys) {
        this.path.push(key);
        this.string(key);
        this.value(record[key]);
        this.path.pop();
      }
    }
    this.open.delete(v);
  }
}

/**
 * The bytes of a snapshot: `value` (plain data and typed arrays; anything else throws, naming its path)
 * under a header carrying the format, ENGINE_VERSION and `kind` (what the payload is: "world", "room"…,
 * lower-case letters, digits and dashes).
 */
export function encodeSnapshot(value: unknown, kind: string): Uint8Array {
  if (!KIND_PATTERN.test(kind)) throw new Error(`snapshot kind "${kind}": expected 1-32 lower-case letters, digits or dashes`);
  const engine = utf8Encoder.encode(ENGINE_VERSION);
  if (engine.length > 0xff) throw new Error(`engine version "${ENGINE_VERSION}" is longer than 255 bytes`);
  const out = new Encoder();
  out.raw(utf8Encoder.encode(MAGIC));
  out.u32(SNAPSHOT_BYTES_FORMAT);
  out.u8(engine.length);
  out.raw(engine);
  out.u8(kind.length);
  out.raw(utf8Encoder.encode(kind));
  const lengthAt = out.length;
  out.u32(0);
  out.u32(0);
  const payloadAt = out.length;
  out.value(value);
  const payloadLength = out.length - payloadAt;
  if (payloadLength > 0xffffffff) throw new Error(`snapshot payload of ${payloadLength} bytes: at most 4 GiB`);
  out.setU32At(lengthAt, payloadLength);
  out.setU32At(lengthAt + 4, fnv1a32(out.written(), payloadAt, out.length));
  return out.result();
}

// ------------------------------------------------------------------------------------------- decoding

class Decoder {
  private readonly bytes: Uint8Array;
  private readonly view: DataView;
  private readonly end: number;
  pos: number;
  private readonly strings: string[] = [];
  private depth = 0;
  private zeroTails = 0;

  /** Reads the value at `bytes[from, end)`. */
  constructor(bytes: Uint8Array, from: number, end: number) {
    this.bytes = bytes;
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.end = end;
    this.pos = from;
  }

  private fail(what: string, at = this.pos): never {
    throw new Error(`snapshot payload: ${what} at offset ${at}`);
  }

  private need(n: number): void {
    if (this.pos + n > this.end) this.fail(`truncated (${n} more bytes needed, ${this.end - this.pos} left)`);
  }

  u8(): number {
    this.need(1);
    return this.bytes[this.pos++];
  }

  varint(): number {
    const at = this.pos;
    let v = 0;
    let scale = 1;
    for (let i = 0; i < 5; i++) {
      const b = this.u8();
      v += (b & 0x7f) * scale;
      if (b < 0x80) {
        if (v > 0xffffffff) this.fail("length or index above 2^32", at);
        return v;
      }
      scale *= 128;
    }
    return this.fail("length or index longer than 5 bytes", at);
  }

  /** A length or count that the rest of the payload can hold, at `unit` bytes or more each. */
  private count(unit: number): number {
    const at = this.pos;
    const n = this.varint();
    if (n * unit > this.end - this.pos) this.fail(`a length of ${n} runs past the end of the payload`, at);
    return n;
  }

  private string(tag: number): string {
    if (tag === T_STRING_REF) {
      const at = this.pos;
      const index = this.varint();
      if (index >= this.strings.length) this.fail(`string reference ${index}, only ${this.strings.length} strings so far`, at);
      return this.strings[index];
    }
    const length = this.count(1);
    const at = this.pos;
    let s: string;
    try {
      s = utf8Decoder.decode(this.bytes.subarray(this.pos, this.pos + length));
    } catch {
      this.fail("invalid UTF-8 in a string", at);
    }
    this.pos += length;
    this.strings.push(s);
    return s;
  }

  value(): unknown {
    const at = this.pos;
    const tag = this.u8();
    switch (tag) {
      case T_UNDEFINED:
        return undefined;
      case T_NULL:
        return null;
      case T_FALSE:
        return false;
      case T_TRUE:
        return true;
      case T_UINT8:
        return this.u8();
      case T_UINT32:
        this.need(4);
        this.pos += 4;
        return this.view.getUint32(this.pos - 4, true);
      case T_INT32:
        this.need(4);
        this.pos += 4;
        return this.view.getInt32(this.pos - 4, true);
      case T_FLOAT64:
        this.need(8);
        this.pos += 8;
        return this.view.getFloat64(this.pos - 8, true);
      case T_STRING:
      case T_STRING_REF:
        return this.string(tag);
      case T_ARRAY:
      case T_OBJECT:
        if (++this.depth > MAX_DEPTH) this.fail(`nested deeper than ${MAX_DEPTH} levels`, at);
        try {
          return tag === T_ARRAY ? this.array() : this.object();
        } finally {
          this.depth--;
        }
      case T_TYPED_ARRAY:
        return this.typedArray();
      default:
        return this.fail(`unknown tag 0x${tag.toString(16).padStart(2, "0")}`, at);
    }
  }

  private array(): unknown[] {
    const n = this.count(1);
    const out = new Array<unknown>(n);
    for (let i = 0; i < n; i++) out[i] = this.value();
    return out;
  }

  private object(): Record<string, unknown> {
    const n = this.count(2);
    const out: Record<string, unknown> = {};
    for (let i = 0; i < n; i++) {
      const at = this.pos;
      const tag = this.u8();
      if (tag !== T_STRING && tag !== T_STRING_REF) this.fail(`expected an object key, found tag 0x${tag.toString(16).padStart(2, "0")}`, at);
      const key = this.string(tag);
      const v = this.value();
      // Assigning "__proto__" would set the prototype instead of adding the key.
      if (key === "__proto__") Object.defineProperty(out, key, { value: v, enumerable: true, writable: true, configurable: true });
      else out[key] = v;
    }
    return out;
  }

  private typedArray(): ArrayBufferView {
    const at = this.pos;
    const code = this.u8();
    const Class = TYPED_ARRAY_CLASSES[code];
    if (Class === undefined) this.fail(`unknown typed array element type ${code}`, at);
    const size = Class.BYTES_PER_ELEMENT;
    const lengthAt = this.pos;
    const length = this.varint();
    const storedAt = this.pos;
    const stored = this.count(1);
    if (length % size !== 0 || stored % size !== 0) this.fail(`${length % size !== 0 ? length : stored} bytes is not a whole number of ${Class.name} elements`, lengthAt);
    if (stored > length) this.fail(`${stored} bytes stored for a typed array of ${length}`, storedAt);
    this.zeroTails += length - stored;
    if (this.zeroTails > MAX_ZERO_TAIL_BYTES) this.fail(`typed arrays of more than ${MAX_ZERO_TAIL_BYTES} zero bytes in all`, lengthAt);
    const out = new Class(length / size);
    const bytes = new Uint8Array(out.buffer);
    bytes.set(this.bytes.subarray(this.pos, this.pos + stored));
    if (!LITTLE_ENDIAN_HOST) swapElementBytes(bytes.subarray(0, stored), size);
    this.pos += stored;
    return out;
  }
}

/** Header fields, read after the magic and the format version were checked. */
function readHeader(bytes: Uint8Array): { engine: string; kind: string; payloadLength: number; checksum: number; payloadAt: number } {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const truncated = (): never => {
    throw new Error(`truncated snapshot: ${bytes.length} bytes end inside the header`);
  };
  let pos = MAGIC.length + 4;
  if (pos + 1 > bytes.length) truncated();
  const engineLength = bytes[pos++];
  if (pos + engineLength + 1 > bytes.length) truncated();
  const engine = new TextDecoder().decode(bytes.subarray(pos, pos + engineLength));
  pos += engineLength;
  const kindLength = bytes[pos++];
  if (pos + kindLength + 8 > bytes.length) truncated();
  const kind = new TextDecoder().decode(bytes.subarray(pos, pos + kindLength));
  pos += kindLength;
  const payloadLength = view.getUint32(pos, true);
  const checksum = view.getUint32(pos + 4, true);
  return { engine, kind, payloadLength, checksum, payloadAt: pos + 8 };
}

/**
 * The value `encodeSnapshot` wrote, checked to be a snapshot of this format, engine version and kind,
 * whole and intact. Typed arrays in it are fresh copies; `bytes` may be reused afterwards.
 */
export function decodeSnapshot(bytes: Uint8Array, expectedKind: string): unknown {
  const magic = utf8Encoder.encode(MAGIC);
  if (bytes.length < magic.length || magic.some((b, i) => bytes[i] !== b)) {
    throw new Error(`not a snapshot: it does not start with "${MAGIC.slice(0, -1)}"`);
  }
  if (bytes.length < magic.length + 4) throw new Error(`truncated snapshot: ${bytes.length} bytes end inside the header`);
  const format = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength).getUint32(magic.length, true);
  if (format !== SNAPSHOT_BYTES_FORMAT) throw new Error(`snapshot format version ${format}, this build reads version ${SNAPSHOT_BYTES_FORMAT}`);
  const header = readHeader(bytes);
  if (header.engine !== ENGINE_VERSION) throw new Error(`snapshot from engine ${header.engine}, this is engine ${ENGINE_VERSION}`);
  if (header.kind !== expectedKind) throw new Error(`a "${header.kind}" snapshot, expected a "${expectedKind}" snapshot`);
  const available = bytes.length - header.payloadAt;
  if (available < header.payloadLength) {
    throw new Error(`truncated snapshot: the header announces a ${header.payloadLength}-byte payload, ${available} bytes follow it`);
  }
  if (available > header.payloadLength) {
    throw new Error(`snapshot has ${available - header.payloadLength} trailing bytes after its ${header.payloadLength}-byte payload`);
  }
  const end = header.payloadAt + header.payloadLength;
  const checksum = fnv1a32(bytes, header.payloadAt, end);
  if (checksum !== header.checksum) {
    throw new Error(`snapshot checksum mismatch: the payload hashes to ${hex(checksum)}, the header says ${hex(header.checksum)} (corrupt file)`);
  }
  const decoder = new Decoder(bytes, header.payloadAt, end);
  const value = decoder.value();
  if (decoder.pos !== end) throw new Error(`snapshot payload: ${end - decoder.pos} bytes after the value, at offset ${decoder.pos}`);
  return value;
}

// ------------------------------------------------------------------------------------------- worlds

const WORLD_KIND = "world";

/** `world.snapshot()` as bytes (`World.fromSnapshot(decodeWorldSnapshot(bytes))` continues it exactly). */
export function encodeWorldSnapshot(snapshot: WorldSnapshot): Uint8Array {
  return encodeSnapshot(snapshot, WORLD_KIND);
}

/** The world snapshot `encodeWorldSnapshot` wrote; throws on anything else (see decodeSnapshot). */
export function decodeWorldSnapshot(bytes: Uint8Array): WorldSnapshot {
  const value = decodeSnapshot(bytes, WORLD_KIND) as Partial<WorldSnapshot> | null;
  if (typeof value !== "object" || value === null || typeof value.format !== "number" || typeof value.stores !== "object") {
    throw new Error("world snapshot: the payload is not a world snapshot");
  }
  return value as WorldSnapshot;
}
