import type { AskResult, Forwarded, Location, Router, Scheduler } from "../../actors/runtime/index.ts";
import { type ActorDelivery, encodeDelivery, nodeActorSubject } from "./actor-wire.ts";
import type { Bus } from "../bus.ts";
import { type NodeIdentity, decodeClaim, sameIdentity } from "./claim.ts";
import { withEscapedKeys } from "../escaped-keys.ts";
import type { ClaimView } from "./failover.ts";
import type { KvBucket, KvEntry, KvWatch } from "../kv.ts";
import { OwnClaims } from "./own-claims.ts";
import { ClaimsCache } from "./claims-cache.ts";
import { ClaimWaiters } from "./claim-waiters.ts";
import { NodeAsks, retryAfterMs } from "./node-asks.ts";
import type { OwnerState } from "./peer-table.ts";
import { realScheduler } from "../real-scheduler.ts";

/** How a FleetRouter finds owners and reaches them. */
export interface FleetRouterOptions {
  /** The `claims` bucket (as opened, unescaped): key → owning node. */
  readonly claims: KvBucket;
  readonly bus: Bus;
  /** This process, as it signs its claims. */
  readonly identity: NodeIdentity;
  readonly scheduler?: Scheduler;
  /**
   * Tries of a forward answered `no-responders`, and the first wait (doubled each time): a peer's
   * subscription reaches the other servers of a cluster a moment after it is made. Default 6 × 20 ms
   * (about 0.6 s in all).
   */
  readonly noResponders?: { readonly attempts: number; readonly firstDelayMs: number };
  /**
   * Membership's view of a claim's owner: a key whose owner is suspected or dead is answered
   * `UNAVAILABLE` until a survivor has taken it over. Without it every owner counts as live.
   */
  readonly ownerState?: (owner: NodeIdentity) => OwnerState;
  /** Told of each located key whose owner is declared dead (a caller waits for its takeover). */
  readonly deadOwner?: (claim: ClaimView) => void;
  /**
   * True while this node is taking `key` over (its claim may already name us, its seal is not written
   * yet): the key is answered `UNAVAILABLE` meanwhile, and `learn` wakes its waiters once it is taken. A
   * caller that loaded it in between would race the takeover with a seal and reads of its own.
   */
  readonly takingOver?: (key: string) => boolean;
  /**
   * The claims this process holds (kept whole, never evicted): its own keys route here whatever the
   * cache holds. Default: a fresh one for `identity`.
   */
  readonly own?: OwnClaims;
  /** Claims of other nodes the cache keeps at most; the least recently used goes first. Default 10,000. */
  readonly cacheSize?: number;
  /**
   * Watch the whole `claims` bucket, as nodes of the previous release do: every claim write then reaches
   * this node, and the cache is a full view (unbounded). Off by default: the cache is corrected by
   * `MOVED`, by owners declared dead, and by reads while a caller waits for a claim to change.
   */
  readonly watchAll?: boolean;
  /**
   * How a caller waiting for a claim to change (`changed`) is served without the watch: the claim is read
   * again after `firstMs`, then at doubling delays up to `maxMs` (a turn in which the key is quiet, see
   * `quiet`, reads nothing and keeps its delay). Default 50 ms, then up to 400 ms.
   */
  readonly rereadMs?: { readonly firstMs: number; readonly maxMs: number };
}

/** How long a node that refused a placed spawn is passed over by placements. */
const refusalMemoryMs = 5_000;

/**
 * The fleet's Router: a key's owner is the node its claim names. This node's own claims are known
 * whole (OwnClaims); other nodes' are read from the `claims` bucket on a miss and kept in a bounded
 * cache, least recently used first out. Nothing pushes changes to it: a `MOVED` answer drops an entry,
 * an owner declared dead makes the next look read the claim again, and a caller waiting for a claim to
 * change has it read again with backoff while it waits, unless the key is quiet (`quiet`). A node may
 * still watch the whole bucket (`watchAll`, the previous release's way) for a full view. Asks go over
 * the bus to the owner's NodeEndpoint.
 */
export class FleetRouter implements Router {
  readonly node: string;
  private readonly claims: KvBucket;
  private readonly bus: Bus;
  private readonly identity: NodeIdentity;
  private readonly scheduler: Scheduler;
  /** The asks over the bus to other nodes' endpoints. */
  private readonly asks: NodeAsks;
  /** Other nodes' claims, least recently used first. */
  private readonly cache: ClaimsCache;
  private watchAll: boolean;
  private started = false;
  /** This process's own claims: never evicted. */
  readonly own: OwnClaims;
  /** Nodes that refused a placed spawn, with when (scheduler ms). */
  private readonly refused = new Map<string, number>();
  private readonly ownerState: ((owner: NodeIdentity) => OwnerState) | undefined;
  private readonly deadOwner: ((claim: ClaimView) => void) | undefined;
  private readonly takingOver: ((key: string) => boolean) | undefined;
  private watch: KvWatch | undefined;
  /** Callers waiting for a key's claim to change (see `changed`), and the reads made for them. */
  private readonly waiters: ClaimWaiters;

  constructor(options: FleetRouterOptions) {
    this.claims = withEscapedKeys(options.claims);
    this.bus = options.bus;
    this.identity = options.identity;
    this.node = options.identity.node;
    this.scheduler = options.scheduler ?? realScheduler();
    this.asks = new NodeAsks(options.bus, this.scheduler, options.noResponders);
    this.ownerState = options.ownerState;
    this.deadOwner = options.deadOwner;
    this.takingOver = options.takingOver;
    this.own = options.own ?? new OwnClaims(options.identity);
    this.watchAll = options.watchAll === true;
    this.cache = new ClaimsCache(options.cacheSize, this.watchAll);
    this.waiters = new ClaimWaiters({
      scheduler: this.scheduler,
      read: (key) => this.claims.get(key),
      known: (key) => this.cache.get(key)?.revision ?? this.own.epochOf(key),
      moved: (key, entry) => {
        if (entry === null) this.invalidate(key);
        else this.take(entry, true);
      },
      quiet: (key) => this.quiet(key),
      firstMs: options.rereadMs?.firstMs ?? 50,
      maxMs: options.rereadMs?.maxMs ?? 400,
      reads: () => !this.watchAll,
    });
  }

  /** Starts the whole-bucket watch when `watchAll` asks for it. Idempotent. */
  start(): this {
    this.started = true;
    if (this.watchAll)
      this.watch ??= this.claims.watch({}, (entry) => {
        this.take(entry);
      });
    return this;
  }

  /**
   * Turns the whole-bucket watch on or off while running. On beside a node of the previous release: it
   * writes no claim index, so only a full view finds its keys at its death (and counts them for
   * placement). Off again, the cache is bounded again, its oldest entries going first.
   */
  setFullView(on: boolean): void {
    if (on === this.watchAll) return;
    this.watchAll = on;
    if (on) {
      this.cache.setFullView(true);
      if (this.started) this.start();
      return;
    }
    this.watch?.stop();
    this.watch = undefined;
    this.cache.setFullView(false);
  }

  stop(): void {
    this.started = false;
    this.watch?.stop();
    this.watch = undefined;
    this.cache.clear();
    this.waiters.wakeAll();
  }

  /** True when this router watches the whole claims bucket (its cache is then a full view). */
  get fullView(): boolean {
    return this.watchAll;
  }

  /**
   * Resolves when the claim of `key` changes in this router's view (its watch, a takeover learnt here,
   * a MOVED answer), or after `maxMs`, whichever comes first. A caller told to retry while a key is
   * being taken over waits for the takeover itself rather than a fixed delay.
   */
  changed(key: string, maxMs: number): Promise<void> {
    return this.waiters.wait(key, maxMs);
  }

  /**
   * Wakes every caller waiting in `changed`: an owner was declared dead, so the keys it held may now be
   * taken over (a caller asking again has its key taken at once, see `deadOwner`).
   */
  wakeAll(): void {
    this.waiters.wakeAll();
  }

  private wake(key: string): void {
    this.waiters.wake(key);
  }

  /**
   * True while a waiter's read of `key`'s claim would most likely find what this node knows: this node is
   * taking the key over (its own takeover, or the read after a lost one, tells the waiters), or the
   * cached owner is only suspected (survivors take its keys once it is declared dead, and the
   * declaration, heard here, wakes every waiter). Not a safety rule: a claim that moved meanwhile anyway
   * (a suspected owner that was alive and drained the key, a death declared elsewhere and heard here
   * late) is answered `UNAVAILABLE` a little longer, until a `MOVED`, the declaration or the next turn
   * that is not quiet corrects it.
   */
  private quiet(key: string): boolean {
    if (this.takingOver?.(key) === true) return true;
    const cached = this.cache.get(key);
    return cached !== undefined && this.ownerState?.(cached.owner) === "suspected";
  }

  async locate(key: string): Promise<Location> {
    if (this.own.epochOf(key) !== undefined)
      return this.takingOver?.(key) === true ? { kind: "unavailable", retryAfterMs } : { kind: "local" };
    let cached = this.cache.touch(key);
    if (cached === undefined || cached.stale === true) {
      const entry = await this.claims.get(key);
      if (entry === null) {
        if (this.cache.has(key)) this.invalidate(key);
        return { kind: "unknown" };
      }
      this.take(entry);
      if (this.own.epochOf(key) !== undefined) return this.locate(key);
      cached = this.cache.get(key);
      if (cached === undefined) return { kind: "unknown" };
    }
    if (sameIdentity(cached.owner, this.identity))
      return this.takingOver?.(key) === true ? { kind: "unavailable", retryAfterMs } : { kind: "local" };
    const state = this.ownerState?.(cached.owner) ?? "live";
    // An owner that went silent keeps its keys until a survivor has sealed them: ask again shortly.
    if (state === "suspected" || state === "dead" || cached.owner.node === this.node) {
      if (state === "dead") this.deadOwner?.({ key, owner: cached.owner, revision: cached.revision });
      // Nothing tells this cache of the takeover that follows the death: the next look reads the claim
      // again. While the owner is only suspected nobody may take the key, so the claim is not read.
      if (!this.watchAll && state !== "suspected" && this.cache.get(key) === cached)
        this.cache.markStale(key, cached);
      return { kind: "unavailable", retryAfterMs };
    }
    return { kind: "remote", node: cached.owner.node };
  }

  /**
   * Every claim this router knows of: this node's own, then the cached ones (with `watchAll`, the whole
   * bucket). Failover sweeps them for keys of dead owners beside the index listings.
   */
  *claimViews(): Iterable<ClaimView> {
    for (const { key, epoch } of this.own.entries()) yield { key, owner: this.own.me(), revision: epoch };
    for (const [key, cached] of this.cache.entries())
      yield { key, owner: cached.owner, revision: cached.revision };
  }

  /** Records a claim this node wrote or was told of (a takeover, a migration), ahead of any read. */
  learn(key: string, owner: NodeIdentity, revision: number): void {
    const named = { node: owner.node, incarnation: owner.incarnation };
    this.own.saw(key, named, revision);
    const cached = this.cache.get(key);
    if (this.own.isMe(named)) this.cache.drop(key);
    // The watch may have brought the claim first: its waiters still wait for the takeover to end.
    else if (cached === undefined || cached.revision < revision)
      this.cache.put(key, { owner: named, revision });
    this.wake(key);
  }

  /**
   * Reads the claim of `key` again, ahead of the watch. For a takeover here that lost to another node's:
   * until the watch brings the winner's claim, this node sees the dead owner still, and answers every
   * request for the key `UNAVAILABLE` for as long as its watch lags (a busy machine, a silent consumer).
   * A read that fails changes nothing; the watch still corrects the view.
   */
  async reread(key: string): Promise<void> {
    const entry = await this.claims.get(key);
    if (entry !== null) this.take(entry);
    else if (this.cache.has(key)) this.invalidate(key);
  }

  /** Forgets the cached claim of `key` (a `MOVED` answer) and wakes its waiters; own claims stay. */
  invalidate(key: string): void {
    this.cache.drop(key);
    this.wake(key);
  }

  /**
   * How many claims `owner` holds, by key kind (`lobby`, `player`, ...): this process's own always;
   * another node's only with the whole-bucket watch (undefined otherwise: a bounded cache counts a part).
   */
  ownedBy(owner: NodeIdentity): Map<string, number> | undefined {
    if (this.own.isMe(owner)) return this.own.byKind();
    if (!this.watchAll) return undefined;
    return this.cache.kindsOf(owner);
  }

  /** Number of other nodes' claims cached, for tests and metrics. */
  get cached(): number {
    return this.cache.size;
  }

  /** Entries the cache let go of to stay within its size. */
  get evictions(): number {
    return this.cache.evictions;
  }

  async forward(
    node: string,
    key: string,
    envelope: Forwarded,
    opts: { timeoutMs: number },
  ): Promise<AskResult> {
    const delivery: ActorDelivery =
      envelope.request === undefined
        ? { key, message: envelope.message }
        : { key, message: envelope.message, request: envelope.request };
    return this.asks.deliverTo(node, key, delivery, opts);
  }

  /**
   * Asks `node` to create and claim `key` (a room placed there). A node that refused (or could not be
   * reached) is remembered for `refusalMemoryMs`, so a placement does not pick it again at once.
   */
  async spawnAt(node: string, key: string, init: unknown, opts: { timeoutMs: number }): Promise<AskResult> {
    const result = await this.asks.deliverTo(node, key, { key, message: init, spawn: true }, opts);
    if (!result.ok) this.refused.set(node, this.scheduler.now());
    return result;
  }

  /** True when `node` refused a placed spawn within the last `refusalMemoryMs`. */
  refusedRecently(node: string): boolean {
    const at = this.refused.get(node);
    return at !== undefined && this.scheduler.now() - at < refusalMemoryMs;
  }

  forwardTell(node: string, key: string, message: unknown): void {
    try {
      this.bus.publish(nodeActorSubject(node), encodeDelivery({ key, message, tell: true }));
    } catch {
      // Best effort, like a tell to a key with no actor: a closed bus drops it.
    }
  }

  /**
   * Applies a claim entry (read or watched) unless the cache already has a newer one; a claim of this
   * process goes to OwnClaims instead. Wakes the key's waiters when it changed anything (or `wake`).
   */
  private take(entry: KvEntry, wake = false): void {
    const cached = this.cache.get(entry.key);
    const fresher =
      cached === undefined ||
      cached.revision < entry.revision ||
      (cached.revision === entry.revision && cached.stale === true);
    if (!fresher) {
      if (wake) this.wake(entry.key);
      return;
    }
    if (entry.operation === "DEL") {
      this.cache.drop(entry.key);
      if (this.watchAll) this.own.dropped(entry.key);
    } else {
      let owner: NodeIdentity | null = null;
      try {
        owner = decodeClaim(entry.value);
      } catch {
        // a claim that does not decode names nobody we can reach
      }
      this.own.saw(entry.key, owner, entry.revision);
      if (owner === null || this.own.isMe(owner)) this.cache.drop(entry.key);
      else this.cache.put(entry.key, { owner, revision: entry.revision });
    }
    // A stale entry read again at the same revision changed nothing its waiters wait for.
    if (wake || cached?.revision !== entry.revision) this.wake(entry.key);
  }
}
