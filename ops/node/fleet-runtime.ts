import { randomBytes } from "node:crypto";
import { performance } from "node:perf_hooks";
import type { Logger } from "pino";
import {
  ActorSystem,
  type BlobStore,
  type NodeState,
  type OwnerLocation,
  type Outbox,
  type RoomHost,
  type RuntimeEvents,
} from "../../actors/runtime/index.ts";
import {
  Drain,
  Failover,
  FleetRouter,
  Migrations,
  migrationHostOf,
  decodeNodeRecord,
  isTombstone,
  type DrainProgress,
  type DrainTarget,
  type KvBucket,
  KvActorStore,
  Membership,
  NatsBus,
  busEventPublisher,
  type Bus,
  NatsKvStore,
  NodeEndpoint,
  PushRelay,
  chooseRoomHost,
  connectNats,
  cryptoRandom,
  realScheduler,
  type NodeIdentity,
  type KvStore,
  NatsBlobStore,
  type ClaimView,
} from "../../fleet/index.ts";
import { PROTOCOL_VERSION } from "../../gateway/index.ts";
import { resultSessionsOf, type NodeConfig } from "../config.ts";
import { foyerVersion } from "../version.ts";
import { natsAuthOf } from "../nats/nats-auth.ts";

/** A runtime in a fleet: claims and snapshots in NATS KV, messages for other nodes' keys over NATS. */
export interface FleetRuntime {
  readonly system: ActorSystem;
  /** The node's NATS connection as a bus: the studio's events are published on it (docs/server-api.md). */
  readonly bus: Bus;
  /** Room documents: the `foyer_blobs` JetStream object store, replicated as the KV buckets are. */
  readonly blobs: BlobStore;
  /** The runtime's view of this node: the lease decides whether it may act. */
  readonly node: NodeState;
  /** Where the owner of `key` is: here (or nobody yet), another node's public URL, or not reachable now. */
  locateOwner(key: string): Promise<OwnerLocation>;
  /** Resolves when this node sees the claim of `key` change, or after `maxMs` (a wait for a takeover). */
  ownerChanged(key: string, maxMs: number): Promise<void>;
  /** Publishes this node's public URL (and its admin API's) in its heartbeat, so peers can redirect players to it. */
  announce(url: string, admin?: string): Promise<void>;
  readonly membership: Membership;
  /** Where a new lobby goes: here, or a peer's URL while this node drains. */
  placeNew(): OwnerLocation;
  /** One public URL per region of the live fleet (this node's for its own), for the SDK's ping. */
  regions(): RegionUrl[];
  /** Starts draining (idempotent): refused when no live peer could take the keys. */
  drain(): { accepted: boolean; message: string };
  /** The running or finished drain, or null. */
  drainProgress(): DrainProgress | null;
  /** Resolves when a started drain ends (nothing left, or its deadline). */
  readonly drained: Promise<DrainProgress>;
  /** The keys this node owns now (its claims), counted by kind (`lobby`, `player`, …). */
  owned(): Map<string, number>;
  /** The keys this node owns by its claims, with the claim's revision (the lobby's epoch). */
  ownedKeys(): { key: string; epoch: number }[];
  /** The takeovers this node made since it started: how many, and the latest (newest last). */
  failovers(): { count: number; recent: readonly FailoverRecord[] };
  close(): Promise<void>;
}

/** A region of the fleet and a node of it that clients may measure their round trip to. */
export interface RegionUrl {
  readonly region: string;
  readonly url: string;
}

/** One key this node took over from a peer declared dead. */
export interface FailoverRecord {
  readonly key: string;
  /** The node that owned it before (its claim as this node last saw it), or null when unknown. */
  readonly from: string | null;
  readonly epoch: number;
  /** Wall-clock milliseconds, for the operator's eyes only. */
  readonly at: number;
}

/** How many takeovers `failovers()` keeps; the count keeps going. */
const recentFailovers = 50;
/** How many peers' times of death a node keeps for the recovery time. */
const recentDeaths = 64;

/** What the fleet runtime needs from the rest of the node. */
export interface FleetRuntimeParts {
  readonly outbox: Outbox;
  /** Room capacity and draining, which the node knows; the lease is the fleet's. */
  readonly capacity: Pick<NodeState, "canOpenRoom" | "roomHost">;
  readonly events: RuntimeEvents;
  readonly register: (system: ActorSystem) => void;
  /** Players with a session on this node that the restored `key` counts as connected. */
  readonly playersHere: (key: string) => readonly string[];
  /** True when `player` has a live socket on this node (a relayed push is delivered here). */
  readonly connectedHere: (player: string) => boolean;
  /** True when `player` has a live socket on this node whose session is in `key` or joining it. */
  readonly inKeyHere: (player: string, key: string) => boolean;
  /** This node was declared dead: close every socket so its players resume elsewhere. */
  readonly reset: () => void;
  /** A key moved to another node: its members connected here are told `moved { url }`. */
  readonly moved: (key: string, url: string) => void;
  /** A drain started: members not in a room hear `serverDraining`. */
  readonly draining: () => void;
  readonly log: Logger;
  /** Told of each takeover and migration (the node's metrics count them). */
  readonly fleetEvents?: {
    /** With the ms since this node learned the key's owner died, when it did. */
    tookOver?(key: string, sinceDeathMs?: number): void;
    migrated?(direction: "out" | "in", result: "moved" | "kept" | "busy" | "adopted"): void;
    /** A key this node's drain froze stayed frozen `ms`. */
    frozeFor?(key: string, ms: number): void;
  };
  /** Wraps the KV store every part uses (the cluster bench counts the writes each op waits for). */
  readonly kvView?: (kv: KvStore) => KvStore;
}

function newIncarnation(): string {
  return randomBytes(8).toString("hex");
}

/**
 * Builds the runtime of a node that joins a fleet (`--nats`): the same ActorSystem and kinds as an
 * embedded node, over NatsKvStore, with a FleetRouter that forwards messages for keys other nodes own,
 * a NodeEndpoint that serves theirs for ours, heartbeats and a lease (Membership), and the takeover of
 * dead nodes' keys (Failover). docs/fleet.md tells the whole protocol.
 */
export async function buildFleetRuntime(config: NodeConfig, parts: FleetRuntimeParts): Promise<FleetRuntime> {
  const nc = await connectNats({
    servers: config.nats,
    name: config.nodeId,
    ...natsAuthOf(config),
  });
  const nats = new NatsKvStore(nc, { replicas: config.natsReplicas });
  const blobs = await NatsBlobStore.open(nc, {
    maxBytes: config.maxBlobBytes,
    replicas: config.natsReplicas,
  });
  const kv = parts.kvView ? parts.kvView(nats) : nats;
  const bus = new NatsBus(nc);
  const scheduler = realScheduler();
  // One identity object shared by the store and the router: a fenced node takes a new incarnation by
  // changing it in place, so every claim it writes afterwards names the new process.
  const identity: NodeIdentity = { node: config.nodeId, incarnation: newIncarnation() };
  const [claims, nodes, snapshots] = [
    await kv.bucket("claims"),
    await kv.bucket("nodes"),
    await kv.bucket("lobbies"),
  ];
  let url = "";
  let adminUrl: string | undefined;
  const drainState: { drain: Drain | null; done: (progress: DrainProgress) => void } = {
    drain: null,
    done: () => undefined,
  };
  const drained = new Promise<DrainProgress>((resolve) => {
    drainState.done = resolve;
  });
  const takeovers: { count: number; recent: FailoverRecord[] } = { count: 0, recent: [] };
  /**
   * The node each takeover took a key from. The router's cache names the new owner by the time a takeover
   * is reported, so the dead owners are noted as the failover sweep reads the claims (rebuilt each sweep:
   * a queued key still owned by a dead node is noted again), and kept per takeover while it runs.
   */
  let deadOwners = new Map<string, string>();
  const takenFrom = new Map<string, string>();
  /** When this node learned each peer died (its clock), by node id, for the recovery time; the last few. */
  const deadSince = new Map<string, number>();
  function* noteDeadOwners(claims: Iterable<ClaimView>): Iterable<ClaimView> {
    const noted = new Map<string, string>();
    deadOwners = noted;
    for (const claim of claims) {
      if (membership.ownerState(claim.owner) === "dead") noted.set(claim.key, claim.owner.node);
      yield claim;
    }
  }
  // Membership and failover are made before the system they report on (it needs the lease check).
  const built: { system?: ActorSystem } = {};
  const store = new KvActorStore({
    claims,
    snapshots,
    identity,
    scheduler,
    // A takeover that failed after its claim CAS leaves the key to the next read, which seals it: that
    // actor is told `restored` too (behind the messages that made it load), or its absent members would
    // count as connected and never get a grace.
    sealedByRead: (key) => {
      // A takeover or adoption still sealing tells the actor itself once it finds this seal.
      if (failover.taking(key) || migrations.adopting(key)) return;
      parts.log.info({ key }, "sealed by the read that restores it");
      built.system?.tell(key, {
        type: "restored",
        reason: "failover",
        connected: [...parts.playersHere(key)],
      });
    },
  });
  const membership: Membership = new Membership({
    nodes,
    node: config.nodeId,
    incarnation: identity.incarnation,
    scheduler,
    monotonic: () => performance.now(),
    timing: {
      heartbeatMs: config.fleetHeartbeatMs,
      failureTimeoutMs: config.failureTimeoutMs,
      leaseMarginMs: Math.max(config.fleetHeartbeatMs, Math.round(config.failureTimeoutMs / 3)),
    },
    facts: () => ({
      url,
      ...(adminUrl === undefined ? {} : { admin: adminUrl }),
      region: config.region,
      load: built.system?.liveCount ?? 0,
      draining: drainState.drain !== null,
      version: foyerVersion,
      protocol: PROTOCOL_VERSION + config.protocolBump,
    }),
    events: {
      peerDead: (peer) => {
        parts.log.warn({ peer }, "peer declared dead; its lobbies are taken over");
        deadSince.delete(peer.node);
        deadSince.set(peer.node, scheduler.now());
        for (const node of deadSince.keys()) {
          if (deadSince.size <= recentDeaths) break;
          deadSince.delete(node);
        }
        failover.sweep();
        // Members waiting for its keys ask again now: each key they ask for is taken over at once.
        router.wakeAll();
      },
      ticked: () => {
        failover.sweep();
      },
      fenced: () => {
        void restartEmpty();
      },
    },
  });
  const router = new FleetRouter({
    claims,
    bus,
    identity,
    scheduler,
    ownerState: (owner) => membership.ownerState(owner),
    // A key a resuming member asks for is taken over here at once, not in its turn (docs/fleet.md).
    deadOwner: (claim) => {
      failover.want(claim);
    },
    takingOver: (key) => failover.taking(key),
  });
  const canOpenRoom = (): boolean => parts.capacity.canOpenRoom() && drainState.drain === null;
  const node: NodeState = {
    canOpenRoom,
    draining: () => drainState.drain !== null,
    // A queue match's room goes to the least-loaded node that can take it (docs/matchmaking.md).
    roomHost: () => roomHostOf(),
    mayAct: () => membership.mayAct(),
    leaseSettled: () => membership.leaseSettled(),
  };
  const failover: Failover = new Failover({
    node: config.nodeId,
    claims: () => noteDeadOwners(router.claimViews()),
    ownerState: (owner) => membership.ownerState(owner),
    liveNodes: () => membership.claimantNodes(),
    takeOver: (key, revision) => {
      const owner = deadOwners.get(key);
      if (owner !== undefined) takenFrom.set(key, owner);
      return store.takeOver(key, revision).then(
        (result) => {
          if (result.outcome !== "taken") takenFrom.delete(key);
          // Another node's claim won: learn whose, without waiting for the watch (FleetRouter.reread).
          if (result.outcome === "lost") void router.reread(key).catch(() => undefined);
          return result;
        },
        (error: unknown) => {
          takenFrom.delete(key);
          throw error;
        },
      );
    },
    taken: (key, epoch) => {
      const from = takenFrom.get(key) ?? null;
      takenFrom.delete(key);
      takeovers.count++;
      takeovers.recent.push({ key, from, epoch, at: Date.now() });
      if (takeovers.recent.length > recentFailovers) takeovers.recent.shift();
      router.learn(key, identity, epoch);
      const died = from === null ? undefined : deadSince.get(from);
      parts.fleetEvents?.tookOver?.(key, died === undefined ? undefined : scheduler.now() - died);
      parts.log.info({ key, epoch }, "taken over");
      // Restores the actor now (its timers run again) and tells it whose sessions are here.
      built.system?.tell(key, {
        type: "restored",
        reason: "failover",
        connected: [...parts.playersHere(key)],
      });
    },
    failed: (key, err) => {
      parts.log.warn(
        { key, err },
        "takeover failed; tried again by the next sweep, or sealed by the read that restores it",
      );
    },
    scheduler,
    fallbackAfterMs: config.failureTimeoutMs,
  });

  /** Declared dead: drop everything, close every socket, and come back as a new incarnation. */
  const restartEmpty = async (): Promise<void> => {
    const dropped = built.system?.dropAll() ?? 0;
    parts.reset();
    identity.incarnation = newIncarnation();
    parts.log.error(
      { dropped, incarnation: identity.incarnation },
      "this node was declared dead: dropped its actors, rejoining as a new incarnation",
    );
    for (let delay = 200; ; delay = Math.min(delay * 2, 5_000)) {
      try {
        await membership.rejoin(identity.incarnation);
        return;
      } catch (err) {
        parts.log.warn({ err }, "rejoin failed; trying again");
        await new Promise((resolve) => setTimeout(resolve, delay));
      }
    }
  };

  // Frames of queues and matched lobbies reach players on every gateway (docs/matchmaking.md).
  const relay = new PushRelay({ bus, node: config.nodeId, local: parts.outbox, here: parts.connectedHere });
  const system = new ActorSystem({
    store,
    outbox: relay,
    scheduler,
    random: cryptoRandom(),
    node,
    events: parts.events,
    resultSessions: resultSessionsOf(config),
    router,
    blobs,
    publisher: busEventPublisher(bus, config.nodeId, (event, error) => {
      parts.events.publishFailed?.(event.key, error);
    }),
  });
  built.system = system;
  parts.register(system);
  await membership.join();
  membership.start();
  router.start();
  await relay.start();
  // A room another node placed here is taken only while this node can open one.
  const maySpawn = (key: string): boolean => !key.startsWith("room/") || canOpenRoom();
  // A disconnect another node tells about a player in the key here is stale (NodeEndpoint.staleDisconnect).
  const endpoint = new NodeEndpoint({
    bus,
    node: config.nodeId,
    system,
    maySpawn,
    inKeyHere: parts.inKeyHere,
  });
  await endpoint.start();
  const migrations = new Migrations(
    migrationHostOf({
      identity,
      bus,
      system,
      store,
      router,
      playersHere: parts.playersHere,
      moved: parts.moved,
      mayAdopt: () => membership.mayAct() && drainState.drain === null,
      onAdopted: (key) => {
        relay.relayAfterMove(key);
        parts.fleetEvents?.migrated?.("in", "adopted");
      },
      frozeFor: (key, ms) => {
        parts.fleetEvents?.frozeFor?.(key, ms);
      },
    }),
    undefined,
    scheduler,
  );
  const adoption = await migrations.serve(config.nodeId);
  /**
   * The least-loaded node that can open a room now: this one (its live actor count, while it can open a
   * room) or a live, non-draining peer by the load of its last heartbeat, leaving out a peer that refused
   * a placed room a moment ago; ties go to the lower node id. Undefined when none can.
   */
  function roomHostOf(): RoomHost | undefined {
    const self = parts.capacity.roomHost?.();
    const here = self !== undefined && canOpenRoom() ? [{ ...self, load: system.liveCount }] : [];
    return chooseRoomHost([...here, ...targets()], (peer) => router.refusedRecently(peer));
  }
  /** Live peers that are not draining, with the load their heartbeats report. */
  const targets = (): DrainTarget[] =>
    membership.peerViews().flatMap((peer) => {
      const beat = peer.heartbeat;
      if (peer.state !== "live" || beat === null || beat.draining || beat.url === "") return [];
      return [{ node: peer.node, url: beat.url, load: beat.load }];
    });
  return {
    system,
    node,
    membership,
    ownerChanged: (key, maxMs) => router.changed(key, maxMs),
    locateOwner: async (key) => {
      const location = await router.locate(key);
      if (location.kind === "unavailable") return { kind: "waiting", retryAfterMs: location.retryAfterMs };
      if (location.kind !== "remote") return { kind: "here" };
      const peer = membership.peerViews().find((p) => p.node === location.node);
      // A peer whose heartbeat this node has not read yet (it just joined): read its record now.
      const peerUrl = peer?.heartbeat?.url ?? (await heartbeatUrl(nodes, location.node));
      return peerUrl ? { kind: "elsewhere", url: peerUrl } : { kind: "waiting", retryAfterMs: 200 };
    },
    regions: () => {
      const byRegion = new Map<string, string>();
      if (config.region !== "" && url !== "") byRegion.set(config.region, url);
      for (const peer of membership.peerViews()) {
        const beat = peer.heartbeat;
        if (peer.state !== "live" || beat === null || beat.draining || beat.url === "" || beat.region === "")
          continue;
        if (!byRegion.has(beat.region)) byRegion.set(beat.region, beat.url);
      }
      return [...byRegion].sort(([a], [b]) => (a < b ? -1 : 1)).map(([region, at]) => ({ region, url: at }));
    },
    placeNew: () => {
      if (drainState.drain === null) return { kind: "here" };
      const least = [...targets()].sort((a, b) => a.load - b.load)[0];
      return least ? { kind: "elsewhere", url: least.url } : { kind: "here" };
    },
    drain: () => {
      if (drainState.drain !== null) return { accepted: true, message: "already draining" };
      if (targets().length === 0) {
        return {
          accepted: false,
          message: "no other live node could take this node's lobbies: stop it instead (SIGTERM)",
        };
      }
      const drain = new Drain({
        identity,
        claims: () => router.claimViews(),
        targets,
        move: async (key, revision, target) => {
          const outcome = await migrations.move(key, revision, target);
          parts.fleetEvents?.migrated?.("out", outcome);
          return outcome;
        },
        pinned: (key) => system.pinned(key),
        scheduler,
        deadlineMs: config.drainDeadlineMs,
        concurrency: config.drainConcurrency,
      });
      drainState.drain = drain;
      parts.log.info("draining: moving this node's lobbies to its peers");
      parts.draining();
      void membership.tick(); // peers learn at once that no new lobby should come here
      void drain.run().then((progress) => {
        parts.log.info({ progress }, "drain finished");
        drainState.done(progress);
      });
      return { accepted: true, message: "draining" };
    },
    drainProgress: () => drainState.drain?.progress() ?? null,
    owned: () => router.ownedBy(identity),
    drained,
    blobs,
    bus,
    ownedKeys: () =>
      [...router.claimViews()]
        .filter((c) => c.owner.node === identity.node && c.owner.incarnation === identity.incarnation)
        .map((claim) => ({ key: claim.key, epoch: claim.revision })),
    failovers: () => ({ count: takeovers.count, recent: [...takeovers.recent] }),
    announce: async (publicUrl, admin) => {
      url = publicUrl;
      adminUrl = admin;
      await membership.tick();
    },
    async close() {
      // Acts no more, then says so: peers take whatever is left here at once.
      system.close();
      await membership.leave();
      adoption.stop();
      endpoint.stop();
      relay.stop();
      router.stop();
      await blobs.close();
      await nc.drain().catch(() => undefined);
    },
  };
}

/** The public URL in `node`'s heartbeat record, read now; null when it has none (or is a tombstone). */
async function heartbeatUrl(nodes: KvBucket, node: string): Promise<string | null> {
  try {
    const entry = await nodes.get(node);
    if (entry === null) return null;
    const record = decodeNodeRecord(entry.value);
    return isTombstone(record) || record.url === "" ? null : record.url;
  } catch {
    return null;
  }
}
