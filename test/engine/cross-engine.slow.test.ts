import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "vite";
import { describe, expect, it } from "vitest";
import { expectChromium, launchChromium } from "../client/browser-rig.ts";
import { jointHashes, playgroundHashes, scriptedHashes } from "./scripted-run.ts";

const TICKS = 600;

describe("determinism across JavaScript engines", () => {
  it("Node (V8) and headless Chromium give identical per-tick hashes", async () => {
    expectChromium();
    const dir = mkdtempSync(join(tmpdir(), "engine-bundle-"));
    try {
      await build({
        configFile: false,
        logLevel: "silent",
        build: {
          outDir: dir,
          emptyOutDir: true,
          minify: false,
          lib: { entry: join(import.meta.dirname, "browser-entry.ts"), formats: ["iife"], name: "EngineCheck", fileName: () => "engine.js" },
        },
      });
      const bundle = readFileSync(join(dir, "engine.js"), "utf8");
      const browser = await launchChromium();
      try {
        const page = await browser.newPage();
        await page.setContent("<!doctype html><title>engine</title>");
        await page.addScriptTag({ content: bundle });
        const inBrowser = await page.evaluate((ticks) => {
          const g = globalThis as unknown as {
            EngineCheck: { scriptedHashes(n: number): string[]; playgroundHashes(n: number): string[]; jointHashes(n: number): string[] };
          };
          return {
            hashes: g.EngineCheck.scriptedHashes(ticks),
            shapes: g.EngineCheck.playgroundHashes(ticks),
            joints: g.EngineCheck.jointHashes(ticks),
            agent: navigator.userAgent,
          };
        }, TICKS);
        expect(inBrowser.agent).toContain("Chrome");
        const inNode = scriptedHashes(TICKS);
        expect(inNode.length).toBe(TICKS + 1);
        expect(new Set(inNode).size).toBeGreaterThan(TICKS / 2);
        const first = inNode.findIndex((h, i) => h !== inBrowser.hashes[i]);
        expect(first, `first diverging tick ${first}`).toBe(-1);
        // Every shape (capsules, cylinders, hulls, compounds, a mesh, a height field) and a capsule character.
        const shapesInNode = playgroundHashes(TICKS);
        expect(new Set(shapesInNode).size).toBeGreaterThan(TICKS / 2);
        const firstShapes = shapesInNode.findIndex((h, i) => h !== inBrowser.shapes[i]);
        expect(firstShapes, `playground: first diverging tick ${firstShapes}`).toBe(-1);
        // Every joint type (hinge angles come from our own atan2: Math.atan2 may differ between engines).
        const jointsInNode = jointHashes(TICKS);
        expect(new Set(jointsInNode).size).toBeGreaterThan(TICKS / 2);
        const firstJoints = jointsInNode.findIndex((h, i) => h !== inBrowser.joints[i]);
        expect(firstJoints, `joints: first diverging tick ${firstJoints}`).toBe(-1);
      } finally {
        await browser.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
