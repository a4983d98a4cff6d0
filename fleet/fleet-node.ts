import {
  ActorSystem,
  type NewLobbyPlace,
  type NodeState,
  type OwnerLocation,
} from "../actors/runtime/index.ts";
import {
  type ClaimIndex,
  claimWritesTap,
  type DeadNodeKeys,
  KvActorStore,
  OwnClaims,
  type NodeIdentity,
  type DrainProgress,
  busEventPublisher,
  type Failover,
  FleetRouter,
  type Membership,
  type PeerView,
  Migrations,
  migrationHostOf,
  NodeEndpoint,
  PushRelay,
} from "./protocol/index.ts";
import { type DrainAnswer, NodeDrain } from "./fleet-node-drain.ts";
import type { FleetNodePorts } from "./fleet-node-ports.ts";
import { heartbeatUrl } from "./heartbeat-url.ts";
import type { KvBucket } from "./kv.ts";
import { nodeClaimIndex, wireFailover } from "./fleet-node-claims.ts";
import { NodeAddress, OlderPeers, nodeMembership, restartEmpty } from "./fleet-node-membership.ts";
import { ownerReachable, staleOwnerRetryMs } from "./owner-reachable.ts";
import { NodePlacement } from "./node-placement.ts";
import { type RegionUrl, regionsOf } from "./placement.ts";
import { type FailoverRecord, TakeoverRecords } from "./takeover-records.ts";
import { TakenRestores } from "./taken-restores.ts";

/**
 * One node of a fleet, assembled from its ports (docs/fleet.md tells the whole protocol): the
 * ActorSystem over KvActorStore, a FleetRouter that forwards messages for keys other nodes own, a
 * NodeEndpoint that serves theirs for ours, heartbeats and a lease (Membership), the takeover of dead
 * nodes' keys (Failover), live migration (Migrations) and drain, and the push relay. `foyer node` builds
 * it over NATS; the simulation over its own bus, KV and clock.
 */
export class FleetNode {
  /** This process as it signs its claims; a fenced node takes a new incarnation in place. */
  readonly identity: NodeIdentity;
  readonly system: ActorSystem;
  /** The runtime's view of this node: the lease decides whether it may act. */
  readonly state: NodeState;
  private readonly store: KvActorStore;
  /** This process's claims, whole: its drain, its counts and its own keys' routing read them. */
  private readonly own: OwnClaims;
  /** Which keys each node holds, written beside this node's claims and listed at a peer's death. */
  private readonly index: ClaimIndex | undefined;
  private readonly deadKeys: DeadNodeKeys | undefined;
  private readonly membership: Membership;
  private readonly router: FleetRouter;
  private readonly failover: Failover;
  private readonly relay: PushRelay; // queues' and matched lobbies' frames reach every gateway (docs/matchmaking.md)
  private readonly endpoint: NodeEndpoint;
  private readonly migrations: Migrations;
  private readonly drainer: NodeDrain;
  private readonly placement: NodePlacement;
  private readonly takeovers = new TakeoverRecords();
  private readonly restores: TakenRestores;
  private readonly address = new NodeAddress();
  /** Peers of an older release: the whole claims watch runs while one does. */
  private readonly olderPeers: OlderPeers;
  /** What `start` started that `close` stops, last first. */
  private readonly running: { stop(): void }[] = [];

  /** Wires the parts; their callbacks run once `start` joined, each reaching the others through fields. */
  constructor(private readonly ports: FleetNodePorts) {
    const { settings, hooks, buckets, scheduler } = ports;
    this.identity = { node: settings.nodeId, incarnation: ports.newIncarnation() };
    this.own = new OwnClaims(this.identity);
    const claimIndex = nodeClaimIndex(ports, {
      membership: () => this.membership,
      failover: () => this.failover,
    });
    this.index = claimIndex?.index;
    this.deadKeys = claimIndex?.deadKeys;
    // A claim of this node's incarnation before a fence, landed after it, is taken over here at once.
    const claims = claimWritesTap(buckets.claims, this.own, this.index, (claim) => {
      this.failover.want(claim);
    });
    this.store = new KvActorStore({
      claims,
      snapshots: buckets.lobbies,
      identity: this.identity,
      scheduler,
      sealedByRead: (key) => {
        this.restores.sealedByRead(key);
      },
    });
    this.olderPeers = new OlderPeers(
      ports,
      () => this.membership,
      () => this.router,
    );
    this.membership = this.newMembership();
    this.router = this.newRouter(claims);
    this.drainer = this.newDrain();
    this.placement = new NodePlacement({
      settings,
      self: this.identity,
      capacity: hooks.capacity,
      peers: () => this.membership.peerViews(),
      claimsOf: (owner) => this.router.ownedBy(owner) ?? this.heartbeatClaims(owner),
      refusedRecently: (peer) => this.router.refusedRecently(peer),
      draining: () => this.drainer.draining,
      liveCount: () => this.system.liveCount,
    });
    this.state = {
      canOpenRoom: () => this.placement.canOpenRoom(),
      draining: () => this.drainer.draining,
      // A queue match's room goes to the least-loaded node that can take it (docs/matchmaking.md).
      roomHost: () => this.placement.roomHost(),
      mayAct: () => this.membership.mayAct(),
      leaseSettled: () => this.membership.leaseSettled(),
    };
    this.failover = wireFailover(ports, {
      store: this.store,
      router: this.router,
      membership: this.membership,
      takeovers: this.takeovers,
      claimIndex,
      taken: (key, epoch) => {
        this.taken(key, epoch);
      },
    });
    this.restores = this.newRestores();
    this.relay = this.newRelay();
    this.system = this.newSystem();
    hooks.register(this.system);
    // A disconnect another node tells about a player in the key here is stale (NodeEndpoint.staleDisconnect).
    this.endpoint = new NodeEndpoint({
      bus: ports.bus,
      node: settings.nodeId,
      system: this.system,
      // A room another node placed here is taken only while this node can open one.
      maySpawn: (key) => !key.startsWith("room/") || this.placement.canOpenRoom(),
      inKeyHere: hooks.inKeyHere,
    });
    this.migrations = this.newMigrations();
  }

  /** Builds a node and joins the fleet with it. */
  static async start(ports: FleetNodePorts): Promise<FleetNode> {
    const node = new FleetNode(ports);
    await node.start();
    return node;
  }

  /** Joins the fleet, then serves: heartbeats, the claims' watch, relayed pushes, peers' asks, adoptions. */
  async start(): Promise<void> {
    await this.membership.join();
    this.membership.start();
    this.running.push(this.router.start());
    if (this.index !== undefined) this.running.push(this.index);
    if (this.deadKeys !== undefined) {
      this.running.push(this.deadKeys);
      // An earlier process under this node id (a restart) left its keys to whoever finds them.
      this.deadKeys.died(this.ports.settings.nodeId);
    }
    await this.relay.start();
    this.running.push(this.relay);
    await this.endpoint.start();
    this.running.push(this.endpoint, await this.migrations.serve(this.ports.settings.nodeId), this.restores);
  }

  /** Where the owner of `key` is: here (or nobody yet), another node's public URL, or not reachable now. */
  async locateOwner(key: string): Promise<OwnerLocation> {
    const location = await this.router.locate(key);
    if (location.kind === "unavailable") return { kind: "waiting", retryAfterMs: location.retryAfterMs };
    if (location.kind !== "remote") return { kind: "here" };
    const peer = this.membership.peerViews().find((p) => p.node === location.node);
    // An owner gone quiet (a `kill -9`?) is not redirected to: players wait for the takeover instead.
    if (peer && !ownerReachable(peer, this.ports.monotonic(), this.ports.settings.failureTimeoutMs))
      return { kind: "waiting", retryAfterMs: staleOwnerRetryMs };
    // A peer whose heartbeat this node has not read yet (it just joined): read its record now.
    const peerUrl = peer?.heartbeat?.url ?? (await heartbeatUrl(this.ports.buckets.nodes, location.node));
    return peerUrl ? { kind: "elsewhere", url: peerUrl } : { kind: "waiting", retryAfterMs: 200 };
  }

  /** Resolves when this node sees the claim of `key` change, or after `maxMs` (a wait for a takeover). */
  ownerChanged(key: string, maxMs: number): Promise<void> {
    return this.router.changed(key, maxMs);
  }

  /** Publishes this node's public URL (and its admin API's) in its heartbeat, so peers can redirect to it. */
  async announce(url: string, admin?: string): Promise<void> {
    this.address.url = url;
    this.address.admin = admin;
    await this.membership.tick();
  }

  /** Where a new lobby goes: here, or a peer's URL while this node drains or is full, or nowhere. */
  placeNew(): NewLobbyPlace {
    return this.placement.placeNew();
  }

  /** One public URL per region of the live fleet (this node's for its own), for the SDK's ping. */
  regions(): RegionUrl[] {
    return regionsOf(
      { region: this.ports.settings.region, url: this.address.url },
      this.membership.peerViews(),
    );
  }

  /** Starts draining (idempotent): refused when no live peer could take the keys. */
  drain(): DrainAnswer {
    return this.drainer.start();
  }

  /** The running or finished drain, or null. */
  drainProgress(): DrainProgress | null {
    return this.drainer.progress();
  }

  /** Resolves when a started drain ends (nothing left, or its deadline). */
  get drained(): Promise<DrainProgress> {
    return this.drainer.drained;
  }

  /** The keys this node owns now (its claims), counted by kind (`lobby`, `player`, …). */
  owned(): Map<string, number> {
    return this.own.byKind();
  }

  /** The keys this node owns by its claims, with the claim's revision (the lobby's epoch). */
  ownedKeys(): { key: string; epoch: number }[] {
    return this.own.entries();
  }

  /** Other nodes' claims the router cached, and how many it let go of to stay within its size. */
  claimsCache(): { cached: number; evictions: number } {
    return { cached: this.router.cached, evictions: this.router.evictions };
  }

  /** A peer's claims by kind as its heartbeat says (a node of an older release says nothing). */
  private heartbeatClaims(owner: NodeIdentity): ReadonlyMap<string, number> | undefined {
    const peer = this.membership
      .peerViews()
      .find((p) => p.node === owner.node && p.incarnation === owner.incarnation);
    const claims = peer?.heartbeat?.claims;
    return claims === undefined ? undefined : new Map(Object.entries(claims));
  }

  /** The takeovers this node made since it started: how many, and the latest (newest last). */
  failovers(): { count: number; recent: readonly FailoverRecord[] } {
    return this.takeovers.failovers();
  }

  /** The peers as this node sees them (their last heartbeats). */
  peerViews(): PeerView[] {
    return this.membership.peerViews();
  }

  /** Acts no more, then says so: peers take whatever is left here at once. The ports stay open. */
  async close(): Promise<void> {
    this.system.close();
    await this.membership.leave();
    for (const part of this.running.splice(0).reverse()) part.stop();
  }

  private newRouter(claims: KvBucket): FleetRouter {
    const { settings, scheduler } = this.ports;
    return new FleetRouter({
      claims,
      bus: this.ports.bus,
      identity: this.identity,
      scheduler,
      own: this.own,
      watchAll: settings.claimsWatch === true,
      ...(settings.claimsCacheSize === undefined ? {} : { cacheSize: settings.claimsCacheSize }),
      ownerState: (owner) => this.membership.ownerState(owner),
      // A key a resuming member asks for is taken over here at once, not in its turn (docs/fleet.md).
      deadOwner: (claim) => {
        this.failover.want(claim);
      },
      takingOver: (key) => this.failover.taking(key),
    });
  }

  private newMembership(): Membership {
    return nodeMembership(this.ports, {
      identity: this.identity,
      address: this.address,
      own: this.own,
      takeovers: this.takeovers,
      deadKeys: this.deadKeys,
      system: () => this.system,
      draining: () => this.drainer.draining,
      failover: () => this.failover,
      router: () => this.router,
      olderPeers: this.olderPeers,
      fenced: () => {
        const { system, identity, membership, deadKeys } = this;
        void restartEmpty(this.ports, { system, identity, membership, deadKeys });
      },
    });
  }

  private newRelay(): PushRelay {
    const { settings, hooks } = this.ports;
    return new PushRelay({
      bus: this.ports.bus,
      node: settings.nodeId,
      local: hooks.outbox,
      here: hooks.connectedHere,
      now: this.ports.monotonic,
      ...(settings.relayAfterMoveMs === undefined ? {} : { relayAfterMoveMs: settings.relayAfterMoveMs }),
    });
  }

  private newRestores(): TakenRestores {
    return new TakenRestores({
      scheduler: this.ports.scheduler,
      log: this.ports.hooks.log,
      system: () => this.system,
      playersHere: (key) => this.ports.hooks.playersHere(key),
      ours: (key, epoch) => this.own.epochOf(key) === epoch,
      sealing: (key) => this.failover.taking(key) || this.migrations.adopting(key),
    });
  }

  private newSystem(): ActorSystem {
    const { settings, hooks } = this.ports;
    return new ActorSystem({
      store: this.store,
      outbox: this.relay,
      scheduler: this.ports.scheduler,
      random: this.ports.random,
      node: this.state,
      events: hooks.events,
      resultSessions: settings.resultSessions,
      router: this.router,
      blobs: this.ports.blobs,
      publisher: busEventPublisher(this.ports.bus, settings.nodeId, (event, error) => {
        hooks.events.publishFailed?.(event.key, error);
      }),
    });
  }

  private newMigrations(): Migrations {
    const { hooks } = this.ports;
    const host = migrationHostOf({
      identity: this.identity,
      bus: this.ports.bus,
      system: this.system,
      store: this.store,
      router: this.router,
      playersHere: hooks.playersHere,
      moved: hooks.moved,
      mayAdopt: () => this.membership.mayAct() && !this.drainer.draining,
      onAdopted: (key) => {
        this.relay.relayAfterMove(key);
        hooks.fleetEvents?.migrated?.("in", "adopted");
      },
      frozeFor: (key, ms) => {
        hooks.fleetEvents?.frozeFor?.(key, ms);
      },
    });
    return new Migrations(host, undefined, this.ports.scheduler);
  }

  private newDrain(): NodeDrain {
    const { settings, hooks } = this.ports;
    return new NodeDrain({
      identity: this.identity,
      claims: () => this.router.claimViews(),
      targets: () => this.placement.targets(),
      move: async (key, revision, target) => {
        const outcome = await this.migrations.move(key, revision, target);
        hooks.fleetEvents?.migrated?.("out", outcome);
        return outcome;
      },
      pinned: (key) => this.system.pinned(key),
      scheduler: this.ports.scheduler,
      deadlineMs: settings.drainDeadlineMs,
      concurrency: settings.drainConcurrency,
      log: hooks.log,
      started: () => {
        hooks.draining();
        void this.membership.tick(); // peers learn at once that no new lobby should come here
      },
    });
  }

  private taken(key: string, epoch: number): void {
    const { hooks, scheduler } = this.ports;
    const sinceDeathMs = this.takeovers.taken(key, epoch, this.ports.wallClock(), scheduler.now());
    this.router.learn(key, this.identity, epoch);
    hooks.fleetEvents?.tookOver?.(key, sinceDeathMs);
    hooks.log.info({ key, epoch }, "taken over");
    this.restores.taken(key, epoch); // restored now, its timers run again; again while the store refuses
  }
}
