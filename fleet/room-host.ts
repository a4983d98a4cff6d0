import type { RoomHost } from "../actors/runtime/index.ts";

/** A node that could take a new room, with its load (live actors). */
export interface HostCandidate {
  readonly node: string;
  readonly url: string;
  readonly load: number;
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
