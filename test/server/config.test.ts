import { spawn } from "node:child_process";
import { createServer, type AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { redisOptions } from "../../server/cluster.ts";
import { ConfigError, DEFAULT_LIMITS, readConfig, readStartConfig } from "../../server/config.ts";
import { InputLimiter } from "../../server/rooms/input-limiter.ts";

const REPO = resolve(import.meta.dirname, "../..");
/** The pinned Node (package.json's `node` devDependency), as npm scripts run it. */
const NODE = join(REPO, "node_modules", ".bin", "node");

describe("process configuration", () => {
  it("reads every limit from its variable and refuses malformed values by name", () => {
    expect(readConfig({}).limits).toEqual(DEFAULT_LIMITS);
    const c = readConfig({ MAX_INPUTS_PER_SECOND: "60", ROOM_IDLE_SECONDS: "0.5", REPLAY_DIR_MAX_BYTES: "1048576", REDIS_KEY_PREFIX: "game1:" });
    expect(c.limits).toMatchObject({ maxInputsPerSecond: 60, roomIdleSeconds: 0.5, replayDirMaxBytes: 1048576 });
    expect(c.redisKeyPrefix).toBe("game1:");
    expect(() => readConfig({ MAX_INPUTS_PER_SECOND: "0" })).toThrow(/^MAX_INPUTS_PER_SECOND must be a number in 1\.\.1000000, got "0"$/);
    expect(() => readConfig({ SHUTDOWN_TIMEOUT_MS: "NaN" })).toThrow(/SHUTDOWN_TIMEOUT_MS/);
    expect(() => readConfig({ PUBLIC_ADDRESS: "http://example.com/a" })).toThrow(/^PUBLIC_ADDRESS must be host\[:port\]\[\/path\] without a scheme .*, got "http:\/\/example.com\/a"$/);
    expect(readConfig({ PUBLIC_ADDRESS: "example.com/a" }).publicAddress).toBe("example.com/a");
  });

  it("names every malformed variable at once: its name, its value and what is allowed", () => {
    const bad = { PORT: "80x", LOG_LEVEL: "loud", LOG_FORMAT: "xml", HOST: "my host", REDIS_URL: "http://redis", TRUST_PROXY: "everyone", MAX_ROOMS: "-1" };
    let error: unknown;
    try {
      readConfig(bad);
    } catch (err) {
      error = err;
    }
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems).toEqual([
      'PORT must be an integer in 0..65535, got "80x"',
      'HOST must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, localhost), got "my host"',
      'REDIS_URL must be a redis:// or rediss:// URL (redis://[user:pass@]host:port[/db]), got "http://redis"',
      'LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      'LOG_FORMAT must be one of pretty, json, got "xml"',
      'TRUST_PROXY must be a hop count or a comma-separated address/CIDR list, got "everyone"',
      'MAX_ROOMS must be a number in 1..1000000, got "-1"',
    ]);
    // A value is quoted as JSON and cut at 40 characters (no control characters reach the terminal).
    expect(() => readConfig({ PORT: `${"9".repeat(50)}\u001b[31m` })).toThrow(`PORT must be an integer in 0..65535, got "${"9".repeat(40)}…"`);
    expect(() => readConfig({ REDIS_URL: "redis://host/abc" })).toThrow(/^REDIS_URL must be .*its database a non-negative integer, got "redis:\/\/host\/abc"$/);
    // Well-formed values, in any case, and blanks take the defaults.
    const ok = readConfig({ PORT: " 8080 ", HOST: "0.0.0.0", LOG_LEVEL: "DEBUG", LOG_FORMAT: "json", REDIS_URL: "rediss://u:p@redis.example:6380/2", TRUST_PROXY: "1", MAX_ROOMS: "" });
    expect(ok).toMatchObject({ port: 8080, host: "0.0.0.0", logLevel: "debug", logFormat: "json", redisUrl: "rediss://u:p@redis.example:6380/2", trustProxy: 1 });
    expect(ok.limits.maxRooms).toBe(DEFAULT_LIMITS.maxRooms);
    expect(readConfig({})).toMatchObject({ port: 2567, host: "127.0.0.1", logLevel: "info", logFormat: undefined, adminTokenGenerated: true });
    // npm run dev adds VITE_PORT; both sets are checked together.
    expect(readStartConfig({ VITE_PORT: "5174" }, true).dev).toEqual({ vitePort: 5174 });
    expect(readStartConfig({ VITE_PORT: "nope" }, false).dev).toBeNull();
    expect(() => readStartConfig({ VITE_PORT: "nope", PORT: "-1" }, true)).toThrow('PORT must be an integer in 0..65535, got "-1"\nVITE_PORT must be an integer in 1..65535, got "nope"');
  });

  it("turns REDIS_URL into ioredis options with the key prefix (a command waits through 3 reconnection attempts at most)", () => {
    expect(redisOptions("redis://127.0.0.1:6379", "p:")).toEqual({ host: "127.0.0.1", port: 6379, db: 0, keyPrefix: "p:", maxRetriesPerRequest: 3 });
    expect(redisOptions("rediss://user:s%40cret@redis.example:6380/3", "")).toEqual({
      host: "redis.example",
      port: 6380,
      db: 3,
      username: "user",
      password: "s@cret",
      tls: {},
      maxRetriesPerRequest: 3,
    });
    expect(() => redisOptions("http://x", "")).toThrow(/redis:\/\/ or rediss:\/\//);
    expect(() => redisOptions("redis://x/abc", "")).toThrow(/database must be a non-negative integer/);
  });
});

describe("input limiter", () => {
  it("accepts up to the rate, throttles the rest of the second, and disconnects a sustained or 4x flood", () => {
    const l = new InputLimiter(10, 3);
    const verdicts = Array.from({ length: 12 }, () => l.check(0));
    expect(verdicts.slice(0, 10).every((v) => v === "accept")).toBe(true);
    expect(verdicts.slice(10)).toEqual(["throttle", "throttle"]);
    // Second and third consecutive seconds over the rate: throttled, then disconnected.
    for (let i = 0; i < 11; i++) l.check(1000);
    expect(l.check(2000 + 1)).toBe("accept");
    for (let i = 0; i < 9; i++) l.check(2001);
    expect(l.check(2002)).toBe("disconnect");
    expect(l.reason()).toBe("rate limit: over 10 messages per second for 3 s (11 in the last second)");
    // A quiet second resets the streak.
    const q = new InputLimiter(10, 2);
    for (let i = 0; i < 11; i++) q.check(0);
    expect(q.check(2500)).toBe("accept");
    for (let i = 0; i < 10; i++) q.check(2500);
    expect(q.check(2500)).toBe("throttle");
    // 4x within one second: at once.
    const f = new InputLimiter(10, 100);
    const all = Array.from({ length: 41 }, () => f.check(0));
    expect(all[39]).toBe("throttle");
    expect(all[40]).toBe("disconnect");
    // Notices: 10 per second.
    const n = new InputLimiter(1000, 3);
    expect(Array.from({ length: 12 }, () => n.allowNotice(0)).filter(Boolean).length).toBe(10);
    expect(n.allowNotice(1000)).toBe(true);
  });
});

/** `npm start` as it runs (scripts/start.ts on the pinned Node), with `env` on top of a clean environment. */
function start(env: Record<string, string>, args: string[] = [], entry = "scripts/start.ts"): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(NODE, [entry, ...args], { cwd: REPO, env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c) => (stdout += c));
    child.stderr.on("data", (c) => (stderr += c));
    child.once("close", (code) => done({ code, stdout, stderr }));
  });
}

/** Lines of a stack trace ("    at f (file:1:2)"). */
const STACK_LINE = /^\s+at /m;

describe("a start stopped by its configuration", () => {
  it("npm start with several malformed variables: one line each, exit 2, no stack trace, before any build", async () => {
    const r = await start({ PORT: "http", LOG_LEVEL: "loud", MAX_ROOMS: "many", REDIS_URL: "localhost:6379", SHUTDOWN_TIMEOUT_MS: "1e9" });
    console.log(r.stderr);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).not.toMatch(STACK_LINE);
    expect(r.stderr.trimEnd().split("\n")).toEqual([
      "cannot start: 5 environment variables are malformed",
      '  PORT must be an integer in 0..65535, got "http"',
      '  REDIS_URL must be a redis:// or rediss:// URL (redis://[user:pass@]host:port[/db]), got "localhost:6379"',
      '  LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent, got "loud"',
      '  MAX_ROOMS must be a number in 1..1000000, got "many"',
      '  SHUTDOWN_TIMEOUT_MS must be a number in 100..600000, got "1e9"',
    ]);
    const dev = await start({ VITE_PORT: "vite", HOST: "a b" }, ["--dev"]);
    expect(dev.code).toBe(2);
    expect(dev.stderr).not.toMatch(STACK_LINE);
    expect(dev.stderr).toContain('  HOST must be an IP address or a host name (e.g. 127.0.0.1, 0.0.0.0, localhost), got "a b"\n');
    expect(dev.stderr).toContain('  VITE_PORT must be an integer in 1..65535, got "vite"\n');
  }, 120_000);

  it("a port that is taken: the message names PORT, exit 2, no stack trace", async () => {
    const taken = createServer();
    await new Promise<void>((res) => taken.listen(0, "127.0.0.1", res));
    const port = (taken.address() as AddressInfo).port;
    // The server warms its engine before it binds: seconds, many more on a busy machine (hence the timeout).
    try {
      const r = await start({ PORT: String(port), HOST: "127.0.0.1", ADMIN_TOKEN: "t", REPLAY_DIR: join(tmpdir(), "physics-config-test-replays") }, [], "server/main.ts");
      console.log(r.stderr);
      expect(r.code).toBe(2);
      expect(r.stderr).not.toMatch(STACK_LINE);
      expect(r.stderr).toBe(`cannot start: PORT ${port} is already in use on 127.0.0.1 (another server?): stop it or set PORT to a free port\n`);
    } finally {
      await new Promise<void>((res) => taken.close(() => res()));
    }
  }, 120_000);
});
