import type { ActorSystem } from "../actors/runtime/index.ts";
import {
  type DeadNodeKeys,
  type Failover,
  type FleetRouter,
  heartbeatLimitsOf,
  Membership,
  type NodeIdentity,
  type OwnClaims,
} from "./protocol/index.ts";
import type { FleetNodePorts } from "./fleet-node-ports.ts";
import type { TakeoverRecords } from "./takeover-records.ts";

/**
 * How long after a peer of the previous release was last seen alive this node keeps the whole-bucket
 * claims watch: past its death, its takeover and the fallback sweeps that follow it.
 */
const olderPeerGraceMs = 60_000;

/** Where players reach this node, as its heartbeat announces it (empty until the gateway listens). */
export class NodeAddress {
  url = "";
  admin: string | undefined;
}

/** What a node's membership tells of the node and what it tells back: the parts it reaches, through calls. */
export interface NodeMembershipLinks {
  readonly identity: NodeIdentity;
  readonly address: NodeAddress;
  readonly own: OwnClaims;
  readonly takeovers: TakeoverRecords;
  readonly deadKeys: DeadNodeKeys | undefined;
  readonly system: () => ActorSystem;
  readonly draining: () => boolean;
  readonly failover: () => Failover;
  readonly router: () => FleetRouter;
  readonly olderPeers: OlderPeers;
  /** This node was declared dead: it restarts empty. */
  readonly fenced: () => void;
}

/** The node's heartbeats and lease, its view of its peers, and what it does at a peer's death. */
export function nodeMembership(ports: FleetNodePorts, links: NodeMembershipLinks): Membership {
  const { settings, buckets, scheduler } = ports;
  return new Membership({
    nodes: buckets.nodes,
    node: settings.nodeId,
    incarnation: links.identity.incarnation,
    scheduler,
    monotonic: ports.monotonic,
    timing: {
      heartbeatMs: settings.heartbeatMs,
      failureTimeoutMs: settings.failureTimeoutMs,
      leaseMarginMs: Math.max(settings.heartbeatMs, Math.round(settings.failureTimeoutMs / 3)),
    },
    facts: () => ({
      url: links.address.url,
      ...(links.address.admin === undefined ? {} : { admin: links.address.admin }),
      region: settings.region,
      load: links.system().liveCount,
      draining: links.draining(),
      version: settings.version,
      protocol: settings.protocol,
      ...heartbeatLimitsOf(settings),
      claims: Object.fromEntries(links.own.byKind()),
    }),
    events: {
      peerDead: (peer) => {
        ports.hooks.log.warn({ peer }, "peer declared dead; its lobbies are taken over");
        links.takeovers.peerDied(peer.node, scheduler.now());
        links.deadKeys?.died(peer.node);
        links.failover().sweep();
        // Members waiting for its keys ask again now: each key they ask for is taken over at once.
        links.router().wakeAll();
      },
      ticked: () => {
        links.olderPeers.follow();
        links.failover().sweep();
      },
      fenced: () => {
        links.fenced();
      },
    },
  });
}

/**
 * Watches the whole claims bucket while a peer of the previous release runs (and for a while after it
 * was last seen, so its keys are still in view when its death is swept): such a node writes no claim
 * index, so only a full view finds its keys at its death, and its heartbeat counts no claims.
 */
export class OlderPeers {
  /** When a peer of an older release (no claim counts in its heartbeat) was last seen alive (scheduler ms). */
  private olderPeerSeenAt: number | undefined;

  constructor(
    private readonly ports: FleetNodePorts,
    private readonly membership: () => Membership,
    private readonly router: () => FleetRouter,
  ) {}

  follow(): void {
    const { settings, scheduler } = this.ports;
    const now = scheduler.now();
    const older = this.membership()
      .peerViews()
      .some(
        (peer) => peer.state !== "dead" && peer.heartbeat !== null && peer.heartbeat.claims === undefined,
      );
    if (older) this.olderPeerSeenAt = now;
    const recent = this.olderPeerSeenAt !== undefined && now - this.olderPeerSeenAt < olderPeerGraceMs;
    this.router().setFullView(settings.claimsWatch === true || recent);
  }
}

/** What a fenced node restarts: its actors, its incarnation, its membership and its own listing. */
export interface RestartedParts {
  readonly system: ActorSystem;
  readonly identity: NodeIdentity;
  readonly membership: Membership;
  readonly deadKeys: DeadNodeKeys | undefined;
}

/** Declared dead: drop everything, close every socket, and come back as a new incarnation. */
export async function restartEmpty(ports: FleetNodePorts, node: RestartedParts): Promise<void> {
  const { hooks, scheduler } = ports;
  const dropped = node.system.dropAll();
  hooks.reset();
  node.identity.incarnation = ports.newIncarnation();
  hooks.log.error(
    { dropped, incarnation: node.identity.incarnation },
    "this node was declared dead: dropped its actors, rejoining as a new incarnation",
  );
  for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
    try {
      await node.membership.rejoin(node.identity.incarnation);
      // Claims the old incarnation sent while it was frozen may have landed after every listing.
      node.deadKeys?.died(ports.settings.nodeId);
      return;
    } catch (err) {
      hooks.log.warn({ err }, "rejoin failed; trying again");
      await new Promise<void>((resolve) => scheduler.at(scheduler.now() + delay, resolve));
    }
  }
}
