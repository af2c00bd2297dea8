import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect as netConnect, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { Protocol } from "@colyseus/core";

/**
 * Real server processes for the tests (`process.execPath server/main.ts`, the same entry as production),
 * Debian's nginx on the deploy template, Redis key prefixes per run, and a TCP relay that can cut its
 * connections (a real network drop).
 */

export const REPO = resolve(import.meta.dirname, "../..");
export const REDIS_URL = "redis://127.0.0.1:6379";

export interface ServerProcess {
  child: ChildProcess;
  port: number;
  url: string;
  env: Record<string, string>;
  /** Every stdout/stderr line so far (pino JSON lines and anything else). */
  lines: string[];
  /** Resolves with the exit code/signal (immediately if it already exited). */
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Parsed pino lines whose `msg` matches. */
  logs(match: RegExp): { level: number; msg: string }[];
}

const started: ServerProcess[] = [];

/**
 * Starts `server/main.ts` with PORT=0 on 127.0.0.1 and the given environment (plus PATH/HOME only: no
 * inherited REDIS_URL or the like). Resolves once it logs that it listens.
 */
export async function spawnServer(env: Record<string, string>, timeoutMs = 20000): Promise<ServerProcess> {
  const fullEnv: Record<string, string> = {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "info",
    ...env,
  };
  const child = spawn(process.execPath, ["server/main.ts"], { cwd: REPO, env: fullEnv, stdio: ["ignore", "pipe", "pipe"] });
  const lines: string[] = [];
  // "close", not "exit": by then its stdout and stderr are read to the end (every log line is in `lines`).
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((res) => child.once("close", (code, signal) => res({ code, signal })));
  const port = await new Promise<number>((res, rej) => {
    const timer = setTimeout(() => {
      // A server that comes up after the test gave up on it would live on, unowned, loading the machine.
      child.kill("SIGKILL");
      rej(new Error(`server did not start within ${timeoutMs} ms:\n${lines.join("\n")}`));
    }, timeoutMs);
    const onLine = (line: string) => {
      lines.push(line);
      if (line.includes("physics room server listening")) {
        try {
          clearTimeout(timer);
          res((JSON.parse(line) as { port: number }).port);
        } catch (err) {
          rej(err);
        }
      }
    };
    for (const stream of [child.stdout, child.stderr]) {
      let buf = "";
      stream?.setEncoding("utf8");
      stream?.on("data", (chunk: string) => {
        buf += chunk;
        let i = buf.indexOf("\n");
        while (i >= 0) {
          onLine(buf.slice(0, i));
          buf = buf.slice(i + 1);
          i = buf.indexOf("\n");
        }
      });
    }
    void exited.then(({ code, signal }) => {
      clearTimeout(timer);
      rej(new Error(`server exited (${code ?? signal}) before listening:\n${lines.join("\n")}`));
    });
  });
  const proc: ServerProcess = {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    env: fullEnv,
    lines,
    exited,
    logs(match: RegExp) {
      const out: { level: number; msg: string }[] = [];
      for (const line of lines) {
        if (!line.startsWith("{")) continue;
        try {
          const l = JSON.parse(line) as { level: number; msg: string };
          if (typeof l.msg === "string" && match.test(l.msg)) out.push(l);
        } catch {
          // not pino
        }
      }
      return out;
    },
  };
  started.push(proc);
  return proc;
}

/** Kills every server this test file started that is still running (afterAll). */
export async function stopAllServers(): Promise<void> {
  await Promise.all(
    started.splice(0).map(async (p) => {
      if (p.child.exitCode === null && p.child.signalCode === null) {
        p.child.kill("SIGKILL");
        await p.exited;
      }
    }),
  );
}

/** True while the process runs. */
export function alive(p: ServerProcess): boolean {
  return p.child.exitCode === null && p.child.signalCode === null;
}

/** A port that was free a moment ago (for configs that must name a port before the process binds it). */
export async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((res) => srv.listen(0, "127.0.0.1", res));
  const port = (srv.address() as { port: number }).port;
  await new Promise<void>((res) => srv.close(() => res()));
  return port;
}

/** A fresh temporary directory, removed by `cleanupDirs()`. */
const dirs: string[] = [];
export function tempDir(label: string): string {
  const dir = mkdtempSync(join(tmpdir(), `physics-${label}-`));
  dirs.push(dir);
  return dir;
}
export function cleanupDirs(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

// ---------------------------------------------------------------- Redis

/** A key prefix no other test run uses; `dropRedisPrefix` deletes its keys. */
export function redisPrefix(): string {
  return `physics-test:${process.pid}:${randomBytes(4).toString("hex")}:`;
}

export function redisCli(...args: string[]): string {
  return execFileSync("redis-cli", ["-h", "127.0.0.1", "-p", "6379", ...args], { encoding: "utf8" });
}

export function dropRedisPrefix(prefix: string): void {
  const keys = redisCli("--scan", "--pattern", `${prefix}*`).split("\n").filter(Boolean);
  if (keys.length > 0) redisCli("del", ...keys);
}

/**
 * The environment docker-compose.yml gives server replica `name` (test/deploy/compose.test.ts checks that
 * the names match), with the proxy on 127.0.0.1:proxyPort instead of localhost:8080.
 */
export function replicaEnv(name: "a" | "b", proxyPort: number, prefix: string, replayDir: string): Record<string, string> {
  return {
    HOST: "127.0.0.1",
    PORT: "0",
    REDIS_URL,
    PUBLIC_ADDRESS: `127.0.0.1:${proxyPort}/${name}`,
    ADMIN_TOKEN: TOKEN,
    REPLAY_DIR: replayDir,
    LOG_LEVEL: "info",
    // Behind nginx, as in docker-compose.yml: admission limits key on X-Forwarded-For.
    TRUST_PROXY: "1",
    // Test-only: a key prefix per run, and a quick dead-process check.
    REDIS_KEY_PREFIX: prefix,
    PROCESS_CHECK_INTERVAL_MS: "500",
  };
}

/** Variables replicaEnv sets that docker-compose.yml does not (test isolation and speed). */
export const TEST_ONLY_ENV = ["REDIS_KEY_PREFIX", "PROCESS_CHECK_INTERVAL_MS"];

// ---------------------------------------------------------------- nginx

export interface Nginx {
  port: number;
  url: string;
  stop(): Promise<void>;
}

/**
 * Renders a template the way the official nginx image does (only the named ${VARS} are replaced, nginx's
 * own $variables stay) and fails on any ${...} left over.
 */
export function renderTemplate(template: string, vars: Record<string, string>): string {
  const out = template.replace(/\$\{([A-Z0-9_]+)\}/g, (whole, name: string) => (name in vars ? vars[name] : whole));
  const left = out.match(/\$\{[A-Z0-9_]+\}/g);
  if (left) throw new Error(`template variables without a value: ${[...new Set(left)].join(", ")}`);
  return out;
}

export const NGINX_TEMPLATE = join(REPO, "deploy/nginx/physics.conf.template");

/** Runs Debian's nginx (foreground, own prefix directory) on deploy/nginx/physics.conf.template. */
export async function startNginx(vars: Record<string, string>, port: number): Promise<Nginx> {
  const dir = tempDir("nginx");
  for (const sub of ["logs", "tmp"]) mkdirSync(join(dir, sub));
  writeFileSync(join(dir, "physics.conf"), renderTemplate(readFileSync(NGINX_TEMPLATE, "utf8"), vars));
  const main = [
    "worker_processes 1;",
    "daemon off;",
    `pid ${dir}/nginx.pid;`,
    `error_log ${dir}/logs/error.log warn;`,
    "events { worker_connections 1024; }",
    "http {",
    "  access_log off;",
    `  client_body_temp_path ${dir}/tmp/body;`,
    `  proxy_temp_path ${dir}/tmp/proxy;`,
    `  fastcgi_temp_path ${dir}/tmp/fastcgi;`,
    `  uwsgi_temp_path ${dir}/tmp/uwsgi;`,
    `  scgi_temp_path ${dir}/tmp/scgi;`,
    `  include ${dir}/physics.conf;`,
    "}",
  ].join("\n");
  writeFileSync(join(dir, "nginx.conf"), main);
  const check = spawnSync("nginx", ["-t", "-p", dir, "-c", join(dir, "nginx.conf")], { encoding: "utf8" });
  if (check.status !== 0) throw new Error(`nginx -t failed: ${check.stderr}`);
  const child = spawn("nginx", ["-p", dir, "-c", join(dir, "nginx.conf")], { stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr?.on("data", (c) => (stderr += c));
  const exited = new Promise<void>((res) => child.once("exit", () => res()));
  for (let i = 0; ; i++) {
    if (child.exitCode !== null) throw new Error(`nginx exited: ${stderr}`);
    if (await canConnect(port)) break;
    if (i > 200) throw new Error(`nginx did not listen on ${port}: ${stderr}`);
    await sleep(25);
  }
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    async stop() {
      if (child.exitCode === null) {
        child.kill("SIGTERM");
        await exited;
      }
    },
  };
}

function canConnect(port: number): Promise<boolean> {
  return new Promise((res) => {
    const s = netConnect(port, "127.0.0.1");
    s.once("connect", () => {
      s.destroy();
      res(true);
    });
    s.once("error", () => res(false));
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((res) => setTimeout(res, ms));
}

/** Polls `fn` until it returns a truthy value (bounded wait for an event, not a timing assertion). */
export async function eventually<T>(what: string, fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, timeoutMs = 15000, everyMs = 100): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (err) {
      last = err;
    }
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ""}`);
    await sleep(everyMs);
  }
}

// ---------------------------------------------------------------- network drop

/**
 * A TCP relay to `targetPort`; `cut()` resets every connection through it (both peers see a dead socket);
 * `block(true)` also refuses new ones until `block(false)` (a network partition).
 */
export interface Relay {
  port: number;
  url: string;
  cut(): void;
  block(on: boolean): void;
  close(): Promise<void>;
}

export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>();
  let blocked = false;
  const server: Server = createServer((inbound) => {
    if (blocked) {
      inbound.resetAndDestroy();
      return;
    }
    const outbound = netConnect(targetPort, "127.0.0.1");
    for (const s of [inbound, outbound]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    inbound.pipe(outbound);
    outbound.pipe(inbound);
    inbound.on("close", () => outbound.destroy());
    outbound.on("close", () => inbound.destroy());
  });
  await new Promise<void>((res) => server.listen(0, "127.0.0.1", res));
  const port = (server.address() as { port: number }).port;
  const cut = () => {
    for (const s of sockets) s.resetAndDestroy();
    sockets.clear();
  };
  return {
    port,
    url: `http://127.0.0.1:${port}`,
    cut,
    block(on: boolean) {
      blocked = on;
      if (on) cut();
    },
    async close() {
      cut();
      await new Promise<void>((res) => server.close(() => res()));
    },
  };
}

// ---------------------------------------------------------------- HTTP

export const TOKEN = "test-admin-token";

export async function api(base: string, method: string, path: string, body?: unknown, token: string | null = TOKEN): Promise<Response> {
  const headers: Record<string, string> = {};
  if (body !== undefined) headers["content-type"] = "application/json";
  if (token !== null) headers.authorization = `Bearer ${token}`;
  return fetch(base + path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
}

export async function json<T>(res: Response | Promise<Response>): Promise<T> {
  return (await (await res).json()) as T;
}

/** `npm run replay -- verify <file>` (the CLI itself). */
export function verifyCli(file: string): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, ["scripts/replay.ts", "verify", file], { cwd: REPO, encoding: "utf8" });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

// ---------------------------------------------------------------- raw WebSocket peers

/**
 * A WebSocket client written on a bare TCP socket (RFC 6455 framing, client frames masked). Unlike a
 * library client it answers nothing by itself: no pong, no reply to a close frame, no join
 * acknowledgement unless asked. That is how the tests play peers that misbehave (a deaf client that
 * never completes the close handshake, a socket that never finishes the Colyseus join).
 */
export interface RawPeer {
  socket: Socket;
  /** Payloads of the data frames received so far (text and binary). */
  messages: Buffer[];
  /** Close codes of the close frames received (the peer does not answer them). */
  closeCodes: number[];
  /** True once the server ended or reset the TCP connection. */
  readonly ended: boolean;
  /** Sends one masked binary frame. */
  send(payload: Uint8Array): void;
  /** Resolves with the first data frame (received so far or later) that `match` accepts. */
  waitFor(what: string, match: (payload: Buffer) => boolean, timeoutMs?: number): Promise<Buffer>;
}

/** Opens `ws://…` over a bare TCP socket; resolves once the server answered 101 Switching Protocols. */
export function rawWebSocket(url: string): Promise<RawPeer> {
  const target = new URL(url);
  const socket = netConnect(Number(target.port), target.hostname);
  const messages: Buffer[] = [];
  const closeCodes: number[] = [];
  const waiters: { match: (p: Buffer) => boolean; resolve: (p: Buffer) => void }[] = [];
  let ended = false;
  let buf = Buffer.alloc(0);
  let upgraded = false;
  socket.on("error", () => {});
  socket.on("close", () => (ended = true));
  const onFrame = (opcode: number, payload: Buffer) => {
    if (opcode === 8) {
      closeCodes.push(payload.length >= 2 ? payload.readUInt16BE(0) : 1005);
      return;
    }
    if (opcode !== 1 && opcode !== 2) return; // pings, pongs and continuations: ignored (never answered)
    messages.push(payload);
    for (const w of waiters.splice(0)) {
      if (w.match(payload)) w.resolve(payload);
      else waiters.push(w);
    }
  };
  const parse = () => {
    for (;;) {
      if (buf.length < 2) return;
      const opcode = buf[0] & 0x0f;
      let len = buf[1] & 0x7f;
      let at = 2;
      if (len === 126) {
        if (buf.length < 4) return;
        len = buf.readUInt16BE(2);
        at = 4;
      } else if (len === 127) {
        if (buf.length < 10) return;
        len = Number(buf.readBigUInt64BE(2));
        at = 10;
      }
      if (buf.length < at + len) return;
      onFrame(opcode, buf.subarray(at, at + len));
      buf = buf.subarray(at + len);
    }
  };
  const peer: RawPeer = {
    socket,
    messages,
    closeCodes,
    get ended() {
      return ended;
    },
    send(payload: Uint8Array) {
      const mask = randomBytes(4);
      const len = payload.length;
      const head = len < 126 ? Buffer.from([0x82, 0x80 | len]) : Buffer.from([0x82, 0x80 | 126, len >> 8, len & 0xff]);
      const body = Buffer.from(payload);
      for (let i = 0; i < body.length; i++) body[i] ^= mask[i % 4];
      socket.write(Buffer.concat([head, mask, body]));
    },
    waitFor(what, match, timeoutMs = 10000) {
      const seen = messages.find(match);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}`)), timeoutMs);
        waiters.push({
          match,
          resolve: (p) => {
            clearTimeout(timer);
            resolve(p);
          },
        });
      });
    },
  };
  return new Promise((resolve, reject) => {
    socket.once("connect", () => {
      const key = randomBytes(16).toString("base64");
      socket.write(
        `GET ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: ${key}\r\nSec-WebSocket-Version: 13\r\n\r\n`,
      );
    });
    socket.once("error", reject);
    socket.on("data", (chunk: Buffer) => {
      buf = Buffer.concat([buf, chunk]);
      if (!upgraded) {
        const end = buf.indexOf("\r\n\r\n");
        if (end < 0) return;
        const status = buf.subarray(0, buf.indexOf("\r\n")).toString();
        if (!/^HTTP\/1\.1 101 /.test(status)) {
          socket.destroy();
          return reject(new Error(`WebSocket upgrade refused: ${status}`));
        }
        upgraded = true;
        buf = buf.subarray(end + 4);
        resolve(peer);
      }
      parse();
    });
  });
}

/** A seat in `roomId` from the matchmaker (POST /matchmake/joinById), not yet claimed by any connection. */
export async function reserveSeat(base: string, roomId: string): Promise<{ sessionId: string; roomId: string; processId: string }> {
  const res = await fetch(`${base}/matchmake/joinById/${roomId}`, { method: "POST", headers: { "content-type": "application/json" }, body: "{}" });
  if (res.status !== 200) throw new Error(`joinById ${roomId} → ${res.status} ${await res.text()}`);
  return (await res.json()) as { sessionId: string; roomId: string; processId: string };
}

/**
 * A raw peer on a reserved seat's WebSocket URL. With `ack`, it completes the Colyseus join (answers
 * the JOIN_ROOM frame with its one-byte acknowledgement, as the SDK does); without, the join stays
 * half done (the server sent JOIN_ROOM and waits for the acknowledgement forever). Returns the session's
 * reconnection token as the SDK's `room.reconnectionToken` spells it (`roomId:token`).
 */
export async function rawJoin(base: string, roomId: string, ack: boolean): Promise<{ peer: RawPeer; sessionId: string; reconnectionToken: string }> {
  const seat = await reserveSeat(base, roomId);
  const ws = base.replace(/^http/, "ws");
  const peer = await rawWebSocket(`${ws}/${seat.processId}/${seat.roomId}?sessionId=${seat.sessionId}`);
  const join = await peer.waitFor("the JOIN_ROOM frame", (p) => p[0] === Protocol.JOIN_ROOM);
  if (ack) peer.send(Uint8Array.of(Protocol.JOIN_ROOM));
  // JOIN_ROOM: the code, then the session's reconnection token (one length byte, UTF-8), then the serializer.
  const reconnectionToken = `${seat.roomId}:${join.subarray(2, 2 + join[1]).toString("utf8")}`;
  return { peer, sessionId: seat.sessionId, reconnectionToken };
}
