import { describe, expect, it } from "vitest";
import {
  decodeSnapshot,
  decodeWorldSnapshot,
  ENGINE_VERSION,
  encodeSnapshot,
  encodeWorldSnapshot,
  SNAPSHOT_BYTES_FORMAT,
  World,
} from "../../shared/engine/index.ts";
import { fnv1a32 } from "../../shared/engine/world/snapshot-bytes.ts";
import { getBuiltinScenario, loadScenario } from "../../shared/scenarios/index.ts";

/**
 * Snapshots as bytes: a world encoded after some steps, decoded and restored into a fresh world continues
 * with the same state hash every tick as the original; the encoding is exact for every value kind and
 * deterministic; every way a file can be wrong is refused with an error saying which.
 */

function scenarioWorld(name: string): World {
  const scenario = getBuiltinScenario(name);
  if (!scenario) throw new Error(`no built-in ${name}`);
  return loadScenario(scenario).world;
}

function hashes(world: World, ticks: number): string[] {
  const out: string[] = [];
  for (let t = 0; t < ticks; t++) {
    world.step();
    out.push(world.stateHash());
  }
  return out;
}

/** Byte-for-byte equality (toEqual walks a large array element by element, slowly). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return Buffer.compare(a, b) === 0;
}

/** Header offsets (see snapshot-bytes.ts): magic 8, format u32, engine length u8 + engine, kind length u8 + kind, length u32, checksum u32. */
function headerOffsets(bytes: Uint8Array): { format: number; engine: number; kind: number; length: number; checksum: number; payload: number } {
  const engine = 13;
  const kindLengthAt = engine + bytes[12];
  const kind = kindLengthAt + 1;
  const length = kind + bytes[kindLengthAt];
  return { format: 8, engine, kind, length, checksum: length + 4, payload: length + 8 };
}

describe("world snapshots as bytes", () => {
  // pile1000's thousand bodies in contact are the dearest ticks: 60 of them after the save suffice.
  const cases: [string, number, number][] = [
    ["arena", 150, 200],
    ["pile1000", 40, 60],
    ["chain", 90, 200],
    ["playground", 120, 200],
  ];
  for (const [name, steps, AFTER] of cases) {
    it(`${name}: encoded after ${steps} steps, decoded and restored, continues with the same hash every tick for ${AFTER} ticks`, () => {
      const original = scenarioWorld(name);
      hashes(original, steps);
      const bytes = encodeWorldSnapshot(original.snapshot());
      const restored = World.fromSnapshot(decodeWorldSnapshot(bytes));
      expect(restored.tick).toBe(steps);
      expect(restored.stateHash()).toBe(original.stateHash());
      // Same state, encoded twice (and re-encoded from the decoded copy): the same bytes.
      expect(sameBytes(encodeWorldSnapshot(original.snapshot()), bytes)).toBe(true);
      expect(sameBytes(encodeWorldSnapshot(restored.snapshot()), bytes)).toBe(true);
      const expected = hashes(original, AFTER);
      expect(hashes(restored, AFTER)).toEqual(expected);
      console.log(`${name}: ${original.bodyCount} bodies, snapshot at tick ${steps} is ${bytes.length} bytes (${(bytes.length / original.bodyCount).toFixed(0)} per body)`);
    });
  }
});

describe("the encoding", () => {
  it("keeps every value kind exactly, keys in insertion order, typed arrays copied out", () => {
    const backing = new Float64Array([9, -0, Number.NaN, Number.POSITIVE_INFINITY, 1e-310, 7]);
    const value = {
      numbers: [0, -0, 1, 255, 256, 65535, 4294967295, 4294967296, -1, -2147483648, -2147483649, 0.1, Number.NaN, -Infinity, Number.MAX_VALUE, Number.MIN_VALUE, 2 ** 53 + 2],
      strings: ["", "a", "é", "日本", "😀", "a", "é"],
      flags: [true, false, null, undefined],
      nested: { b: 1, a: { "2": "two", "1": "one", x: [[], {}] }, "": "empty key" },
      ["__proto__"]: { not: "a prototype" },
      typed: {
        i8: new Int8Array([-128, 127]),
        u8: new Uint8Array([0, 255]),
        u8c: new Uint8ClampedArray([1, 2]),
        i16: new Int16Array([-32768, 32767]),
        u16: new Uint16Array([65535]),
        i32: new Int32Array([-(2 ** 31)]),
        u32: new Uint32Array([2 ** 32 - 1]),
        f32: new Float32Array([Math.fround(0.1), -0]),
        f64: backing.subarray(1, 5),
        i64: new BigInt64Array([-(2n ** 63n)]),
        u64: new BigUint64Array([2n ** 64n - 1n]),
        empty: new Float64Array(0),
        zeros: new Int32Array(5),
        zeroTail: new Float64Array([1, -0, 0, 0]),
        innerZeros: new Uint16Array([0, 0, 7, 0]),
      },
    };
    const bytes = encodeSnapshot(value, "test");
    const decoded = decodeSnapshot(bytes, "test") as typeof value;
    expect(sameBytes(encodeSnapshot(decoded, "test"), bytes)).toBe(true);
    expect(decoded.numbers.map((n) => Object.is(n, -0))).toEqual(value.numbers.map((n) => Object.is(n, -0)));
    expect(decoded.numbers).toEqual(value.numbers);
    expect(decoded.strings).toEqual(value.strings);
    expect(decoded.flags).toEqual(value.flags);
    expect("3" in decoded.flags).toBe(true);
    expect(Object.keys(decoded)).toEqual(Object.keys(value));
    expect(Object.keys(decoded.nested)).toEqual(["b", "a", ""]);
    expect(Object.keys(decoded.nested.a)).toEqual(["1", "2", "x"]);
    expect(Object.getPrototypeOf(decoded)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(decoded, "__proto__")?.value).toEqual({ not: "a prototype" });
    for (const key of Object.keys(value.typed) as (keyof typeof value.typed)[]) {
      const [a, b] = [value.typed[key], decoded.typed[key]];
      expect(Object.getPrototypeOf(b), key).toBe(Object.getPrototypeOf(a));
      expect(new Uint8Array(b.buffer, b.byteOffset, b.byteLength), key).toEqual(new Uint8Array(a.buffer, a.byteOffset, a.byteLength));
      expect(b.buffer, key).not.toBe(bytes.buffer);
    }
    // A subarray encodes its own elements only; the copy does not alias the input bytes.
    expect(Array.from(decoded.typed.f64, (x) => Object.is(x, -0) || x)).toEqual([true, Number.NaN, Number.POSITIVE_INFINITY, 1e-310]);
    bytes.fill(0);
    expect(decoded.typed.u8[1]).toBe(255);
  });

  it("refuses what it cannot encode, naming the path", () => {
    const cycle: Record<string, unknown> = {};
    cycle.self = cycle;
    const cases: [unknown, RegExp][] = [
      [{ stores: { bodies: { foo: new Map() } } }, /^stores\.bodies\.foo: cannot encode Map$/],
      [{ list: [1, new Set()] }, /^list\[1\]: cannot encode Set$/],
      [{ when: new Date(0) }, /^when: cannot encode Date$/],
      [{ f: () => 1 }, /^f: cannot encode function$/],
      [{ s: Symbol("x") }, /^s: cannot encode symbol$/],
      [{ n: 1n }, /^n: cannot encode bigint$/],
      [{ view: new DataView(new ArrayBuffer(4)) }, /^view: cannot encode DataView$/],
      [{ buffer: Buffer.from([1]) }, /^buffer: cannot encode Buffer$/],
      [{ s: "\uD800" }, /^s: cannot encode a string with a lone UTF-16 surrogate$/],
      [cycle, /^self: cannot encode a cycle/],
      [new Map(), /^\(root\): cannot encode Map$/],
    ];
    for (const [value, message] of cases) expect(() => encodeSnapshot(value, "test")).toThrow(message);
    expect(() => encodeSnapshot(1, "Not A Kind")).toThrow(/snapshot kind/);
  });

  it("shares one object between two places as two copies", () => {
    const shared = { x: 1 };
    const decoded = decodeSnapshot(encodeSnapshot([shared, shared], "test"), "test") as { x: number }[];
    expect(decoded).toEqual([{ x: 1 }, { x: 1 }]);
    expect(decoded[0]).not.toBe(decoded[1]);
  });
});

describe("decoding refuses a damaged or foreign file, saying why", () => {
  const world = scenarioWorld("stack10");
  hashes(world, 30);
  const good = encodeWorldSnapshot(world.snapshot());
  const at = headerOffsets(good);

  it("not a snapshot", () => {
    expect(() => decodeWorldSnapshot(new TextEncoder().encode('{"tick":1}'))).toThrow(/^not a snapshot: it does not start with "PHYSNAP"$/);
    expect(() => decodeWorldSnapshot(new Uint8Array(0))).toThrow(/^not a snapshot/);
  });

  it("truncated: inside the header and inside the payload", () => {
    expect(() => decodeWorldSnapshot(good.slice(0, 10))).toThrow(/^truncated snapshot: 10 bytes end inside the header$/);
    expect(() => decodeWorldSnapshot(good.slice(0, at.payload - 2))).toThrow(/^truncated snapshot: .* end inside the header$/);
    const payloadLength = good.length - at.payload;
    expect(() => decodeWorldSnapshot(good.slice(0, good.length - 100))).toThrow(
      `truncated snapshot: the header announces a ${payloadLength}-byte payload, ${payloadLength - 100} bytes follow it`,
    );
  });

  it("trailing bytes", () => {
    const longer = new Uint8Array(good.length + 3);
    longer.set(good);
    expect(() => decodeWorldSnapshot(longer)).toThrow(/^snapshot has 3 trailing bytes after its \d+-byte payload$/);
  });

  it("a flipped payload byte: checksum mismatch", () => {
    const flipped = good.slice();
    flipped[at.payload + Math.floor((good.length - at.payload) / 2)] ^= 0x10;
    expect(() => decodeWorldSnapshot(flipped)).toThrow(/^snapshot checksum mismatch: the payload hashes to 0x[0-9a-f]{8}, the header says 0x[0-9a-f]{8} \(corrupt file\)$/);
  });

  it("another format version", () => {
    const patched = good.slice();
    new DataView(patched.buffer).setUint32(at.format, SNAPSHOT_BYTES_FORMAT + 1, true);
    expect(() => decodeWorldSnapshot(patched)).toThrow(`snapshot format version ${SNAPSHOT_BYTES_FORMAT + 1}, this build reads version ${SNAPSHOT_BYTES_FORMAT}`);
  });

  it("another engine version", () => {
    expect(new TextDecoder().decode(good.subarray(at.engine, at.engine + ENGINE_VERSION.length))).toBe(ENGINE_VERSION);
    const patched = good.slice();
    const last = at.engine + ENGINE_VERSION.length - 1;
    patched[last] = patched[last] === 0x39 ? 0x30 : patched[last] + 1;
    const other = new TextDecoder().decode(patched.subarray(at.engine, at.engine + ENGINE_VERSION.length));
    expect(() => decodeWorldSnapshot(patched)).toThrow(`snapshot from engine ${other}, this is engine ${ENGINE_VERSION}`);
  });

  it("another kind", () => {
    expect(() => decodeSnapshot(good, "room")).toThrow('a "world" snapshot, expected a "room" snapshot');
    expect(() => decodeWorldSnapshot(encodeSnapshot({ format: 1, stores: {} }, "room"))).toThrow('a "room" snapshot, expected a "world" snapshot');
    expect(() => decodeWorldSnapshot(encodeSnapshot([1, 2], "world"))).toThrow("world snapshot: the payload is not a world snapshot");
  });

  /** A file around a hand-written payload, with a correct length and checksum. */
  function withPayload(payload: number[]): Uint8Array {
    const shell = encodeSnapshot(null, "test");
    const offsets = headerOffsets(shell);
    const out = new Uint8Array(offsets.payload + payload.length);
    out.set(shell.subarray(0, offsets.payload));
    out.set(payload, offsets.payload);
    const view = new DataView(out.buffer);
    view.setUint32(offsets.length, payload.length, true);
    view.setUint32(offsets.checksum, fnv1a32(out, offsets.payload, out.length), true);
    return out;
  }

  it("inside the payload: unknown tag, truncated value, bad lengths, bytes after the value", () => {
    const payloadAt = headerOffsets(encodeSnapshot(null, "test")).payload;
    // An array of two: null, then tag 0xee.
    expect(() => decodeSnapshot(withPayload([0x0b, 2, 0x02, 0xee]), "test")).toThrow(`snapshot payload: unknown tag 0xee at offset ${payloadAt + 3}`);
    expect(() => decodeSnapshot(withPayload([0x08, 0, 0, 0]), "test")).toThrow(/^snapshot payload: truncated \(8 more bytes needed, 3 left\) at offset/);
    expect(() => decodeSnapshot(withPayload([0x0b, 0xff, 0xff, 0xff, 0xff, 0x0f]), "test")).toThrow(/a length of 4294967295 runs past the end of the payload/);
    expect(() => decodeSnapshot(withPayload([0x0b, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]), "test")).toThrow(/length or index longer than 5 bytes/);
    // Typed arrays: tag, class code (8: Float64Array), byte length, stored bytes, then those.
    expect(() => decodeSnapshot(withPayload([0x0d, 8, 3, 3, 1, 2, 3]), "test")).toThrow(/3 bytes is not a whole number of Float64Array elements/);
    expect(() => decodeSnapshot(withPayload([0x0d, 8, 8, 16, ...new Array(16).fill(1)]), "test")).toThrow(/16 bytes stored for a typed array of 8/);
    expect(() => decodeSnapshot(withPayload([0x0d, 40, 0, 0]), "test")).toThrow(/unknown typed array element type 40/);
    const huge = [0x0b, 2, ...[0, 1].flatMap(() => [0x0d, 1, 0xff, 0xff, 0xff, 0xff, 0x0f, 0])];
    expect(() => decodeSnapshot(withPayload(huge), "test")).toThrow(/typed arrays of more than 1073741824 zero bytes in all/);
    const zeroTail = decodeSnapshot(withPayload([0x0d, 8, 24, 8, 0, 0, 0, 0, 0, 0, 0xf0, 0x3f]), "test");
    expect(zeroTail).toEqual(new Float64Array([1, 0, 0]));
    expect(() => decodeSnapshot(withPayload([0x0a, 0]), "test")).toThrow(/string reference 0, only 0 strings so far/);
    expect(() => decodeSnapshot(withPayload([0x09, 1, 0xff]), "test")).toThrow(/invalid UTF-8 in a string/);
    expect(() => decodeSnapshot(withPayload([0x0c, 1, 0x05, 1, 0x02]), "test")).toThrow(/expected an object key, found tag 0x05/);
    expect(() => decodeSnapshot(withPayload([0x02, 0x02]), "test")).toThrow(`snapshot payload: 1 bytes after the value, at offset ${payloadAt + 1}`);
    const deep = [...new Array(600).fill([0x0b, 1]).flat(), 0x02];
    expect(() => decodeSnapshot(withPayload(deep), "test")).toThrow(/nested deeper than 512 levels/);
    expect(decodeSnapshot(withPayload([0x0b, 2, 0x02, 0x05, 7]), "test")).toEqual([null, 7]);
  });
});
