/**
 * What a simulated world counts: each KV operation and watch delivery by bucket, each bus publish, its
 * deliveries and each request by subject. Counts are kept by name (`kv.watch.claims`,
 * `bus.delivered.foyer.push`); a node's id in a subject is written `*`, so one name covers every node's
 * subject of a kind (`bus.request.foyer.node.*.actor`).
 */
export class SimCounters {
  private readonly counts = new Map<string, number>();

  /** Adds `n` to the count `name`. */
  add(name: string, n = 1): void {
    this.counts.set(name, (this.counts.get(name) ?? 0) + n);
  }

  /** Every count now, by name. */
  snapshot(): ReadonlyMap<string, number> {
    return new Map(this.counts);
  }

  /** The counts added since `before` (a snapshot), by name; names that did not grow are left out. */
  since(before: ReadonlyMap<string, number>): Map<string, number> {
    const grown = new Map<string, number>();
    for (const [name, count] of this.counts) {
      const delta = count - (before.get(name) ?? 0);
      if (delta > 0) grown.set(name, delta);
    }
    return grown;
  }
}

/** The name a subject is counted under: a simulated node's id token (`n12`) is written `*`. */
export function countedSubject(subject: string): string {
  return subject
    .split(".")
    .map((token) => (/^n\d+$/.test(token) ? "*" : token))
    .join(".");
}
