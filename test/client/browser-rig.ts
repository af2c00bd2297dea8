import { mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type Browser, chromium } from "playwright-core";
import { build } from "vite";
import { expect } from "vitest";
import type { ServerLimits } from "../../server/config.ts";
import { startTestServer, type TestServer } from "../server/helpers.ts";

/**
 * What every browser test starts from: Debian's chromium (playwright-core drives it; .ci/run installs
 * it, no browser download), a fresh production build of the client, and a real server serving it.
 */

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const ROOT = join(import.meta.dirname, "..", "..");
/** Headless, software rendering, and nothing that talks to the network on its own. */
const CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update", "--disable-sync", "--no-first-run"];

/** Fails the suite with the reason when the browser is missing. */
export function expectChromium(): void {
  expect(statSync(CHROMIUM, { throwIfNoEntry: false }), `${CHROMIUM} is missing: .ci/run installs Debian's chromium`).toBeDefined();
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}

/** Builds the client (client/vite.config.ts) into a new temporary directory named after `label`; returns it. */
export async function buildClient(label: string): Promise<string> {
  const dist = mkdtempSync(join(tmpdir(), `${label}-dist-`));
  await build({ configFile: join(ROOT, "client", "vite.config.ts"), logLevel: "silent", build: { outDir: dist, emptyOutDir: true } });
  return dist;
}

export interface BrowserRig {
  /** The client build the server serves. */
  dist: string;
  srv: TestServer;
  browser: Browser;
  /** Closes the browser and the server, removes the build. */
  close(): Promise<void>;
}

/** Chromium, a fresh client build and a test server (startTestServer) serving it, with `limits` if given. */
export async function startBrowserRig(label: string, limits?: Partial<ServerLimits>): Promise<BrowserRig> {
  expectChromium();
  const dist = await buildClient(label);
  const srv = await startTestServer({ clientDir: dist, ...(limits ? { limits } : {}) });
  const browser = await launchChromium();
  return {
    dist,
    srv,
    browser,
    async close() {
      await browser.close();
      await srv.close();
      rmSync(dist, { recursive: true, force: true });
    },
  };
}
