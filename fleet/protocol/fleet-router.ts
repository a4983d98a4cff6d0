import type { AskResult, Forwarded, Location, Router, Scheduler } from "../../actors/runtime/index.ts";
import { type ActorDelivery, decodeAskResult, encodeDelivery, nodeActorSubject } from "./actor-wire.ts";
import type { Bus } from "../bus.ts";
import { isBusClosed, isBusTimeout, isNoResponders } from "../bus-error.ts";
import { type NodeIdentity, decodeClaim, sameIdentity } from "./claim.ts";
import { withEscapedKeys } from "../escaped-keys.ts";
import type { ClaimView } from "./failover.ts";
import type { KvBucket, KvEntry, KvWatch } from "../kv.ts";
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
}

interface Cached {
  readonly owner: NodeIdentity;
  readonly revision: number;
}

/** How long a node that refused a placed spawn is passed over by placements. */
const refusalMemoryMs = 5_000;

/** What a sender is told when the owner could not be reached: retry shortly. */
const retryAfterMs = 250;

/**
 * The fleet's Router: a key's owner is the node its claim names. Claims are read from the `claims`
 * bucket on a miss and cached; a watch on the bucket keeps the cache current (the NATS store makes the
 * watch again after every reconnect, from the last revision seen), and a `MOVED` answer drops an entry
 * the watch has not corrected yet. Asks go over the bus to the owner's NodeEndpoint.
 */
export class FleetRouter implements Router {
  readonly node: string;
  private readonly claims: KvBucket;
  private readonly bus: Bus;
  private readonly identity: NodeIdentity;
  private readonly scheduler: Scheduler;
  private readonly attempts: number;
  private readonly firstDelayMs: number;
  private readonly cache = new Map<string, Cached>();
  /**
   * How many cached claims each owner (`node#incarnation`) holds, by key kind: a node's `/status` reads
   * its own counts several times a second during a drain, and walking every claim for them was a twentieth
   * of a 10,000-lobby drain's CPU.
   */
  private readonly kindsByOwner = new Map<string, Map<string, number>>();
  /** Nodes that refused a placed spawn, with when (scheduler ms). */
  private readonly refused = new Map<string, number>();
  private readonly ownerState: ((owner: NodeIdentity) => OwnerState) | undefined;
  private readonly deadOwner: ((claim: ClaimView) => void) | undefined;
  private readonly takingOver: ((key: string) => boolean) | undefined;
  private watch: KvWatch | undefined;
  /** Callers waiting for a key's claim to change (see `changed`). */
  private readonly waiters = new Map<string, Set<() => void>>();

  constructor(options: FleetRouterOptions) {
    this.claims = withEscapedKeys(options.claims);
    this.bus = options.bus;
    this.identity = options.identity;
    this.node = options.identity.node;
    this.scheduler = options.scheduler ?? realScheduler();
    this.attempts = Math.max(1, options.noResponders?.attempts ?? 6);
    this.firstDelayMs = options.noResponders?.firstDelayMs ?? 20;
    this.ownerState = options.ownerState;
    this.deadOwner = options.deadOwner;
    this.takingOver = options.takingOver;
  }

  /** Starts the watch that keeps the cache current. Idempotent. */
  start(): this {
    this.watch ??= this.claims.watch({}, (entry) => {
      this.take(entry);
    });
    return this;
  }

  stop(): void {
    this.watch?.stop();
    this.watch = undefined;
    this.cache.clear();
    this.kindsByOwner.clear();
    this.wakeAll();
  }

  /**
   * Resolves when the claim of `key` changes in this router's view (its watch, a takeover learnt here,
   * a MOVED answer), or after `maxMs`, whichever comes first. A caller told to retry while a key is
   * being taken over waits for the takeover itself rather than a fixed delay.
   */
  changed(key: string, maxMs: number): Promise<void> {
    return new Promise((resolve) => {
      let waiting = this.waiters.get(key);
      if (waiting === undefined) {
        waiting = new Set();
        this.waiters.set(key, waiting);
      }
      const set = waiting;
      const done = (): void => {
        cancel();
        set.delete(done);
        if (set.size === 0 && this.waiters.get(key) === set) this.waiters.delete(key);
        resolve();
      };
      const cancel = this.scheduler.at(this.scheduler.now() + maxMs, done);
      set.add(done);
    });
  }

  /**
   * Wakes every caller waiting in `changed`: an owner was declared dead, so the keys it held may now be
   * taken over (a caller asking again has its key taken at once, see `deadOwner`).
   */
  wakeAll(): void {
    for (const key of [...this.waiters.keys()]) this.wake(key);
  }

  private wake(key: string): void {
    const waiting = this.waiters.get(key);
    if (waiting === undefined) return;
    this.waiters.delete(key);
    for (const done of waiting) done();
  }

  async locate(key: string): Promise<Location> {
    let cached = this.cache.get(key);
    if (cached === undefined) {
      const entry = await this.claims.get(key);
      if (entry === null) return { kind: "unknown" };
      this.take(entry);
      cached = this.cache.get(key);
      if (cached === undefined) return { kind: "unknown" };
    }
    if (sameIdentity(cached.owner, this.identity))
      return this.takingOver?.(key) === true ? { kind: "unavailable", retryAfterMs } : { kind: "local" };
    const state = this.ownerState?.(cached.owner) ?? "live";
    // An owner that went silent keeps its keys until a survivor has sealed them: ask again shortly.
    if (state === "suspected" || state === "dead" || cached.owner.node === this.node) {
      if (state === "dead") this.deadOwner?.({ key, owner: cached.owner, revision: cached.revision });
      return { kind: "unavailable", retryAfterMs };
    }
    return { kind: "remote", node: cached.owner.node };
  }

  /** Every cached claim: what failover sweeps for keys of dead owners. */
  *claimViews(): Iterable<ClaimView> {
    for (const [key, cached] of this.cache) yield { key, owner: cached.owner, revision: cached.revision };
  }

  /** Records a claim this node wrote itself (a takeover), ahead of the watch. */
  learn(key: string, owner: NodeIdentity, revision: number): void {
    const cached = this.cache.get(key);
    // The watch may have brought the claim first: its waiters still wait for the takeover to end.
    if (cached === undefined || cached.revision < revision)
      this.put(key, { owner: { node: owner.node, incarnation: owner.incarnation }, revision });
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

  invalidate(key: string): void {
    this.drop(key);
    this.wake(key);
  }

  /** How many cached claims `owner` holds, by key kind (`lobby`, `player`, ...). */
  ownedBy(owner: NodeIdentity): Map<string, number> {
    return new Map<string, number>(this.kindsByOwner.get(ownerId(owner)) ?? []);
  }

  private put(key: string, cached: Cached): void {
    const before = this.cache.get(key);
    if (before !== undefined) this.count(key, before.owner, -1);
    this.cache.set(key, cached);
    this.count(key, cached.owner, 1);
  }

  private drop(key: string): void {
    const before = this.cache.get(key);
    if (before === undefined) return;
    this.cache.delete(key);
    this.count(key, before.owner, -1);
  }

  private count(key: string, owner: NodeIdentity, by: 1 | -1): void {
    const id = ownerId(owner);
    let kinds = this.kindsByOwner.get(id);
    if (kinds === undefined) this.kindsByOwner.set(id, (kinds = new Map<string, number>()));
    const kind = key.slice(0, Math.max(0, key.indexOf("/")));
    const n = (kinds.get(kind) ?? 0) + by;
    if (n > 0) kinds.set(kind, n);
    else kinds.delete(kind);
    if (kinds.size === 0) this.kindsByOwner.delete(id);
  }

  /** Number of cached claims, for tests and metrics. */
  get cached(): number {
    return this.cache.size;
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
    return this.deliverTo(node, key, delivery, opts);
  }

  /**
   * Asks `node` to create and claim `key` (a room placed there). A node that refused (or could not be
   * reached) is remembered for `refusalMemoryMs`, so a placement does not pick it again at once.
   */
  async spawnAt(node: string, key: string, init: unknown, opts: { timeoutMs: number }): Promise<AskResult> {
    const result = await this.deliverTo(node, key, { key, message: init, spawn: true }, opts);
    if (!result.ok) this.refused.set(node, this.scheduler.now());
    return result;
  }

  /** True when `node` refused a placed spawn within the last `refusalMemoryMs`. */
  refusedRecently(node: string): boolean {
    const at = this.refused.get(node);
    return at !== undefined && this.scheduler.now() - at < refusalMemoryMs;
  }

  private async deliverTo(
    node: string,
    key: string,
    delivery: ActorDelivery,
    opts: { timeoutMs: number },
  ): Promise<AskResult> {
    const data = encodeDelivery(delivery);
    let delay = this.firstDelayMs;
    for (let attempt = 1; ; attempt += 1) {
      let answer: Uint8Array;
      try {
        answer = await this.bus.request(nodeActorSubject(node), data, opts);
      } catch (error) {
        // No responders: the node is gone, or its endpoint's subscription has not reached our server
        // yet (NATS-NOTES). Retried briefly, then the sender is told to retry.
        if (isNoResponders(error) && attempt < this.attempts) {
          await this.sleep(delay);
          delay *= 2;
          continue;
        }
        return failed(node, key, error);
      }
      try {
        return decodeAskResult(answer);
      } catch {
        return { ok: false, code: "INTERNAL", message: `${node} answered ${key} with something unreadable` };
      }
    }
  }

  forwardTell(node: string, key: string, message: unknown): void {
    try {
      this.bus.publish(nodeActorSubject(node), encodeDelivery({ key, message, tell: true }));
    } catch {
      // Best effort, like a tell to a key with no actor: a closed bus drops it.
    }
  }

  /** Applies a claim entry (read or watched) unless the cache already has a newer one. */
  private take(entry: KvEntry): void {
    const cached = this.cache.get(entry.key);
    if (cached !== undefined && cached.revision >= entry.revision) return;
    if (entry.operation === "DEL") {
      this.drop(entry.key);
    } else {
      try {
        this.put(entry.key, { owner: decodeClaim(entry.value), revision: entry.revision });
      } catch {
        this.drop(entry.key); // a claim that does not decode names nobody we can reach
      }
    }
    this.wake(entry.key);
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      this.scheduler.at(this.scheduler.now() + ms, resolve);
    });
  }
}

function failed(node: string, key: string, error: unknown): AskResult {
  if (isBusTimeout(error))
    return { ok: false, code: "TIMEOUT", message: `${node} did not answer for ${key} in time` };
  if (isNoResponders(error) || isBusClosed(error))
    return { ok: false, code: "UNAVAILABLE", message: `${node} cannot be reached for ${key}`, retryAfterMs };
  return { ok: false, code: "INTERNAL", message: `forwarding ${key} to ${node} failed` };
}

/** An owner's identity as one string. */
function ownerId(owner: NodeIdentity): string {
  return `${owner.node}#${owner.incarnation}`;
}
