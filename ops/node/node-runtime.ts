import type { ActorSystem, BlobStore } from "../../actors/runtime/index.ts";
import type { Bus, FleetNode } from "../../fleet/index.ts";
import type { NodeListings } from "./node-listings.ts";

/** A node's runtime, embedded or in a fleet (the fleet node adds redirects, placement and drain). */
export interface NodeRuntime {
  readonly system: ActorSystem;
  readonly blobs: BlobStore;
  /** Where the studio's events are published (RunningNode.eventBus). */
  readonly bus: Bus;
  readonly fleet?: FleetNode;
  /** The public lobbies of the whole fleet, for queries (docs/lobbies-query.md). */
  readonly listings: NodeListings;
  close(): Promise<void>;
}
