import type { FastifyReply, FastifyRequest } from "fastify";
import { LogController } from "fastify";
import { type DestinationStream, type Logger, pino } from "pino";
import pinoPretty from "pino-pretty";
import type { LogFormat, LogLevel } from "./config.ts";

/**
 * The process's logger. In a terminal the lines are for a person (pino-pretty: time, level, message and
 * the fields on one line); anywhere else (a pipe, a file, a container's log collector) they are pino's
 * JSON, one object a line, for machines. LOG_FORMAT overrides the choice.
 *
 * What is logged at which level: info is what an operator follows (the server listening, rooms created
 * and disposed, players joining and leaving, refusals, shutdown); every HTTP request is debug, because a
 * browser tab polls the admin API and one line per request would bury the rest (and let any anonymous
 * client grow the log as fast as it can send).
 */

/** LOG_FORMAT when set; otherwise pretty for a terminal, JSON for anything else. */
export function chooseLogFormat(requested: LogFormat | undefined, stdout: { isTTY?: boolean }): LogFormat {
  return requested ?? (stdout.isTTY === true ? "pretty" : "json");
}

/**
 * A pino logger at `level` writing `format` to `destination` (default stdout). Both write synchronously,
 * so the lines of a process that exits right after (shutdown, a fatal error) are not lost.
 */
export function createLogger(level: LogLevel, format: LogFormat, destination?: DestinationStream): Logger {
  if (format === "json") return pino({ level }, destination ?? pino.destination({ dest: 1, sync: true }));
  const pretty = pinoPretty({
    destination: destination ?? 1,
    sync: true,
    singleLine: true,
    translateTime: "SYS:HH:MM:ss.l",
    ignore: "pid,hostname",
  });
  return pino({ level }, pretty);
}

/**
 * Fastify's request log lines at debug: one line per finished request (method, URL, status, time) instead
 * of Fastify's two at info. Errors keep their levels (a 5xx is logged by the error handler with its stack).
 */
export class DebugRequestLog extends LogController {
  override incomingRequest(): void {}

  override requestCompleted(error: Error | null | undefined, request: FastifyRequest, reply: FastifyReply): void {
    const line = { method: request.method, url: request.url.slice(0, 200), statusCode: reply.statusCode, ms: Math.round(reply.elapsedTime * 10) / 10 };
    if (error) reply.log.warn({ ...line, err: error }, "request failed while sending");
    else reply.log.debug(line, "request");
  }

  override defaultErrorLog(error: Error, request: FastifyRequest, reply: FastifyReply): void {
    if (reply.statusCode >= 500) reply.log.error({ err: error }, error.message);
    else reply.log.debug({ method: request.method, url: request.url.slice(0, 200), statusCode: reply.statusCode }, error.message);
  }

  override streamError(error: Error & { code?: string }, request: FastifyRequest, reply: FastifyReply): void {
    // A client that goes away mid-download is the client's business, not the operator's.
    if (error.code === "ERR_STREAM_PREMATURE_CLOSE") reply.log.debug({ method: request.method, url: request.url.slice(0, 200) }, "client closed the response early");
    else reply.log.warn({ err: error }, "response stream failed after its headers were sent");
  }

  override routeNotFound(request: FastifyRequest): void {
    request.log.debug({ method: request.method, url: request.url.slice(0, 200) }, "no such route");
  }
}
