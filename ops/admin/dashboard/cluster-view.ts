import { z } from "zod";
import { nodeStatusSchema, type NodeStatus } from "../node-status.ts";
import {
  fleetViewSchema,
  type FailoverRow,
  type FleetView,
  type LobbyRow,
  type PeerRow,
} from "./fleet-view.ts";

/** One node on the dashboard: the serving node's membership facts, and what its own admin API said. */
export interface ClusterNode {
  readonly node: string;
  readonly state: PeerRow["state"];
  readonly url: string | null;
  readonly admin: string | null;
  readonly load: number;
  readonly draining: boolean;
  readonly version: string | null;
  /** Its `GET /status`, or null when it could not be read (dead, gone, unreachable). */
  readonly status: NodeStatus | null;
  /** How many lobbies it owns, and the first of them (`lobbiesListed`), or null when not read. */
  readonly lobbyCount: number | null;
  readonly lobbies: readonly LobbyRow[] | null;
  /** Why its admin API could not be read. */
  readonly error: string | null;
}

/** What `GET /cluster` answers: the whole fleet as one node sees it, for the dashboard. */
export interface ClusterView {
  readonly servedBy: string;
  readonly at: number;
  readonly nodes: readonly ClusterNode[];
  /** Takeovers summed over the nodes that answered; the latest first. */
  readonly failovers: { readonly count: number; readonly recent: readonly (FailoverRow & { by: string })[] };
}

/** What the cluster view reads: this node's own views, and a way to call a peer's admin API. */
export interface ClusterSources {
  readonly status: () => NodeStatus;
  /** This node's fleet view; undefined on an embedded node. */
  readonly fleet?: () => FleetView;
  /** GETs a path of a peer's admin API (with this node's admin token) and answers its JSON. */
  readonly fetchPeer: (admin: string, path: string) => Promise<unknown>;
  readonly now: () => number;
}

/** How many takeovers the view lists. */
const recentFailovers = 20;

/**
 * The fleet for the dashboard: this node's membership says who is there and in which state; each live
 * peer's admin API is asked for its status and lobbies (a server-side fan-out, so the browser talks to one
 * origin and needs one token). A peer that does not answer shows with its membership facts only.
 */
export async function clusterViewOf(sources: ClusterSources): Promise<ClusterView> {
  const own = sources.status();
  const fleet = sources.fleet?.();
  if (!fleet) {
    const self = selfRow(own, null);
    return { servedBy: own.nodeId, at: sources.now(), nodes: [self], failovers: { count: 0, recent: [] } };
  }
  const peers = fleet.peers.filter((peer) => peer.node !== fleet.node);
  const read = await Promise.all(peers.map((peer) => readPeer(peer, sources)));
  const nodes = [selfRow(own, fleet), ...read].sort((a, b) => a.node.localeCompare(b.node));
  const views = [
    { by: fleet.node, view: fleet.failovers },
    ...read.flatMap((r) => (r.failovers ? [r.failovers] : [])),
  ];
  const recent = views
    .flatMap(({ by, view }) => view.recent.map((row) => ({ ...row, by })))
    .sort((a, b) => b.at - a.at)
    .slice(0, recentFailovers);
  const count = views.reduce((sum, { view }) => sum + view.count, 0);
  return {
    servedBy: fleet.node,
    at: sources.now(),
    nodes: nodes.map(stripFailovers),
    failovers: { count, recent },
  };
}

type ReadNode = ClusterNode & { failovers?: { by: string; view: FleetView["failovers"] } };

function stripFailovers(row: ReadNode): ClusterNode {
  const { failovers: _failovers, ...node } = row;
  return node;
}

function selfRow(status: NodeStatus, fleet: FleetView | null): ReadNode {
  const me = fleet?.peers.find((peer) => peer.node === status.nodeId);
  return {
    node: status.nodeId,
    state: me?.state ?? "live",
    url: status.url,
    admin: me?.admin ?? null,
    load: fleet?.load ?? me?.load ?? 0,
    draining: status.draining,
    version: status.version,
    status,
    lobbyCount: fleet?.lobbyCount ?? null,
    lobbies: fleet?.lobbies ?? [],
    error: null,
  };
}

async function readPeer(peer: PeerRow, sources: ClusterSources): Promise<ReadNode> {
  const row = { ...peer, status: null, lobbyCount: null, lobbies: null, error: null };
  if (peer.state === "dead") return row;
  if (peer.admin === null) return { ...row, error: "no admin URL in its heartbeat" };
  try {
    const [status, fleet] = await Promise.all([
      sources.fetchPeer(peer.admin, "/status").then((body) => nodeStatusSchema.parse(body)),
      sources.fetchPeer(peer.admin, "/fleet").then((body) => fleetViewSchema.parse(body)),
    ]);
    return {
      ...row,
      status,
      lobbyCount: fleet.lobbyCount,
      lobbies: fleet.lobbies,
      failovers: { by: peer.node, view: fleet.failovers },
    };
  } catch (error) {
    return { ...row, error: error instanceof z.ZodError ? "its answer did not parse" : String(error) };
  }
}

/** `fetchPeer` over HTTP: the admin token (when set) as a bearer, and a deadline so one slow peer cannot stall the page. */
export function httpPeerFetch(token: string | undefined, timeoutMs = 1_500): ClusterSources["fetchPeer"] {
  return async (admin, path) => {
    const res = await fetch(new URL(path, admin), {
      headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
      signal: AbortSignal.timeout(timeoutMs),
    });
    if (!res.ok) throw new Error(`${path}: HTTP ${res.status}`);
    return (await res.json()) as unknown;
  };
}
