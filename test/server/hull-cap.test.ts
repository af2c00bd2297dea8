import { describe, expect, it } from "vitest";
import { PLAYER_ROOM_CAPS, scenarioCaps } from "../../server/rooms/room-caps.ts";
import { resolveScenario } from "../../server/scenario-input.ts";

/** A hull of n points on a sphere (every point a vertex: the dearest hull to build). */
function sphereHull(n: number): number[][] {
  const points: number[][] = [];
  for (let i = 0; i < n; i++) {
    const y = 1 - (2 * (i + 0.5)) / n;
    const r = Math.sqrt(1 - y * y);
    const a = i * 2.399963;
    points.push([r * Math.cos(a), y, r * Math.sin(a)]);
  }
  return points;
}

describe("hull points in a player's scenario", () => {
  const caps = scenarioCaps(PLAYER_ROOM_CAPS);
  const scenario = (hulls: number, nested = false) => ({
    name: "hulls",
    bodies: Array.from({ length: hulls }, (_, i) => ({
      id: `h${i}`,
      type: "dynamic",
      shape: nested ? { type: "compound", children: [{ shape: { type: "hull", points: sphereHull(256) } }] } : { type: "hull", points: sphereHull(256) },
      position: [3 * i, 5, 0],
    })),
  });

  it("eight 256-point hulls fit; nine are refused before any hull is built, naming the first hull", () => {
    expect(resolveScenario(scenario(8), "scenario", caps).ok).toBe(true);
    const t = performance.now();
    const refused = resolveScenario(scenario(9), "scenario", caps);
    const ms = performance.now() - t;
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(refused.issues).toEqual([
      { path: "scenario.bodies[0].shape.points", message: "the scenario's hulls have 2304 points in all, at most 2048 allowed in this room" },
    ]);
    console.log(`refusing 9 hulls of 256 points took ${ms.toFixed(1)} ms (no hull built)`);
  });

  it("counts compound children's hulls too", () => {
    const refused = resolveScenario(scenario(9, true), "scenario", caps);
    expect(refused.ok).toBe(false);
    if (!refused.ok) expect(refused.issues[0].path).toBe("scenario.bodies[0].shape.children[0].shape.points");
  });

  it("a mesh of more than 8192 triangles is refused before it is built", () => {
    const n = 65;
    const vertices: number[][] = [];
    const indices: number[][] = [];
    for (let r = 0; r <= n; r++) for (let c = 0; c <= n; c++) vertices.push([c, 0, r]);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < n; c++) {
        const i = r * (n + 1) + c;
        indices.push([i, i + n + 1, i + 1], [i + 1, i + n + 1, i + n + 2]);
      }
    }
    const refused = resolveScenario({ name: "mesh", bodies: [{ id: "m", type: "static", shape: { type: "mesh", vertices, indices }, position: [0, 0, 0] }] }, "scenario", caps);
    expect(refused.ok).toBe(false);
    if (!refused.ok) {
      expect(refused.issues).toEqual([
        { path: "scenario.bodies[0].shape.indices", message: "the scenario's meshes have 8450 triangles in all, at most 8192 allowed in this room" },
      ]);
    }
  });
});
