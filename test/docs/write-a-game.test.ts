import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Client, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { RoomState } from "../../shared/net/index.ts";
import { waitForMessage, waitForState } from "../server/helpers.ts";
import { freePort } from "../server/processes.ts";
import { REPO } from "./readme.ts";
import { type RunningCommand, runReadmeCommand, startReadmeCommand, waitForHttp } from "./shell.ts";

/**
 * README.md's "Write your own game", followed the way a newcomer follows it: the example game and its
 * test are taken from the README's code blocks as they are, saved in `~/my-game/` (HOME is a fresh
 * temporary directory, so the game lives outside the checkout and nothing of the reader's is touched),
 * and every command of the section runs exactly as written (test/docs/commands.ts registers them here).
 * Only the environment differs from a reader's shell: HOME, PORT (a free port) and ADMIN_TOKEN.
 */
const START = "GAMES=~/my-game/my-game.ts npm start";
const LINK = `mkdir -p ~/my-game/node_modules && ln -s "$PWD" ~/my-game/node_modules/physics-rooms`;
const TEST = "npx vitest run --root ~/my-game";
const VERIFY = "GAMES=~/my-game/my-game.ts npm run replay -- verify data/replays/<roomId>.ndjson";
/** The section's verify command without GAMES (README.md shows it under "The room server"). */
const VERIFY_WITHOUT_GAMES = "npm run replay -- verify data/replays/<roomId>.ndjson";

const GAME = "coin-grab";

/** The README code block whose first line is `firstLine` (the file's name as a comment), without its fences. */
function readmeBlock(firstLine: string): string {
  const lines = readFileSync(join(REPO, "README.md"), "utf8").split("\n");
  const start = lines.findIndex((line, k) => line === firstLine && /^```ts\s*$/.test(lines[k - 1] ?? ""));
  if (start < 0) throw new Error(`README.md has no \`\`\`ts block starting with ${firstLine}`);
  const end = lines.indexOf("```", start);
  return `${lines.slice(start, end).join("\n")}\n`;
}

const GAME_SOURCE = readmeBlock("// ~/my-game/my-game.ts");
const TEST_SOURCE = readmeBlock("// ~/my-game/my-game.test.ts");

const homes: string[] = [];
/** A fresh HOME with `~/my-game/my-game.ts` holding `source`. */
function homeWith(source: string): string {
  const home = mkdtempSync(join(tmpdir(), "write-a-game-"));
  homes.push(home);
  mkdirSync(join(home, "my-game"));
  writeFileSync(join(home, "my-game", "my-game.ts"), source);
  return home;
}

/** Waits for a command to exit by itself; stops it (and fails) if it is still running after `ms`. */
async function exitOf(running: RunningCommand, ms = 120_000): Promise<number | NodeJS.Signals | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<"running">((resolve) => {
    timer = setTimeout(() => resolve("running"), ms);
  });
  const result = await Promise.race([running.exited, late]);
  clearTimeout(timer);
  if (result === "running") {
    await running.stop();
    throw new Error(`still running after ${ms} ms:\n${running.output()}`);
  }
  return result;
}

describe("README: Write your own game", { timeout: 300_000 }, () => {
  let home: string;
  const replays: string[] = [];
  beforeAll(() => {
    home = homeWith(GAME_SOURCE);
    writeFileSync(join(home, "my-game", "my-game.test.ts"), TEST_SOURCE);
  });
  afterAll(() => {
    for (const file of replays) rmSync(file, { force: true });
    for (const dir of homes) rmSync(dir, { recursive: true, force: true });
  });

  it("the example game and its test type-check (strict, like the checkout)", () => {
    const dir = mkdtempSync(join(tmpdir(), "write-a-game-tsc-"));
    homes.push(dir);
    writeFileSync(
      join(dir, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "es2023",
          lib: ["es2023", "dom"],
          module: "preserve",
          moduleResolution: "bundler",
          strict: true,
          noEmit: true,
          allowImportingTsExtensions: true,
          verbatimModuleSyntax: true,
          erasableSyntaxOnly: true,
          skipLibCheck: true,
          types: [],
          paths: { "physics-rooms/game": [join(REPO, "shared", "game", "index.ts")], vitest: [join(REPO, "node_modules", "vitest")] },
        },
        files: [join(home, "my-game", "my-game.ts"), join(home, "my-game", "my-game.test.ts")],
      }),
    );
    const r = spawnSync(join(REPO, "node_modules", ".bin", "tsc"), ["-p", join(dir, "tsconfig.json")], { encoding: "utf8" });
    expect(r.status, `${r.stdout}${r.stderr}`).toBe(0);
  });

  it(`${LINK}, then ${TEST}: the README's test passes`, async () => {
    const link = await runReadmeCommand(LINK, { env: { HOME: home } });
    expect(link.code, link.stderr).toBe(0);
    expect(existsSync(join(home, "my-game", "node_modules", "physics-rooms", "shared", "game", "index.ts"))).toBe(true);
    const test = await runReadmeCommand(TEST, { env: { HOME: home } });
    console.log(`${TEST}: exit ${test.code}\n${test.stdout.slice(-600)}`);
    expect(test.code, `${test.stdout}\n${test.stderr}`).toBe(0);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: vitest colours its summary
    expect(test.stdout.replace(/\x1b\[[0-9;]*m/g, "")).toMatch(/Tests\s+3 passed/);
  });

  let roomId = "";

  it(`${START} serves the game: GET /games, the page, a real client plays it, POST /rooms creates one`, async () => {
    const port = await freePort();
    const token = randomBytes(12).toString("hex");
    const server = startReadmeCommand(START, { env: { HOME: home, PORT: String(port), ADMIN_TOKEN: token } });
    const base = `http://127.0.0.1:${port}`;
    const auth = { authorization: `Bearer ${token}` };
    let room: Room | null = null;
    try {
      await waitForHttp(`${base}/health`, server);

      const games = (await (await fetch(`${base}/games`)).json()) as { name: string; inputs: { name: string; empty: boolean; perSecond?: number; schema: { properties?: Record<string, unknown> } }[]; state: Record<string, unknown>; playerState: Record<string, unknown>; client: { keys: unknown[] } }[];
      expect(games.map((g) => g.name)).toEqual(["sandbox", "soccer", "tower", GAME]);
      const listed = games.find((g) => g.name === GAME);
      expect(listed?.inputs).toHaveLength(1);
      expect(listed?.inputs[0]).toMatchObject({ name: "shout", empty: false, perSecond: 2 });
      expect(Object.keys(listed?.inputs[0].schema.properties ?? {})).toEqual(["text"]);
      expect(listed?.state).toEqual({ round: 1, secondsLeft: 60, lastWinner: "", news: "" });
      expect(listed?.playerState).toEqual({ coins: 0 });
      expect(listed?.client.keys).toEqual([{ key: "KeyH", input: "shout", message: { text: "hello!" } }]);

      const page = await fetch(`${base}/?game=${GAME}`);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain("<html");

      // As the README's snippet does: no schema class, the state decoded from the server's reflection.
      room = await new Client(base).joinOrCreate("physics", { game: GAME });
      const joined = room;
      const welcome = await waitForMessage<{ game: string; sessionId: string }>(joined as unknown as Room<unknown, RoomState>, "welcome");
      expect(welcome.game).toBe(GAME);
      const session = joined.sessionId;
      const rejected: { type: string; reason: string }[] = [];
      joined.onMessage("rejected", (m: { type: string; reason: string }) => rejected.push(m));
      const field = (key: string) => waitFor(joined, `field ${key}`, (fields) => fields.get(key));
      const fieldIs = (key: string, value: unknown) => waitFor(joined, `${key} = ${JSON.stringify(value)}`, (fields) => fields.get(key) === JSON.stringify(value));

      await fieldIs("news", `${session} joined`);
      expect(await field(`${session}:coins`)).toBe("0");
      joined.send("shout", { text: "hi" });
      await fieldIs("news", `${session}: hi`);

      joined.send("shout", { text: "" });
      await waitFor(joined, "a rejection", () => rejected.length > 0);
      expect(rejected[0].type).toBe("shout");
      expect(rejected[0].reason).toMatch(/^text: /);
      console.log(`rejected: ${rejected[0].reason}`);

      // Straight ahead from the spawn point to the coin's first spot.
      joined.send("move", { vx: 0, vz: 6 });
      await fieldIs(`${session}:coins`, 1);

      roomId = joined.roomId;
      await joined.leave();
      room = null;

      const created = await fetch(`${base}/rooms`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ game: GAME }) });
      expect(created.status).toBe(201);
      const adminRoom = ((await created.json()) as { roomId: string }).roomId;
      replays.push(join(REPO, "data", "replays", `${adminRoom}.ndjson`));
      const rooms = (await (await fetch(`${base}/rooms`)).json()) as { roomId: string; game: string }[];
      expect(rooms.find((r) => r.roomId === adminRoom)?.game).toBe(GAME);
      const unknown = await fetch(`${base}/rooms`, { method: "POST", headers: { ...auth, "content-type": "application/json" }, body: JSON.stringify({ game: "no-such-game" }) });
      expect(unknown.status).toBe(400);
      expect(await unknown.text()).toContain(GAME);

      // Close the played room so its replay ends cleanly, then verify it below.
      for (const id of [roomId, adminRoom]) {
        const closed = await fetch(`${base}/rooms/${id}`, { method: "DELETE", headers: auth });
        expect([204, 404], `DELETE /rooms/${id}`).toContain(closed.status);
      }
    } finally {
      if (roomId !== "") replays.push(join(REPO, "data", "replays", `${roomId}.ndjson`));
      await room?.leave().catch(() => {});
      console.log(`${START}: stopped with ${await server.stop()}`);
    }
  });

  it(`${VERIFY} verifies the room played above; without GAMES the verifier says to set it`, async () => {
    expect(roomId, "the room of the previous test").not.toBe("");
    const file = join(REPO, "data", "replays", `${roomId}.ndjson`);
    const header = JSON.parse(readFileSync(file, "utf8").split("\n")[0]) as { game: unknown };
    const module = join(home, "my-game", "my-game.ts");
    expect(header.game).toEqual({ name: GAME, version: "1", module });

    const verify = await runReadmeCommand(VERIFY, { env: { HOME: home }, substitute: { "<roomId>": roomId } });
    console.log(`${VERIFY}: exit ${verify.code}: ${verify.stdout.trim().split("\n").at(-1)}`);
    expect(verify.code, `${verify.stdout}\n${verify.stderr}`).toBe(0);
    expect(verify.stdout).toContain(`OK data/replays/${roomId}.ndjson`);

    const without = await runReadmeCommand(VERIFY_WITHOUT_GAMES, { env: { HOME: home, GAMES: "" }, substitute: { "<roomId>": roomId } });
    expect(without.code).toBe(2);
    expect(`${without.stdout}${without.stderr}`).toContain(`the room played game "${GAME}", which this verifier does not have`);
    expect(`${without.stdout}${without.stderr}`).toContain(`set GAMES=${module}`);
  });

  it(`${START} with a module that is not a game stops with exit 2 and a line naming the file`, async () => {
    const broken: [string, string][] = [
      ['export default { name: "coin-grab" };\n', "the module's default export is not a game"],
      [GAME_SOURCE.replace("state: { round: 1,", "state: { round: null,"), "state.round: expected a number, string or boolean initial value"],
    ];
    for (const [source, problem] of broken) {
      const brokenHome = homeWith(source);
      const port = await freePort();
      const run = startReadmeCommand(START, { env: { HOME: brokenHome, PORT: String(port), ADMIN_TOKEN: "x".repeat(24) } });
      const code = await exitOf(run);
      const out = run.output();
      console.log(`${START} (broken): exit ${code}: ${out.trim().split("\n").find((l) => l.startsWith("cannot start"))}`);
      expect(code, out).not.toBe(0);
      expect(out).toContain(`cannot start: GAMES: ${join(brokenHome, "my-game", "my-game.ts")}: `);
      expect(out).toContain(problem);
    }
  });
});

/** Resolves once `predicate` holds for the room's `fields` map (checked after every patch). */
function waitFor<T>(room: Room, what: string, predicate: (fields: Map<string, string>) => T | undefined | false | null): Promise<T> {
  return waitForState(room as unknown as Room<unknown, RoomState>, what, (state) => predicate((state.fields ?? new Map()) as Map<string, string>), 60_000);
}
