import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

export const REPO = join(import.meta.dirname, "..", "..");

/** One command a README shows, where it shows it. */
export interface ReadmeCommand {
  /** Repo-relative path of the README. */
  readme: string;
  line: number;
  /** The command as the reader sees it, a trailing `# comment` stripped, trimmed. */
  command: string;
  /** Fenced shell block or inline code span. */
  kind: "block" | "inline";
}

const SHELL_INFO = new Set(["", "sh", "bash", "shell", "console"]);
/** Inline code that is a command line: VAR=value prefixes, a program, at least one argument. */
const INLINE_COMMAND =
  /^(?:[A-Z_][A-Z0-9_]*=\S*\s+)*(?:npm|npx|node|\.\/node_modules\/\.bin\/\S+|curl|k6|docker|docker-compose|tsc|vitest|redis-server|nginx|bash|sh|scripts\/\S+|\.ci\/\S+)\s+\S/;

/** Every README.md of the repository (node_modules, .git and build output excluded), repo-relative, sorted. */
export function readmeFiles(dir = REPO): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".") || entry.name === "dist") continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) found.push(...readmeFiles(path));
    else if (entry.name === "README.md") found.push(relative(REPO, path));
  }
  return found.sort();
}

/** Strips a shell comment that starts a word (`#` after whitespace, outside quotes). */
export function stripComment(line: string): string {
  let quote: string | null = null;
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (quote) {
      if (c === quote) quote = null;
    } else if (c === "'" || c === '"') quote = c;
    else if (c === "#" && (i === 0 || /\s/.test(line[i - 1]))) return line.slice(0, i).trim();
  }
  return line.trim();
}

/** The commands of one README's text. */
export function extractCommands(readme: string, text: string): ReadmeCommand[] {
  const out: ReadmeCommand[] = [];
  const lines = text.split("\n");
  let fence: { marker: string; shell: boolean } | null = null;
  let pending: { text: string; line: number } | null = null;
  lines.forEach((raw, index) => {
    const line = index + 1;
    const opening = /^\s*(`{3,}|~{3,})\s*([^\s`]*)/.exec(raw);
    if (fence === null) {
      if (opening) {
        fence = { marker: opening[1], shell: SHELL_INFO.has(opening[2].toLowerCase()) };
        return;
      }
      for (const m of raw.matchAll(/(?<!`)`([^`]+)`(?!`)/g)) {
        const code = m[1].trim();
        if (INLINE_COMMAND.test(code)) out.push({ readme, line, command: code, kind: "inline" });
      }
      return;
    }
    if (raw.trim().startsWith(fence.marker[0].repeat(3)) && raw.trim().replace(/[`~]/g, "") === "") {
      fence = null;
      return;
    }
    if (!fence.shell) return;
    const joined = pending ? `${pending.text} ${raw.trim()}` : raw;
    const start = pending ? pending.line : line;
    if (/\\\s*$/.test(raw)) {
      pending = { text: joined.replace(/\\\s*$/, "").trimEnd(), line: start };
      return;
    }
    pending = null;
    const command = stripComment(joined).replace(/^\$\s+/, "");
    if (command !== "") out.push({ readme, line: start, command, kind: "block" });
  });
  return out;
}

/** Every command of every README. */
export function allReadmeCommands(): ReadmeCommand[] {
  return readmeFiles().flatMap((file) => extractCommands(file, readFileSync(join(REPO, file), "utf8")));
}
