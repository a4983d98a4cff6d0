import type { NewLobbyPlace, RoomHost } from "../actors/runtime/index.ts";
import { type DrainTarget, type NodeIdentity, type NodeLimits, type PeerView } from "./protocol/index.ts";

/**
 * Every placement decision of a fleet node, as pure functions of what it sees: its own state and its
 * peers' last heartbeats. The node feeds them; tests call them directly.
 */

/** A node that could take a new room, with its load (live actors). */
export interface HostCandidate {
  readonly node: string;
  readonly url: string;
  readonly load: number;
}

/** A region of the fleet and a node of it that clients may measure their round trip to. */
export interface RegionUrl {
  readonly region: string;
  readonly url: string;
}

/**
 * The peers a key may move to, or a new lobby or room may go to: live, not draining, with a public URL,
 * each with the load its last heartbeat reported.
 */
export function liveTargets(peers: readonly PeerView[]): DrainTarget[] {
  return peers.flatMap((peer) => {
    const beat = peer.heartbeat;
    if (peer.state !== "live" || beat === null || beat.draining || beat.url === "") return [];
    return [{ node: peer.node, url: beat.url, load: beat.load }];
  });
}

/**
 * A live, non-draining peer as placement weighs it: its heartbeat's load and the keys its claims hold,
 * counted by kind (`lobby`, `room`, …) from this node's view of the claims bucket, or undefined when
 * this node has not counted them; and its own limits, as its heartbeat says (undefined from a node of an
 * older release, whose heartbeat has none).
 */
export interface PeerLoad extends DrainTarget {
  readonly claims: ReadonlyMap<string, number> | undefined;
  readonly limits?: NodeLimits | undefined;
}

/** The live targets (`liveTargets`) with the claims each holds, as `claimsOf` counts them. */
export function peerLoads(
  peers: readonly PeerView[],
  claimsOf: (peer: NodeIdentity) => ReadonlyMap<string, number> | undefined,
): PeerLoad[] {
  const live = new Map(liveTargets(peers).map((t) => [t.node, t]));
  return peers.flatMap((peer) => {
    const target = live.get(peer.node);
    if (target === undefined) return [];
    const claims = claimsOf({ node: peer.node, incarnation: peer.incarnation });
    return [{ ...target, claims, limits: peer.heartbeat?.limits }];
  });
}

/** The claims of `kind` a peer holds, when counted. */
export function heldBy(peer: PeerLoad, kind: string): number | undefined {
  return peer.claims === undefined ? undefined : (peer.claims.get(kind) ?? 0);
}

/**
 * A peer's limit of `kind` (`lobby`: `--max-lobbies`, `room`: `--max-rooms`) as its heartbeat says (null
 * there: none); `fallback` (this node's own) for a peer of an older release whose heartbeat has none, or
 * for another kind.
 */
export function limitOf(peer: PeerLoad, kind: string, fallback: number): number {
  const limits = peer.limits;
  if (limits === undefined) return fallback;
  const limit = kind === "lobby" ? limits.maxLobbies : kind === "room" ? limits.maxRooms : undefined;
  if (limit === undefined) return fallback;
  return limit ?? Number.POSITIVE_INFINITY;
}

/**
 * The peers whose claims of `kind` are counted and below their own limit (`fallback`, this node's, when
 * the heartbeat names none): never one whose count is unknown.
 */
export function withRoomFor(peers: readonly PeerLoad[], kind: string, fallback: number): PeerLoad[] {
  return peers.filter((peer) => {
    const held = heldBy(peer, kind);
    return held !== undefined && held < limitOf(peer, kind, fallback);
  });
}

/** This node as a new lobby's placement weighs it: draining or not, and the lobbies its claims hold. */
export interface LobbyHere {
  readonly draining: boolean;
  readonly lobbies: number;
}

/**
 * Where a new lobby goes (`maxLobbies`: this node's lobby limit, undefined for none; each peer is weighed
 * against its own, from its heartbeat). Here while this node neither drains nor holds `maxLobbies`
 * lobbies. Otherwise on the peer with the fewest lobbies, counted from its claims, among those below
 * their limit (a peer whose claims are not counted is never taken), the lower heartbeat load and then the lower node id on a tie:
 * redirected with reason `drain` or `full`. With no such peer, a draining node below its limit still
 * takes it here; a full one refuses it.
 */
export function placeNewLobby(
  here: LobbyHere,
  peers: readonly PeerLoad[],
  maxLobbies: number | undefined,
): NewLobbyPlace {
  const limit = maxLobbies ?? Number.POSITIVE_INFINITY;
  const full = here.lobbies >= limit;
  if (!here.draining && !full) return { kind: "here" };
  const least = withRoomFor(peers, "lobby", limit)
    .map((peer) => ({ peer, lobbies: heldBy(peer, "lobby") ?? 0 }))
    .sort(
      (a, b) =>
        a.lobbies - b.lobbies ||
        a.peer.load - b.peer.load ||
        (a.peer.node < b.peer.node ? -1 : a.peer.node > b.peer.node ? 1 : 0),
    )[0];
  if (least !== undefined)
    return { kind: "elsewhere", url: least.peer.url, reason: here.draining ? "drain" : "full" };
  if (!full) return { kind: "here" };
  return {
    kind: "full",
    message: `every live node holds its most lobbies (--max-lobbies, ${String(maxLobbies)} here); try again later`,
  };
}

/**
 * Where a queue match's room goes (SPEC §4, "the least-loaded node"): the candidate with the lowest load,
 * leaving out nodes that refused a placed room a moment ago; ties go to the lower node id, so every node
 * of a fleet with the same view picks the same one. Undefined when no candidate is left.
 */
export function chooseRoomHost(
  candidates: readonly HostCandidate[],
  refusedRecently: (node: string) => boolean = () => false,
): RoomHost | undefined {
  const best = candidates
    .filter((c) => !refusedRecently(c.node))
    .sort((a, b) => a.load - b.load || (a.node < b.node ? -1 : a.node > b.node ? 1 : 0))[0];
  return best === undefined ? undefined : { node: best.node, url: best.url };
}

/**
 * The room host among this node (`here`: itself with its load, when it can open a room now) and its live
 * peers that can take a room: those whose room claims, counted, are below their own `--max-rooms` (from
 * their heartbeats; `maxRooms`, this node's, for a peer whose heartbeat names none; a peer whose rooms
 * are not counted is never taken as able to host). Those that refused a room a moment ago are
 * left out too (chooseRoomHost).
 */
export function roomHostAmong(
  here: HostCandidate | undefined,
  peers: readonly PeerLoad[],
  maxRooms: number,
  refusedRecently: (node: string) => boolean,
): RoomHost | undefined {
  const able = withRoomFor(peers, "room", maxRooms).map(({ node, url, load }) => ({ node, url, load }));
  return chooseRoomHost(here === undefined ? able : [here, ...able], refusedRecently);
}

/**
 * One public URL per region of the live fleet, sorted by region: this node's for its own region (once it
 * has a URL), then the first live, non-draining peer seen of each other region.
 */
export function regionsOf(
  self: { readonly region: string; readonly url: string },
  peers: readonly PeerView[],
): RegionUrl[] {
  const byRegion = new Map<string, string>();
  if (self.region !== "" && self.url !== "") byRegion.set(self.region, self.url);
  for (const peer of peers) {
    const beat = peer.heartbeat;
    if (peer.state !== "live" || beat === null || beat.draining || beat.url === "" || beat.region === "")
      continue;
    if (!byRegion.has(beat.region)) byRegion.set(beat.region, beat.url);
  }
  return [...byRegion].sort(([a], [b]) => (a < b ? -1 : 1)).map(([region, url]) => ({ region, url }));
}
