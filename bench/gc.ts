import { constants, type PerformanceEntry, PerformanceObserver } from "node:perf_hooks";
import v8 from "node:v8";

/**
 * Allocation / GC measurement around a piece of code (e.g. N engine steps).
 *
 * What Node 24 offers (checked on 24.21):
 * - `PerformanceObserver` with entryTypes ['gc']: one entry per GC, `duration` in ms and
 *   `detail.kind` (minor = scavenge, major = mark-sweep-compact, incremental, weakcb). Entries are
 *   delivered asynchronously, so `measureGc` is async and flushes the observer before it reports.
 * - `process.memoryUsage().heapUsed` before/after: the net heap growth (what survived + what was
 *   allocated since the last GC); on its own it hides everything a GC reclaimed meanwhile.
 * - `v8.getHeapStatistics().total_allocated_bytes`: NOT present in Node 24.21 (reported as null; used
 *   automatically if a later Node adds it).
 * - `v8.GCProfiler`: heap statistics before and after every GC. From it the bytes allocated are
 *   estimated as (used heap at end - used heap at start) + sum over GCs of (used before - used after),
 *   i.e. net growth plus everything the GCs freed. That is exact up to allocations that were freed
 *   by a GC that started before `fn` and finished during it; good enough for "bytes per step".
 *
 * For stable numbers call `global.gc()` first (run node with --expose-gc) and measure many steps.
 */
export interface GcReport {
  /** Wall time of fn, ms. */
  wallMs: number;
  /** GC events observed while fn ran, and their total pause time in ms. */
  gcCount: number;
  gcMs: number;
  byKind: Record<string, { count: number; ms: number }>;
  /** process.memoryUsage().heapUsed after - before, bytes. */
  heapUsedDelta: number;
  /** Estimated bytes allocated on the JS heap during fn (GCProfiler, see above). */
  allocatedBytes: number;
  /** v8.getHeapStatistics().total_allocated_bytes delta, when this Node has it; else null. */
  totalAllocatedBytes: number | null;
}

const KIND_NAMES: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};

function totalAllocated(): number | null {
  const s = v8.getHeapStatistics() as unknown as Record<string, unknown>;
  const v = s.total_allocated_bytes;
  return typeof v === "number" ? v : null;
}

const tick = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

export async function measureGc<T>(fn: () => T | Promise<T>): Promise<{ result: T; report: GcReport }> {
  const entries: PerformanceEntry[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) entries.push(e);
  });
  obs.observe({ entryTypes: ["gc"] });
  // Drop GC entries from before fn that are still queued.
  await tick();
  entries.length = 0;

  const profiler = new v8.GCProfiler();
  const alloc0 = totalAllocated();
  const heap0 = process.memoryUsage().heapUsed;
  const used0 = v8.getHeapStatistics().used_heap_size;
  profiler.start();
  const t0 = performance.now();
  const result = await fn();
  const wallMs = performance.now() - t0;
  const used1 = v8.getHeapStatistics().used_heap_size;
  const heap1 = process.memoryUsage().heapUsed;
  const alloc1 = totalAllocated();
  const profile = profiler.stop();

  // Let the observer deliver what is queued, then collect the rest synchronously.
  await tick();
  await tick();
  for (const e of obs.takeRecords()) entries.push(e);
  obs.disconnect();

  const byKind: Record<string, { count: number; ms: number }> = {};
  let gcMs = 0;
  for (const e of entries) {
    const kindNum = (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? -1;
    const kind = KIND_NAMES[kindNum] ?? `kind${kindNum}`;
    const k = (byKind[kind] ??= { count: 0, ms: 0 });
    k.count++;
    k.ms += e.duration;
    gcMs += e.duration;
  }

  let freed = 0;
  for (const s of profile?.statistics ?? []) {
    freed += s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize;
  }

  return {
    result,
    report: {
      wallMs,
      gcCount: entries.length,
      gcMs,
      byKind,
      heapUsedDelta: heap1 - heap0,
      allocatedBytes: used1 - used0 + freed,
      totalAllocatedBytes: alloc0 !== null && alloc1 !== null ? alloc1 - alloc0 : null,
    },
  };
}
