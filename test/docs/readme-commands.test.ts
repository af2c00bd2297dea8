import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, TOKEN, type TestServer } from "../server/helpers.ts";
import { REGISTERED, runByDocsTest } from "./commands.ts";
import { allReadmeCommands, REPO, type ReadmeCommand, readmeFiles } from "./readme.ts";
import { runReadmeCommand } from "./shell.ts";

/**
 * Every command a README shows is run exactly as written: the curl examples and the quick CLI commands
 * right here, everything else by the file REGISTERED (commands.ts) names, which must contain the exact
 * command. Also: every relative link of every README resolves.
 */
const commands = allReadmeCommands();
const where = (c: ReadmeCommand) => `${c.readme}:${c.line}`;

describe("README commands", () => {
  it("finds the commands of every README", () => {
    const readmes = readmeFiles();
    console.log(`${commands.length} commands in ${readmes.length} READMEs (${readmes.join(", ")})`);
    expect(readmes).toContain("README.md");
    expect(readmes).toContain("server/README.md");
    expect(commands.some((c) => c.command.startsWith("curl "))).toBe(true);
  });

  it("every command is run by this test or registered with a file that contains it exactly", () => {
    const problems: string[] = [];
    for (const c of commands) {
      if (runByDocsTest(c.command)) continue;
      const file = REGISTERED[c.command];
      if (file === undefined) {
        problems.push(
          `${where(c)}: \`${c.command}\` is not run by any test. Run it exactly as written in a test (test/docs/shell.ts runReadmeCommand) ` +
            `and add to REGISTERED in test/docs/commands.ts:\n    ${JSON.stringify(c.command)}: "test/<your file>.test.ts",`,
        );
      } else if (!existsSync(join(REPO, file))) {
        problems.push(`${where(c)}: \`${c.command}\` is registered to ${file}, which does not exist`);
      } else if (!readFileSync(join(REPO, file), "utf8").includes(c.command)) {
        problems.push(`${where(c)}: \`${c.command}\` is registered to ${file}, which does not contain that exact command`);
      }
    }
    expect(problems, problems.join("\n")).toEqual([]);
  });

  it("no registration is stale (every registered command is still in a README)", () => {
    const shown = new Set(commands.map((c) => c.command));
    const stale = Object.keys(REGISTERED).filter((c) => !shown.has(c));
    expect(stale, `registered in test/docs/commands.ts but in no README: ${stale.join(" | ")}`).toEqual([]);
  });

  it("the quick CLI commands run as written and exit 0", async () => {
    const cli = commands.filter((c) => runByDocsTest(c.command) === "cli");
    expect(cli.length).toBeGreaterThan(0);
    for (const c of cli) {
      // A placeholder for "any scenario" runs the first built-in the README lists.
      const r = await runReadmeCommand(c.command, { substitute: { "<scenario>": "stack10" } });
      console.log(`${where(c)}: ${c.command} → exit ${r.code}, ${r.stdout.length} bytes on stdout`);
      expect(r.code, `${where(c)}: ${c.command}\n${r.stderr}`).toBe(0);
      if (c.command.startsWith("npm run -s sim -- ") && !c.command.includes("--help")) {
        // NDJSON on stdout, nothing else (npm -s prints no banner).
        for (const line of r.stdout.trimEnd().split("\n")) expect(() => JSON.parse(line), `${where(c)}: not JSON: ${line.slice(0, 80)}`).not.toThrow();
      }
    }
  });
});

describe("README curl examples, against a real server", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close();
  });

  it("each runs as written (address substituted) and is answered without an error", async () => {
    const curls = commands.filter((c) => runByDocsTest(c.command) === "curl");
    let roomId: string | null = null;
    for (const c of curls) {
      const substitute: Record<string, string> = { "127.0.0.1:2567": `127.0.0.1:${server.port}` };
      if (c.command.includes("<roomId>")) {
        expect(roomId, `${where(c)} uses <roomId> before any POST /rooms example created one`).not.toBeNull();
        substitute["<roomId>"] = roomId as string;
      }
      const r = await runReadmeCommand(c.command, { env: { ADMIN_TOKEN: TOKEN }, substitute });
      console.log(`${where(c)}: exit ${r.code}, ${r.stdout.length} bytes: ${r.stdout.slice(0, 100).replace(/\n/g, " ")}`);
      expect(r.code, `${where(c)}: ${c.command}\n${r.stderr}`).toBe(0);
      let answer: unknown = null;
      try {
        answer = JSON.parse(r.stdout);
      } catch {
        // Not JSON (metrics text, an empty 204): fine.
      }
      const status = (answer as { statusCode?: number } | null)?.statusCode;
      expect(status === undefined || status < 400, `${where(c)}: ${c.command} answered ${r.stdout}`).toBe(true);
      if (/-X POST\b/.test(c.command) && /\/rooms'?"?(\s|$)/.test(c.command)) roomId = (answer as { roomId: string }).roomId;
    }
    expect(curls.length).toBeGreaterThan(0);
  });
});

describe("README links", () => {
  it("every relative link of every README resolves to a file or folder of the repository", () => {
    const broken: string[] = [];
    for (const readme of readmeFiles()) {
      const text = readFileSync(join(REPO, readme), "utf8");
      text.split("\n").forEach((line, k) => {
        for (const m of line.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
          const target = m[1];
          if (/^[a-z]+:/i.test(target) || target.startsWith("#")) continue;
          const path = join(REPO, dirname(readme), decodeURIComponent(target.split("#")[0]));
          if (!existsSync(path) || (!statSync(path).isFile() && !statSync(path).isDirectory())) broken.push(`${readme}:${k + 1}: ${target}`);
        }
      });
    }
    expect(broken, `broken links:\n${broken.join("\n")}`).toEqual([]);
  });

  it("every .md file a README or the bench code names exists", () => {
    const missing: string[] = [];
    const files = [...readmeFiles(), ...listFiles("bench")];
    for (const file of files) {
      const text = readFileSync(join(REPO, file), "utf8");
      for (const m of text.matchAll(/(?<![\w/.-])((?:\.\.?\/)?[\w.-]+(?:\/[\w.-]+)*\.md)\b/g)) {
        const name = m[1];
        const candidates = [join(REPO, name), join(REPO, dirname(file), name)];
        if (!candidates.some((p) => existsSync(p))) missing.push(`${file}: ${name}`);
      }
    }
    expect(missing, `named but not in the repository:\n${missing.join("\n")}`).toEqual([]);
  });
});

function listFiles(dir: string): string[] {
  return readdirSync(join(REPO, dir), { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name).slice(REPO.length + 1));
}
