import { Session } from "node:inspector/promises";
import { describe, expect, it } from "vitest";
import { World } from "../../shared/engine/index.ts";
import { builtin, GROUND, steps } from "./helpers.ts";

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
  // The playground's 30 bodies call each collision routine far less often per step than a thousand do,
  // and the step's once-per-step functions only tier up after thousands of steps: it runs without
  // sleeping so that its pairs are still colliding when measured (with sleeping, one body is awake by then).
  const WARM_UP: Record<string, number> = { heap1000: 600, rain2000: 300, playground: 8000, shapes1000: 600 };
  for (const [name, warmUp] of Object.entries(WARM_UP)) {
    it(`${name}: steps after warm-up allocate (next to) nothing in engine code`, async () => {
      const { world } = builtin(name, name === "playground" ? { sleep: false } : {});
      steps(world, warmUp);
      if (name === "playground") expect(world.lastStepStats.constraints).toBeGreaterThan(20);
      // shapes1000 steps are the dearest under the profiler: 100 of them keep the run under half a minute.
      const measured = name === "shapes1000" ? 100 : 300;
      const { total, top } = await allocatedBytes(() => steps(world, measured));
      // Under 100 bytes per step on average (measured: ~0); the message names the worst site.
      expect(total, top).toBeLessThan(measured * 100);
    });
  }
});

describe("no allocation in joint steps", () => {
  it("every joint type, with limits, motors, a spring and contacts, allocates (next to) nothing in engine code", async () => {
    const w = new World({ sleep: false });
    w.createBody(GROUND);
    const box = (id: string, x: number, y: number) =>
      w.createBody({ id, type: "dynamic", shape: { type: "box", halfExtents: [0.2, 0.2, 0.2] }, position: [x, y, 0], angularVelocity: [0.3, 0.5, 0.1] });
    for (let i = 0; i < 6; i++) box(`b${i}`, i * 1.5, 2);
    box("c", 0, 0.2);
    w.createJoint({ id: "ball", type: "ball", bodyA: "b0", bodyB: null, anchor: [0, 3, 0] });
    w.createJoint({ id: "hinge", type: "hinge", bodyA: "b1", bodyB: "b0", anchor: [0.75, 2, 0], axis: [0, 0, 1], limits: [-0.5, 0.5], motor: { targetVelocity: 1, maxForce: 3 } });
    w.createJoint({ id: "slider", type: "slider", bodyA: "b2", bodyB: null, anchor: [3, 2, 0], axis: [1, 0.2, 0], limits: [-0.3, 0.3], motor: { targetVelocity: -1, maxForce: 50 } });
    w.createJoint({ id: "fixed", type: "fixed", bodyA: "b3", bodyB: "b2", anchor: [3.75, 2, 0] });
    w.createJoint({ id: "spring", type: "distance", bodyA: "b4", bodyB: null, anchor: [6, 2.2, 0], anchorB: [6, 3.5, 0], limits: [1, 1], spring: { frequency: 3, dampingRatio: 0.1 } });
    w.createJoint({ id: "rope", type: "distance", bodyA: "b5", bodyB: "c", anchor: [7.5, 2, 0], anchorB: [0, 0.2, 0], limits: [0, 8] });
    // Long enough for V8 to optimise the joint code (unoptimised code boxes its doubles).
    steps(w, 6000);
    const { total, top } = await allocatedBytes(() => steps(w, 300));
    console.log(`joints: ${total} B over 300 steps`);
    expect(w.jointCount).toBe(6);
    expect(total, top).toBeLessThan(300 * 100);
  });
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
