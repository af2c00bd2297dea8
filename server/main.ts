import { pino } from "pino";
import { createPhysicsServer } from "./app.ts";
import { readConfig } from "./config.ts";

/**
 * Process entry: reads the environment, starts one server (Fastify + Colyseus on one port), logs with
 * pino. SIGTERM/SIGINT: Colyseus disconnects every room (each closes its replay), stops accepting,
 * closes Fastify, then exits.
 */
const config = readConfig();
const logger = pino({ level: config.logLevel });
const server = await createPhysicsServer({
  adminToken: config.adminToken,
  replayDir: config.replayDir,
  logger,
  redisUrl: config.redisUrl,
  publicAddress: config.publicAddress,
  handleSignals: true,
});
if (config.adminTokenGenerated) {
  // Printed once, on purpose: the operator needs it for the admin API and it is never logged again.
  process.stdout.write(`ADMIN_TOKEN was not set; generated for this process: ${config.adminToken}\n`);
}
const port = await server.listen(config.port, config.host);
logger.info({ host: config.host, port, replayDir: config.replayDir, redis: config.redisUrl !== undefined }, "physics room server listening");
