/** Small statistics helpers for the load generator (no dependencies). */

/** Nearest-rank quantile of unsorted samples (copied and sorted); 0 when empty. */
export function quantile(values: ArrayLike<number>, q: number): number {
  if (values.length === 0) return 0;
  const sorted = Float64Array.from(values).sort();
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))];
}

/** Several quantiles and the max of one sample set, sorted once. */
export function summarize(values: ArrayLike<number>): { count: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const n = values.length;
  if (n === 0) return { count: 0, p50: 0, p95: 0, p99: 0, max: 0, mean: 0 };
  const sorted = Float64Array.from(values).sort();
  const at = (q: number) => sorted[Math.min(n - 1, Math.max(0, Math.ceil(q * n) - 1))];
  let sum = 0;
  for (let i = 0; i < n; i++) sum += sorted[i];
  return { count: n, p50: at(0.5), p95: at(0.95), p99: at(0.99), max: sorted[n - 1], mean: sum / n };
}

/** A growable list of numbers (patch intervals, join latencies) without boxing. */
export class Samples {
  private data = new Float64Array(1024);
  length = 0;

  push(v: number): void {
    if (this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data[this.length++] = v;
  }

  clear(): void {
    this.length = 0;
  }

  view(): Float64Array {
    return this.data.subarray(0, this.length);
  }
}

/** Rounds for reports: 3 significant decimals below 10, 1 decimal below 1000, integers above. */
export function round(v: number): number {
  if (!Number.isFinite(v)) return v;
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v);
  if (a >= 10) return Math.round(v * 10) / 10;
  return Math.round(v * 1000) / 1000;
}
