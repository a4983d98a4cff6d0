import type { Scheduler } from "../actors/runtime/index.ts";
import {
  type KvActorStore,
  type TakeOver,
  Failover,
  type FleetRouter,
  type Membership,
} from "./protocol/index.ts";
import type { FleetLog } from "./fleet-node-ports.ts";
import type { TakeoverRecords } from "./takeover-records.ts";

/** What a node's failover is made of. */
export interface NodeFailoverParts {
  readonly node: string;
  readonly store: Pick<KvActorStore, "takeOver">;
  readonly router: Pick<FleetRouter, "claimViews" | "reread">;
  readonly membership: Pick<Membership, "ownerState" | "claimantNodes">;
  readonly takeovers: TakeoverRecords;
  /** `key` is this node's now, at `epoch`. */
  readonly taken: (key: string, epoch: number) => void;
  readonly log: FleetLog;
  readonly scheduler: Scheduler;
  readonly fallbackAfterMs: number;
}

/**
 * The takeover of dead nodes' keys on one node: Failover over the router's view of the claims, each
 * takeover noting whom it takes the key from (TakeoverRecords) while it runs.
 */
export function nodeFailover(parts: NodeFailoverParts): Failover {
  const { membership, takeovers } = parts;
  return new Failover({
    node: parts.node,
    claims: () =>
      takeovers.noteDeadOwners(
        parts.router.claimViews(),
        (claim) => membership.ownerState(claim.owner) === "dead",
      ),
    ownerState: (owner) => membership.ownerState(owner),
    liveNodes: () => membership.claimantNodes(),
    takeOver: (key, revision) => takeOver(parts, key, revision),
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

/** The store's takeover, noting whom the key is taken from while it runs. */
async function takeOver(parts: NodeFailoverParts, key: string, revision: number): Promise<TakeOver> {
  parts.takeovers.starting(key);
  let result: TakeOver;
  try {
    result = await parts.store.takeOver(key, revision);
  } catch (error) {
    parts.takeovers.notTaken(key);
    throw error;
  }
  if (result.outcome !== "taken") parts.takeovers.notTaken(key);
  // Another node's claim won: learn whose, without waiting for the watch (FleetRouter.reread).
  if (result.outcome === "lost") void parts.router.reread(key).catch(() => undefined);
  return result;
}
