import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv } from "ajv";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { NGINX_TEMPLATE, REPO, replicaEnv, TEST_ONLY_ENV } from "../server/processes.ts";
import { needTool } from "../docs/system-tools.ts";

/**
 * docker-compose.yml without a Docker engine: validated against the Compose specification's JSON schema
 * (vendored in deploy/compose-spec/) and by Debian's `docker-compose config`, and checked to describe the
 * same topology the multi-process test runs (same server variables, same nginx template).
 */

type Service = {
  image?: string;
  build?: unknown;
  environment?: Record<string, string>;
  healthcheck?: { test: string[] };
  depends_on?: Record<string, { condition: string }>;
  volumes?: string[];
  ports?: string[];
};
type Compose = { services: Record<string, Service>; volumes?: Record<string, unknown> };

const composeText = readFileSync(join(REPO, "docker-compose.yml"), "utf8");
const compose = parse(composeText, { merge: true }) as Compose;
const schema = JSON.parse(readFileSync(join(REPO, "deploy/compose-spec/compose-spec.json"), "utf8"));
// It names its draft-07 meta-schema as https://…/draft-07/schema, an id Ajv does not register (Ajv knows
// http://json-schema.org/draft-07/schema#); Ajv's default dialect is draft-07 anyway.
delete schema.$schema;
const validate = new Ajv({ strict: false, allErrors: true }).compile(schema);

const hasDockerCompose = needTool("docker-compose", "test/deploy/compose.test.ts: docker-compose config", spawnSync("docker-compose", ["version"]).status === 0);

describe("docker-compose.yml", () => {
  it("is valid against the Compose specification schema (and a broken copy is not)", () => {
    expect(validate(compose), JSON.stringify(validate.errors, null, 1)).toBe(true);
    const broken = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken.services.redis.healthcheck = { test: ["CMD", "redis-cli", "ping"], intervall: "2s" };
    expect(validate(broken)).toBe(false);
    const broken2 = structuredClone(compose) as unknown as { services: Record<string, Record<string, unknown>> };
    broken2.services.proxy.ports = "8080:80";
    expect(validate(broken2)).toBe(false);
  });

  // Debian's docker-compose (1.29) validates without an engine; .ci/run installs it.
  it.skipIf(!hasDockerCompose && process.env.CI !== "true")("passes `docker-compose config`, which also insists on ADMIN_TOKEN", () => {
    const env = { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp" };
    const ok = spawnSync("docker-compose", ["-f", "docker-compose.yml", "config", "-q"], { cwd: REPO, env: { ...env, ADMIN_TOKEN: "x" }, encoding: "utf8" });
    expect(ok.status, ok.stderr).toBe(0);
    const missing = spawnSync("docker-compose", ["-f", "docker-compose.yml", "config", "-q"], { cwd: REPO, env, encoding: "utf8" });
    expect(missing.status).not.toBe(0);
    expect(missing.stderr).toMatch(/ADMIN_TOKEN/);
  });

  it("runs Redis, two server replicas and nginx, each with a health check, started in order", () => {
    expect(Object.keys(compose.services).sort()).toEqual(["proxy", "redis", "server-a", "server-b"]);
    for (const [name, service] of Object.entries(compose.services)) expect(service.healthcheck?.test.length, name).toBeGreaterThan(1);
    for (const name of ["server-a", "server-b"]) {
      expect(compose.services[name].build).toBeDefined();
      expect(compose.services[name].depends_on?.redis.condition).toBe("service_healthy");
      expect(compose.services[name].healthcheck?.test.join(" ")).toContain("/ready");
    }
    expect(compose.services.proxy.depends_on?.["server-a"].condition).toBe("service_healthy");
    expect(compose.services.proxy.depends_on?.["server-b"].condition).toBe("service_healthy");
  });

  it("gives the replicas the variables the multi-process test uses, and the server reads each of them", () => {
    const config = readFileSync(join(REPO, "server/config.ts"), "utf8");
    const tested = Object.keys(replicaEnv("a", 8080, "p:", "/tmp")).filter((k) => !TEST_ONLY_ENV.includes(k));
    for (const [name, path] of [
      ["server-a", "/a"],
      ["server-b", "/b"],
    ] as const) {
      const env = compose.services[name].environment ?? {};
      expect(Object.keys(env).sort(), name).toEqual(tested.sort());
      for (const key of Object.keys(env)) expect(config, `server/config.ts reads ${key}`).toMatch(new RegExp(`\\b${key}\\b`));
      expect(env.PUBLIC_ADDRESS.endsWith(path)).toBe(true);
      expect(env.REDIS_URL).toBe("redis://redis:6379");
      expect(compose.services.proxy.environment?.[name === "server-a" ? "SERVER_A" : "SERVER_B"]).toBe(`${name}:${env.PORT}`);
    }
    for (const key of TEST_ONLY_ENV) expect(config).toMatch(new RegExp(`\\b${key}\\b`));
  });

  it("mounts the nginx template the multi-process test runs, with exactly the variables it needs", () => {
    const proxy = compose.services.proxy;
    expect(proxy.image).toMatch(/^nginx:/);
    // Mounted as default.conf.template, so it replaces the image's own default server.
    expect(proxy.volumes).toContain("./deploy/nginx/physics.conf.template:/etc/nginx/templates/default.conf.template:ro");
    const template = readFileSync(NGINX_TEMPLATE, "utf8");
    const used = [...new Set([...template.matchAll(/\$\{([A-Z0-9_]+)\}/g)].map((m) => m[1]))].sort();
    expect(Object.keys(proxy.environment ?? {}).sort()).toEqual(used);
    // Each replica's public path is routed to that replica alone.
    expect(template).toMatch(/location \/a\/ \{\s*proxy_pass http:\/\/physics_a\/;/);
    expect(template).toMatch(/location \/b\/ \{\s*proxy_pass http:\/\/physics_b\/;/);
  });
});

describe("Dockerfile", () => {
  it("builds on Node 24 with npm ci and the client build, and runs the server entry", () => {
    const text = readFileSync(join(REPO, "Dockerfile"), "utf8");
    const pkg = JSON.parse(readFileSync(join(REPO, "package.json"), "utf8")) as { scripts: Record<string, string> };
    expect(text).toMatch(/^FROM node:24[\w.-]* AS build$/m);
    expect(text).toMatch(/^RUN npm ci$/m);
    if (pkg.scripts.build) expect(text).toMatch(/^RUN npm run build$/m);
    expect(text).toMatch(/^HEALTHCHECK .*\n?.*\/ready/m);
    expect(text).toMatch(/^CMD \["node", "server\/main\.ts"\]$/m);
    const ignore = readFileSync(join(REPO, ".dockerignore"), "utf8");
    expect(ignore).toMatch(/^node_modules$/m);
  });
});
