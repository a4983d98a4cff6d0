import {
  ClaimIndex,
  DeadNodeKeys,
  type Failover,
  type FleetRouter,
  type KvActorStore,
  type Membership,
} from "./protocol/index.ts";
import type { FleetNodePorts } from "./fleet-node-ports.ts";
import { nodeFailover } from "./node-failover.ts";
import type { TakeoverRecords } from "./takeover-records.ts";

/** A node's claim index and the listings of dead nodes' keys over it (none without the index's bucket). */
export interface NodeClaimIndex {
  /** Which keys each node holds, written beside this node's claims and listed at a peer's death. */
  readonly index: ClaimIndex;
  readonly deadKeys: DeadNodeKeys;
}

/** The parts the listings reach, through calls: they are built after the index (its writes come first). */
export interface NodeClaimIndexLinks {
  readonly membership: () => Membership;
  readonly failover: () => Failover;
}

/** Builds the claim index over `claim-owners` and the listings of dead nodes' keys, when there is one. */
export function nodeClaimIndex(
  ports: FleetNodePorts,
  links: NodeClaimIndexLinks,
): NodeClaimIndex | undefined {
  const { settings, hooks, buckets, scheduler } = ports;
  if (buckets.claimIndex === undefined) return undefined;
  const index = new ClaimIndex(buckets.claimIndex, scheduler);
  const deadKeys = new DeadNodeKeys({
    index,
    ownerState: (owner) => links.membership().ownerState(owner),
    scheduler,
    relistMs: settings.failureTimeoutMs,
    listed: () => {
      links.failover().sweep();
    },
    failed: (node, err) => {
      hooks.log.warn({ node, err }, "listing a dead node's keys failed; listed again shortly");
    },
    own: {
      node: settings.nodeId,
      found: (claim) => {
        links.failover().want(claim);
      },
    },
  });
  return { index, deadKeys };
}

/** What a node's failover is built over. */
export interface NodeFailoverWiring {
  readonly store: KvActorStore;
  readonly router: FleetRouter;
  readonly membership: Membership;
  readonly takeovers: TakeoverRecords;
  readonly claimIndex: NodeClaimIndex | undefined;
  /** `key` is this node's now, at `epoch`. */
  readonly taken: (key: string, epoch: number) => void;
}

/** The takeover of dead nodes' keys over the router's claims and the claim index's listings. */
export function wireFailover(ports: FleetNodePorts, wiring: NodeFailoverWiring): Failover {
  const { settings, hooks, scheduler } = ports;
  const { claimIndex } = wiring;
  return nodeFailover({
    node: settings.nodeId,
    store: wiring.store,
    router: wiring.router,
    membership: wiring.membership,
    takeovers: wiring.takeovers,
    ...(claimIndex === undefined ? {} : { deadKeys: claimIndex.deadKeys, index: claimIndex.index }),
    taken: wiring.taken,
    log: hooks.log,
    scheduler,
    fallbackAfterMs: settings.failureTimeoutMs,
  });
}
