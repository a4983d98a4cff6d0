import type { NewLobbyPlace, RoomHost } from "../actors/runtime/index.ts";
import type { FleetNodeHooks, FleetNodeSettings } from "./fleet-node-ports.ts";
import { liveTargets, type PeerLoad, peerLoads, placeNewLobby, roomHostAmong } from "./placement.ts";
import type { DrainTarget, NodeIdentity, PeerView } from "./protocol/index.ts";

/** What a node's placement reads: its settings and capacity, its peers, the claims it counts. */
export interface NodePlacementParts {
  readonly settings: Pick<FleetNodeSettings, "maxRooms" | "maxLobbies">;
  /** This process, as it signs its claims: its own lobbies are counted from them too. */
  readonly self: NodeIdentity;
  readonly capacity: FleetNodeHooks["capacity"];
  /** The peers as membership sees them (their last heartbeats). */
  readonly peers: () => PeerView[];
  /**
   * The claims an incarnation holds by key kind: this node's own, a peer's as its heartbeat (or a
   * whole-bucket watch) counts them; undefined when not known.
   */
  readonly claimsOf: (owner: NodeIdentity) => ReadonlyMap<string, number> | undefined;
  /** True when a peer refused a placed spawn a moment ago (the router remembers it). */
  readonly refusedRecently: (node: string) => boolean;
  readonly draining: () => boolean;
  /** This node's live actors: its load, as its heartbeat reports it. */
  readonly liveCount: () => number;
}

/**
 * A fleet node's placement decisions over what it knows now (the pure rules are in placement.ts): where
 * a new lobby goes, which node opens a queue match's room, which peers a drain may move keys to.
 */
export class NodePlacement {
  constructor(private readonly parts: NodePlacementParts) {}

  /** This node can open a room now: below its room limit and not draining. */
  canOpenRoom(): boolean {
    return this.parts.capacity.canOpenRoom() && !this.parts.draining();
  }

  /** Live peers that are not draining, with the load their heartbeats report. */
  targets(): DrainTarget[] {
    return liveTargets(this.parts.peers());
  }

  /** Live, non-draining peers with their heartbeats' load and their claims as counted here. */
  peerLoads(): PeerLoad[] {
    return peerLoads(this.parts.peers(), (peer) => this.parts.claimsOf(peer));
  }

  /**
   * Where a new lobby goes: here, or the least-loaded peer by its lobby claims while this node drains or
   * holds its `maxLobbies`, or nowhere when every node does (placeNewLobby).
   */
  placeNew(): NewLobbyPlace {
    const { parts } = this;
    const lobbies = parts.claimsOf(parts.self)?.get("lobby") ?? 0;
    return placeNewLobby(
      { draining: parts.draining(), lobbies },
      this.peerLoads(),
      parts.settings.maxLobbies,
    );
  }

  /**
   * The least-loaded node that can open a room now: this one while it can, or a live peer whose rooms,
   * counted by their claims, are below the room limit (this node's, taken as every node's).
   */
  roomHost(): RoomHost | undefined {
    const { parts } = this;
    const self = parts.capacity.roomHost?.();
    const here = self !== undefined && this.canOpenRoom() ? { ...self, load: parts.liveCount() } : undefined;
    const maxRooms = parts.settings.maxRooms ?? Number.POSITIVE_INFINITY;
    return roomHostAmong(here, this.peerLoads(), maxRooms, parts.refusedRecently);
  }
}
