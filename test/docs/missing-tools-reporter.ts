import { existsSync, readFileSync, rmSync } from "node:fs";
import type { Reporter } from "vitest/node";
import { MISSING_TOOLS_ENV } from "./system-tools.ts";

/**
 * Prints, after vitest's own summary, every test or README command that did not run (a system tool is
 * missing, or it is one of the long README commands), as recorded by system-tools.ts. A skipped
 * multi-process or browser test must be seen.
 */
export default class MissingToolsReporter implements Reporter {
  onTestRunEnd(): void {
    const file = process.env[MISSING_TOOLS_ENV];
    if (!file || !existsSync(file)) return;
    const lines = [...new Set(readFileSync(file, "utf8").split("\n").filter((l) => l !== ""))].map((raw) => {
      const { reason, what } = JSON.parse(raw) as { reason: string; what: string };
      return `  NOT RUN (${reason}): ${what}`;
    });
    rmSync(file, { force: true });
    if (lines.length === 0) return;
    const bar = "!".repeat(78);
    process.stdout.write(`\n${bar}\n${lines.length} test(s) or README command(s) did not run:\n${lines.join("\n")}\n${bar}\n\n`);
  }
}
