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
  // Warm-up steps: V8 optimises a function after enough calls, and unoptimised code boxes its doubles.
  // The playground's 30 bodies call each collision routine far less often per step than a thousand do.
  const WARM_UP: Record<string, number> = { heap1000: 300, rain2000: 300, playground: 3000, shapes1000: 600 };
  for (const [name, warmUp] of Object.entries(WARM_UP)) {
    it(`${name}: steps after warm-up allocate (next to) nothing in engine code`, async () => {
      const { world } = builtin(name);
      steps(world, warmUp);
      // shapes1000 steps are the dearest under the profiler: 100 of them keep the run under half a minute.
      const measured = name === "shapes1000" ? 100 : 300;
      const { total, top } = await allocatedBytes(() => steps(world, measured));
      // Under 100 bytes per step on average (measured: ~0); the message names the worst site.
      expect(total, top).toBeLessThan(measured * 100);
    });
  }
});

describe("no allocation in character moves", () => {
  it("moveCharacter among a thousand bodies allocates (next to) nothing in engine code", async () => {
    const { world } = builtin("pile1000");
    const avatars: number[] = [];
    for (let i = 0; i < 8; i++) {
      avatars.push(
        world.createBody({ id: `avatar${i}`, type: "kinematic", shape: { type: "box", halfExtents: [0.4, 0.9, 0.4] }, position: [-6 + 1.5 * i, 1, 8] }),
      );
    }
    steps(world, 60);
    const result = { moved: [0, 0, 0] as [number, number, number], grounded: false, hits: 0 };
    const options = { blockOnDynamic: true };
    const left = [-0.05, -0.02, 0.03];
    const right = [0.05, -0.02, -0.03];
    const moves = (n: number) => {
      for (let r = 0; r < n; r++) for (const h of avatars) world.moveCharacter(h, r % 2 === 0 ? left : right, options, result);
    };
    // Long enough for V8 to optimise the character code (unoptimised code boxes its doubles).
    moves(3000);
    const { total, top } = await allocatedBytes(() => moves(1000));
    console.log(`character moves: ${total} B over 8000 moves`);
    // 8000 moves: a per-move allocation (a query result, a closure, a boxed double argument) would be ≥ 16 B × 8000.
    expect(total, top).toBeLessThan(20_000);
  });
});
