import { describe, expect, it } from "vitest";
import { redisOptions } from "../../server/cluster.ts";
import { DEFAULT_LIMITS, readConfig } from "../../server/config.ts";
import { InputLimiter } from "../../server/rooms/input-limiter.ts";

describe("process configuration", () => {
  it("reads every limit from its variable and refuses malformed values by name", () => {
    expect(readConfig({}).limits).toEqual(DEFAULT_LIMITS);
    const c = readConfig({ MAX_INPUTS_PER_SECOND: "60", ROOM_IDLE_SECONDS: "0.5", REPLAY_DIR_MAX_BYTES: "1048576", REDIS_KEY_PREFIX: "game1:" });
    expect(c.limits).toMatchObject({ maxInputsPerSecond: 60, roomIdleSeconds: 0.5, replayDirMaxBytes: 1048576 });
    expect(c.redisKeyPrefix).toBe("game1:");
    expect(() => readConfig({ MAX_INPUTS_PER_SECOND: "0" })).toThrow(/^MAX_INPUTS_PER_SECOND must be a number in 1\.\.1000000, got "0"$/);
    expect(() => readConfig({ SHUTDOWN_TIMEOUT_MS: "NaN" })).toThrow(/SHUTDOWN_TIMEOUT_MS/);
    expect(() => readConfig({ PUBLIC_ADDRESS: "http://example.com/a" })).toThrow(/PUBLIC_ADDRESS is host\[:port\]\[\/path\] without a scheme/);
    expect(readConfig({ PUBLIC_ADDRESS: "example.com/a" }).publicAddress).toBe("example.com/a");
  });

  it("turns REDIS_URL into ioredis options with the key prefix", () => {
    expect(redisOptions("redis://127.0.0.1:6379", "p:")).toEqual({ host: "127.0.0.1", port: 6379, db: 0, keyPrefix: "p:" });
    expect(redisOptions("rediss://user:s%40cret@redis.example:6380/3", "")).toEqual({ host: "redis.example", port: 6380, db: 3, username: "user", password: "s@cret", tls: {} });
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
