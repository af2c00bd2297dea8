import { Session } from "node:inspector/promises";
import { describe, expect, it } from "vitest";
import { builtin, steps } from "./helpers.ts";

interface SamplingNode {
  selfSize: number;
  children: SamplingNode[];
  callFrame: { functionName: string; url: string };
}

/**
 * Bytes allocated by `fn` (objects collected since included), by V8's sampling heap profiler. Sampling
 * every 512 bytes: the total is an estimate, but a per-body allocation in the step (16 bytes × 1000
 * bodies × 300 steps ≈ 5 MB) cannot hide below the bound used here.
 */
async function allocatedBytes(fn: () => void): Promise<{ total: number; top: string }> {
  const session = new Session();
  session.connect();
  await session.post("HeapProfiler.startSampling", {
    samplingInterval: 512,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  fn();
  const { profile } = (await session.post("HeapProfiler.stopSampling")) as unknown as { profile: { head: SamplingNode } };
  session.disconnect();
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (n: SamplingNode) => {
    if (n.callFrame.url.includes("/shared/engine/")) {
      total += n.selfSize;
      const site = `${n.callFrame.functionName} ${n.callFrame.url.split("/").slice(-2).join("/")}`;
      bySite.set(site, (bySite.get(site) ?? 0) + n.selfSize);
    }
    for (const c of n.children) walk(c);
  };
  walk(profile.head);
  const top = [...bySite.entries()].sort((a, b) => b[1] - a[1])[0];
  return { total, top: top ? `${top[0]}: ${top[1]} B` : "none" };
}

describe("no allocation in step()", () => {
  for (const name of ["heap1000", "rain2000"]) {
    it(`${name}: 300 steps after warm-up allocate (next to) nothing in engine code`, async () => {
      const { world } = builtin(name);
      steps(world, 300);
      const { total, top } = await allocatedBytes(() => steps(world, 300));
      // Under 100 bytes per step on average (measured: ~0); the message names the worst site.
      expect(total, top).toBeLessThan(300 * 100);
    });
  }
});
