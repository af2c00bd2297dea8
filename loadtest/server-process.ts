import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { setPriority, tmpdir } from "node:os";
import { createServer } from "node:net";
import { join, resolve } from "node:path";

/**
 * The server under test as a child process: `server/main.ts` (the production entry) on a free loopback
 * port, with its own admin token and a temporary replay directory (replays are recorded as in
 * production: their cost belongs to the tick). Separate from the bots so the two do not share an event
 * loop; on a 2-core machine each gets about one core.
 */
export interface ServerProcess {
  url: string;
  adminToken: string;
  pid: number;
  /** Last lines the server printed (for a crash report). */
  tail(): string[];
  /** Lines at pino level error or worse. */
  errorLines(): string[];
  /** Resolves with the exit code once it exited; null while running. */
  exitCode(): number | null;
  /** SIGTERM (Colyseus' graceful shutdown), SIGKILL after `timeoutMs`. */
  stop(timeoutMs?: number): Promise<number | null>;
}

export interface StartOptions {
  /** Extra Node flags, e.g. ["--cpu-prof", "--cpu-prof-dir=…"]. */
  nodeArgs?: string[];
  /** Keep the replay directory (default: removed on stop). */
  keepReplays?: boolean;
  /** REDIS_URL: the server runs as a cluster process (its own key prefix, a PUBLIC_ADDRESS on a port chosen here). */
  redisUrl?: string;
}

const ROOT = resolve(import.meta.dirname, "..");

/** A TCP port free on 127.0.0.1 right now. */
function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const server = createServer();
    server.once("error", rej);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => res(port));
    });
  });
}

/**
 * Every bot joins from this machine's one address, which the per-address admission limits exist to stop;
 * the load test measures rooms and ticks, so it lifts them for the server it starts (a server under real
 * players keeps the defaults: each player has an address of their own).
 */
const LOAD_TEST_ADMISSION = {
  SEAT_RESERVATIONS_PER_MINUTE: "1000000",
  PENDING_SEATS_PER_ADDRESS: "1000000",
  ROOM_CREATIONS_PER_MINUTE: "1000000",
};

export async function startServerProcess(options: StartOptions = {}): Promise<ServerProcess> {
  const adminToken = randomBytes(18).toString("base64url");
  const replayDir = mkdtempSync(join(tmpdir(), "loadtest-replays-"));
  // A cluster process needs its PUBLIC_ADDRESS before it listens: a free port is picked for it.
  const fixedPort = options.redisUrl ? await freePort() : 0;
  const cluster = options.redisUrl
    ? { REDIS_URL: options.redisUrl, REDIS_KEY_PREFIX: `loadtest-${randomBytes(4).toString("hex")}:`, PUBLIC_ADDRESS: `127.0.0.1:${fixedPort}` }
    : { REDIS_URL: "" };
  const child: ChildProcess = spawn(process.execPath, [...(options.nodeArgs ?? []), join(ROOT, "server/main.ts")], {
    cwd: ROOT,
    env: { ...process.env, ...LOAD_TEST_ADMISSION, PORT: String(fixedPort), HOST: "127.0.0.1", ADMIN_TOKEN: adminToken, REPLAY_DIR: replayDir, LOG_LEVEL: "info", LOG_FORMAT: "json", ...cluster },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const errors: string[] = [];
  let exit: number | null = null;
  // Never leave the server behind: if this process exits first (an error, Ctrl-C), kill it.
  const killOnExit = () => {
    if (exit === null) child.kill("SIGKILL");
  };
  process.once("exit", killOnExit);
  const exited = new Promise<number | null>((res) =>
    child.once("exit", (code, signal) => {
      exit = code ?? (signal ? 128 : null);
      res(exit);
    }),
  );
  const port = await new Promise<number>((res, rej) => {
    let buffered = "";
    const onLine = (line: string) => {
      lines.push(line);
      if (lines.length > 200) lines.shift();
      try {
        const entry = JSON.parse(line) as { level?: number; port?: number; msg?: string };
        if ((entry.level ?? 0) >= 50) errors.push(line);
        if (entry.msg === "physics room server listening" && typeof entry.port === "number") res(entry.port);
      } catch {
        if (/error/i.test(line)) errors.push(line);
      }
    };
    const onData = (chunk: Buffer) => {
      buffered += chunk.toString("utf8");
      let nl = buffered.indexOf("\n");
      while (nl >= 0) {
        onLine(buffered.slice(0, nl));
        buffered = buffered.slice(nl + 1);
        nl = buffered.indexOf("\n");
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    void exited.then((code) => rej(new Error(`server exited (code ${code}) before listening:\n${lines.slice(-20).join("\n")}`)));
    setTimeout(() => rej(new Error(`server did not report listening within 30 s:\n${lines.slice(-20).join("\n")}`)), 30_000).unref();
  });
  return {
    url: `http://127.0.0.1:${port}`,
    adminToken,
    pid: child.pid ?? -1,
    tail: () => lines.slice(-40),
    errorLines: () => errors.slice(),
    exitCode: () => exit,
    async stop(timeoutMs = 15_000) {
      if (exit === null) {
        child.kill("SIGTERM");
        const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
        await exited;
        clearTimeout(timer);
      }
      process.removeListener("exit", killOnExit);
      if (!options.keepReplays) rmSync(replayDir, { recursive: true, force: true });
      return exit;
    },
  };
}

/** Busy and total jiffies of the whole machine (/proc/stat), to see CPU used by other processes. */
export function machineCpu(): { busy: number; total: number } | null {
  try {
    const first = requireText("/proc/stat").split("\n")[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = first[3] + (first[4] ?? 0);
    const total = first.reduce((a, b) => a + b, 0);
    return { busy: total - idle, total };
  } catch {
    return null;
  }
}

/** utime + stime of a process in jiffies (/proc/<pid>/stat), or null. */
export function processJiffies(pid: number): number | null {
  try {
    const text = requireText(`/proc/${pid}/stat`);
    const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
    return Number(fields[11]) + Number(fields[12]);
  } catch {
    return null;
  }
}

function requireText(path: string): string {
  return readFileSync(path, "utf8");
}

/** Starts noise-probe.ts beside the run (same priority); its per-second samples accumulate in `samples`. */
export function startProbe(nice: number | undefined, log: (line: string) => void): { samples: { max: number; over: number }[]; stop(): void } {
  const samples: { max: number; over: number }[] = [];
  const child = spawn(process.execPath, [join(import.meta.dirname, "noise-probe.ts")], { stdio: ["pipe", "pipe", "ignore"] });
  if (nice !== undefined && child.pid !== undefined) {
    try {
      setPriority(child.pid, nice);
    } catch (err) {
      log(`could not set the noise probe's priority: ${(err as Error).message}`);
    }
  }
  let buffered = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    buffered += chunk.toString("utf8");
    let nl = buffered.indexOf("\n");
    while (nl >= 0) {
      try {
        samples.push(JSON.parse(buffered.slice(0, nl)) as { max: number; over: number });
      } catch {
        // not a sample line
      }
      buffered = buffered.slice(nl + 1);
      nl = buffered.indexOf("\n");
    }
  });
  const kill = () => child.kill();
  process.once("exit", kill);
  return {
    samples,
    stop() {
      process.removeListener("exit", kill);
      child.stdin?.end();
      child.kill();
    },
  };
}
