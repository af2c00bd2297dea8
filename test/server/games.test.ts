import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Client } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { GameRegistry } from "../../shared/game/registry.ts";
import { CLOSE_GAME_FAILED, MSG_REJECTED, MSG_WELCOME, type RejectedMessage, RoomState, type WelcomeMessage } from "../../shared/net/index.ts";
import { loadGames } from "../../server/games.ts";
import { verifyReplay } from "../../server/replay/verify.ts";
import { admin, createRoom, joinRoom, startTestServer, type TestRoom, type TestServer, waitForState } from "./helpers.ts";

/**
 * Games on a real server over real sockets: the game list, rooms matched by game, a game's inputs
 * validated at the boundary, its fields synced, and the two ways a game can go wrong: a hook that throws
 * (logged, the room goes on; ten in a row close the room with the reason), and a hook that reads
 * Math.random (its room's replay diverges on the tick that did). Two test games (test/fixtures/games)
 * are loaded as GAMES modules beside the built-ins.
 */
const FIXTURES = join(import.meta.dirname, "..", "fixtures", "games");

let games: GameRegistry;
let srv: TestServer;

beforeAll(async () => {
  games = await loadGames([join(FIXTURES, "dice.ts"), join(FIXTURES, "fragile.ts")]);
  srv = await startTestServer({ games });
});

afterAll(async () => {
  await srv?.close();
});

/** A field of the room's game (`fields` carries JSON text), or undefined. */
function field(state: RoomState, key: string): unknown {
  const text = state.fields?.get(key);
  return text === undefined ? undefined : JSON.parse(text);
}

/** Joins through matchmaking (joinOrCreate) with `options`; waits for the welcome. */
async function play(options: Record<string, unknown>): Promise<{ room: TestRoom; welcome: WelcomeMessage }> {
  const client = new Client(srv.url);
  const room = (await client.joinOrCreate("physics", options, RoomState)) as TestRoom;
  room.rejected = [];
  room.onMessage(MSG_REJECTED, (m: RejectedMessage) => room.rejected.push(m));
  const welcome = await new Promise<WelcomeMessage>((resolve) => {
    const off = room.onMessage(MSG_WELCOME, (w: WelcomeMessage) => {
      off();
      resolve(w);
    });
  });
  return { room, welcome };
}

async function rejection(room: TestRoom, n: number): Promise<RejectedMessage> {
  const deadline = Date.now() + 10_000;
  while (room.rejected.length < n && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
  expect(room.rejected.length, "rejections").toBeGreaterThanOrEqual(n);
  return room.rejected[n - 1];
}

describe("games on the server", () => {
  it("GET /games lists the built-ins then the GAMES modules, each input with its JSON Schema", async () => {
    const list = (await (await fetch(`${srv.url}/games`)).json()) as {
      name: string;
      avatar: unknown;
      inputs: { name: string; schema: { type?: string; properties?: Record<string, unknown> }; empty: boolean }[];
      state: Record<string, unknown>;
    }[];
    expect(list.map((g) => g.name)).toEqual(["sandbox", "soccer", "tower", "dice", "fragile"]);
    const sandbox = list[0];
    expect(sandbox.inputs.map((i) => i.name)).toEqual(["spawn", "impulse", "restart"]);
    expect(Object.keys(sandbox.inputs[0].schema.properties ?? {})).toEqual(["shape", "size", "velocity"]);
    expect(sandbox.inputs.find((i) => i.name === "restart")!.empty).toBe(true);
    const dice = list.find((g) => g.name === "dice")!;
    expect(dice.avatar).toBeNull();
    expect(dice.state).toEqual({ luck: 0, fair: 0, rolls: 0 });
  });

  it("rooms are matched by game; a game's inputs are validated, rate-free ones queued, its fields synced", async () => {
    const { room: a, welcome } = await play({ game: "dice" });
    expect(welcome.game).toBe("dice");
    expect(welcome.avatar).toBeNull();
    const { room: sandboxPlayer, welcome: sandboxWelcome } = await play({});
    expect(sandboxWelcome.game).toBe("sandbox");
    expect(sandboxPlayer.roomId).not.toBe(a.roomId);
    const { room: b } = await play({ game: "dice" });
    expect(b.roomId).toBe(a.roomId);
    const listed = (await (await fetch(`${srv.url}/rooms`)).json()) as { roomId: string; game: string }[];
    expect(listed.find((r) => r.roomId === a.roomId)?.game).toBe("dice");
    expect(listed.find((r) => r.roomId === sandboxPlayer.roomId)?.game).toBe("sandbox");

    await waitForState(a, "dice fields", (s) => field(s, "rolls") === 0);
    a.send("fair-roll", {});
    await waitForState(a, "a fair roll", (s) => field(s, "rolls") === 1 && (field(s, "fair") as number) > 0);
    // The game's schema at the boundary: the field's path in the reason; a sandbox message and a move are
    // not this game's (it has no avatar).
    a.send("roll", { loaded: true });
    expect(await rejection(a, 1)).toEqual({ type: "roll", reason: '(message): Unrecognized key: "loaded"' });
    a.send("spawn", { shape: "box", size: 0.3 });
    expect((await rejection(a, 2)).reason).toBe('unknown message type "spawn" (game "dice" takes "roll", "fair-roll")');
    a.send("move", { vx: 1, vz: 0 });
    expect((await rejection(a, 3)).reason).toMatch(/^unknown message type "move"/);
    const { room: bad } = await play({ game: "nope" }).then(
      () => ({ room: null }),
      (err: Error) => {
        expect(err.message).toBe('invalid game: game: no game "nope" (known: sandbox, soccer, tower, dice, fragile)');
        return { room: null };
      },
    );
    expect(bad).toBeNull();
    await Promise.all([a.leave(), b.leave(), sandboxPlayer.leave()]);
  });

  it("a hook that throws is dropped and the room goes on; one that keeps throwing closes the room with the reason", async () => {
    const roomId = await createRoom(srv.url, { game: "fragile" });
    const p = await joinRoom(srv.url, roomId);
    await waitForState(p, "fragile fields", (s) => field(s, "count") === 0);
    p.send("oops", {});
    p.send("count", { by: 2 });
    await waitForState(p, "the count after an oops", (s) => field(s, "count") === 2 && field(s, "oopses") === 1);
    p.send("count", { by: 99 });
    expect(await rejection(p, 1)).toEqual({ type: "count", reason: "by: Too big: expected number to be <=10" });

    const closed = new Promise<{ code: number; reason?: string }>((resolve) => p.onLeave((code, reason) => resolve({ code, reason })));
    p.send("break", {});
    const { code, reason } = await closed;
    expect(code).toBe(CLOSE_GAME_FAILED);
    expect(reason).toMatch(/^room closed: game "fragile": hooks threw 10 times in a row \(last: onTick on tick \d+: broken since tick \d+\)/);
    // The replay ends with the reason, and re-runs the same failure: it verifies.
    const file = join(srv.replayDir, `${roomId}.ndjson`);
    await waitForEnd(file);
    const lines = readFileSync(file, "utf8").trim().split("\n");
    expect(JSON.parse(lines[lines.length - 1])).toMatchObject({ type: "end", reason: "game-failed" });
    const report = await verifyReplay(file, { games });
    expect(report.divergence).toBeNull();
    expect(report.header.game).toEqual({ name: "fragile", version: "1", module: join(FIXTURES, "fragile.ts") });
  });

  it("a hook that reads Math.random is caught by verify on the tick it first did", async () => {
    const roomId = await createRoom(srv.url, { game: "dice" });
    const p = await joinRoom(srv.url, roomId);
    await waitForState(p, "dice fields", (s) => field(s, "rolls") === 0);
    p.send("fair-roll", {});
    await waitForState(p, "a fair roll", (s) => field(s, "rolls") === 1);
    p.send("roll", {});
    await waitForState(p, "a loaded roll", (s) => field(s, "rolls") === 2);
    await p.leave();
    expect((await admin(srv.url, "DELETE", `/rooms/${roomId}`)).status).toBe(204);
    const file = join(srv.replayDir, `${roomId}.ndjson`);
    await waitForEnd(file);
    const rollTick = tickOfInput(file, "roll");
    expect(tickOfInput(file, "fair-roll")).toBeLessThan(rollTick);
    const report = await verifyReplay(file, { games });
    console.log(`dice: Math.random in onInput on tick ${rollTick}; verify diverged on tick ${report.divergence?.tick}`);
    expect(report.divergence?.tick).toBe(rollTick);
    // Without the module, verify says which game it needs and where it came from.
    await expect(verifyReplay(file)).rejects.toThrow(`set GAMES=${join(FIXTURES, "dice.ts")}`);
  });
});

/** The tick whose inputs hold the first input named `name`. */
function tickOfInput(file: string, name: string): number {
  for (const text of readFileSync(file, "utf8").split("\n")) {
    if (text === "") continue;
    const line = JSON.parse(text) as { t?: number; i?: { type: string; name?: string }[] };
    if (line.i?.some((i) => i.type === "input" && i.name === name)) return line.t!;
  }
  throw new Error(`no "${name}" input in ${file}`);
}

/** Waits until the recording's end line is on disk. */
async function waitForEnd(file: string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    let text = "";
    try {
      text = readFileSync(file, "utf8");
    } catch {}
    if (text.includes('"type":"end"')) return;
    if (Date.now() > deadline) throw new Error(`${file}: no end line`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
