import { performance } from "node:perf_hooks";
import { checkQuery } from "../../fleet/listings/index.ts";
import type { LobbyFilter } from "../../gateway/protocol/query-frames.ts";
import { summarize, type LatencySummary } from "./latency.ts";
import { BenchSession, inParallel, type QueryFleet } from "./query-fleet.ts";

/**
 * What a query costs apart from the round trip, in the same run as the query bench's latencies: the
 * first query of a shape on each node (which makes its narrowed order), the index alone (one query after
 * another, no concurrency), and a request that costs nothing but the handler's path (a query refused for
 * a bad operator) at the same concurrency as the queries.
 */

/** One query shape of the bench. */
export interface QueryShape {
  readonly filters: LobbyFilter[];
  readonly order: { field: string; dir: "asc" | "desc" };
}

/** The figures of one shape run on the index alone. */
export interface IndexCost extends LatencySummary {
  /** Lines the plan looked at per query (the same for every run of one shape on unchanged lines). */
  readonly visited: number;
}

/** The first query of `shape` on each node, one node after another: the slowest of them (ms). */
export function firstQueryMs(fleet: QueryFleet, shape: QueryShape): number {
  let slowest = 0;
  for (const node of fleet.nodes) {
    const t0 = performance.now();
    node.listings.index.query(checkQuery({ ...shape, limit: 20 }, node.listings.indexed));
    slowest = Math.max(slowest, performance.now() - t0);
  }
  return Number(slowest.toFixed(3));
}

/** `count` queries of `shape` on the first node's index alone, one after another (the check included). */
export function indexCost(fleet: QueryFleet, shape: QueryShape, count: number): IndexCost {
  const node = fleet.nodes[0];
  if (!node) throw new Error("no node");
  const { index, indexed } = node.listings;
  const times: number[] = [];
  let visited = 0;
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    visited = index.query(checkQuery({ ...shape, limit: 20 }, indexed)).visited;
    times.push(performance.now() - t0);
  }
  return { ...summarize(times), visited };
}

/**
 * `count` requests that the query handler refuses at once (an unknown operator), `inFlight` at once
 * through the nodes' request handlers: the round trip's floor, with no index work in it.
 */
export async function refusedQueryFloor(
  fleet: QueryFleet,
  count: number,
  inFlight: number,
): Promise<LatencySummary> {
  const latencies: number[] = [];
  let answered = 0;
  await inParallel(count, inFlight, async (i) => {
    const node = fleet.nodes[i % fleet.nodes.length];
    if (!node) return;
    const session = new BenchSession(`floor-${i}`, `floor-reader-${i % inFlight}`, "Reader");
    const t0 = performance.now();
    const result = await node.requests.handle(session, {
      type: "queryLobbies",
      id: 1,
      filters: [{ field: "mode", op: "like", value: "ctf" }],
      limit: 20,
    });
    latencies.push(performance.now() - t0);
    if (!result.ok && result.code === "INVALID") answered++;
  });
  if (answered !== count) throw new Error(`${count - answered} refused queries were not refused INVALID`);
  return summarize(latencies);
}
