/**
 * README commands that the docs test does not run itself, each with the file that runs it exactly as
 * written: a test that contains the command string and spawns it (test/docs/shell.ts), or a script CI
 * runs (.ci/run, and package.json's scripts, which `npm test` runs). The docs test checks that the named
 * file contains the exact string. A command shown in a README without an entry fails that test, whose
 * message gives the line to add here.
 *
 * Run by the docs test itself (not listed here): every `curl …` line (against a real server on a random
 * port) and every `npm run -s sim -- …` / `npm run -s replay -- --help`.
 */
export const REGISTERED: Readonly<Record<string, string>> = {
  // The first commands of README.md: CI runs them on a clean clone; npm start runs in test/docs/start.test.ts.
  "npm install && npm start": "test/docs/start.test.ts",
  // Named on its own in the prose around that block; start.test.ts runs it as part of the line above.
  "npm install": "test/docs/start.test.ts",
  "npm ci": ".ci/run",
  "npm test": ".ci/run",
  "npm run test:unit": "package.json",
  "npm start": "test/docs/start.test.ts",
  "npm run dev": "test/docs/start.test.ts",
  "npm run build": "test/docs/start.test.ts",
  "ADMIN_TOKEN=<token> REPLAY_DIR=<dir> LOG_LEVEL=debug npm start": "test/docs/start.test.ts",
  "npm run replay -- verify data/replays/<roomId>.ndjson": "test/docs/start.test.ts",
  "npm run replay -- info   data/replays/<roomId>.ndjson": "test/docs/start.test.ts",
  "npm run loadtest -- --help": "test/docs/start.test.ts",
  "tsc -p loadtest/k6": "test/loadtest/metrics.test.ts",
  "npm run build:kernel": "test/engine/kernel-build.slow.test.ts",

  // README.md's "Write your own game": test/docs/write-a-game.test.ts follows the section in a fresh HOME.
  "GAMES=~/my-game/my-game.ts npm start": "test/docs/write-a-game.test.ts",
  'mkdir -p ~/my-game/node_modules && ln -s "$PWD" ~/my-game/node_modules/physics-rooms': "test/docs/write-a-game.test.ts",
  "npx vitest run --root ~/my-game": "test/docs/write-a-game.test.ts",
  "GAMES=~/my-game/my-game.ts npm run replay -- verify data/replays/<roomId>.ndjson": "test/docs/write-a-game.test.ts",

  // Several processes on Redis (server/README.md).
  "REDIS_URL=redis://127.0.0.1:6379 ADMIN_TOKEN=secret PORT=2571 PUBLIC_ADDRESS=127.0.0.1:8080/a REPLAY_DIR=data/a npm start":
    "test/docs/long-commands.test.ts",
  "REDIS_URL=redis://127.0.0.1:6379 ADMIN_TOKEN=secret PORT=2572 PUBLIC_ADDRESS=127.0.0.1:8080/b REPLAY_DIR=data/b npm start":
    "test/docs/long-commands.test.ts",

  // Minutes long, or needing a tool this kind of machine lacks: test/docs/long-commands.test.ts runs them
  // with README_LONG_COMMANDS=1 (and the tool); otherwise the run's summary lists each as NOT RUN.
  "npm run bench": "test/docs/long-commands.test.ts",
  "npm run bench:net": "test/docs/long-commands.test.ts",
  "npm run loadtest -- --rooms 4 --clients 8 --scenario arena --seconds 30": "test/docs/long-commands.test.ts",
  "npm run loadtest -- --find-capacity --clients 8 --nice=-10": "test/docs/long-commands.test.ts",
  "npm run loadtest -- --rooms 16 --clients 8 --scenario arena --seconds 30": "test/docs/long-commands.test.ts",
  "npm run loadtest -- --rooms 16 --clients 8 --seconds 60 --profile": "test/docs/long-commands.test.ts",
  "npm run loadtest -- --url http://127.0.0.1:2567 --token $ADMIN_TOKEN …": "test/docs/long-commands.test.ts",
  "./node_modules/.bin/node test/loadtest/fixtures/capture.ts": "test/docs/long-commands.test.ts",
  "ADMIN_TOKEN=<token> k6 run -e BASE_URL=http://127.0.0.1:2567 -e ROOMS=16 -e CLIENTS=8 -e DURATION=60 loadtest/k6/rooms.js":
    "test/docs/long-commands.test.ts",
  "ADMIN_TOKEN=$(openssl rand -base64 24) docker compose up --build": "test/docs/long-commands.test.ts",
};

/** Commands the docs test runs itself (readme-commands.test.ts). */
export function runByDocsTest(command: string): "curl" | "cli" | null {
  if (/^curl\s/.test(command)) return "curl";
  if (/^npm run -s sim -- /.test(command) || command === "npm run -s replay -- --help") return "cli";
  return null;
}
