import { performance } from "node:perf_hooks";
import type { LobbyState } from "../../actors/lobby/index.ts";
import { isRetryable, type AskResult } from "../../actors/runtime/index.ts";
import type { RunningNode } from "../node/start-node.ts";
import { BenchSession, inParallel, seedLobbies, type QueryFleet } from "./query-fleet.ts";

/**
 * The quick-join storm: `players` players at once quick-join 4-seat lobbies with one data key, through
 * the gateways' request handlers of all nodes (no sockets), following redirects as the SDK does. Then
 * every lobby's live state is read: members past 4 (overfilled) and players in two lobbies must be 0.
 */

export interface StormFigures {
  readonly players: number;
  readonly seated: number;
  readonly failed: number;
  /** The refusals of the players not seated, by code. */
  readonly refusals: Record<string, number>;
  readonly lobbiesOverfilled: number;
  readonly playersInTwoLobbies: number;
  readonly seconds: number;
  readonly seatedPerSecond: number;
}

const stormFilters = [{ field: "data.region", op: "eq", value: "storm" }];

/** How long one player's quick join may take, retries included: the SDK's call timeout. */
const callTimeoutMs = 10_000;

/**
 * One player's quick join, as the SDK sends it: re-sent on the node a redirect names (MOVED), re-sent
 * after `retryAfterMs` on other retryable refusals, until it is answered or the call times out.
 */
async function quickJoin(fleet: QueryFleet, player: number): Promise<AskResult> {
  let node: RunningNode | undefined = fleet.nodes[player % fleet.nodes.length];
  const byUrl = new Map(fleet.nodes.map((n) => [n.url, n]));
  const deadline = performance.now() + callTimeoutMs;
  let result: AskResult = { ok: false, code: "UNAVAILABLE", message: "not sent" };
  for (let attempt = 0; node !== undefined && performance.now() < deadline; attempt++) {
    const session = new BenchSession(`storm-${player}-${attempt}`, `storm-${player}`, "Storm");
    result = await node.requests.handle(session, {
      type: "quickJoin",
      id: 1,
      filters: stormFilters,
      orCreate: { data: { region: "storm" } },
    });
    if (result.ok || !isRetryable(result.code)) return result;
    const waitMs = result.retryAfterMs ?? 100;
    if (result.code === "MOVED" && session.redirectedTo !== null) node = byUrl.get(session.redirectedTo);
    else await new Promise((resolve) => setTimeout(resolve, waitMs));
  }
  return result;
}

/** Members of every live storm lobby on every node, by code. */
function stormMembers(fleet: QueryFleet): Map<string, string[]> {
  const members = new Map<string, string[]>();
  for (const node of fleet.nodes) {
    for (const line of node.listings.index.all()) {
      if (line.data.region !== "storm") continue;
      const state = node.system.peek(`lobby/${line.code}`) as LobbyState | undefined;
      if (state !== undefined)
        members.set(
          line.code,
          state.members.map((m) => m.player),
        );
    }
  }
  return members;
}

/** Runs the storm against `seedLobbies` storm lobbies (a host each) and returns its figures. */
export async function runStorm(fleet: QueryFleet, players: number, lobbies: number): Promise<StormFigures> {
  await seedStormLobbies(fleet, lobbies);
  const t0 = performance.now();
  let seated = 0;
  const refusals = new Map<string, number>();
  await inParallel(players, players, async (i) => {
    const result = await quickJoin(fleet, i);
    if (result.ok) seated++;
    else refusals.set(result.code, (refusals.get(result.code) ?? 0) + 1);
  });
  const seconds = (performance.now() - t0) / 1000;
  await Promise.all(fleet.nodes.map((n) => n.listings.writer.settled()));
  const members = stormMembers(fleet);
  const seen = new Map<string, number>();
  for (const list of members.values()) for (const id of list) seen.set(id, (seen.get(id) ?? 0) + 1);
  return {
    players,
    seated,
    failed: players - seated,
    refusals: Object.fromEntries(refusals),
    lobbiesOverfilled: [...members.values()].filter((m) => m.length > 4).length,
    playersInTwoLobbies: [...seen.values()].filter((n) => n > 1).length,
    seconds: Number(seconds.toFixed(2)),
    seatedPerSecond: Math.round(seated / seconds),
  };
}

async function seedStormLobbies(fleet: QueryFleet, lobbies: number): Promise<void> {
  await seedLobbies(fleet, lobbies, "S", () => ({ region: "storm" }));
}
