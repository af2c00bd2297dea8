import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { KNOB_KEYS } from "../../shared/net/index.ts";
import { createPrng, getBuiltinScenario, type Prng } from "../../shared/scenarios/index.ts";
import { admin, startTestServer, TOKEN, type TestServer } from "./helpers.ts";

/**
 * The admin API under bad input: authentication variants, scenario limits (bodies, sizes, tick rate,
 * JSON bytes) answered with a 400 naming the field, and a seeded fuzz of the scenario validator, the
 * settings route and matchmaking options through real HTTP. Never a 500, never a crash, never a room
 * with a non-finite body.
 */

const SEED = 0xad_f022;

let srv: TestServer;
beforeAll(async () => {
  srv = await startTestServer();
});
afterAll(async () => {
  await srv.close();
});

async function post(path: string, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(srv.url + path, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${TOKEN}`, ...headers }, body });
}

async function message(res: Response): Promise<string> {
  const body = (await res.json()) as { message?: string; error?: string };
  return body.message ?? body.error ?? "";
}

function sphere(i: number, extra: Record<string, unknown> = {}) {
  return { id: `b${i}`, type: "static", shape: { type: "sphere", radius: 0.5 }, position: [i, 0, 0], ...extra };
}

describe("authentication", () => {
  it("answers 401 to every mutating route without exactly the right bearer token", async () => {
    const routes: [string, string, unknown][] = [
      ["POST", "/rooms", { scenario: "stack10" }],
      ["DELETE", "/rooms/abc", undefined],
      ["PATCH", "/rooms/abc/settings", { sleep: false }],
      ["POST", "/rooms/abc/scenario", { scenario: "stack10" }],
    ];
    const headers: (string | null)[] = [
      null,
      "",
      "Bearer",
      "Bearer ",
      `Basic ${Buffer.from(`admin:${TOKEN}`).toString("base64")}`,
      `Bearer ${TOKEN}x`,
      `Bearer ${TOKEN.slice(0, -1)}`,
      `Bearer ${TOKEN.toUpperCase()}`,
      `Token ${TOKEN}`,
      `Bearer ${"x".repeat(8000)}`,
      `Bearer ${TOKEN}\u00e9`,
    ];
    for (const [method, path, body] of routes) {
      for (const header of headers) {
        const h: Record<string, string> = body === undefined ? {} : { "content-type": "application/json" };
        if (header !== null) h.authorization = header;
        const res = await fetch(srv.url + path, { method, headers: h, body: body === undefined ? undefined : JSON.stringify(body) }).catch(() => null);
        // undici refuses to send a non-Latin-1 header value itself: that one never reaches the server.
        if (res === null) continue;
        expect(res.status, `${method} ${path} with ${String(header).slice(0, 30)}`).toBe(401);
      }
    }
    // The scheme is case-insensitive and surrounding blanks are tolerated (RFC 7235); the token is not.
    expect((await admin(srv.url, "DELETE", "/rooms/nosuchroom", undefined, null)).status).toBe(401);
    const ok = await fetch(`${srv.url}/rooms/nosuchroom`, { method: "DELETE", headers: { authorization: `bearer   ${TOKEN}  ` } });
    expect(ok.status).toBe(404);
  });
});

describe("limits with a 400 naming the field", () => {
  it("bodies, sizes, tick rate and JSON bytes for admin rooms", async () => {
    const tooMany = await admin(srv.url, "POST", "/rooms", { scenario: { name: "many", bodies: Array.from({ length: 20001 }, (_, i) => sphere(i)) } });
    expect(tooMany.status).toBe(400);
    expect(await message(tooMany)).toMatch(/^scenario\.bodies: at most 20000 bodies/);
    const huge = await admin(srv.url, "POST", "/rooms", { scenario: { name: "huge", bodies: [{ ...sphere(0), shape: { type: "sphere", radius: 5000 } }] } });
    expect(await message(huge)).toBe("scenario.bodies[0].shape.radius: must be <= 1000");
    const far = await admin(srv.url, "POST", "/rooms", { scenario: { name: "far", bodies: [{ ...sphere(0), position: [1e6, 0, 0] }] } });
    expect(await message(far)).toMatch(/^scenario\.bodies\[0\]\.position\[0\]: must be <= 100000/);
    const fast = await admin(srv.url, "POST", "/rooms", { scenario: { name: "fast", world: { tickRate: 5000 }, bodies: [] } });
    expect(await message(fast)).toMatch(/^scenario\.world\.tickRate: must be <= 1000/);
    // Over the scenario JSON cap (3.5 MiB) but under the 4 MiB request limit.
    const pad = "p".repeat(56);
    const bodies = Array.from({ length: 19600 }, (_, i) => sphere(i, { id: `${pad}${i}`.slice(-64), position: [i / 7, 1 / 3, 2 / 3] }));
    const text = JSON.stringify({ scenario: { name: "big", bodies } });
    expect(text.length).toBeGreaterThan(3.5 * 1024 * 1024);
    expect(text.length).toBeLessThan(4 * 1024 * 1024);
    const big = await post("/rooms", text);
    expect(big.status).toBe(400);
    expect(await message(big)).toMatch(/^scenario: scenario JSON is \d+ bytes, at most 3670016 allowed$/);
  });

  it("player rooms (matchmaking) get the tighter caps, with the same kind of message", async () => {
    const mm = (options: unknown) => post("/matchmake/create/physics", JSON.stringify(options));
    const fast = await mm({ scenario: { name: "fast", world: { tickRate: 240 }, bodies: [] } });
    expect(fast.status).toBe(400);
    expect(await message(fast)).toMatch(/scenario\.world\.tickRate: must be <= 120 in this room/);
    const long = (i: number) => ({ id: `${"q".repeat(50)}${i}`, position: [i / 7, 1 / 3, 2 / 3], linearVelocity: [1 / 3, 1 / 7, 1 / 9], angularVelocity: [1 / 11, 1 / 13, 1 / 17] });
    const bodies = Array.from({ length: 2990 }, (_, i) => sphere(i, { ...long(i), rotation: [1 / 3, 1 / 5, 1 / 7, 1] }));
    expect(JSON.stringify(bodies).length).toBeGreaterThan(1024 * 1024);
    const big = await mm({ scenario: { name: "big", bodies } });
    expect(await message(big)).toMatch(/scenario: scenario JSON is \d+ bytes, at most 1048576 allowed/);
    for (const body of ["[]", '"physics"', "42", "null"]) {
      const res = await post("/matchmake/create/physics", body);
      expect([400, 200]).toContain(res.status);
      if (res.status === 400) expect(await message(res)).toMatch(/JSON object|scenario/);
    }
    // The admin marker in join options is stripped: a player cannot claim admin caps.
    const claim = await mm({ scenario: { name: "many", bodies: Array.from({ length: 3001 }, (_, i) => sphere(i)) }, trust: TOKEN });
    expect(await message(claim)).toMatch(/scenario\.bodies: at most 3000 bodies/);
  });

  it("rejects broken JSON, prototype keys and deep nesting without a 500", async () => {
    expect((await post("/rooms", "{oops")).status).toBe(400);
    const proto = await post("/rooms", '{"scenario":"stack10","__proto__":{"polluted":true}}');
    expect(proto.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const deep = await post("/rooms", `{"scenario":${"[".repeat(100000)}${"]".repeat(100000)}}`);
    expect(deep.status).toBe(400);
    const wrongType = await fetch(`${srv.url}/rooms`, { method: "POST", headers: { "content-type": "text/plain", authorization: `Bearer ${TOKEN}` }, body: "stack10" });
    expect([400, 415]).toContain(wrongType.status);
    expect(await message(wrongType)).toMatch(/body|content-type/i);
  });
});

// ---------------------------------------------------------------- fuzz

const GARBAGE: unknown[] = [
  null,
  -1,
  0,
  1e308,
  -1e308,
  1e-320,
  0.5,
  3,
  "x",
  "",
  "sphere",
  "box",
  "dynamic",
  "x".repeat(5000),
  [],
  {},
  true,
  [0, 0],
  [0, 0, 0, 0],
  [1e308, 0, 0],
  [null, 1, 2],
  ["a", "b", "c"],
  { type: "sphere" },
  { type: "box", halfExtents: [0, 1, 1] },
  { min: [1, 1, 1], max: [0, 0, 0] },
  Array.from({ length: 300 }, (_, i) => i),
];

type Json = Record<string, unknown> | unknown[];

/** Every container path in a JSON value (arrays and objects), as key lists. */
function paths(value: unknown, at: (string | number)[] = [], out: (string | number)[][] = []): (string | number)[][] {
  if (value !== null && typeof value === "object") {
    out.push(at);
    const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
    for (const [k, v] of entries) paths(v, [...at, k], out);
  }
  return out;
}

function mutate(rng: Prng, value: Json): void {
  const all = paths(value);
  const target = all[rng.int(all.length)].reduce<unknown>((o, k) => (o as Record<string | number, unknown>)[k], value) as Json;
  const keys = Array.isArray(target) ? target.map((_, i) => i) : Object.keys(target);
  const pick = () => GARBAGE[rng.int(GARBAGE.length)];
  const op = rng.int(5);
  if (op <= 1 && keys.length > 0) (target as Record<string | number, unknown>)[keys[rng.int(keys.length)]] = structuredClone(pick());
  else if (op === 2 && keys.length > 0) {
    if (Array.isArray(target)) target.splice(rng.int(target.length), 1);
    else delete target[keys[rng.int(keys.length)] as string];
  } else if (op === 3) {
    if (Array.isArray(target)) target.push(structuredClone(pick()));
    else target[["extra", "id", "type", "mass", "bounds", "gravity", "__proto__", "constructor"][rng.int(8)]] = structuredClone(pick());
  } else if (Array.isArray(target) && target.length > 0) {
    target.push(structuredClone(target[rng.int(target.length)])); // duplicates (e.g. body ids)
  }
}

function baseScenario(): Json {
  const arena = getBuiltinScenario("stack10")!;
  return {
    ...structuredClone(arena),
    name: "fuzz",
    world: { gravity: [0, -9.81, 0], tickRate: 60, velocityIterations: 8, positionCorrection: { method: "soft", slop: 0.005 }, sleep: true, bounds: { min: [-100, -100, -100], max: [100, 100, 100] } },
    bodies: [
      ...structuredClone(arena.bodies).slice(0, 4),
      { id: "ball", type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position: [3, 2, 0], rotation: [0, 0, 0, 1], linearVelocity: [1, 0, 0], angularVelocity: [0, 1, 0], mass: 2, friction: 0.4, restitution: 0.3, linearDamping: 0.01 },
      { id: "kin", type: "kinematic", shape: { type: "box", halfExtents: [1, 0.2, 1] }, position: [-3, 1, 0], density: 500 },
    ],
  };
}

describe("fuzzing through HTTP (fixed seed)", () => {
  it("the scenario validator, the settings route and matchmaking options answer 2xx or a 400 naming the field", async () => {
    const rng = createPrng(SEED);
    const statuses = new Map<number, number>();
    const count = (s: number) => statuses.set(s, (statuses.get(s) ?? 0) + 1);
    const host = (await (await admin(srv.url, "POST", "/rooms", { scenario: "stack10" })).json()) as { roomId: string };

    for (let i = 0; i < 300; i++) {
      const scenario = baseScenario();
      for (let m = 1 + rng.int(3); m > 0; m--) mutate(rng, scenario);
      // Half the cases create a room, half load into an existing one.
      const create = i % 2 === 0;
      const res = create ? await admin(srv.url, "POST", "/rooms", { scenario }) : await admin(srv.url, "POST", `/rooms/${host.roomId}/scenario`, { scenario });
      count(res.status);
      const body = (await res.json()) as { message?: string; roomId?: string };
      if (res.status === 400) {
        expect(body.message, JSON.stringify(scenario).slice(0, 300)).toMatch(/^(scenario|body)/);
      } else {
        expect(res.status, body.message).toBe(create ? 201 : 200);
        const id = create ? body.roomId! : host.roomId;
        const info = (await (await admin(srv.url, "GET", `/rooms/${id}`, undefined, null)).json()) as { finite: boolean };
        expect(info.finite).toBe(true);
        if (create) expect((await admin(srv.url, "DELETE", `/rooms/${id}`)).status).toBe(204);
      }
    }
    // Both outcomes happened: the fuzzer is neither all-valid nor all-garbage.
    expect(statuses.get(400)).toBeGreaterThan(50);
    expect((statuses.get(201) ?? 0) + (statuses.get(200) ?? 0)).toBeGreaterThan(10);

    const knobs = [...KNOB_KEYS, "nope"];
    for (let i = 0; i < 150; i++) {
      const patch: Record<string, unknown> = {};
      for (let k = rng.int(3); k >= 0; k--) patch[knobs[rng.int(knobs.length)]] = structuredClone(GARBAGE[rng.int(GARBAGE.length)]);
      const res = await admin(srv.url, "PATCH", `/rooms/${host.roomId}/settings`, patch);
      expect([200, 400], JSON.stringify(patch).slice(0, 200)).toContain(res.status);
      if (res.status === 400) expect(await message(res)).toMatch(/^body/);
    }
    const info = (await (await admin(srv.url, "GET", `/rooms/${host.roomId}`, undefined, null)).json()) as { finite: boolean; tick: number };
    expect(info.finite).toBe(true);

    const optionKeys = ["scenario", "maxClients", "maxBodies", "maxSpawnsPerSecond", "patchRateMs", "trust", "x"];
    for (let i = 0; i < 100; i++) {
      const options: Record<string, unknown> = {};
      for (let k = rng.int(4); k >= 0; k--) options[optionKeys[rng.int(optionKeys.length)]] = structuredClone(GARBAGE[rng.int(GARBAGE.length)]);
      const res = await post("/matchmake/create/physics", JSON.stringify(options));
      expect([200, 400], JSON.stringify(options).slice(0, 200)).toContain(res.status);
      const body = (await res.json()) as { roomId?: string; error?: string };
      if (res.status === 200) expect((await admin(srv.url, "DELETE", `/rooms/${body.roomId}`)).status).toBe(204);
      else expect(body.error).toMatch(/scenario/);
    }
    // Still serving.
    expect((await admin(srv.url, "GET", "/health", undefined, null)).status).toBe(200);
  });
});
