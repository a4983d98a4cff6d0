import {
  Failover,
  type KvActorStore,
  Membership,
  Migrations,
  type ClaimView,
  type NodeIdentity,
} from "../protocol/index.ts";
import { describe } from "./sim-counter.ts";
import type { SimNodePorts } from "./sim-node-ports.ts";

/** How long an adoption request may go unanswered. */
const adoptTimeoutMs = 1_500;

/** What the wiring of a simulated node's Membership, Failover and Migrations reads from the node. */
export interface SimNodeWiringHost {
  readonly ports: SimNodePorts;
  readonly identity: NodeIdentity;
  readonly store: KvActorStore;
  readonly load: () => number;
  readonly draining: () => boolean;
  readonly claims: () => Iterable<ClaimView>;
  readonly learn: (view: ClaimView) => void;
  readonly isLive: (key: string) => boolean;
  readonly freeze: (key: string) => Promise<{ epoch: number; revision: number } | null>;
  readonly handOver: (key: string) => void;
  readonly restore: (key: string) => void;
  readonly afterTick: () => void;
  readonly restartEmpty: () => void;
  readonly say: (line: string) => void;
}

/** A simulated node's protocol pieces. */
export interface SimNodeWiring {
  readonly membership: Membership;
  readonly failover: Failover;
  readonly migrations: Migrations;
}

/** Wires Membership, Failover and Migrations of a simulated node as fleet/fleet-node.ts wires them. */
export function wireSimNode(host: SimNodeWiringHost): SimNodeWiring {
  const { ports } = host;
  const membership = new Membership({
    nodes: ports.buckets.nodes,
    node: ports.node,
    incarnation: ports.incarnation,
    scheduler: ports.scheduler,
    monotonic: ports.monotonic,
    facts: () => ({
      url: `sim://${ports.node}`,
      region: "sim",
      load: host.load(),
      draining: host.draining(),
      version: "sim",
      protocol: 1,
    }),
    events: {
      peerDead: (peer) => {
        host.say(`sees ${peer.node}/${peer.incarnation} dead`);
        failover.sweep(); // bound below, before any heartbeat runs
      },
      ticked: () => {
        host.afterTick();
      },
      fenced: () => {
        host.restartEmpty();
      },
    },
  });
  const failover = new Failover({
    node: ports.node,
    claims: host.claims,
    ownerState: (owner) => membership.ownerState(owner),
    liveNodes: () => membership.claimantNodes(),
    takeOver: async (key, revision) => {
      const result = await host.store.takeOver(key, revision);
      host.say(`takeover of ${key} from revision ${revision}: ${result.outcome}`);
      return result;
    },
    taken: (key, epoch) => {
      host.say(`took ${key} at epoch ${epoch}`);
      host.restore(key);
    },
    failed: (key, error) => {
      host.say(`takeover of ${key} failed: ${describe(error)}`);
    },
    scheduler: ports.scheduler,
    fallbackAfterMs: 3_000,
  });
  const migrations = new Migrations(
    {
      identity: host.identity,
      bus: ports.bus,
      freeze: host.freeze,
      isLive: host.isLive,
      handOver: host.handOver,
      takeOver: (key, revision) => host.store.takeOver(key, revision),
      readClaim: (key) => host.store.readClaim(key),
      learn: (key, owner, revision) => {
        host.learn({ key, owner: { ...owner }, revision });
      },
      adopted: (key) => {
        host.say(`adopted ${key}`);
        host.restore(key);
      },
      moved: () => undefined,
      mayAdopt: () => membership.mayAct() && !host.draining() && !ports.host.stopped,
    },
    adoptTimeoutMs,
    ports.scheduler,
  );
  return { membership, failover, migrations };
}
