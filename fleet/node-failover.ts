import type { Scheduler } from "../actors/runtime/index.ts";
import {
  type ClaimIndex,
  type ClaimView,
  type DeadNodeKeys,
  type KvActorStore,
  type NodeIdentity,
  type TakeOver,
  Failover,
  unreadRevision,
  type FleetRouter,
  type Membership,
} from "./protocol/index.ts";
import type { FleetLog } from "./fleet-node-ports.ts";
import type { TakeoverRecords } from "./takeover-records.ts";

/** What a node's failover is made of. */
export interface NodeFailoverParts {
  readonly node: string;
  readonly store: Pick<KvActorStore, "takeOver" | "readClaim">;
  readonly router: Pick<FleetRouter, "claimViews" | "learn" | "invalidate">;
  readonly membership: Pick<Membership, "ownerState" | "claimantNodes">;
  readonly takeovers: TakeoverRecords;
  /** The dead nodes' keys as the claim index lists them (absent: the router's view alone). */
  readonly deadKeys?: DeadNodeKeys;
  /** The claim index: a dead owner's entry goes once its key is settled. */
  readonly index?: ClaimIndex;
  /** `key` is this node's now, at `epoch`. */
  readonly taken: (key: string, epoch: number) => void;
  readonly log: FleetLog;
  readonly scheduler: Scheduler;
  readonly fallbackAfterMs: number;
}

/**
 * The takeover of dead nodes' keys on one node: Failover over the router's claims and the claim index's
 * listings of dead nodes, each takeover noting whom it takes the key from (TakeoverRecords) while it
 * runs, and settling the dead owner's index entry once the key is someone's.
 */
export function nodeFailover(parts: NodeFailoverParts): Failover {
  const { membership, takeovers } = parts;
  return new Failover({
    node: parts.node,
    claims: () =>
      takeovers.noteDeadOwners(knownClaims(parts), (claim) => membership.ownerState(claim.owner) === "dead"),
    ownerState: (owner) => membership.ownerState(owner),
    liveNodes: () => membership.claimantNodes(),
    takeOver: (key, revision, owner) => takeOver(parts, { key, revision, owner }),
    taken: parts.taken,
    failed: (key, err) => {
      parts.log.warn(
        { key, err },
        "takeover failed; tried again by the next sweep, or sealed by the read that restores it",
      );
    },
    scheduler: parts.scheduler,
    fallbackAfterMs: parts.fallbackAfterMs,
  });
}

function* knownClaims(parts: NodeFailoverParts): Iterable<ClaimView> {
  yield* parts.router.claimViews();
  if (parts.deadKeys !== undefined) yield* parts.deadKeys.claims();
}

/**
 * The store's takeover, noting whom the key is taken from while it runs. A key the index listed is read
 * first: its claim may have moved on (then there is nothing to take), and the CAS needs its revision.
 */
async function takeOver(parts: NodeFailoverParts, listed: ClaimView): Promise<TakeOver> {
  let claim = listed;
  if (listed.revision === unreadRevision) {
    const current = await parts.store.readClaim(listed.key);
    if (current === null || parts.membership.ownerState(current.owner) !== "dead") {
      if (current === null) parts.router.invalidate(listed.key);
      else parts.router.learn(listed.key, current.owner, current.revision);
      settle(parts, listed);
      return { outcome: "lost" };
    }
    claim = { key: listed.key, owner: current.owner, revision: current.revision };
    // Another dead owner's claim than the one listed (a key that moved between two dead nodes).
    if (current.owner.incarnation !== listed.owner.incarnation) settle(parts, listed);
  }
  const { key, revision } = claim;
  parts.takeovers.starting(key);
  let result: TakeOver;
  try {
    result = await parts.store.takeOver(key, revision);
  } catch (error) {
    parts.takeovers.notTaken(key);
    throw error;
  }
  if (result.outcome !== "taken") parts.takeovers.notTaken(key);
  if (result.outcome === "lost") await afterLost(parts, claim);
  else settle(parts, claim);
  return result;
}

/** The dead owner's entry goes: the key is someone's now, or free. */
function settle(parts: NodeFailoverParts, claim: ClaimView): void {
  parts.deadKeys?.settled(claim.key, claim.owner);
  parts.index?.remove(claim.owner, claim.key);
}

/**
 * The claim moved since it was seen: read whose it is, without waiting for anything to tell this node
 * (a node that watches no claims would answer the key `UNAVAILABLE` meanwhile). Still a dead owner's:
 * swept again (a listed key is read afresh then). A read that fails changes nothing; swept again.
 */
async function afterLost(parts: NodeFailoverParts, claim: ClaimView): Promise<void> {
  let current: { owner: NodeIdentity; revision: number } | null;
  try {
    current = await parts.store.readClaim(claim.key);
  } catch {
    return;
  }
  if (current === null) {
    parts.router.invalidate(claim.key);
    settle(parts, claim);
    return;
  }
  parts.router.learn(claim.key, current.owner, current.revision);
  if (parts.membership.ownerState(current.owner) !== "dead") settle(parts, claim);
}
