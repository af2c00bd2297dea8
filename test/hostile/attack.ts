/** Shared pieces of the attacker tests: nasty scenarios, metrics parsing, timing of /health. */
import { request } from "node:http";

export type Vec3 = [number, number, number];

/**
 * `n` unit spheres over a ground box, all at one point (every pair overlaps) or in a block `gap` metres
 * apart, the lowest `height` metres up.
 */
export function spherePile(n: number, world: Record<string, unknown> = {}, gap = 0, name = "pile", height = 2): Record<string, unknown> {
  const bodies: Record<string, unknown>[] = [{ id: "ground", type: "static", shape: { type: "box", halfExtents: [20, 0.5, 20] }, position: [0, -0.5, 0] }];
  for (let i = 0; i < n; i++) {
    const position: Vec3 = [gap * (i % 10), height + gap * Math.floor(i / 100), gap * (Math.floor(i / 10) % 10)];
    bodies.push({ id: `s${i}`, type: "dynamic", shape: { type: "sphere", radius: 0.5 }, position });
  }
  return { name, world, bodies };
}

/** spherePile in a block, inside a square well of static walls just wide enough: the pile cannot spread. */
export function spheresInWell(n: number, world: Record<string, unknown>, height: number, name = "well"): Record<string, unknown> {
  const pile = spherePile(n, world, 1.05, name, height) as { bodies: Record<string, unknown>[] };
  const half = 5.4;
  const wall = (id: string, position: Vec3, halfExtents: Vec3) => ({ id, type: "static", shape: { type: "box", halfExtents }, position });
  pile.bodies.push(
    wall("wall-n", [4.725, 10, -0.525 - 0.5], [half, 10, 0.5]),
    wall("wall-s", [4.725, 10, 9.975 + 0.5], [half, 10, 0.5]),
    wall("wall-w", [-0.525 - 0.5, 10, 4.725], [0.5, 10, half]),
    wall("wall-e", [9.975 + 0.5, 10, 4.725], [0.5, 10, half]),
  );
  return { ...pile, name, world };
}

/** Cumulative histogram buckets of one series for one room, from the Prometheus text: [le, count][]. */
export function roomBuckets(metrics: string, series: string, roomId: string): [number, number][] {
  const out: [number, number][] = [];
  const re = new RegExp(`^${series}_bucket\\{room="${roomId}",le="([^"]+)"\\} (\\S+)$`, "gm");
  for (const m of metrics.matchAll(re)) out.push([m[1] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[1]), Number(m[2])]);
  return out;
}

/** A counter or gauge value (first series matching the label text), or 0. */
export function metricValue(metrics: string, name: string, labels = ""): number {
  const escaped = labels.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const m = new RegExp(`^${name}${labels ? `\\{${escaped}\\}` : ""} (\\S+)$`, "m").exec(metrics);
  return m ? Number(m[1]) : 0;
}

/** Share of observations at or below `le`, between two cumulative histograms of the same series. */
export function shareAtOrBelow(before: [number, number][], after: [number, number][], le: number): { share: number; count: number } {
  const total = (after.at(-1)?.[1] ?? 0) - (before.at(-1)?.[1] ?? 0);
  const at = (h: [number, number][]) => h.find(([b]) => b === le)?.[1] ?? 0;
  const below = at(after) - at(before);
  return { share: total === 0 ? 0 : below / total, count: total };
}

/** Time of one GET, ms. */
export async function timedGet(url: string): Promise<{ ms: number; status: number }> {
  const t0 = performance.now();
  const res = await fetch(url);
  await res.arrayBuffer();
  return { ms: performance.now() - t0, status: res.status };
}

/** Source addresses an attacker on this machine can send from (the loopback range is all ours). */
export const ATTACKER_ADDRESSES = ["127.0.0.2", "127.0.0.3", "127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7", "127.0.0.8", "127.0.0.9"];

/** POST a JSON text from `localAddress` (node:http, so the source address can be chosen). */
export function postFrom(localAddress: string, url: string, text: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "POST", localAddress, headers: { "content-type": "application/json", "content-length": Buffer.byteLength(text) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString("utf8") }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(text);
  });
}
