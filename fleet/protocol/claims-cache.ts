import type { NodeIdentity } from "./claim.ts";
import { keyKind } from "./own-claims.ts";

/** The cache's size unless told otherwise: a node's working set of other nodes' keys. */
export const defaultClaimsCacheSize = 10_000;

/** Another node's claim as the router last saw it. */
export interface CachedClaim {
  readonly owner: NodeIdentity;
  readonly revision: number;
  /** Its owner was seen silent or dead: the next look reads the claim again (a takeover may follow). */
  readonly stale?: true;
}

/**
 * The FleetRouter's cache of other nodes' claims: bounded, least recently used first out, unless the
 * router has a full view (the whole-bucket watch), when it keeps every claim and counts each owner's.
 */
export class ClaimsCache {
  /** Other nodes' claims, least recently used first (a Map keeps insertion order). */
  private readonly cache = new Map<string, CachedClaim>();
  private cacheSize: number;
  /** The size asked for, kept while a full view is on. */
  private readonly boundedSize: number;
  private watchAll: boolean;
  /** Entries the cache let go of to stay within its size. */
  evictions = 0;
  /**
   * With the whole-bucket watch, how many cached claims each owner (`node#incarnation`) holds, by key
   * kind: placement reads peers' counts, and walking every claim for them was a twentieth of a
   * 10,000-lobby drain's CPU.
   */
  private readonly kindsByOwner = new Map<string, Map<string, number>>();

  constructor(cacheSize: number | undefined, watchAll: boolean) {
    this.watchAll = watchAll;
    this.boundedSize = Math.max(1, cacheSize ?? defaultClaimsCacheSize);
    this.cacheSize = this.watchAll ? Infinity : this.boundedSize;
  }

  /** A full view keeps every claim and counts them by owner; off again, the oldest entries go first. */
  setFullView(on: boolean): void {
    this.watchAll = on;
    if (on) {
      this.cacheSize = Infinity;
      for (const [key, cached] of this.cache) this.count(key, cached.owner, 1);
      return;
    }
    this.kindsByOwner.clear();
    this.cacheSize = this.boundedSize;
    for (const key of this.cache.keys()) {
      if (this.cache.size <= this.cacheSize) break;
      this.cache.delete(key);
      this.evictions++;
    }
  }

  clear(): void {
    this.cache.clear();
    this.kindsByOwner.clear();
  }

  get(key: string): CachedClaim | undefined {
    return this.cache.get(key);
  }

  has(key: string): boolean {
    return this.cache.has(key);
  }

  /** Number of other nodes' claims cached. */
  get size(): number {
    return this.cache.size;
  }

  /** Every cached claim, least recently used first. */
  entries(): IterableIterator<[string, CachedClaim]> {
    return this.cache.entries();
  }

  /** Marks the claim of `key` to be read again at the next look, its place and count unchanged. */
  markStale(key: string, cached: CachedClaim): void {
    this.cache.set(key, { ...cached, stale: true });
  }

  /** How many claims `owner` holds by key kind; only counted with a full view. */
  kindsOf(owner: NodeIdentity): Map<string, number> {
    return new Map<string, number>(this.kindsByOwner.get(ownerId(owner)) ?? []);
  }

  /** The cached claim of `key`, marked as used just now. */
  touch(key: string): CachedClaim | undefined {
    const cached = this.cache.get(key);
    if (cached !== undefined && !this.watchAll) {
      this.cache.delete(key);
      this.cache.set(key, cached);
    }
    return cached;
  }

  put(key: string, cached: CachedClaim): void {
    const before = this.cache.get(key);
    if (before !== undefined) {
      this.count(key, before.owner, -1);
      this.cache.delete(key);
    }
    this.cache.set(key, cached);
    this.count(key, cached.owner, 1);
    while (this.cache.size > this.cacheSize) {
      const oldest = this.cache.keys().next();
      if (oldest.done === true) break;
      this.drop(oldest.value);
      this.evictions++;
    }
  }

  drop(key: string): void {
    const before = this.cache.get(key);
    if (before === undefined) return;
    this.cache.delete(key);
    this.count(key, before.owner, -1);
  }

  private count(key: string, owner: NodeIdentity, by: 1 | -1): void {
    if (!this.watchAll) return;
    const id = ownerId(owner);
    let kinds = this.kindsByOwner.get(id);
    if (kinds === undefined) this.kindsByOwner.set(id, (kinds = new Map<string, number>()));
    const kind = keyKind(key);
    const n = (kinds.get(kind) ?? 0) + by;
    if (n > 0) kinds.set(kind, n);
    else kinds.delete(kind);
    if (kinds.size === 0) this.kindsByOwner.delete(id);
  }
}

/** An owner's identity as one string. */
function ownerId(owner: NodeIdentity): string {
  return `${owner.node}#${owner.incarnation}`;
}
