import type { Scheduler, StoredActor } from "../../actors/runtime/index.ts";

/** How long a seal of ours stands in for a read of the key (the restore follows it at once). */
const sealedFreshMs = 2_000;

/**
 * What a seal of ours just wrote (or found), kept for the restore that follows it: a takeover or an
 * adoption is sealed and then restored at once, and reading back the claim and the snapshot it has
 * just settled would cost two more round trips per key. Taken once, and only while fresh.
 */
export class SealCache {
  private readonly scheduler: Scheduler;
  private readonly sealed = new Map<string, { stored: StoredActor; at: number; incarnation: string }>();

  constructor(scheduler: Scheduler) {
    this.scheduler = scheduler;
  }

  /** Forgets the seal of `key`: a write, a removal or a new takeover of it makes it stale. */
  drop(key: string): void {
    this.sealed.delete(key);
  }

  /**
   * Notes a seal of ours for the restore that follows. Kept under the incarnation that signed the claim:
   * a seal that outlives a fence of this node is never taken as the next incarnation's.
   */
  keep(key: string, stored: StoredActor, incarnation: string): void {
    const now = this.scheduler.now();
    // Seals the restore never read (a key taken while this node was being declared dead) age out here.
    for (const [older, entry] of this.sealed) {
      if (now - entry.at <= sealedFreshMs) break;
      this.sealed.delete(older);
    }
    this.sealed.delete(key);
    this.sealed.set(key, { stored, at: now, incarnation });
  }

  /** The seal just noted for `key`, once, if it is fresh and `incarnation`'s. */
  take(key: string, incarnation: string): StoredActor | null {
    const entry = this.sealed.get(key);
    if (entry === undefined) return null;
    this.sealed.delete(key);
    const fresh = this.scheduler.now() - entry.at <= sealedFreshMs;
    return fresh && entry.incarnation === incarnation ? entry.stored : null;
  }
}
