import { createPhysicsServer } from "./app.ts";
import { CONFIG_EXIT_CODE, readConfig, readConfigOrExit } from "./config.ts";
import { GameModuleError, loadGames } from "./games.ts";
import { chooseLogFormat, createLogger } from "./logging.ts";
import { isRedisOutageError } from "./redis-health.ts";

/**
 * Process entry: reads the environment, starts one server (Fastify + Colyseus on one port), logs with
 * pino. SIGTERM/SIGINT (Colyseus' graceful shutdown, handleSignals): matchmaking stops (503); every room
 * closes its replay first (final keyframe + end line "shutdown"), releases the seats nobody claimed and
 * closes its clients with 4001; sockets no room owns are closed too. No peer can hold the exit up: a
 * socket that has not answered its close frame within CLOSE_HANDSHAKE_DEADLINE_MS (1 s) is terminated,
 * and HTTP connections still open then are closed (server/shutdown.ts). Then Fastify closes and the
 * process exits 0, within about a second even with peers that never answer. A watchdog exits 1 if that
 * has not finished within SHUTDOWN_TIMEOUT_MS (a bug or a hung dependency such as Redis, not a client).
 *
 * A malformed environment variable, or a PORT/HOST the server cannot listen on, stops the start with a
 * message naming the variable and exit code 2 (server/config.ts), not a stack trace.
 */
const config = readConfigOrExit(readConfig);
const logger = createLogger(config.logLevel, chooseLogFormat(config.logFormat, process.stdout));
// Colyseus fires some Redis writes without waiting for them (its process stats' deferred write): during
// a Redis outage they reject with nobody listening, Node makes that an uncaught exception, and Colyseus
// shuts the process down on one. A process whose rooms run fine without Redis must outlive the outage
// (RedisHealth logs it). Any other unhandled rejection stays fatal.
process.on("unhandledRejection", (reason) => {
  if (isRedisOutageError(reason)) {
    logger.debug({ cause: (reason as Error).message }, "a redis write failed during the outage");
    return;
  }
  throw reason;
});
const games = await loadGamesOrExit();
const server = await createPhysicsServer({
  games,
  adminToken: config.adminToken,
  replayDir: config.replayDir,
  logger,
  redisUrl: config.redisUrl,
  redisKeyPrefix: config.redisKeyPrefix,
  publicAddress: config.publicAddress,
  limits: config.limits,
  trustProxy: config.trustProxy,
  handleSignals: true,
});
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    logger.info({ signal }, "shutting down: no new joins, replays closing, clients told (4001)");
    setTimeout(() => {
      logger.error({ timeoutMs: config.limits.shutdownTimeoutMs }, "graceful shutdown did not finish in time; exiting");
      process.exit(1);
    }, config.limits.shutdownTimeoutMs).unref();
  });
}
if (config.adminTokenGenerated) {
  // Printed once, on purpose: the operator needs it for the admin API and it is never logged again.
  process.stdout.write(`ADMIN_TOKEN was not set; generated for this process: ${config.adminToken}\n`);
}
const port = await listenOrExit();
logger.info(
  { host: config.host, port, replayDir: config.replayDir, redis: config.redisUrl !== undefined, publicAddress: config.publicAddress ?? null },
  "physics room server listening",
);

/** The built-in games plus GAMES' modules; a module that cannot be served stops the start (exit 2) naming the file. */
async function loadGamesOrExit() {
  try {
    const registry = await loadGames(config.games);
    if (config.games.length > 0) logger.info({ games: registry.names() }, "games loaded");
    return registry;
  } catch (err) {
    const message = err instanceof GameModuleError ? err.message : `${(err as Error).message}`;
    process.stderr.write(`cannot start: GAMES: ${message}\n`);
    process.exit(CONFIG_EXIT_CODE);
  }
}

/** Why listening failed, in terms of the variables that chose the address; null for anything else. */
function listenProblem(err: NodeJS.ErrnoException): string | null {
  const at = `${config.host}:${config.port}`;
  switch (err.code) {
    case "EADDRINUSE":
      return `PORT ${config.port} is already in use on ${config.host} (another server?): stop it or set PORT to a free port`;
    case "EACCES":
      return `PORT ${config.port} needs privileges on ${config.host}: set PORT to 1024 or above`;
    case "EADDRNOTAVAIL":
      return `HOST ${config.host} is not an address of this machine (listening on ${at}): set HOST to one of its addresses, or 0.0.0.0`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `HOST ${config.host} does not resolve: set HOST to an IP address or a known host name`;
    default:
      return null;
  }
}

async function listenOrExit(): Promise<number> {
  try {
    return await server.listen(config.port, config.host);
  } catch (err) {
    const problem = listenProblem(err as NodeJS.ErrnoException);
    if (problem === null) throw err;
    process.stderr.write(`cannot start: ${problem}\n`);
    process.exit(CONFIG_EXIT_CODE);
  }
}
