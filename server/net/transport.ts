import { randomBytes } from "node:crypto";
import type { IncomingMessage, Server as HttpServer } from "node:http";
import { logger } from "@colyseus/core";
import { type TransportOptions, WebSocketClient, type WebSocketTransport } from "@colyseus/ws-transport";
import type { WebSocket, WebSocketServer } from "ws";
import { CLOSE_BACKLOG } from "../../shared/net/index.ts";

/**
 * The WebSocket transport of the physics rooms: Colyseus' own (@colyseus/ws-transport 0.18) plus three
 * guarantees for every connection, kept here so no room has to think about them.
 *
 * 1. No queued frame aliases a buffer that is reused. @colyseus/schema 5's Encoder.encode returns a
 *    subarray of the encoder's one shared buffer, and SchemaSerializer.applyPatches hands that same view
 *    to every client's `raw` (so does getFullState with its cached full-state buffer). ws' Sender.send
 *    wraps a view without copying (buffer-util toBuffer) and net.Socket keeps a reference to whatever
 *    it could not write at once: in its writable buffer while a write is pending, and in libuv's write
 *    request when a write is only partly taken by the kernel. The next patch overwrites the buffer, and
 *    the stalled client later receives frames mixed from several patches. Copying "only when the socket
 *    already has a backlog" is not enough: a big frame written to an idle socket whose kernel buffer is
 *    nearly full is retained as well (the partial write). So every binary frame is copied before ws
 *    sees it, once per frame and synchronous turn: the patch every client of a room gets in one
 *    broadcast loop is one copy shared by all of them (cost: one memcpy of the patch per room per patch).
 * 2. Backlog limit. A client whose unsent bytes (ws `bufferedAmount`: the socket's writable buffer and
 *    ws' own queue) exceed what was handed to its socket in the last BACKLOG_SECONDS (its own recent
 *    traffic: the room's patch rate times recent patch sizes, plus messages), with a floor of
 *    BACKLOG_FLOOR_BYTES, is closed with CLOSE_BACKLOG and a reason. Sends after that are dropped (ws
 *    would only count them), so the memory a stalled client holds is bounded by its limit plus one frame.
 * 3. Heartbeat that an unread socket cannot fake. ws-transport pings every pingInterval and counts a
 *    client alive on any `pong` event, solicited or not, so a client that never reads stays connected by
 *    sending pongs. Here each ping carries a random payload and only a pong echoing the latest one
 *    counts; a socket whose backlog never drained during the whole interval counts as not responding
 *    too (its ping is still queued behind the data). After pingMaxRetries such intervals in a row, an
 *    open socket with unsent data is closed for its backlog (CLOSE_BACKLOG: the client is there but not
 *    reading) and any other is terminated (a dead peer; also one still closing, so a client closed for
 *    its backlog that keeps not reading does not wait for ws' 30 s close timeout). ws-transport's own
 *    heartbeat is switched off (pingInterval 0 passed to it).
 *
 * The copy is shared by identity within one synchronous turn: a frame object must not be changed
 * between two sends of the same turn (Colyseus never does; each encode returns a new view).
 *
 * What it relies on, checked when the transport is built (construction throws if it changed):
 * WebSocketTransport keeps its ws WebSocketServer in `wss` (protected), and WebSocketClient#raw sends
 * through the raw socket's `send` (so wrapping `send` on each socket covers every frame: patches, full
 * states, messages, errors). The wrap is per socket (an own property), no prototype is touched.
 */

/** A session id from a connection's URL, as the log shows it: the client wrote it, so it is cut short and quoted. */
function loggable(sessionId: string | null | undefined): string {
  return sessionId == null ? "?" : JSON.stringify(sessionId.slice(0, 32));
}

/** Unsent bytes allowed, in seconds of the client's own recent traffic. */
export const BACKLOG_SECONDS = 2;
/** Unsent bytes always allowed (join-time full states, quiet rooms), bytes. */
export const BACKLOG_FLOOR_BYTES = 256 * 1024;
/** Reason sent with CLOSE_BACKLOG (numbers follow). */
export const BACKLOG_REASON = "backlog: client is not reading";
/** Granularity of the per-connection traffic window, ms. */
const SLOT_MS = 250;

/** Called with every frame right before it goes to ws (after the copy and the backlog check), with the session id from the connection's URL. */
export type FrameHook = (sessionId: string | null, frame: Uint8Array) => void;

export interface GuardedTransportOptions extends TransportOptions {
  /** See BACKLOG_SECONDS. */
  backlogSeconds?: number;
  /** See BACKLOG_FLOOR_BYTES. */
  backlogFloorBytes?: number;
  /** Called whenever a client is closed for its backlog (the server's metrics count it). */
  onBacklogClose?: () => void;
}

/** What the guard adds to a transport's public face. */
export interface ConnectionGuard {
  /** Test hook (see FrameHook); null in production. */
  onFrame: FrameHook | null;
}

/** Bytes handed to one socket per SLOT_MS slot over the last `seconds` (a ring of slots). */
export class TrafficWindow {
  private readonly slots: Float64Array;
  private slot = -1;
  private sum = 0;

  constructor(seconds: number) {
    this.slots = new Float64Array(Math.max(1, Math.ceil((seconds * 1000) / SLOT_MS)));
  }

  /** Bytes counted in the window that ends at `nowMs`. */
  total(nowMs: number): number {
    this.advance(nowMs);
    return this.sum;
  }

  add(nowMs: number, bytes: number): void {
    this.advance(nowMs);
    this.slots[this.slot % this.slots.length] += bytes;
    this.sum += bytes;
  }

  private advance(nowMs: number): void {
    const slot = Math.floor(nowMs / SLOT_MS);
    if (slot <= this.slot) return;
    const n = this.slots.length;
    if (this.slot < 0 || slot - this.slot >= n) {
      this.slots.fill(0);
      this.sum = 0;
    } else {
      for (let s = this.slot + 1; s <= slot; s++) {
        this.sum -= this.slots[s % n];
        this.slots[s % n] = 0;
      }
    }
    this.slot = slot;
  }
}

const OPEN = 1;
const CLOSING = 2;

/**
 * Copies binary frames so that nothing ws queues is a view of a buffer its owner reuses: one copy per
 * frame and synchronous turn (the same view goes to every client of a broadcast, and they share the copy).
 */
class FrameCopier {
  private lastFrame: object | null = null;
  private lastCopy: Buffer | null = null;
  private readonly forget = (): void => {
    this.lastFrame = null;
    this.lastCopy = null;
  };

  /** A copy of `data` that nothing else references. */
  copy(data: ArrayBufferView | ArrayBuffer): Buffer {
    if (data === this.lastFrame && this.lastCopy !== null) return this.lastCopy;
    const copy = ArrayBuffer.isView(data) ? Buffer.from(new Uint8Array(data.buffer, data.byteOffset, data.byteLength)) : Buffer.from(new Uint8Array(data));
    if (this.lastFrame === null) queueMicrotask(this.forget);
    this.lastFrame = data;
    this.lastCopy = copy;
    return copy;
  }
}

function kib(bytes: number): string {
  return (bytes / 1024).toFixed(0);
}

/** Fails loudly if the ws-transport internals this module relies on are not what it expects. */
function checkTransportInternals(wss: unknown): void {
  const server = wss as Partial<WebSocketServer> | undefined;
  if (!server || typeof server.prependListener !== "function" || !(server.clients instanceof Set)) {
    throw new Error("@colyseus/ws-transport changed: WebSocketTransport#wss is not a ws WebSocketServer (server/net/transport.ts relies on it)");
  }
  const probe = new Uint8Array([1, 2, 3]);
  let seen: unknown = null;
  const fakeSocket = { send: (data: unknown) => (seen = data) };
  new WebSocketClient("probe", fakeSocket as unknown as WebSocketClient["ref"]).raw(probe);
  if (seen !== probe) {
    throw new Error("@colyseus/ws-transport changed: WebSocketClient#raw no longer sends through the socket's send() (server/net/transport.ts relies on it)");
  }
}

/** A WebSocketTransport class (Colyseus' own, or one derived from it whose first argument is its options). */
// biome-ignore lint/suspicious/noExplicitAny: a mixin's base constructor must take `...args: any[]` (TypeScript's rule)
type TransportClass = new (...args: any[]) => WebSocketTransport;

/** What a socket's guard needs from its transport. */
interface GuardSettings {
  readonly backlogSeconds: number;
  readonly backlogFloor: number;
  readonly maxMissed: number;
  readonly copier: FrameCopier;
  readonly onFrame: FrameHook | null;
  readonly onBacklogClose: (() => void) | undefined;
}

/** The guard of one socket: its send wrapper (copy, backlog limit) and its part of the heartbeat. */
class SocketGuard {
  private readonly ws: WebSocket;
  private readonly sessionId: string | null;
  private readonly settings: GuardSettings;
  private readonly traffic: TrafficWindow;
  /** Payload of the latest ping not answered yet, or null. */
  private ping: Buffer | null = null;
  /** Heartbeat intervals in a row without an answer (or with a backlog that never drained). */
  private missed = 0;
  /** The socket had nothing unsent at some moment since the last heartbeat. */
  private drained = true;

  constructor(ws: WebSocket, sessionId: string | null, settings: GuardSettings) {
    this.ws = ws;
    this.sessionId = sessionId;
    this.settings = settings;
    this.traffic = new TrafficWindow(settings.backlogSeconds);
    ws.on("pong", (data: Buffer) => {
      if (this.ping !== null && data.equals(this.ping)) this.ping = null;
    });
    const send = ws.send;
    ws.send = ((data: unknown, ...rest: unknown[]) => this.send(send, data, rest)) as WebSocket["send"];
  }

  /** Backlog allowed for this socket right now, bytes. */
  private limit(nowMs: number): number {
    return Math.max(this.settings.backlogFloor, this.traffic.total(nowMs));
  }

  private send(send: WebSocket["send"], data: unknown, rest: unknown[]): void {
    const ws = this.ws;
    if (ws.readyState !== OPEN) {
      // ws would only add the size to bufferedAmount (nothing is queued) and report the error.
      const cb = rest[rest.length - 1];
      if (typeof cb === "function") process.nextTick(cb, new Error("WebSocket is not open"));
      return;
    }
    const binary = ArrayBuffer.isView(data) || data instanceof ArrayBuffer;
    const bytes = binary ? data.byteLength : typeof data === "string" ? Buffer.byteLength(data) : 0;
    const now = performance.now();
    this.traffic.add(now, bytes);
    const backlog = ws.bufferedAmount;
    if (backlog === 0) this.drained = true;
    if (backlog + bytes > this.limit(now)) {
      this.closeForBacklog(backlog, `limit ${kib(this.limit(now))} KiB`);
      this.send(send, data, rest);
      return;
    }
    // ws copies strings itself; binary frames may be views of a buffer their owner reuses.
    const frame = binary ? this.settings.copier.copy(data) : data;
    if (this.settings.onFrame && ArrayBuffer.isView(frame)) this.settings.onFrame(this.sessionId, frame as Uint8Array);
    (send as (...args: unknown[]) => void).call(ws, frame, ...rest);
  }

  /** Closes with CLOSE_BACKLOG; `why` ends the reason (the limit, or the pings it did not answer). */
  private closeForBacklog(backlog: number, why: string): void {
    this.settings.onBacklogClose?.();
    const reason = `${BACKLOG_REASON} (${kib(backlog)} KiB unsent, ${why})`;
    logger.warn(`client ${loggable(this.sessionId)} closed (${CLOSE_BACKLOG}): ${reason}`);
    // ws' own close, not a per-socket wrapper: server/shutdown.ts terminates a socket 1 s after any
    // close, but a client closed for being ~2 s behind cannot have read the reason by then. It gets
    // the heartbeat's allowance instead (terminated after pingMaxRetries intervals without draining).
    (Object.getPrototypeOf(this.ws) as WebSocket).close.call(this.ws, CLOSE_BACKLOG, reason);
  }

  /**
   * This socket's part of one heartbeat: count it unresponsive or not, drop it if it stayed so, else
   * ping it. A socket still open with unsent data is closed for its backlog (the client is there but
   * not reading: it gets the reason once it reads); one with nothing unsent is terminated (a dead peer).
   */
  beat(now: number): void {
    const ws = this.ws;
    const open = ws.readyState === OPEN;
    if (!open && ws.readyState !== CLOSING) return;
    const backlog = ws.bufferedAmount;
    const stalled = !this.drained && backlog > 0;
    const silent = open && this.ping !== null;
    this.missed = stalled || silent ? this.missed + 1 : 0;
    this.drained = backlog === 0;
    if (open && backlog > this.limit(now)) {
      this.closeForBacklog(backlog, `limit ${kib(this.limit(now))} KiB`);
    } else if (this.missed >= this.settings.maxMissed) {
      if (open && backlog > 0) {
        this.closeForBacklog(backlog, `no pong for ${this.missed} pings`);
      } else {
        logger.info(`client ${loggable(this.sessionId)} terminated: ${stalled ? `${kib(backlog)} KiB unsent` : "no pong"} for ${this.missed} heartbeats`);
        ws.terminate();
      }
    } else if (open) {
      this.ping = randomBytes(8);
      ws.ping(this.ping);
    }
  }
}

/** The session id a connection's URL names (null if it names none or cannot be parsed). */
function sessionIdOf(req: IncomingMessage): string | null {
  try {
    return new URL(req.url ?? "/", "ws://server").searchParams.get("sessionId");
  } catch {
    // A URL Colyseus cannot parse either; it refuses the connection itself.
    return null;
  }
}

/**
 * Adds the three guarantees above to a WebSocketTransport class: `new (withConnectionGuard(Base))(options,
 * ...rest)`. The options are Base's plus GuardedTransportOptions; pingInterval (default 3000 ms) and
 * pingMaxRetries (default 2) drive our heartbeat, and Base gets pingInterval 0 (its own heartbeat off).
 */
export function withConnectionGuard<Base extends TransportClass>(base: Base) {
  return class GuardedTransport extends base implements ConnectionGuard, GuardSettings {
    readonly backlogSeconds: number;
    readonly backlogFloor: number;
    readonly maxMissed: number;
    readonly copier = new FrameCopier();
    readonly onBacklogClose: (() => void) | undefined;
    onFrame: FrameHook | null = null;
    private readonly heartbeatMs: number;
    private heartbeat: NodeJS.Timeout | null = null;
    private readonly guarded = new WeakMap<WebSocket, SocketGuard>();

    // biome-ignore lint/suspicious/noExplicitAny: see TransportClass
    constructor(...args: any[]) {
      const [options = {}, ...rest] = args as [GuardedTransportOptions | undefined, ...unknown[]];
      const { backlogSeconds, backlogFloorBytes, onBacklogClose, pingInterval, pingMaxRetries, ...transportOptions } = options;
      super({ ...transportOptions, pingInterval: 0 }, ...rest);
      checkTransportInternals(this.wss);
      this.heartbeatMs = pingInterval ?? 3000;
      this.maxMissed = pingMaxRetries ?? 2;
      this.backlogSeconds = backlogSeconds ?? BACKLOG_SECONDS;
      this.backlogFloor = backlogFloorBytes ?? BACKLOG_FLOOR_BYTES;
      this.onBacklogClose = onBacklogClose;
      // Before ws-transport's own listener: the guard is in place before Colyseus sends anything.
      this.wss.prependListener("connection", (ws: WebSocket, req: IncomingMessage) => this.guarded.set(ws, new SocketGuard(ws, sessionIdOf(req), this)));
      if (this.server) this.server.on("listening", () => this.startHeartbeat());
    }

    override attachToServer(server: HttpServer, options?: Parameters<WebSocketTransport["attachToServer"]>[1]): this {
      super.attachToServer(server, options);
      this.startHeartbeat();
      server.on("close", () => this.stopHeartbeat());
      return this;
    }

    override shutdown(): void {
      this.stopHeartbeat();
      super.shutdown();
    }

    private startHeartbeat(): void {
      if (this.heartbeat || this.heartbeatMs <= 0 || this.maxMissed <= 0) return;
      this.heartbeat = setInterval(() => this.beat(), this.heartbeatMs);
      this.heartbeat.unref();
    }

    private stopHeartbeat(): void {
      if (this.heartbeat) clearInterval(this.heartbeat);
      this.heartbeat = null;
    }

    /** One heartbeat over every guarded socket (SocketGuard#beat). */
    private beat(): void {
      const now = performance.now();
      for (const ws of this.wss.clients as Set<WebSocket>) this.guarded.get(ws)?.beat(now);
    }
  };
}
