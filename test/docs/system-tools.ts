import { spawnSync } from "node:child_process";
import { appendFileSync } from "node:fs";

/**
 * Tests that cannot run here (a system tool is missing, or the README command takes many minutes) report
 * it through this module; the `missing-tools` reporter (vitest.config.ts) lists every such test after
 * vitest's summary, so a skip is never silent. `npm test` installs the tools itself on Debian as root
 * (scripts/system-deps.sh); elsewhere that script names what is missing.
 */
export const MISSING_TOOLS_ENV = "PHYSICS_MISSING_TOOLS_FILE";

/** What installs each tool the tests use (Debian package names). */
export const INSTALL: Readonly<Record<string, string>> = {
  nginx: "apt-get install nginx-light",
  "docker-compose": "apt-get install --no-install-recommends docker-compose",
  chromium: "apt-get install chromium",
  "redis-server": "apt-get install redis-server",
  k6: "see grafana.com/docs/k6 for its packages",
  docker: "a Docker engine with the compose plugin",
  openssl: "apt-get install openssl",
};

/** Whether `tool` is a command on PATH. */
export function hasTool(tool: string): boolean {
  return spawnSync("sh", ["-c", 'command -v "$1" >/dev/null 2>&1', "sh", tool]).status === 0;
}

/** Records that `what` (a test, or a README command) did not run, and why. */
export function reportNotRun(reason: string, what: string): void {
  const file = process.env[MISSING_TOOLS_ENV];
  const line = `${JSON.stringify({ reason, what })}\n`;
  if (file) appendFileSync(file, line);
  else process.stderr.write(`NOT RUN (${reason}): ${what}\n`);
}

/** True when `tool` is there; otherwise records that `what` did not run and returns false (skip it then). */
export function needTool(tool: string, what: string, present = hasTool(tool)): boolean {
  if (!present) reportNotRun(`missing ${tool}: ${INSTALL[tool] ?? "install it"}`, what);
  return present;
}

/** `ok`, and when it is false, records that `what` did not run because of `reason`. */
export function runsHere(ok: boolean, reason: string, what: string): boolean {
  if (!ok) reportNotRun(reason, what);
  return ok;
}
