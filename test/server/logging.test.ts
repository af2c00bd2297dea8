import { Writable } from "node:stream";
import { Client } from "@colyseus/sdk";
import { afterAll, describe, expect, it } from "vitest";
import { chooseLogFormat, createLogger } from "../../server/logging.ts";
import { MSG_WELCOME, RoomState } from "../../shared/net/index.ts";
import { api, cleanupDirs, eventually, json, type ServerProcess, spawnServer, stopAllServers, tempDir } from "./processes.ts";

/**
 * What the server logs, and how. The format follows the terminal (pretty there, JSON lines elsewhere,
 * LOG_FORMAT overrides); and a real server process (server/main.ts, its stdout a pipe, so JSON) logs a
 * room's life and its players at info, while HTTP requests are debug lines: present at LOG_LEVEL=debug,
 * absent at info.
 */

afterAll(async () => {
  await stopAllServers();
  cleanupDirs();
});

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const INFO = 30;
const DEBUG = 20;

/** Every pino JSON line the process printed. */
function jsonLines(p: ServerProcess): LogLine[] {
  const out: LogLine[] = [];
  for (const line of p.lines) {
    if (!line.startsWith("{")) continue;
    try {
      out.push(JSON.parse(line) as LogLine);
    } catch {
      // not a log line
    }
  }
  return out;
}

/** A request line of Fastify's or ours: it carries the request's URL (or Fastify's req/res objects). */
function isRequestLine(l: LogLine): boolean {
  return typeof l.url === "string" || "req" in l || "res" in l || /^(incoming request|request completed|request)$/.test(l.msg);
}

/** A stream that keeps what is written to it. */
function capture(): { stream: Writable; text: () => string } {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join("") };
}

describe("log format", () => {
  it("is pretty on a terminal and JSON elsewhere, unless LOG_FORMAT says which", () => {
    expect(chooseLogFormat(undefined, { isTTY: true })).toBe("pretty");
    expect(chooseLogFormat(undefined, { isTTY: false })).toBe("json");
    // A pipe's stream has no isTTY at all.
    expect(chooseLogFormat(undefined, {})).toBe("json");
    expect(chooseLogFormat("json", { isTTY: true })).toBe("json");
    expect(chooseLogFormat("pretty", {})).toBe("pretty");
  });

  it("pretty lines are for people, JSON lines for machines", async () => {
    const pretty = capture();
    createLogger("info", "pretty", pretty.stream).info({ roomId: "abc", scenario: "arena" }, "room created");
    const plain = capture();
    createLogger("info", "json", plain.stream).info({ roomId: "abc", scenario: "arena" }, "room created");
    await eventually("both lines written", () => pretty.text().includes("\n") && plain.text().includes("\n"));
    const line = pretty.text();
    console.log(`pretty: ${JSON.stringify(line)}`);
    expect(line.startsWith("{")).toBe(false);
    expect(line).toMatch(/INFO/);
    expect(line).toContain("room created");
    expect(line).toContain('"roomId":"abc"');
    expect(JSON.parse(plain.text())).toMatchObject({ level: INFO, msg: "room created", roomId: "abc", scenario: "arena" });
  });
});

/** A room's whole life over real HTTP and a real SDK client: created, joined, left, deleted; plus some requests. */
async function roomLife(server: ServerProcess): Promise<{ roomId: string; sessionId: string }> {
  const res = await api(server.url, "POST", "/rooms", { scenario: "stack10" });
  expect(res.status).toBe(201);
  const { roomId } = await json<{ roomId: string }>(res);
  const room = await new Client(server.url).joinById(roomId, {}, RoomState);
  room.onMessage(MSG_WELCOME, () => {});
  const sessionId = room.sessionId;
  for (let i = 0; i < 3; i++) {
    expect((await api(server.url, "GET", "/rooms", undefined, null)).status).toBe(200);
    expect((await api(server.url, "GET", "/health", undefined, null)).status).toBe(200);
  }
  expect((await api(server.url, "GET", "/no/such/route", undefined, null)).status).toBe(404);
  await room.leave(true);
  expect((await api(server.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
  await eventually("the room disposed line", () => server.logs(/^room disposed$/).length > 0);
  return { roomId, sessionId };
}

function expectLifecycle(lines: LogLine[], roomId: string, sessionId: string): void {
  const one = (msg: string) => {
    const found = lines.filter((l) => l.msg === msg && l.roomId === roomId);
    expect(found, msg).toHaveLength(1);
    return found[0];
  };
  expect(one("room created")).toMatchObject({ level: INFO, scenario: "stack10", creator: "admin" });
  expect(one("player joined")).toMatchObject({ level: INFO, scenario: "stack10", sessionId, clients: 1 });
  expect(one("player left")).toMatchObject({ level: INFO, scenario: "stack10", sessionId, clients: 0 });
  expect(one("room disposed")).toMatchObject({ level: INFO, scenario: "stack10", reason: "dispose" });
}

describe("a server process's log (stdout a pipe: JSON lines)", () => {
  it("logs rooms and players at info and no HTTP request at info", async () => {
    // A start takes a few seconds (engine warm-up), many more on a busy machine.
    const [quiet, verbose] = await Promise.all([
      spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), LOG_LEVEL: "info" }, 90_000),
      spawnServer({ ADMIN_TOKEN: "test-admin-token", REPLAY_DIR: tempDir("replays"), LOG_LEVEL: "debug" }, 90_000),
    ]);
    for (const server of [quiet, verbose]) {
      const { roomId, sessionId } = await roomLife(server);
      const lines = jsonLines(server);
      expect(lines.length).toBe(server.lines.filter((l) => l.startsWith("{")).length);
      expectLifecycle(lines, roomId, sessionId);
      const requests = lines.filter(isRequestLine);
      console.log(`LOG_LEVEL=${server.env.LOG_LEVEL}: ${lines.length} JSON lines, ${requests.length} request lines (levels ${[...new Set(requests.map((l) => l.level))].join(",") || "-"})`);
      expect(requests.filter((l) => l.level >= INFO)).toEqual([]);
      if (server === quiet) expect(requests).toEqual([]);
    }
    // At debug every request is one line: 7 GETs, the POST and the DELETE, and the SDK's matchmaking call.
    const debugRequests = jsonLines(verbose).filter(isRequestLine);
    expect(debugRequests).toHaveLength(10);
    expect(debugRequests.every((l) => l.level === DEBUG && l.msg === "request")).toBe(true);
    expect(debugRequests.filter((l) => l.url === "/health")).toHaveLength(3);
    expect(debugRequests.find((l) => l.url === "/no/such/route")).toMatchObject({ method: "GET", statusCode: 404 });
    expect(debugRequests.some((l) => l.method === "DELETE" && l.statusCode === 204)).toBe(true);
  }, 240_000);
});
