// @ts-check
/**
 * The Colyseus 0.18 client protocol, just enough to play in a `physics` room without the SDK: plain ESM
 * JavaScript with no imports, so k6 (loadtest/k6/rooms.js) and Node (test/loadtest/k6-protocol.test.ts)
 * run the same code. Read from @colyseus/sdk 0.18.4 (Room.mjs, Client.mjs) and @colyseus/core 0.18
 * (Protocol.mjs, Room.mjs, RoomMessages.mjs):
 *
 * 1. Matchmaking over HTTP: `POST {base}/matchmake/{method}/{roomNameOrId}` with JSON join options answers
 *    a seat reservation `{name, sessionId, roomId, processId, publicAddress?}`.
 * 2. WebSocket to `ws://{publicAddress | host:port}/{processId}/{roomId}?sessionId={sessionId}`.
 * 3. The server sends JOIN_ROOM `[10][len][reconnectionToken][len][serializerId][varint n][n bytes of
 *    schema reflection][tagged sections…]`; the client answers `[10]`. Only then does the server send the
 *    full state (ROOM_STATE `[14][schema bytes]`) and the messages queued for the client.
 * 4. Then: ROOM_STATE_PATCH `[15][schema delta]` every patch interval; ROOM_DATA `[13][type][msgpack]`
 *    (type is a msgpack string or number, payload standard msgpack); ERROR `[11][code][message]`;
 *    LEAVE_ROOM `[12]`; PING `[18]` echoed by the server.
 * 5. Client → server messages are ROOM_DATA frames too: `[13][msgpack str type][msgpack payload]`.
 *    `[12]` leaves (consented); closing the socket is a drop (the room may hold the seat).
 *
 * The protocol code is the frame's first byte & 31 (higher bits are modifiers, e.g. TIMED, used only by
 * rooms with `defineInput`).
 */

export const Protocol = Object.freeze({
  JOIN_ROOM: 10,
  ERROR: 11,
  LEAVE_ROOM: 12,
  ROOM_DATA: 13,
  ROOM_STATE: 14,
  ROOM_STATE_PATCH: 15,
  ROOM_DATA_SCHEMA: 16,
  ROOM_DATA_BYTES: 17,
  PING: 18,
});

export const PROTOCOL_CODE_MASK = 31;

// ------------------------------------------------------------------ UTF-8 (k6 has no TextEncoder)

/**
 * @param {string} s
 * @returns {number[]}
 */
export function utf8Encode(s) {
  /** @type {number[]} */
  const out = [];
  for (let i = 0; i < s.length; i++) {
    let c = s.charCodeAt(i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
      }
    }
    if (c < 0x80) out.push(c);
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63));
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63));
  }
  return out;
}

/**
 * @param {Uint8Array} bytes
 * @param {number} start
 * @param {number} end
 * @returns {string}
 */
export function utf8Decode(bytes, start, end) {
  let s = "";
  let i = start;
  while (i < end) {
    const b = bytes[i++];
    let c;
    if (b < 0x80) c = b;
    else if (b < 0xe0) c = ((b & 31) << 6) | (bytes[i++] & 63);
    else if (b < 0xf0) c = ((b & 15) << 12) | ((bytes[i++] & 63) << 6) | (bytes[i++] & 63);
    else c = ((b & 7) << 18) | ((bytes[i++] & 63) << 12) | ((bytes[i++] & 63) << 6) | (bytes[i++] & 63);
    s += String.fromCodePoint(c);
  }
  return s;
}

// ------------------------------------------------------------------ msgpack (the subset messages use)

/**
 * Appends the msgpack encoding of `value` (null, booleans, numbers, strings, arrays, plain objects).
 * @param {number[]} out
 * @param {unknown} value
 */
export function msgpackEncode(out, value) {
  if (value === null || value === undefined) out.push(0xc0);
  else if (value === true) out.push(0xc3);
  else if (value === false) out.push(0xc2);
  else if (typeof value === "number") encodeNumber(out, value);
  else if (typeof value === "string") encodeString(out, value);
  else if (Array.isArray(value)) {
    const n = value.length;
    if (n < 16) out.push(0x90 | n);
    else if (n < 0x10000) out.push(0xdc, n >> 8, n & 255);
    else out.push(0xdd, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255);
    for (const v of value) msgpackEncode(out, v);
  } else if (typeof value === "object") {
    const entries = Object.entries(/** @type {Record<string, unknown>} */ (value)).filter(([, v]) => v !== undefined);
    const n = entries.length;
    if (n < 16) out.push(0x80 | n);
    else if (n < 0x10000) out.push(0xde, n >> 8, n & 255);
    else out.push(0xdf, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255);
    for (const [k, v] of entries) {
      encodeString(out, k);
      msgpackEncode(out, v);
    }
  } else throw new Error(`msgpack: cannot encode ${typeof value}`);
}

/**
 * @param {number[]} out
 * @param {string} s
 */
function encodeString(out, s) {
  const bytes = utf8Encode(s);
  const n = bytes.length;
  if (n < 32) out.push(0xa0 | n);
  else if (n < 256) out.push(0xd9, n);
  else if (n < 0x10000) out.push(0xda, n >> 8, n & 255);
  else out.push(0xdb, (n >>> 24) & 255, (n >> 16) & 255, (n >> 8) & 255, n & 255);
  for (const b of bytes) out.push(b);
}

/**
 * @param {number[]} out
 * @param {number} v
 */
function encodeNumber(out, v) {
  if (Number.isInteger(v) && v >= -0x80000000 && v <= 0xffffffff) {
    if (v >= 0) {
      if (v < 128) out.push(v);
      else if (v < 256) out.push(0xcc, v);
      else if (v < 0x10000) out.push(0xcd, v >> 8, v & 255);
      else out.push(0xce, (v >>> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255);
    } else if (v >= -32) out.push(v & 255);
    else if (v >= -128) out.push(0xd0, v & 255);
    else if (v >= -32768) out.push(0xd1, (v >> 8) & 255, v & 255);
    else out.push(0xd2, (v >>> 24) & 255, (v >> 16) & 255, (v >> 8) & 255, v & 255);
    return;
  }
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  out.push(0xcb);
  for (let i = 0; i < 8; i++) out.push(view.getUint8(i));
}

/**
 * Decodes one msgpack value at `it.offset` (advancing it). Extensions decode to null.
 * @param {Uint8Array} bytes
 * @param {{ offset: number }} it
 * @returns {any}
 */
export function msgpackDecode(bytes, it) {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return decodeValue(bytes, view, it);
}

/**
 * @param {Uint8Array} b
 * @param {DataView} v
 * @param {{ offset: number }} it
 * @returns {any}
 */
function decodeValue(b, v, it) {
  const p = b[it.offset++];
  if (p < 0x80) return p;
  if (p < 0x90) return decodeMap(b, v, it, p & 15);
  if (p < 0xa0) return decodeArray(b, v, it, p & 15);
  if (p < 0xc0) return decodeStr(b, it, p & 31);
  if (p >= 0xe0) return p - 256;
  /** @param {number} n */
  const take = (n) => {
    const o = it.offset;
    it.offset += n;
    return o;
  };
  switch (p) {
    case 0xc0:
      return null;
    case 0xc2:
      return false;
    case 0xc3:
      return true;
    case 0xc4: {
      const n = v.getUint8(take(1));
      const start = take(n);
      return b.slice(start, start + n);
    }
    case 0xca:
      return v.getFloat32(take(4));
    case 0xcb:
      return v.getFloat64(take(8));
    case 0xcc:
      return v.getUint8(take(1));
    case 0xcd:
      return v.getUint16(take(2));
    case 0xce:
      return v.getUint32(take(4));
    case 0xcf: {
      const o = take(8);
      return v.getUint32(o) * 4294967296 + v.getUint32(o + 4);
    }
    case 0xd0:
      return v.getInt8(take(1));
    case 0xd1:
      return v.getInt16(take(2));
    case 0xd2:
      return v.getInt32(take(4));
    case 0xd3: {
      const o = take(8);
      return v.getInt32(o) * 4294967296 + v.getUint32(o + 4);
    }
    case 0xd9:
      return decodeStr(b, it, v.getUint8(take(1)));
    case 0xda:
      return decodeStr(b, it, v.getUint16(take(2)));
    case 0xdb:
      return decodeStr(b, it, v.getUint32(take(4)));
    case 0xdc:
      return decodeArray(b, v, it, v.getUint16(take(2)));
    case 0xdd:
      return decodeArray(b, v, it, v.getUint32(take(4)));
    case 0xde:
      return decodeMap(b, v, it, v.getUint16(take(2)));
    case 0xdf:
      return decodeMap(b, v, it, v.getUint32(take(4)));
    case 0xd4:
    case 0xd5:
    case 0xd6:
    case 0xd7:
    case 0xd8: {
      take(1 + [1, 2, 4, 8, 16][p - 0xd4]);
      return null;
    }
    default:
      break;
  }
  if (p === 0xc5 || p === 0xc6 || p === 0xc7 || p === 0xc8 || p === 0xc9) {
    // bin 16/32 and ext 8/16/32: length, then (ext) a type byte.
    const n = p === 0xc5 ? v.getUint16(take(2)) : p === 0xc6 ? v.getUint32(take(4)) : p === 0xc7 ? v.getUint8(take(1)) : p === 0xc8 ? v.getUint16(take(2)) : v.getUint32(take(4));
    if (p >= 0xc7) take(1);
    const start = take(n);
    return p <= 0xc6 ? b.slice(start, start + n) : null;
  }
  throw new Error(`msgpack: unsupported prefix 0x${p.toString(16)}`);
}

/**
 * @param {Uint8Array} b
 * @param {{ offset: number }} it
 * @param {number} n
 */
function decodeStr(b, it, n) {
  const s = utf8Decode(b, it.offset, it.offset + n);
  it.offset += n;
  return s;
}

/**
 * @param {Uint8Array} b
 * @param {DataView} v
 * @param {{ offset: number }} it
 * @param {number} n
 */
function decodeArray(b, v, it, n) {
  const out = [];
  for (let i = 0; i < n; i++) out.push(decodeValue(b, v, it));
  return out;
}

/**
 * @param {Uint8Array} b
 * @param {DataView} v
 * @param {{ offset: number }} it
 * @param {number} n
 */
function decodeMap(b, v, it, n) {
  /** @type {Record<string, any>} */
  const out = {};
  for (let i = 0; i < n; i++) {
    const k = decodeValue(b, v, it);
    out[String(k)] = decodeValue(b, v, it);
  }
  return out;
}

// ------------------------------------------------------------------ matchmaking and endpoints

/**
 * @typedef {object} SeatReservation
 * @property {string} name
 * @property {string} sessionId
 * @property {string} roomId
 * @property {string} processId
 * @property {string} [publicAddress]
 * @property {string} [reconnectionToken]
 */

/**
 * URL of a matchmaking request (POST, JSON body = join options).
 * @param {string} httpBase e.g. "http://127.0.0.1:2567"
 * @param {"joinOrCreate" | "create" | "join" | "joinById"} method
 * @param {string} roomNameOrId room name, or the room id for joinById
 */
export function matchmakeUrl(httpBase, method, roomNameOrId) {
  return `${httpBase.replace(/\/$/, "")}/matchmake/${method}/${encodeURIComponent(roomNameOrId)}`;
}

/**
 * Parses the matchmaking answer; throws with the server's message on an error answer.
 * @param {number} status
 * @param {string} body
 * @returns {SeatReservation}
 */
export function parseSeatReservation(status, body) {
  /** @type {any} */
  let json;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error(`matchmake: HTTP ${status}, not JSON: ${String(body).slice(0, 200)}`);
  }
  if (status !== 200 || !json || typeof json.sessionId !== "string" || typeof json.roomId !== "string" || typeof json.processId !== "string") {
    throw new Error(`matchmake: HTTP ${status}: ${json && (json.error || json.message) ? json.error || json.message : String(body).slice(0, 200)}`);
  }
  return json;
}

/**
 * WebSocket URL of a seat reservation (the SDK's Client.buildEndpoint).
 * @param {string} httpBase
 * @param {SeatReservation} seat
 */
export function roomEndpoint(httpBase, seat) {
  const base = new URLish(httpBase);
  const host = seat.publicAddress ? seat.publicAddress : base.host;
  const scheme = base.secure ? "wss" : "ws";
  let query = `sessionId=${encodeURIComponent(seat.sessionId)}`;
  if (seat.reconnectionToken) query += `&reconnectionToken=${encodeURIComponent(seat.reconnectionToken)}`;
  return `${scheme}://${host}${base.path}/${seat.processId}/${seat.roomId}?${query}`;
}

/** Minimal URL split (k6's global URL is not in every version). */
class URLish {
  /** @param {string} url */
  constructor(url) {
    const m = /^(https?|wss?):\/\/([^/]+)(\/.*)?$/.exec(url.replace(/\/$/, ""));
    if (!m) throw new Error(`not an http(s) URL: ${url}`);
    this.secure = m[1] === "https" || m[1] === "wss";
    this.host = m[2];
    this.path = m[3] ?? "";
  }
}

// ------------------------------------------------------------------ frames

/** @returns {Uint8Array} the JOIN_ROOM acknowledgement. */
export function encodeJoinAck() {
  return Uint8Array.of(Protocol.JOIN_ROOM);
}

/** @returns {Uint8Array} a consented leave. */
export function encodeLeave() {
  return Uint8Array.of(Protocol.LEAVE_ROOM);
}

/**
 * A room message (what `room.send(type, payload)` sends).
 * @param {string} type
 * @param {unknown} [payload]
 * @returns {Uint8Array}
 */
export function encodeRoomData(type, payload) {
  /** @type {number[]} */
  const out = [Protocol.ROOM_DATA];
  encodeString(out, type);
  if (payload !== undefined) msgpackEncode(out, payload);
  return Uint8Array.from(out);
}

/**
 * @typedef {{ code: 10, reconnectionToken: string, serializerId: string, handshakeBytes: number }
 *   | { code: 11, errorCode: number, message: string }
 *   | { code: 12 }
 *   | { code: 13, type: string | number, message: any }
 *   | { code: 14 | 15, bytes: number }
 *   | { code: 18 }
 *   | { code: number, bytes: number }} Frame
 */

/**
 * Decodes one server → client frame (state frames are only measured: schema decoding needs the SDK).
 * @param {Uint8Array} bytes
 * @returns {Frame}
 */
export function decodeFrame(bytes) {
  const code = bytes[0] & PROTOCOL_CODE_MASK;
  const it = { offset: 1 };
  if (code === Protocol.JOIN_ROOM) {
    const tokenLength = bytes[it.offset++];
    const reconnectionToken = utf8Decode(bytes, it.offset, it.offset + tokenLength);
    it.offset += tokenLength;
    const serializerLength = bytes[it.offset++];
    const serializerId = utf8Decode(bytes, it.offset, it.offset + serializerLength);
    it.offset += serializerLength;
    const handshakeBytes = it.offset < bytes.length ? Number(msgpackDecode(bytes, it)) : 0;
    return { code, reconnectionToken, serializerId, handshakeBytes };
  }
  if (code === Protocol.ERROR) {
    const errorCode = Number(msgpackDecode(bytes, it));
    const message = String(msgpackDecode(bytes, it) ?? "");
    return { code, errorCode, message };
  }
  if (code === Protocol.ROOM_DATA) {
    const type = msgpackDecode(bytes, it);
    const message = it.offset < bytes.length ? msgpackDecode(bytes, it) : undefined;
    return { code, type, message };
  }
  if (code === Protocol.LEAVE_ROOM || code === Protocol.PING) return /** @type {Frame} */ ({ code });
  return { code, bytes: bytes.length };
}

// ------------------------------------------------------------------ a room session over any socket

/**
 * What one connection saw, for thresholds and tests.
 * @typedef {object} SessionStats
 * @property {number} framesIn
 * @property {number} bytesIn
 * @property {number} messagesOut
 * @property {number} fullStates
 * @property {number} fullStateBytes
 * @property {number} patches
 * @property {number[]} patchIntervals ms between consecutive patches
 * @property {number} errors
 */

/**
 * The client side of one room connection, independent of the socket library: feed it every binary
 * frame; it answers the join handshake through `send`, collects stats and room messages.
 */
export class RoomSession {
  /**
   * @param {(bytes: Uint8Array) => void} send
   * @param {() => number} [now] clock in ms (Date.now by default)
   */
  constructor(send, now) {
    this.send = send;
    this.now = now ?? (() => Date.now());
    /** @type {"handshake" | "joined" | "left"} */
    this.state = "handshake";
    this.reconnectionToken = "";
    /** @type {Record<string, any[]>} room messages by type, in arrival order */
    this.messages = {};
    /** @type {{ code: number, message: string }[]} */
    this.errorMessages = [];
    /** @type {SessionStats} */
    this.stats = { framesIn: 0, bytesIn: 0, messagesOut: 0, fullStates: 0, fullStateBytes: 0, patches: 0, patchIntervals: [], errors: 0 };
    this.lastPatchAt = 0;
  }

  /**
   * @param {ArrayBuffer | Uint8Array} data
   * @returns {Frame}
   */
  receive(data) {
    const bytes = data instanceof Uint8Array ? data : new Uint8Array(data);
    this.stats.framesIn++;
    this.stats.bytesIn += bytes.length;
    const frame = decodeFrame(bytes);
    switch (frame.code) {
      case Protocol.JOIN_ROOM: {
        const f = /** @type {{ reconnectionToken: string }} */ (frame);
        this.reconnectionToken = f.reconnectionToken;
        this.state = "joined";
        this.send(encodeJoinAck());
        break;
      }
      case Protocol.ROOM_STATE:
        this.stats.fullStates++;
        this.stats.fullStateBytes += bytes.length;
        break;
      case Protocol.ROOM_STATE_PATCH: {
        const t = this.now();
        if (this.lastPatchAt > 0) this.stats.patchIntervals.push(t - this.lastPatchAt);
        this.lastPatchAt = t;
        this.stats.patches++;
        break;
      }
      case Protocol.ROOM_DATA: {
        const f = /** @type {{ type: string | number, message: any }} */ (frame);
        const key = String(f.type);
        if (!this.messages[key]) this.messages[key] = [];
        this.messages[key].push(f.message);
        break;
      }
      case Protocol.ERROR: {
        const f = /** @type {{ errorCode: number, message: string }} */ (frame);
        this.stats.errors++;
        this.errorMessages.push({ code: f.errorCode, message: f.message });
        break;
      }
      case Protocol.LEAVE_ROOM:
        this.state = "left";
        this.send(encodeLeave());
        break;
      default:
        break;
    }
    return frame;
  }

  /**
   * Sends a room message (ignored before the handshake finished: the server would drop it).
   * @param {string} type
   * @param {unknown} [payload]
   * @returns {boolean} whether it was sent
   */
  sendMessage(type, payload) {
    if (this.state !== "joined") return false;
    this.send(encodeRoomData(type, payload));
    this.stats.messagesOut++;
    return true;
  }

  leave() {
    if (this.state === "joined") this.send(encodeLeave());
    this.state = "left";
  }
}
