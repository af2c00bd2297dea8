import { spawn } from "node:child_process";
import { REPO } from "./readme.ts";

export interface ShellResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

export interface ReadmeRunOptions {
  env?: Record<string, string>;
  cwd?: string;
  /** Placeholder → value (`<roomId>`, `…`, `127.0.0.1:2567`); nothing else of the command may change. */
  substitute?: Record<string, string>;
  /** Written to the command's stdin, then closed (default: stdin closed at once). */
  input?: string;
}

/** The command after its placeholders are filled in. */
export function substituted(command: string, substitute: Record<string, string> = {}): string {
  let out = command;
  for (const [from, to] of Object.entries(substitute)) out = out.split(from).join(to);
  return out;
}

/**
 * Runs a command shown in a README the way a reader runs it: `sh -c <command>` in the repository with
 * the machine's own PATH (npm puts the pinned Node 24 first for its scripts), placeholders filled in.
 */
export function runReadmeCommand(command: string, options: ReadmeRunOptions = {}): Promise<ShellResult> {
  const env = { ...process.env, ...options.env };
  const stdin = options.input === undefined ? "ignore" : "pipe";
  const child = spawn("sh", ["-c", substituted(command, options.substitute)], { cwd: options.cwd ?? REPO, env, stdio: [stdin, "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout?.setEncoding("utf8").on("data", (d: string) => {
    stdout += d;
  });
  child.stderr?.setEncoding("utf8").on("data", (d: string) => {
    stderr += d;
  });
  if (child.stdin) {
    // A command that never reads its input may exit before it is written: not an error of the command.
    child.stdin.on("error", () => {});
    child.stdin.end(options.input);
  }
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** A long-running README command (a server): its output so far, and a way to stop it and its children. */
export interface RunningCommand {
  output(): string;
  /** Resolves with the exit code (or signal) once the whole process group is gone. */
  stop(): Promise<number | NodeJS.Signals | null>;
  exited: Promise<number | NodeJS.Signals | null>;
}

/** Starts a README command in its own process group (npm, then node, then what node spawns). */
export function startReadmeCommand(command: string, options: ReadmeRunOptions = {}): RunningCommand {
  const env = { ...process.env, ...options.env };
  const child = spawn("sh", ["-c", substituted(command, options.substitute)], { cwd: options.cwd ?? REPO, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  child.stderr.setEncoding("utf8").on("data", (d: string) => {
    out += d;
  });
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => child.on("close", (code, signal) => resolve(code ?? signal)));
  const pid = child.pid as number;
  return {
    output: () => out,
    exited,
    async stop() {
      try {
        process.kill(-pid, "SIGTERM");
      } catch {
        // Already gone.
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, "SIGKILL");
        } catch {
          // Already gone.
        }
      }, 10_000);
      const result = await exited;
      clearTimeout(timer);
      return result;
    },
  };
}

/** Polls `url` until it answers `status` (a server a README command started is up). */
export async function waitForHttp(url: string, running: RunningCommand, timeoutMs = 120_000, status = 200): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void running.exited.then(() => {
    exited = true;
  });
  while (Date.now() < deadline) {
    if (exited) throw new Error(`the command exited before ${url} answered:\n${running.output()}`);
    const ok = await fetch(url).then(
      (r) => r.status === status,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not answer ${status} within ${timeoutMs} ms:\n${running.output()}`);
}
