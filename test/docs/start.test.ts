import { randomBytes } from "node:crypto";
import { existsSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { freePort } from "../server/processes.ts";
import { REPO } from "./readme.ts";
import { runReadmeCommand, startReadmeCommand, waitForHttp } from "./shell.ts";

/**
 * The READMEs' server and build commands, run exactly as written (test/docs/commands.ts registers them
 * here). Only the environment differs from a reader's shell: PORT (and VITE_PORT) are free loopback
 * ports so nothing collides with a server already on 2567; placeholders (<token>, <dir>, <roomId>) are
 * filled in.
 */
const BUILD = "npm run build";
const START = "npm start";
/** README.md's first command: what a new user types on a fresh clone. */
const INSTALL_AND_START = "npm install && npm start";
const DEV = "npm run dev";
const START_WITH_ENV = "ADMIN_TOKEN=<token> REPLAY_DIR=<dir> LOG_LEVEL=debug npm start";
const VERIFY = "npm run replay -- verify data/replays/<roomId>.ndjson";
const INFO = "npm run replay -- info   data/replays/<roomId>.ndjson";
const LOADTEST_HELP = "npm run loadtest -- --help";

/** Runs a README command that starts the server and checks what a new user sees: health, the page, the token. */
async function serveFreshly(command: string): Promise<void> {
  const port = await freePort();
  // ADMIN_TOKEN unset, as on a fresh machine: the server generates one and prints it.
  const server = startReadmeCommand(command, { env: { PORT: String(port), ADMIN_TOKEN: "" } });
  try {
    await waitForHttp(`http://127.0.0.1:${port}/health`, server);
    const page = await fetch(`http://127.0.0.1:${port}/`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("<html");
    expect(server.output()).toContain("ADMIN_TOKEN was not set; generated for this process:");
  } finally {
    console.log(`${command}: stopped with ${await server.stop()}`);
  }
}

describe("README server commands", { timeout: 300_000 }, () => {
  it(`${BUILD} builds client/dist`, async () => {
    const r = await runReadmeCommand(BUILD);
    expect(r.code, r.stderr).toBe(0);
    const index = join(REPO, "client", "dist", "index.html");
    expect(existsSync(index)).toBe(true);
    console.log(`${BUILD}: exit 0, client/dist/index.html ${statSync(index).size} bytes`);
  });

  it(`${INSTALL_AND_START} installs (nothing to change after npm ci), then serves health and the client at /; ${START} alone too`, async () => {
    await serveFreshly(INSTALL_AND_START);
    await serveFreshly(START);
  });

  it(`${START_WITH_ENV}, then the replay commands on the room it recorded`, async () => {
    const port = await freePort();
    const token = randomBytes(12).toString("hex");
    const server = startReadmeCommand(START_WITH_ENV, { env: { PORT: String(port) }, substitute: { "<token>": token, "<dir>": "data/replays" } });
    const base = `http://127.0.0.1:${port}`;
    let roomId = "";
    try {
      await waitForHttp(`${base}/health`, server);
      const created = await fetch(`${base}/rooms`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ scenario: "stack10" }),
      });
      expect(created.status).toBe(201);
      roomId = ((await created.json()) as { roomId: string }).roomId;
      // Wait for a second of ticks, then close the room so its replay ends cleanly.
      for (let tick = 0; tick < 60; ) tick = ((await (await fetch(`${base}/rooms/${roomId}`)).json()) as { tick: number }).tick;
      expect((await fetch(`${base}/rooms/${roomId}`, { method: "DELETE", headers: { authorization: `Bearer ${token}` } })).status).toBe(204);
      expect(server.output()).toMatch(/"level":20|DEBUG/);
    } finally {
      console.log(`${START_WITH_ENV}: stopped with ${await server.stop()}`);
    }
    try {
      const verify = await runReadmeCommand(VERIFY, { substitute: { "<roomId>": roomId } });
      console.log(`${VERIFY}: exit ${verify.code}: ${verify.stdout.trim().split("\n").at(-1)}`);
      expect(verify.code, verify.stderr).toBe(0);
      expect(verify.stdout).toContain(`OK data/replays/${roomId}.ndjson`);
      const info = await runReadmeCommand(INFO, { substitute: { "<roomId>": roomId } });
      expect(info.code, info.stderr).toBe(0);
      expect(info.stdout).toContain("valid:       every line passes the server's validation");
    } finally {
      rmSync(join(REPO, "data", "replays", `${roomId}.ndjson`), { force: true });
    }
  });

  it(`${DEV} serves the game server and Vite's dev server`, async () => {
    const [port, vitePort] = [await freePort(), await freePort()];
    const dev = startReadmeCommand(DEV, { env: { PORT: String(port), VITE_PORT: String(vitePort) } });
    try {
      await waitForHttp(`http://127.0.0.1:${port}/health`, dev);
      await waitForHttp(`http://127.0.0.1:${vitePort}/`, dev);
    } finally {
      console.log(`${DEV}: stopped with ${await dev.stop()}`);
    }
  });

  it(`${LOADTEST_HELP} prints the usage`, async () => {
    const r = await runReadmeCommand(LOADTEST_HELP);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain("usage: npm run loadtest -- [options]");
  });
});
