import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { readConfigOrExit, readStartConfig } from "../server/config.ts";

/**
 * `npm start`: one server process on PORT (default 2567) that also serves the browser client at `/`.
 * Node 24 runs the server's TypeScript directly; only the client needs a build, which happens here
 * first when client/dist is missing or older than any source it is built from (client/, shared/,
 * package-lock.json). Without vite (a production install without dev dependencies) the server starts
 * anyway and serves whatever build there is, or a placeholder page.
 *
 * `npm run dev` (`--dev`): the same server plus Vite's dev server (hot reload) in this one process,
 * on VITE_PORT (default 5173), proxying the admin routes to the game server.
 *
 * The environment is checked first, before any build: a malformed variable stops the start with one
 * line per variable (its name, value and what is allowed) and exit code 2 (server/config.ts).
 */
const root = join(import.meta.dirname, "..");
const clientConfig = join(root, "client", "vite.config.ts");
const dev = process.argv.includes("--dev");
const startConfig = readConfigOrExit((env) => readStartConfig(env, dev));

/** Newest modification time under `path` (files and directories, skipping build output and deps). */
function newestMtime(path: string): number {
  const st = statSync(path, { throwIfNoEntry: false });
  if (!st) return 0;
  if (!st.isDirectory()) return st.mtimeMs;
  let newest = st.mtimeMs;
  for (const entry of readdirSync(path)) {
    if (entry === "dist" || entry === "node_modules" || entry.startsWith(".")) continue;
    newest = Math.max(newest, newestMtime(join(path, entry)));
  }
  return newest;
}

/** True when client/dist/index.html is missing or older than the client's sources. */
export function clientBuildIsStale(): boolean {
  const built = statSync(join(root, "client", "dist", "index.html"), { throwIfNoEntry: false });
  if (!built) return true;
  const sources = Math.max(newestMtime(join(root, "client")), newestMtime(join(root, "shared")), newestMtime(join(root, "package-lock.json")));
  return sources > built.mtimeMs;
}

async function buildClient(): Promise<void> {
  let vite: typeof import("vite");
  try {
    vite = await import("vite");
  } catch {
    process.stderr.write("vite is not installed (npm install without --omit=dev builds the client); serving the existing build or a placeholder\n");
    return;
  }
  const started = Date.now();
  process.stdout.write("building the browser client (client/dist)…\n");
  await vite.build({ configFile: clientConfig, logLevel: "warn" });
  process.stdout.write(`client built in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

if (!dev && clientBuildIsStale()) await buildClient();
await import("../server/main.ts");

if (dev) {
  const { createServer } = await import("vite");
  const server = await createServer({ configFile: clientConfig, server: { port: startConfig.dev?.vitePort } });
  await server.listen();
  server.printUrls();
}
