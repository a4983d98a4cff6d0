import type { OwnerLocation, RoomHost } from "../actors/runtime/index.ts";
import { type DrainTarget, type PeerView } from "./protocol/index.ts";

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
 * Where a new lobby goes: here, unless this node drains; then to the least-loaded target (the first of
 * equals, in the order given), or here when there is none.
 */
export function placeNewLobby(draining: boolean, targets: readonly DrainTarget[]): OwnerLocation {
  if (!draining) return { kind: "here" };
  const least = [...targets].sort((a, b) => a.load - b.load)[0];
  return least ? { kind: "elsewhere", url: least.url } : { kind: "here" };
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
 * The room host among this node (`here`: itself with its load, when it can open a room now) and the live
 * targets, leaving out those that refused a room a moment ago (chooseRoomHost).
 */
export function roomHostAmong(
  here: HostCandidate | undefined,
  targets: readonly DrainTarget[],
  refusedRecently: (node: string) => boolean,
): RoomHost | undefined {
  return chooseRoomHost(here === undefined ? targets : [here, ...targets], refusedRecently);
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
