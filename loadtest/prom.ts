/**
 * Reads the server's Prometheus text (/metrics, server/metrics.ts): samples keyed by name and labels,
 * differences between two scrapes, and quantiles of a histogram's difference (linear inside a bucket,
 * as Prometheus' histogram_quantile does).
 */

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export type Scrape = Sample[];

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parsePrometheus(text: string): Scrape {
  const out: Scrape = [];
  for (const line of text.split("\n")) {
    if (line === "" || line.startsWith("#")) continue;
    const m = LINE.exec(line);
    if (!m) continue;
    const labels: Record<string, string> = {};
    if (m[2]) for (const l of m[2].matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, (_s, c: string) => (c === "n" ? "\n" : c));
    const value = m[3] === "+Inf" ? Number.POSITIVE_INFINITY : Number(m[3]);
    out.push({ name: m[1], labels, value });
  }
  return out;
}

/** The value of one series (first match of the given labels); `fallback` when absent. */
export function value(scrape: Scrape, name: string, labels: Record<string, string> = {}, fallback = 0): number {
  for (const s of scrape) {
    if (s.name !== name) continue;
    let ok = true;
    for (const k in labels) if (s.labels[k] !== labels[k]) ok = false;
    if (ok) return s.value;
  }
  return fallback;
}

/** Sum of a series over every label set that matches `filter` (e.g. all rooms of a run). */
export function sum(scrape: Scrape, name: string, filter: (labels: Record<string, string>) => boolean = () => true): number {
  let total = 0;
  for (const s of scrape) if (s.name === name && filter(s.labels)) total += s.value;
  return total;
}

/** Cumulative histogram buckets (le → count) of one metric, summed over the rooms `filter` accepts. */
export function histogram(scrape: Scrape, metric: string, filter: (labels: Record<string, string>) => boolean = () => true): Map<number, number> {
  const buckets = new Map<number, number>();
  for (const s of scrape) {
    if (s.name !== `${metric}_bucket` || !filter(s.labels)) continue;
    const le = s.labels.le === "+Inf" ? Number.POSITIVE_INFINITY : Number(s.labels.le);
    buckets.set(le, (buckets.get(le) ?? 0) + s.value);
  }
  return buckets;
}

/** after - before, bucket by bucket. */
export function histogramDelta(after: Map<number, number>, before: Map<number, number>): Map<number, number> {
  const out = new Map<number, number>();
  for (const [le, n] of after) out.set(le, n - (before.get(le) ?? 0));
  return out;
}

/**
 * Quantile of a cumulative histogram, interpolated linearly inside the bucket it falls in (the first
 * bucket from 0). Falls in the +Inf bucket → the largest finite bound (a lower bound of the truth).
 */
export function histogramQuantile(buckets: Map<number, number>, q: number): number {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  const total = buckets.get(Number.POSITIVE_INFINITY) ?? 0;
  if (total <= 0) return 0;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const le of bounds) {
    const count = buckets.get(le) ?? 0;
    if (count >= rank) {
      if (!Number.isFinite(le)) return lower;
      const inBucket = count - below;
      return inBucket <= 0 ? le : lower + ((le - lower) * (rank - below)) / inBucket;
    }
    lower = Number.isFinite(le) ? le : lower;
    below = count;
  }
  return lower;
}

/** Share of observations above `bound` (which must be one of the bucket bounds to be exact). */
export function histogramShareAbove(buckets: Map<number, number>, bound: number): number {
  const total = buckets.get(Number.POSITIVE_INFINITY) ?? 0;
  if (total <= 0) return 0;
  let at = 0;
  let best = -1;
  for (const [le, count] of buckets) {
    if (le <= bound + 1e-9 && le > best) {
      best = le;
      at = count;
    }
  }
  return (total - at) / total;
}

/** Upper bound of the highest non-empty bucket: "every observation was ≤ this" (∞ if the +Inf bucket has any). */
export function histogramMaxBound(buckets: Map<number, number>): number {
  const bounds = [...buckets.keys()].sort((a, b) => a - b);
  let previous = 0;
  let result = 0;
  for (const le of bounds) {
    const count = buckets.get(le) ?? 0;
    if (count > previous) result = le;
    previous = count;
  }
  return result;
}
