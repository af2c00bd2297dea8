import { pino } from "pino";
import { createPhysicsServer } from "./app.ts";
import { readConfig } from "./config.ts";

/**
 * Process entry: reads the environment, starts one server (Fastify + Colyseus on one port), logs with
 * pino. SIGTERM/SIGINT: Colyseus stops matchmaking (503), locks every room and disconnects its clients
 * with 4001, each room closes its replay (final keyframe + end line "shutdown"), then Fastify closes and
 * the process exits 0. A watchdog exits 1 if that has not finished within SHUTDOWN_TIMEOUT_MS.
 */
const config = readConfig();
const logger = pino({ level: config.logLevel });
const server = await createPhysicsServer({
  adminToken: config.adminToken,
  replayDir: config.replayDir,
  logger,
  redisUrl: config.redisUrl,
  redisKeyPrefix: config.redisKeyPrefix,
  publicAddress: config.publicAddress,
  limits: config.limits,
  handleSignals: true,
});
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, () => {
    logger.info({ signal }, "shutting down: no new joins, clients told (4001), replays closing");
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
const port = await server.listen(config.port, config.host);
logger.info(
  { host: config.host, port, replayDir: config.replayDir, redis: config.redisUrl !== undefined, publicAddress: config.publicAddress ?? null },
  "physics room server listening",
);
