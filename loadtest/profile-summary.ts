import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative, resolve } from "node:path";

/**
 * Summarizes a V8 CPU profile of the server (`node --cpu-prof`, written at exit) for the report: where
 * the thread's time went by area (engine files, sim, replay, state sync, schema encoding, Colyseus,
 * WebSocket, input validation, GC, idle) and the heaviest functions by self and by inclusive time.
 */

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  file: string;
  /** Profiled time, ms: samples × the median sampling interval (thread time, not wall time). */
  totalMs: number;
  /** Share of profiled time per area, busiest first (idle included). */
  areas: { area: string; ms: number; share: number }[];
  /** Functions by self time. */
  self: { fn: string; ms: number; share: number }[];
  /** Selected entry points by inclusive time (what one call costs with everything it calls). */
  inclusive: { fn: string; ms: number; share: number }[];
}

const ROOT = resolve(import.meta.dirname, "..");

function area(url: string, fn: string): string {
  if (fn === "(garbage collector)") return "GC";
  if (fn === "(idle)") return "idle";
  if (fn === "(program)") return "native / other (program)";
  if (url === "") return `native: ${fn || "(anonymous)"}`;
  const path = url.startsWith("file://") ? relative(ROOT, new URL(url).pathname) : url;
  if (path.startsWith("shared/engine/")) return `engine: ${path.slice("shared/engine/".length)}`;
  if (path.startsWith("shared/sim/")) return `sim: ${path.slice("shared/sim/".length)}`;
  if (path.startsWith("shared/net/")) return `net: ${path.slice("shared/net/".length)}`;
  if (path.startsWith("server/replay/")) return "replay recording";
  if (path.startsWith("server/state-sync")) return "state sync (quantize + schema assignment)";
  if (path.startsWith("server/")) return `server: ${path.slice("server/".length)}`;
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(path);
  if (m) {
    if (m[1] === "@colyseus/schema") return "schema encode (@colyseus/schema)";
    if (m[1] === "zod") return "input validation (zod)";
    return m[1];
  }
  if (path.startsWith("node:")) return `node: ${path.slice(5).split("/")[0]}`;
  return path;
}

/** Entry points worth an inclusive figure, by function name. */
const ENTRY_POINTS = [
  "tickOnce",
  "step",
  "record",
  "stateHash",
  "sync",
  "broadcastPatch",
  "handleInput",
  "encode",
  "renderMetrics",
  "updateAvatar",
  "moveCharacter",
];

export function summarizeProfile(file: string): ProfileSummary {
  const profile = JSON.parse(readFileSync(file, "utf8")) as CpuProfile;
  const byId = new Map<number, ProfileNode>();
  for (const n of profile.nodes) byId.set(n.id, n);
  // Weigh every sample by the median sampling interval instead of its own time delta: when the thread
  // was descheduled (a busy machine), the next sample carries the whole gap, which would be charged to
  // whatever happened to run next.
  const deltas = profile.timeDeltas.slice().sort((a, b) => a - b);
  const interval = deltas[deltas.length >> 1] ?? 1000;
  const selfUs = new Map<number, number>();
  for (let i = 0; i < profile.samples.length; i++) {
    const id = profile.samples[i];
    selfUs.set(id, (selfUs.get(id) ?? 0) + interval);
  }
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const inclusiveOf = new Map<number, number>();
  const visit = (id: number): number => {
    const known = inclusiveOf.get(id);
    if (known !== undefined) return known;
    const n = byId.get(id);
    let t = selfUs.get(id) ?? 0;
    for (const c of n?.children ?? []) t += visit(c);
    inclusiveOf.set(id, t);
    return t;
  };
  const root = profile.nodes[0];
  if (root) visit(root.id);

  const areas = new Map<string, number>();
  const selfFn = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const n = byId.get(id);
    if (!n) continue;
    const a = area(n.callFrame.url, n.callFrame.functionName);
    areas.set(a, (areas.get(a) ?? 0) + us);
    const fn = `${n.callFrame.functionName || "(anonymous)"} ${a.startsWith("native") || a === "GC" || a === "idle" ? "" : `(${a})`}`.trim();
    selfFn.set(fn, (selfFn.get(fn) ?? 0) + us);
  }
  // Inclusive per entry point: sum over nodes of that name whose ancestors do not have the same name
  // (recursion and nested calls are counted once).
  const inclusive = new Map<string, number>();
  const walk = (id: number, inside: Set<string>) => {
    const n = byId.get(id);
    if (!n) return;
    const name = n.callFrame.functionName;
    const a = area(n.callFrame.url, name);
    const key = `${name} (${a})`;
    let next = inside;
    if (ENTRY_POINTS.includes(name) && !inside.has(key)) {
      inclusive.set(key, (inclusive.get(key) ?? 0) + (inclusiveOf.get(id) ?? 0));
      next = new Set(inside).add(key);
    }
    for (const c of n.children ?? []) walk(c, next);
  };
  if (root) walk(root.id, new Set());

  const ms = (us: number) => Math.round(us / 100) / 10;
  const share = (us: number) => Math.round((us / Math.max(1, total)) * 1000) / 1000;
  const sorted = (m: Map<string, number>) => [...m].sort((a, b) => b[1] - a[1]);
  return {
    file,
    totalMs: ms(total),
    areas: sorted(areas)
      .slice(0, 25)
      .map(([area, us]) => ({ area, ms: ms(us), share: share(us) })),
    self: sorted(selfFn)
      .slice(0, 25)
      .map(([fn, us]) => ({ fn, ms: ms(us), share: share(us) })),
    inclusive: sorted(inclusive)
      .filter(([k]) => !k.includes("node_modules") || k.includes("broadcastPatch") || k.includes("encode"))
      .slice(0, 15)
      .map(([fn, us]) => ({ fn, ms: ms(us), share: share(us) })),
  };
}

/** The newest .cpuprofile in `dir` written after `since` (ms epoch), or null. */
export function newestProfile(dir: string, since: number): string | null {
  let best: string | null = null;
  let bestTime = since;
  try {
    for (const name of readdirSync(dir)) {
      if (!name.endsWith(".cpuprofile")) continue;
      const t = statSync(join(dir, name)).mtimeMs;
      if (t >= bestTime) {
        bestTime = t;
        best = join(dir, name);
      }
    }
  } catch {
    return null;
  }
  return best;
}
