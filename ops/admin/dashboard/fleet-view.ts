import { z } from "zod";
import type { PeerView } from "../../../fleet/index.ts";

/** One peer as this node's membership sees it: its state and what its last heartbeat said. */
export const peerRowSchema = z.object({
  node: z.string(),
  state: z.enum(["live", "suspected", "dead", "unknown"]),
  /** Its public WebSocket URL, its admin API's URL (null before it listens or once tombstoned). */
  url: z.string().nullable(),
  admin: z.string().nullable(),
  load: z.number().int().nonnegative(),
  draining: z.boolean(),
  version: z.string().nullable(),
});

/** A lobby this node owns: its claim's epoch and, while it is in memory, its members and host. */
export const lobbyRowSchema = z.object({
  key: z.string(),
  epoch: z.number().int().nonnegative(),
  /** False when the lobby is passivated here (its snapshot holds the members). */
  live: z.boolean(),
  host: z.string().nullable(),
  members: z.array(
    z.object({ player: z.string(), name: z.string(), ready: z.boolean(), connected: z.boolean() }),
  ),
  /** The room it plays, by code, or null. */
  room: z.string().nullable(),
});

/** A takeover of a dead peer's key. */
export const failoverRowSchema = z.object({
  key: z.string(),
  from: z.string().nullable(),
  epoch: z.number().int().nonnegative(),
  at: z.number(),
});

/**
 * What `GET /fleet` answers: this node's view of the fleet (its membership's peers), the lobbies it owns
 * and the takeovers it made. Not strict, so a dashboard of one release reads a peer of the next one.
 */
export const fleetViewSchema = z.object({
  node: z.string(),
  /** Live actors on this node now (its membership lists its peers, not itself). */
  load: z.number().int().nonnegative(),
  peers: z.array(peerRowSchema),
  /** How many lobbies it owns; `lobbies` lists the first `lobbiesListed` of them. */
  lobbyCount: z.number().int().nonnegative(),
  lobbies: z.array(lobbyRowSchema),
  failovers: z.object({ count: z.number().int().nonnegative(), recent: z.array(failoverRowSchema) }),
});

export type PeerRow = z.infer<typeof peerRowSchema>;
export type LobbyRow = z.infer<typeof lobbyRowSchema>;
export type FailoverRow = z.infer<typeof failoverRowSchema>;
export type FleetView = z.infer<typeof fleetViewSchema>;

/** What the fleet view reads from a node in a fleet (its FleetRuntime and ActorSystem give each). */
export interface FleetSource {
  readonly node: string;
  /** Live actors here now. */
  load(): number;
  peerViews(): readonly PeerView[];
  ownedKeys(): readonly { key: string; epoch: number }[];
  /** The in-memory state of a live actor, undefined when passivated. */
  peek(key: string): unknown;
  failovers(): { count: number; recent: readonly FailoverRow[] };
}

/** How many lobbies `/fleet` details, so a node with 100,000 lobbies answers in kilobytes. */
export const lobbiesListed = 200;

/** The kinds whose keys are lobbies a player sits in (`lobby/AB12CD`). */
const lobbyPrefixes = ["lobby/", "activityLobby/", "mmlobby/"];

/** The lobby state fields the view shows; every lobby kind has at least these. */
const peekedLobbySchema = z.object({
  host: z.string().nullable().optional(),
  members: z
    .array(z.object({ player: z.string(), name: z.string(), ready: z.boolean(), connected: z.boolean() }))
    .optional(),
  room: z.object({ code: z.string() }).nullable().optional(),
});

/** This node's view of the fleet, as `GET /fleet` answers it. */
export function fleetViewOf(source: FleetSource): FleetView {
  const peers = source.peerViews().map((peer): PeerRow => {
    const beat = peer.heartbeat;
    return {
      node: peer.node,
      state: peer.state,
      url: beat?.url ?? null,
      admin: beat?.admin ?? null,
      load: beat?.load ?? 0,
      draining: beat?.draining ?? false,
      version: beat?.version ?? null,
    };
  });
  const owned = source
    .ownedKeys()
    .filter(({ key }) => lobbyPrefixes.some((prefix) => key.startsWith(prefix)));
  const lobbies = owned
    .slice(0, lobbiesListed)
    .map(({ key, epoch }): LobbyRow => lobbyRowOf(key, epoch, source.peek(key)));
  const failovers = source.failovers();
  return {
    node: source.node,
    load: source.load(),
    peers,
    lobbyCount: owned.length,
    lobbies,
    failovers: { count: failovers.count, recent: [...failovers.recent] },
  };
}

function lobbyRowOf(key: string, epoch: number, state: unknown): LobbyRow {
  const parsed = state === undefined ? undefined : peekedLobbySchema.safeParse(state);
  const lobby = parsed?.success ? parsed.data : undefined;
  return {
    key,
    epoch,
    live: lobby !== undefined,
    host: lobby?.host ?? null,
    members: (lobby?.members ?? []).map(({ player, name, ready, connected }) => ({
      player,
      name,
      ready,
      connected,
    })),
    room: lobby?.room?.code ?? null,
  };
}
