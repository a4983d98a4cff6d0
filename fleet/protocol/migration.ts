import { pack } from "msgpackr";
import { z } from "zod";
import type { Scheduler } from "../../actors/runtime/index.ts";
import type { TakeOver } from "./actor-store.ts";
import type { Bus } from "../bus.ts";
import { type NodeIdentity, sameIdentity } from "./claim.ts";
import { decodeValue } from "./decode-value.ts";
import { realScheduler } from "../real-scheduler.ts";

/** Asks a node to adopt a key from its owner's epoch (FLEET-PROTOCOL, "Migration" 2–3). */
export const adoptRequestSchema = z.strictObject({
  key: z.string().min(1).max(512),
  /** The source's epoch: the target CAS-es the claim from exactly this revision. */
  epoch: z.number().int().nonnegative(),
});

/** The target's answer: adopted under its new epoch, or refused (nothing changed on its side). */
export const adoptAnswerSchema = z.union([
  z.strictObject({
    ok: z.literal(true),
    epoch: z.number().int().nonnegative(),
    incarnation: z.string().min(1),
  }),
  z.strictObject({ ok: z.literal(false), reason: z.string() }),
]);

export type AdoptRequest = z.infer<typeof adoptRequestSchema>;
export type AdoptAnswer = z.infer<typeof adoptAnswerSchema>;

/** The subject a node serves adoptions on. */
export function adoptSubject(node: string): string {
  return `foyer.node.${node}.adopt`;
}

/** A claim as read back after an adoption went unanswered. */
export interface ClaimRead {
  readonly owner: NodeIdentity;
  readonly revision: number;
}

/** What migrations need from the node they run on. */
export interface MigrationHost {
  /** This process, as it signs claims (read at each use: a fenced node changes its incarnation). */
  readonly identity: NodeIdentity;
  readonly bus: Bus;
  /** Freezes a live actor (null: not live here, pinned, or with unwritten changes). */
  freeze(key: string): Promise<{ epoch: number; revision: number } | null>;
  /** True when `key` is live here (so a null freeze means "not now", not "passivated"). */
  isLive(key: string): boolean;
  /** Drops a frozen actor and delivers its buffer again (to whoever the router names now). */
  handOver(key: string): void;
  /** Claim CAS from `revision` to this node, then seal. */
  takeOver(key: string, revision: number): Promise<TakeOver>;
  /** The claim as the store holds it now (read from the leader). */
  readClaim(key: string): Promise<ClaimRead | null>;
  /** Tells the router who owns `key` now, ahead of its watch. */
  learn(key: string, owner: NodeIdentity, revision: number): void;
  /** An adopted key: restore it here and tell it (reason `migration`). */
  adopted(key: string): void;
  /** The members of `key` connected here are told `moved { url }` and stop counting as here. */
  moved(key: string, url: string): void;
  /** False while this node may not take keys (no lease, draining, stopping). */
  mayAdopt(): boolean;
  /** A key this node froze to move stayed frozen `ms` (moved, or kept and running here again). */
  frozeFor?(key: string, ms: number): void;
}

/** The parts of a node a MigrationHost is made of (the runtime, its store and its router). */
export interface MigrationParts {
  readonly identity: NodeIdentity;
  readonly bus: Bus;
  readonly system: {
    freeze(key: string): Promise<{ epoch: number; revision: number } | null>;
    isLive(key: string): boolean;
    handOver(key: string): void;
    tell(key: string, message: unknown): void;
  };
  readonly store: Pick<MigrationHost, "takeOver" | "readClaim">;
  readonly router: { learn(key: string, owner: NodeIdentity, revision: number): void };
  /** Players with a session on this node that the adopted `key` counts as connected. */
  readonly playersHere: (key: string) => readonly string[];
  readonly moved: MigrationHost["moved"];
  readonly mayAdopt: MigrationHost["mayAdopt"];
  /** Told of each key adopted here (metrics). */
  readonly onAdopted?: (key: string) => void;
  /** Told how long each key moved away stayed frozen (metrics). */
  readonly frozeFor?: (key: string, ms: number) => void;
}

/** The MigrationHost of a node's runtime: an adopted key is restored and told `restored { migration }`. */
export function migrationHostOf(parts: MigrationParts): MigrationHost {
  const { system } = parts;
  return {
    identity: parts.identity,
    bus: parts.bus,
    freeze: (key) => system.freeze(key),
    isLive: (key) => system.isLive(key),
    handOver: (key) => {
      system.handOver(key);
    },
    takeOver: (key, revision) => parts.store.takeOver(key, revision),
    readClaim: (key) => parts.store.readClaim(key),
    learn: (key, owner, revision) => {
      parts.router.learn(key, owner, revision);
    },
    adopted: (key) => {
      parts.onAdopted?.(key);
      system.tell(key, { type: "restored", reason: "migration", connected: [...parts.playersHere(key)] });
    },
    moved: parts.moved,
    mayAdopt: parts.mayAdopt,
    ...(parts.frozeFor ? { frozeFor: parts.frozeFor } : {}),
  };
}

/** How one key's move ended. */
export type MoveOutcome =
  /** Owned by the target now (or by whoever the claim names). */
  | "moved"
  /** Still here (taken back under a new epoch, or never frozen): try again later. */
  | "kept"
  /** Not movable now: pinned (a room runs) or holding unwritten changes. */
  | "busy";

/**
 * Live migration of one key at a time (FLEET-PROTOCOL, "Migration"): the source freezes the actor and
 * buffers, the target CAS-es the claim from the source's epoch only, seals and restores; the source then
 * lets go and its buffer follows the router to the target, and the members here are sent there. With no
 * answer, the claim decides: the target's → moved; still the source's → the source takes it back (a new
 * epoch, so a late target cannot also seal). Never both, never neither.
 */
export class Migrations {
  /** Adoptions of each key in flight here (two may overlap: one from a stale view of the claim). */
  private readonly adoptions = new Map<string, number>();

  constructor(
    private readonly host: MigrationHost,
    private readonly adoptTimeoutMs = 5_000,
    /** Paces the claim re-reads after an unanswered adoption (the node's clock; the simulation's own). */
    private readonly scheduler: Scheduler = realScheduler(),
  ) {}

  /** Serves adoption requests for this node; resolves once subscribed. */
  async serve(node: string): Promise<{ stop(): void }> {
    const subscription = this.host.bus.subscribe(adoptSubject(node), (message) => {
      void this.adopt(message.data).then((answer) => message.respond(pack(answer)));
    });
    await this.host.bus.flush();
    return {
      stop: () => {
        subscription.unsubscribe();
      },
    };
  }

  /** The target's side: take the key over from the source's epoch, seal, restore. */
  async adopt(data: Uint8Array): Promise<AdoptAnswer> {
    let request: AdoptRequest;
    try {
      request = decodeValue("adopt request", adoptRequestSchema, data);
    } catch {
      return { ok: false, reason: "not an adopt request" };
    }
    if (!this.host.mayAdopt()) return { ok: false, reason: "this node takes no keys now" };
    this.adoptions.set(request.key, (this.adoptions.get(request.key) ?? 0) + 1);
    try {
      const result = await this.host.takeOver(request.key, request.epoch);
      if (result.outcome !== "taken") return { ok: false, reason: `the key was ${result.outcome}` };
      this.host.learn(request.key, this.host.identity, result.epoch);
      this.host.adopted(request.key);
      return { ok: true, epoch: result.epoch, incarnation: this.host.identity.incarnation };
    } catch (error) {
      return { ok: false, reason: error instanceof Error ? error.message : "the takeover failed" };
    } finally {
      const left = (this.adoptions.get(request.key) ?? 1) - 1;
      if (left > 0) this.adoptions.set(request.key, left);
      else this.adoptions.delete(request.key);
    }
  }

  /** True while this node is adopting `key` (its claim CAS or seal in flight). */
  adopting(key: string): boolean {
    return this.adoptions.has(key);
  }

  /** The source's side: moves `key` (claimed here at `claimRevision`) to `target`. */
  async move(
    key: string,
    claimRevision: number,
    target: { node: string; url: string },
  ): Promise<MoveOutcome> {
    const frozenAt = this.scheduler.now(); // a freeze stops the mailbox at once, then waits for its batch
    const held = await this.host.freeze(key);
    if (held === null && this.host.isLive(key)) return "busy";
    const epoch = held?.epoch ?? claimRevision;
    const answer = await this.ask(target.node, { key, epoch });
    if (answer?.ok === true) {
      this.letGo(key, { node: target.node, incarnation: answer.incarnation }, answer.epoch, target.url, held);
      this.thawed(key, held, frozenAt);
      return "moved";
    }
    // Refused, or no answer in time: the claim says who owns the key.
    const claim = await this.settledClaim(key);
    if (claim !== null && !sameIdentity(claim.owner, this.host.identity)) {
      this.letGo(
        key,
        claim.owner,
        claim.revision,
        claim.owner.node === target.node ? target.url : null,
        held,
      );
      this.thawed(key, held, frozenAt);
      return "moved";
    }
    if (claim !== null && claim.revision === epoch) {
      // Still ours at our epoch: take it back under a new epoch before anything runs here again.
      const back = await this.host.takeOver(key, epoch).catch(() => null);
      if (back?.outcome === "taken") this.host.learn(key, this.host.identity, back.epoch);
    }
    if (held !== null) this.host.handOver(key); // reloads here from the store, under whatever epoch it has
    this.thawed(key, held, frozenAt);
    return "kept";
  }

  /** Reports how long a key this move froze stayed frozen (nothing for a key that was not live here). */
  private thawed(key: string, held: { epoch: number } | null, frozenAt: number): void {
    if (held !== null) this.host.frozeFor?.(key, this.scheduler.now() - frozenAt);
  }

  private letGo(
    key: string,
    owner: NodeIdentity,
    revision: number,
    url: string | null,
    held: { epoch: number } | null,
  ): void {
    this.host.learn(key, owner, revision);
    if (url !== null) this.host.moved(key, url);
    if (held !== null) this.host.handOver(key);
  }

  private async ask(node: string, request: AdoptRequest): Promise<AdoptAnswer | null> {
    try {
      const reply = await this.host.bus.request(adoptSubject(node), pack(request), {
        timeoutMs: this.adoptTimeoutMs,
      });
      return decodeValue("adopt answer", adoptAnswerSchema, reply);
    } catch {
      return null;
    }
  }

  /** Reads the claim until the store answers (an unanswered adoption may still land meanwhile). */
  private async settledClaim(key: string): Promise<ClaimRead | null> {
    for (let attempt = 0; attempt < 20; attempt++) {
      try {
        return await this.host.readClaim(key);
      } catch {
        await new Promise<void>((resolve) => {
          this.scheduler.at(this.scheduler.now() + 250, resolve);
        });
      }
    }
    return null;
  }
}
