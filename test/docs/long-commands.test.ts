import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { startTestServer, TOKEN, type TestServer } from "../server/helpers.ts";
import { REPO } from "./readme.ts";
import { runReadmeCommand, startReadmeCommand, waitForHttp } from "./shell.ts";
import { hasTool, needTool, runsHere } from "./system-tools.ts";

/**
 * README commands that take minutes (benchmarks, load runs, the capacity ramp) or need what this kind of
 * machine lacks (k6, a Docker engine), run exactly as written. The long ones run with
 * README_LONG_COMMANDS=1; without it, or without the tool, each is listed as NOT RUN at the end of the
 * run (missing-tools reporter), never skipped silently. The two-process commands run whenever a local
 * Redis answers.
 */
const LONG = process.env.README_LONG_COMMANDS === "1";
const LONG_REASON = "minutes long: README_LONG_COMMANDS=1 npm test runs it";

/** Long commands that run on their own: [command, what its run must show]. */
const STANDALONE: [string, RegExp][] = [
  ["npm run bench", /pyramid20/],
  ["npm run bench:net", /KB\/s|bytes/],
  ["npm run loadtest -- --rooms 4 --clients 8 --scenario arena --seconds 30", /^(held|did not hold)/m],
  ["npm run loadtest -- --rooms 16 --clients 8 --scenario arena --seconds 30", /^(held|did not hold)/m],
  ["npm run loadtest -- --rooms 16 --clients 8 --seconds 60 --profile", /^(held|did not hold)/m],
  ["npm run loadtest -- --find-capacity --clients 8 --nice=-10", /capacity/i],
  // Re-records the load-test fixtures (tracked files): review the diff after running it.
  ["./node_modules/.bin/node test/loadtest/fixtures/capture.ts", /./],
];

const REMOTE_LOADTEST = "npm run loadtest -- --url http://127.0.0.1:2567 --token $ADMIN_TOKEN …";
const K6 = "ADMIN_TOKEN=<token> k6 run -e BASE_URL=http://127.0.0.1:2567 -e ROOMS=16 -e CLIENTS=8 -e DURATION=60 loadtest/k6/rooms.js";
const COMPOSE = "ADMIN_TOKEN=$(openssl rand -base64 24) docker compose up --build";
const REPLICA_A = "REDIS_URL=redis://127.0.0.1:6379 ADMIN_TOKEN=secret PORT=2571 PUBLIC_ADDRESS=127.0.0.1:8080/a REPLAY_DIR=data/a npm start";
const REPLICA_B = "REDIS_URL=redis://127.0.0.1:6379 ADMIN_TOKEN=secret PORT=2572 PUBLIC_ADDRESS=127.0.0.1:8080/b REPLAY_DIR=data/b npm start";

const redisUp = spawnSync("redis-cli", ["-h", "127.0.0.1", "-p", "6379", "ping"], { encoding: "utf8" }).stdout?.trim() === "PONG";
const dockerEngine = hasTool("docker") && spawnSync("docker", ["info"]).status === 0;

describe("long README commands", { timeout: 3_600_000 }, () => {
  for (const [command, shows] of STANDALONE) {
    const run = runsHere(LONG, LONG_REASON, command);
    it.runIf(run)(command, async () => {
      const r = await runReadmeCommand(command);
      console.log(`${command}: exit ${r.code}\n${r.stdout.slice(-2000)}`);
      expect(r.code, r.stderr.slice(-4000)).toBe(0);
      expect(r.stdout).toMatch(shows);
    });
  }

  let server: TestServer | null = null;
  afterAll(async () => {
    await server?.close();
  });
  const serverSubstitutions = async () => {
    server ??= await startTestServer();
    return { "127.0.0.1:2567": `127.0.0.1:${server.port}` };
  };

  it.runIf(runsHere(LONG, LONG_REASON, REMOTE_LOADTEST))(REMOTE_LOADTEST, async () => {
    const substitute = { ...(await serverSubstitutions()), "…": "--rooms 1 --clients 2 --seconds 5" };
    const r = await runReadmeCommand(REMOTE_LOADTEST, { env: { ADMIN_TOKEN: TOKEN }, substitute });
    expect(r.code, r.stderr.slice(-4000)).toBe(0);
  });

  const k6 = runsHere(LONG, LONG_REASON, K6) && needTool("k6", K6);
  it.runIf(k6)(K6, async () => {
    const substitute = { ...(await serverSubstitutions()), "<token>": TOKEN };
    const r = await runReadmeCommand(K6, { substitute });
    expect(r.code, r.stdout.slice(-4000)).toBe(0);
  });

  const compose = runsHere(LONG, LONG_REASON, COMPOSE) && runsHere(dockerEngine, "no Docker engine: docker info fails", COMPOSE);
  it.runIf(compose)(COMPOSE, async () => {
    const up = startReadmeCommand(COMPOSE);
    try {
      await waitForHttp("http://localhost:8080/health", up, 1_200_000);
    } finally {
      await up.stop();
      spawnSync("docker", ["compose", "down"], { cwd: REPO });
    }
  });
});

describe("the two-process commands of server/README.md", () => {
  const run = runsHere(redisUp, "no Redis on 127.0.0.1:6379: scripts/system-deps.sh starts one", `${REPLICA_A} / ${REPLICA_B}`);
  it.runIf(run)("start two processes on one Redis that see each other", { timeout: 240_000 }, async () => {
    const a = startReadmeCommand(REPLICA_A);
    const b = startReadmeCommand(REPLICA_B);
    try {
      await waitForHttp("http://127.0.0.1:2571/health", a);
      await waitForHttp("http://127.0.0.1:2572/health", b);
      let processes: unknown[] = [];
      for (const deadline = Date.now() + 60_000; processes.length < 2 && Date.now() < deadline; ) {
        processes = (await (await fetch("http://127.0.0.1:2571/processes")).json()) as unknown[];
      }
      console.log(`GET /processes on A: ${JSON.stringify(processes)}`);
      expect(processes.length).toBeGreaterThanOrEqual(2);
    } finally {
      await Promise.all([a.stop(), b.stop()]);
      for (const dir of ["a", "b"]) rmSync(join(REPO, "data", dir), { recursive: true, force: true });
    }
  });
});
