/** Percentiles of a set of latencies, in milliseconds. */
export interface LatencySummary {
  readonly count: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly meanMs: number;
}

/** Summarizes latencies (ms): count, p50, p99, mean. */
export function summarize(latencies: readonly number[]): LatencySummary {
  if (latencies.length === 0) return { count: 0, p50Ms: 0, p99Ms: 0, meanMs: 0 };
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (x: number): number => Number(x.toFixed(3));
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return { count: sorted.length, p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), meanMs: round(mean) };
}

/** Runs `op` once and records how long it took (ms) into `into`; returns what `op` returned. */
export async function timed<T>(op: () => Promise<T>, into: number[]): Promise<T> {
  const t0 = performance.now();
  const value = await op();
  into.push(performance.now() - t0);
  return value;
}

/** Runs `op` again and again until `deadline` (a `performance.now()` time), recording each latency. */
export async function timeUntil(deadline: number, op: () => Promise<unknown>, into: number[]): Promise<void> {
  while (performance.now() < deadline) await timed(op, into);
}
