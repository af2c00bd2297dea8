import { CloseCode, logger, type Room } from "@colyseus/core";
import { type TransportOptions, type WebSocketClient, WebSocketTransport } from "@colyseus/ws-transport";

/**
 * How a shutdown (and any close the server starts) stays bounded by what peers do.
 *
 * Colyseus 0.18's graceful shutdown (`Server#gracefullyShutdown`) locks every room and calls its
 * `onBeforeShutdown()`, then waits until every room is disposed; a room disposes only when it has no
 * client and no seat reservation left, and seats reserved over the matchmaker but never claimed stay
 * for the seat reservation time (15 s). Afterwards the WebSocket server is closed, but the sockets are
 * not: the HTTP server's close (our Fastify `app.close()`) then waits for every upgraded socket, and a
 * peer that never answers the close frame keeps its socket for ws' own close timeout (30 s).
 *
 * Our answers: the room closes its replay and releases unclaimed seats in `onBeforeShutdown()` before it
 * disconnects anyone (server/rooms/physics-room.ts), and the transport below terminates every socket
 * whose peer has not completed the close handshake within CLOSE_HANDSHAKE_DEADLINE_MS.
 */

/** A peer gets this long to answer our close frame; then its socket is terminated (ws `terminate()`), ms. */
export const CLOSE_HANDSHAKE_DEADLINE_MS = 1000;

/** Close reason of sockets still open when the transport shuts down (room clients got 4001 before). */
export const SHUTDOWN_CLOSE_REASON = "server shutting down";

/** The ws WebSocket behind a Colyseus client. */
type RawSocket = WebSocketClient["ref"];

/**
 * Arms a close deadline on one socket: whoever calls `close()` (Colyseus' `client.leave()`, a kick, the
 * server answering a peer's close frame), the socket is terminated if the close handshake has not
 * finished `ms` later. An own property shadows ws' `close` for this socket only.
 */
export function enforceCloseDeadline(socket: RawSocket, ms: number = CLOSE_HANDSHAKE_DEADLINE_MS): void {
  const close = socket.close;
  let timer: ReturnType<typeof setTimeout> | undefined;
  socket.close = (code?: number, reason?: string | Buffer) => {
    close.call(socket, code, reason);
    if (timer !== undefined || socket.readyState !== socket.CLOSING) return;
    timer = setTimeout(() => {
      if (socket.readyState !== socket.CLOSED) socket.terminate();
    }, ms);
    socket.once("close", () => clearTimeout(timer));
  };
}

/**
 * Colyseus' WebSocket transport with a deadline on every close handshake (enforceCloseDeadline), and a
 * shutdown that also closes the sockets no room owns (a failed join, one never finished): they get 4001
 * with SHUTDOWN_CLOSE_REASON and the same deadline. HTTP connections still open `deadlineMs` after the
 * shutdown (a request that never completes) are closed too, so the HTTP server's close cannot hang.
 */
export class DeadlineTransport extends WebSocketTransport {
  readonly deadlineMs: number;

  constructor(options: TransportOptions = {}, deadlineMs: number = CLOSE_HANDSHAKE_DEADLINE_MS) {
    super(options);
    this.deadlineMs = deadlineMs;
    // First listener of the event: the deadline is armed before Colyseus sees the socket.
    this.wss.prependListener("connection", (socket: RawSocket) => enforceCloseDeadline(socket, deadlineMs));
  }

  override shutdown(): void {
    super.shutdown();
    for (const socket of this.wss.clients) socket.close(CloseCode.SERVER_SHUTDOWN, SHUTDOWN_CLOSE_REASON);
    const server = this.server;
    if (server) setTimeout(() => server.closeAllConnections(), this.deadlineMs).unref();
  }
}

/**
 * Frees the room's seat reservations that no connection has claimed (matchmaker seats whose client never
 * connected). Colyseus keeps them for the seat reservation time and does not dispose the room until they
 * expire; during a shutdown nobody can claim them anymore (the room is locked, matchmaking answers 503).
 * Seats held for a reconnection are left alone: `disconnect()` rejects those itself. Uses Room internals
 * (`_reservedSeats`, `_reservedSeatTimeouts`); if they change, nothing is freed and a warning is logged.
 * Returns how many seats were freed.
 */
export function releaseUnclaimedSeats(room: Room): number {
  const internals = room as unknown as {
    _reservedSeats?: Record<string, [unknown, unknown, boolean?, boolean?]>;
    _reservedSeatTimeouts?: Record<string, ReturnType<typeof setTimeout>>;
  };
  const seats = internals._reservedSeats;
  const timeouts = internals._reservedSeatTimeouts;
  if (typeof seats !== "object" || seats === null || typeof timeouts !== "object" || timeouts === null) {
    logger.warn(`room ${room.roomId}: Room#_reservedSeats not found; unclaimed seats delay the shutdown until they expire`);
    return 0;
  }
  let freed = 0;
  // Enumerable keys only: a seat being claimed right now is made non-enumerable by Colyseus.
  for (const sessionId of Object.keys(seats)) {
    const [, , consumed, forReconnection] = seats[sessionId];
    if (consumed === true || forReconnection === true) continue;
    clearTimeout(timeouts[sessionId]);
    delete timeouts[sessionId];
    delete seats[sessionId];
    freed++;
  }
  return freed;
}
