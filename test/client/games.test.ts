
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import soccer from "../../games/soccer.ts";
import tower from "../../games/tower.ts";
import type { TestServer } from "../server/helpers.ts";
import { type BrowserRig, startBrowserRig } from "./browser-rig.ts";

/**
 * Games in the browser, with no client code of their own: a real server serving a fresh client build,
 * Debian's chromium. `/?game=<name>` joins a room of that game; the page reads the game's inputs, keys,
 * fields and labels from GET /games, shows the fields in the HUD (from the room state's `fields` map)
 * and sends the game's inputs from its keys and buttons. A click spawns a ball only in a game that has
 * the sandbox's `spawn` input.
 */
const WAIT = { timeout: 90_000, polling: 250 } as const;

interface Fields {
  game: Record<string, string | number | boolean>;
  players: Record<string, Record<string, string | number | boolean>>;
}
type Hooked = typeof globalThis & {
  __physics: {
    joined: boolean;
    game: string;
    gameKnown: boolean;
    avatarSpec: { halfExtents: number[] } | null;
    fields(): Fields;
    bodyCount(): number;
    sessionId: string;
    rejected(): { type: string; reason: string }[];
  };
};

let rig: BrowserRig;
let srv: TestServer;
let browser: Browser;
const pageErrors: string[] = [];

beforeAll(async () => {
  // The games' rooms are player rooms: on a saturated machine (the whole suite, Chromium) their CPU
  // budget, measured in wall time, closed a soccer room mid-test (the second page then made a room of its
  // own). This file is about the games in the page, not CPU admission (test/server/room-budget.test.ts).
  rig = await startBrowserRig("games", { playerRoomCpuMs: 1000, playerRoomsCpuMs: 8000 });
  ({ srv, browser } = rig);
}, 120_000);

afterAll(async () => {
  await rig?.close();
});

/** A page in a room of `game` (none: the page's default), once the game's listing and the own fields arrived. */
async function open(game?: string): Promise<{ page: Page; session: string }> {
  const page = await browser.newPage({ viewport: { width: 900, height: 560 } });
  page.on("pageerror", (err) => pageErrors.push(err.message));
  await page.goto(game ? `${srv.url}/?game=${game}` : srv.url, { waitUntil: "domcontentloaded", timeout: WAIT.timeout });
  await page.waitForFunction(() => (globalThis as Hooked).__physics?.joined && (globalThis as Hooked).__physics.gameKnown, undefined, WAIT);
  const session = await page.evaluate(() => (globalThis as Hooked).__physics.sessionId);
  return { page, session };
}

/** The HUD's text for a game field (`data-field`) or an own player field (`data-player-field`). */
function hudField(page: Page, attribute: "field" | "player-field", name: string): Promise<string | null> {
  return page.evaluate(([a, n]) => document.querySelector(`#hud dl.game dd[data-${a}="${n}"]`)?.textContent ?? null, [attribute, name] as const);
}

/**
 * Waits until the HUD labels a field as `label`: the first patch can bring the fields before GET /games
 * brings their labels, and the HUD redraws on its own frame.
 */
async function expectLabel(page: Page, attribute: "field" | "player-field", name: string, label: string | undefined): Promise<void> {
  expect(label).toBeDefined();
  await page.waitForFunction(([a, n, l]) => document.querySelector(`#hud dl.game dd[data-${a}="${n}"]`)?.previousElementSibling?.textContent === l, [attribute, name, label] as const, WAIT).catch(() => {});
  expect(await hudLabel(page, attribute, name)).toBe(label);
}

/**
 * Sends tower's `drop` by `send` until the HUD shows `left` boxes. A room at its CPU budget refuses
 * inputs that add bodies (the player sees why and presses again): on a loaded machine a fresh room can
 * be there for a few seconds, so a refusal is logged and the drop sent again, never waited out.
 */
async function drop(page: Page, send: () => Promise<void>, left: number): Promise<void> {
  for (let attempt = 0; attempt < 30; attempt++) {
    const refusals = await page.evaluate(() => (globalThis as Hooked).__physics.rejected().filter((r) => r.type === "drop").length);
    await send();
    const outcome = await page.waitForFunction(
      ([n, r]) => {
        if (document.querySelector('#hud dl.game dd[data-player-field="boxes"]')?.textContent === String(n)) return "dropped";
        const refused = (globalThis as Hooked).__physics.rejected().filter((x) => x.type === "drop");
        return refused.length > r ? refused[refused.length - 1].reason : false;
      },
      [left, refusals] as const,
      WAIT,
    );
    const result = await outcome.jsonValue();
    if (result === "dropped") return;
    console.log(`drop refused (attempt ${attempt + 1}): ${result}`);
    await page.waitForTimeout(2000);
  }
  throw new Error(`the HUD never showed ${left} boxes left`);
}

/** The label the HUD shows before a field's value. */
function hudLabel(page: Page, attribute: "field" | "player-field", name: string): Promise<string | null> {
  return page.evaluate(([a, n]) => document.querySelector(`#hud dl.game dd[data-${a}="${n}"]`)?.previousElementSibling?.textContent ?? null, [attribute, name] as const);
}

describe("games in the browser", () => {
  it("/?game=tower: the HUD shows the game's fields with its labels; E drops a box (one fewer left); a click spawns nothing", { timeout: 180_000 }, async () => {
    const { page, session } = await open("tower");
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.game)).toBe("tower");
    await page.waitForFunction(() => document.querySelector('#hud dl.game dd[data-player-field="boxes"]')?.textContent === "20", undefined, WAIT);
    await expectLabel(page, "player-field", "boxes", tower.client?.labels?.boxes);
    expect(await hudField(page, "field", "status")).toBe("building");
    await expectLabel(page, "field", "secondsLeft", "Time left");
    expect(await page.evaluate(() => document.querySelector('#hud dd[data-key="game"]')?.textContent)).toBe("tower");
    // The game's help line, and its inputs that take no payload as buttons (restart is the sandbox's).
    expect(await page.evaluate(() => document.querySelector("#left .help")?.textContent)).toContain(tower.client?.help ?? "");
    expect(await page.evaluate(() => document.querySelector<HTMLButtonElement>("#input-drop")?.textContent)).toBe("drop a box");
    expect(await page.evaluate(() => document.querySelector<HTMLButtonElement>("#restart")?.hidden)).toBe(true);

    // A click in the scene is the sandbox's spawn: this game has none, so nothing is sent or added.
    const bodies = await page.evaluate(() => (globalThis as Hooked).__physics.bodyCount());
    await page.mouse.click(450, 300);
    await page.waitForTimeout(1000);
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.bodyCount())).toBe(bodies);

    await drop(page, () => page.keyboard.press("KeyE"), 19);
    await page.waitForFunction((n) => (globalThis as Hooked).__physics.bodyCount() === n + 1, bodies, WAIT);
    const fields = await page.evaluate(() => (globalThis as Hooked).__physics.fields());
    expect(fields.players[session].boxes).toBe(19);
    // The button is the same input.
    await drop(page, () => page.click("#input-drop"), 18);
    await page.close();
  });

  it("/?game=soccer: the score in the HUD, the own team, and a second page sees the other player's fields", { timeout: 180_000 }, async () => {
    const first = await open("soccer");
    await first.page.waitForFunction(() => document.querySelector('#hud dl.game dd[data-field="red"]')?.textContent === "0", undefined, WAIT);
    await expectLabel(first.page, "field", "red", soccer.client?.labels?.red);
    expect(await hudField(first.page, "field", "blue")).toBe("0");
    expect(await hudField(first.page, "field", "goalsToWin")).toBe(String(soccer.state.goalsToWin));
    const team = await hudField(first.page, "player-field", "team");
    expect(["red", "blue"]).toContain(team);
    // Soccer's avatar spec reached the predictor (it is the welcome's).
    expect(await first.page.evaluate(() => (globalThis as Hooked).__physics.avatarSpec?.halfExtents)).toEqual([0.4, 0.9, 0.4]);

    // A second player joins the same room (matched on its game) and is put on the other team.
    const second = await open("soccer");
    await second.page.waitForFunction(() => (document.querySelector('#hud dl.game dd[data-player-field="team"]')?.textContent ?? "–") !== "–", undefined, WAIT);
    const secondTeam = await hudField(second.page, "player-field", "team");
    expect(secondTeam).not.toBe(team);
    await first.page.waitForFunction((s) => document.querySelector('#hud dl.game dd[data-key="players"]')?.textContent?.includes(s) ?? false, second.session, WAIT);
    await first.page.close();
    await second.page.close();
  });

  it("the default page plays the sandbox: its help, and its restart button", { timeout: 120_000 }, async () => {
    const { page } = await open();
    expect(await page.evaluate(() => (globalThis as Hooked).__physics.game)).toBe("sandbox");
    await page.waitForFunction(() => document.querySelector<HTMLButtonElement>("#restart")?.hidden === false, undefined, WAIT);
    expect(await page.evaluate(() => document.querySelector("#left .help")?.textContent)).toContain("click spawns a ball");
    await page.close();
  });

  it("no page threw", () => {
    expect(pageErrors).toEqual([]);
  });
});
