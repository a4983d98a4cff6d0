import type {
  ActorSystem,
  BlobStore,
  NodeState,
  Outbox,
  Random,
  RuntimeEvents,
  Scheduler,
} from "../actors/runtime/index.ts";
import type { Bus } from "./bus.ts";
import type { KvBucket } from "./kv.ts";

/** The settings a fleet node runs by: a small part of a node's configuration. */
export interface FleetNodeSettings {
  readonly nodeId: string;
  /** This node's region (its heartbeat's; "" for none). */
  readonly region: string;
  /** How often it heartbeats, and how long a silent peer lives on before it is declared dead. */
  readonly heartbeatMs: number;
  readonly failureTimeoutMs: number;
  /** How long a drain moves keys before it gives up, and how many at once. */
  readonly drainDeadlineMs: number;
  readonly drainConcurrency: number;
  /** How long a key moved here is relayed to its members still on the node it left (default 30 s). */
  readonly relayAfterMoveMs?: number;
  /** The release and the client protocol its heartbeat reports. */
  readonly version: string;
  readonly protocol: number;
  /** The ActorSystem's `resultSessions` (ActorSystemOptions). */
  readonly resultSessions: number;
  /**
   * The rooms a node runs at most (`--max-rooms`), taken as every node's: a peer whose room claims reach
   * it is not placed on. Unset: no limit is known, and any live peer may be asked.
   */
  readonly maxRooms?: number;
  /**
   * The private lobbies a node holds at most (`--max-lobbies`), counted by its claims and taken as every
   * node's: past it a create goes to the peer with the fewest. Unset: no limit.
   */
  readonly maxLobbies?: number;
  /**
   * Whether the heartbeat names `maxLobbies` and `maxRooms` (`--heartbeat-limits true`). Off by default: a
   * node of an earlier release refuses a heartbeat with them, so a rolling deploy turns it on only once
   * every node runs a release that reads them. Off, peers weigh this node against their own limits.
   */
  readonly heartbeatLimits?: boolean;
  /** Other nodes' claims the router caches at most (`--claims-cache`; default 10,000). */
  readonly claimsCacheSize?: number;
  /**
   * Watch the whole `claims` bucket, as the previous release does (`--claims-watch true`): a full view of
   * every claim, at the cost of every claim write reaching every node. Off by default.
   */
  readonly claimsWatch?: boolean;
}

/** The KV buckets a fleet node works on. */
export interface FleetBuckets {
  readonly claims: KvBucket;
  readonly nodes: KvBucket;
  readonly lobbies: KvBucket;
  /**
   * The claim index (`claim-owners`): which keys each node holds, listed at its death. Absent, the node
   * finds dead nodes' keys only through its router's view (the whole-bucket watch, or keys asked for).
   */
  readonly claimIndex?: KvBucket;
}

/** What a fleet node logs through: a pino logger fits it. */
export interface FleetLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/** What the fleet tells the node's metrics of its takeovers and migrations. */
export interface FleetEvents {
  /** With the ms since this node learned the key's owner died, when it did. */
  tookOver?(key: string, sinceDeathMs?: number): void;
  migrated?(direction: "out" | "in", result: "moved" | "kept" | "busy" | "adopted"): void;
  /** A key this node's drain froze stayed frozen `ms`. */
  frozeFor?(key: string, ms: number): void;
}

/** What a fleet node needs from the gateway in front of it and the process around it. */
export interface FleetNodeHooks {
  /** Delivers frames to the sockets on this node (the push relay carries the rest to peers). */
  readonly outbox: Outbox;
  /** Room capacity and the node's own room host, which the node knows; the lease is the fleet's. */
  readonly capacity: Pick<NodeState, "canOpenRoom" | "roomHost">;
  readonly events: RuntimeEvents;
  /** Registers the actor kinds this node serves. */
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
  readonly log: FleetLog;
  /** Told of each takeover and migration (the node's metrics count them). */
  readonly fleetEvents?: FleetEvents;
}

/** Everything a fleet node is built from: the outside world as ports, its settings and its hooks. */
export interface FleetNodePorts {
  readonly buckets: FleetBuckets;
  readonly bus: Bus;
  /** Room documents (BlobStore). */
  readonly blobs: BlobStore;
  /** Wall clock and timers of the fleet's protocol (leases, takeovers, drains, the actors' timers). */
  readonly scheduler: Scheduler;
  /** A clock that never jumps (heartbeat ages, relays after a move). */
  readonly monotonic: () => number;
  /** Wall-clock ms for times only an operator reads (a takeover's `at`). */
  readonly wallClock: () => number;
  /** The actors' randomness. */
  readonly random: Random;
  /** A fresh incarnation id: the first one, and one for each rejoin after being declared dead. */
  readonly newIncarnation: () => string;
  readonly settings: FleetNodeSettings;
  readonly hooks: FleetNodeHooks;
}
