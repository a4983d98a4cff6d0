// The same percentiles as Foyer's ops/bench/latency.ts, so the two benches read alike.
export function summarize(latencies) {
  if (latencies.length === 0) return { count: 0, p50Ms: 0, p99Ms: 0, meanMs: 0 };
  const sorted = [...latencies].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? 0;
  const round = (x) => Number(x.toFixed(3));
  const mean = sorted.reduce((s, x) => s + x, 0) / sorted.length;
  return { count: sorted.length, p50Ms: round(at(0.5)), p99Ms: round(at(0.99)), meanMs: round(mean) };
}

export async function timed(op, into) {
  const t0 = performance.now();
  const value = await op();
  into.push(performance.now() - t0);
  return value;
}

export function flag(name, fallback) {
  const at = process.argv.indexOf(`--${name}`);
  if (at === -1) return fallback;
  const value = process.argv[at + 1];
  return value === undefined || value.startsWith("--") ? true : value;
}

// A memory bench's wait before a reading: `ms`, or `settleSeconds` when that is set (--settle-seconds), so
// every server and floor is read after sitting idle as long.
export function settleWait(settleSeconds, ms) {
  return new Promise((resolve) => setTimeout(resolve, settleSeconds > 0 ? settleSeconds * 1000 : ms));
}
