import type { NodeIdentity } from "./claim.ts";

/** The kind of an actor key: `lobby` for `lobby/ABC123`. */
export function keyKind(key: string): string {
  return key.slice(0, Math.max(0, key.indexOf("/")));
}

/**
 * The claims this process holds, with their epochs, learnt from its own claim writes and reads (and from
 * the router, when a key moves away): never evicted, so a node's drain, its `/status` counts and the
 * routing of its own keys do not depend on how much of the claims bucket the router caches. Kept for the
 * current incarnation only: a fenced node that rejoins as a new incarnation owns nothing.
 */
export class OwnClaims {
  private readonly epochs = new Map<string, number>();
  private readonly kinds = new Map<string, number>();
  private incarnation: string;

  /** `identity` is read at every use: a fence changes its incarnation in place. */
  constructor(private readonly identity: NodeIdentity) {
    this.incarnation = identity.incarnation;
  }

  /** This process as it signs its claims now. */
  me(): NodeIdentity {
    return { node: this.identity.node, incarnation: this.identity.incarnation };
  }

  /** True when `owner` is this very process. */
  isMe(owner: NodeIdentity): boolean {
    return owner.node === this.identity.node && owner.incarnation === this.identity.incarnation;
  }

  /** The claim `key` names `owner` at `epoch`: kept when it is this process, dropped otherwise. */
  saw(key: string, owner: NodeIdentity | null, epoch: number): void {
    this.fresh();
    if (owner !== null && this.isMe(owner)) {
      const before = this.epochs.get(key);
      if (before !== undefined && before > epoch) return;
      if (before === undefined) this.count(key, 1);
      this.epochs.set(key, epoch);
      return;
    }
    const before = this.epochs.get(key);
    if (before === undefined || before > epoch) return;
    this.epochs.delete(key);
    this.count(key, -1);
  }

  /** The claim of `key` is gone (deleted by this process). */
  dropped(key: string): void {
    this.fresh();
    if (this.epochs.delete(key)) this.count(key, -1);
  }

  /** The epoch of `key` when this process holds it. */
  epochOf(key: string): number | undefined {
    this.fresh();
    return this.epochs.get(key);
  }

  /** Every key held, with its epoch. */
  entries(): { key: string; epoch: number }[] {
    this.fresh();
    return [...this.epochs].map(([key, epoch]) => ({ key, epoch }));
  }

  /** How many keys are held, by kind (`lobby`, `player`, …). */
  byKind(): Map<string, number> {
    this.fresh();
    return new Map(this.kinds);
  }

  get size(): number {
    this.fresh();
    return this.epochs.size;
  }

  private fresh(): void {
    if (this.incarnation === this.identity.incarnation) return;
    this.incarnation = this.identity.incarnation;
    this.epochs.clear();
    this.kinds.clear();
  }

  private count(key: string, by: 1 | -1): void {
    const kind = keyKind(key);
    const n = (this.kinds.get(kind) ?? 0) + by;
    if (n > 0) this.kinds.set(kind, n);
    else this.kinds.delete(kind);
  }
}
