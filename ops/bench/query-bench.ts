import { performance } from "node:perf_hooks";
import { summarize, type LatencySummary } from "./latency.ts";
import {
  firstQueryMs,
  indexCost,
  refusedQueryFloor,
  type IndexCost,
  type QueryShape,
} from "./query-costs.ts";
import { BenchSession, inParallel, seedLobbies, startQueryFleet, type QueryFleet } from "./query-fleet.ts";
import { runStorm, type StormFigures } from "./query-storm.ts";

/**
 * `foyer bench --scenario query`: a 3-node fleet in this process over a local nats-server, `lobbies`
 * public lobbies with spread data made through the nodes' server API (no HTTP, no sockets); then
 * - per query shape (1, 3 and 5 filters with an order): its first query on each node, its cost on the
 *   index alone, and its latency at `inFlight` queries at once through the nodes' request handlers (the
 *   gateway's path without a socket), spread over the nodes;
 * - the floor of that latency: a query refused at once (a bad operator), at the same concurrency;
 * - how long a change on one node takes to show in another node's index;
 * - a quick-join storm of `stormPlayers` players into 4-seat lobbies.
 */

export interface QueryBenchOptions {
  readonly lobbies: number;
  readonly inFlight: number;
  readonly queries: number;
  readonly changes: number;
  readonly stormPlayers: number;
  readonly json: boolean;
}

const shapes: Readonly<Record<string, QueryShape>> = {
  "1 filter": {
    filters: [{ field: "mode", op: "eq", value: "ctf" }],
    order: { field: "data.level", dir: "desc" },
  },
  "3 filters": {
    filters: [
      { field: "mode", op: "eq", value: "duo" },
      { field: "data.region", op: "eq", value: "eu" },
      { field: "data.level", op: "ge", value: 20 },
    ],
    order: { field: "data.level", dir: "desc" },
  },
  "5 filters": {
    filters: [
      { field: "mode", op: "in", value: ["duo", "ffa"] },
      { field: "data.region", op: "in", value: ["eu", "us"] },
      { field: "data.level", op: "ge", value: 10 },
      { field: "data.tier", op: "ne", value: "bronze" },
      { field: "freeSeats", op: "gt", value: 0 },
    ],
    order: { field: "createdAt", dir: "desc" },
  },
};

/** `count` queries of one shape, `inFlight` at once, each timed from its issue to its answer. */
async function queryLatency(
  fleet: QueryFleet,
  shape: string,
  count: number,
  inFlight: number,
): Promise<LatencySummary> {
  const { filters, order } = shapes[shape] ?? { filters: [], order: { field: "code", dir: "asc" } };
  const latencies: number[] = [];
  let refused = 0;
  await inParallel(count, inFlight, async (i) => {
    const node = fleet.nodes[i % fleet.nodes.length];
    if (!node) return;
    const session = new BenchSession(`query-${i}`, `reader-${i % inFlight}`, "Reader");
    const t0 = performance.now();
    const result = await node.requests.handle(session, {
      type: "queryLobbies",
      id: 1,
      filters,
      order,
      limit: 20,
    });
    latencies.push(performance.now() - t0);
    if (!result.ok) refused++;
  });
  if (refused > 0) throw new Error(`${refused} ${shape} queries were refused`);
  return summarize(latencies);
}

/** A member joins a lobby on its node: how long until another node's index shows it (5 s: missed). */
async function changeDelay(
  fleet: QueryFleet,
  codes: readonly string[],
  changes: number,
): Promise<LatencySummary & { missed: number; refusals: Record<string, number> }> {
  const [owner, other] = fleet.nodes;
  if (!owner || !other) throw new Error("the change delay needs two nodes");
  const delays: number[] = [];
  let missed = 0;
  const refusals = new Map<string, number>();
  // The joins are asked of the lobbies' own node: only the lobbies `owner` holds.
  const owned = codes.filter((code) => owner.system.peek(`lobby/${code}`) !== undefined);
  await inParallel(Math.min(changes, owned.length), 20, async (i) => {
    const code = owned[i] ?? "";
    const t0 = performance.now();
    let stop: () => unknown = () => undefined;
    const seen = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        resolve(false);
      }, 5_000);
      stop = other.listings.index.onChange((changed, line) => {
        if (changed === code && line !== null && line.members >= 2) {
          clearTimeout(timer);
          resolve(true);
        }
      });
    });
    const joined = await owner.system.ask(`lobby/${code}`, {
      type: "join",
      player: { id: `changer-${i}`, name: "Changer" },
    });
    if (!joined.ok) refusals.set(joined.code, (refusals.get(joined.code) ?? 0) + 1);
    const shown = joined.ok && (await seen);
    stop();
    if (shown) delays.push(performance.now() - t0);
    else missed++;
  });
  return { ...summarize(delays), missed, refusals: Object.fromEntries(refusals) };
}

interface QueryBenchResult {
  readonly lobbies: number;
  readonly seedSeconds: number;
  readonly inFlight: number;
  readonly firstQueryMs: Record<string, number>;
  readonly indexAlone: Record<string, IndexCost>;
  readonly queries: Record<string, LatencySummary>;
  readonly refusedQueryFloor: LatencySummary;
  readonly changeVisibleOnOtherNode: LatencySummary;
  readonly storm: StormFigures;
}

function print(line: string, json: boolean): void {
  if (!json) process.stdout.write(`${line}\n`);
}

/** Runs the query bench and prints its figures (as one JSON line with `json`). */
export async function runQueryBench(options: QueryBenchOptions): Promise<QueryBenchResult> {
  const fleet = await startQueryFleet(3);
  try {
    print(
      `3 nodes, 1 nats-server; making ${options.lobbies} public lobbies through the server API (POST /api/v1/lobbies, in process)…`,
      options.json,
    );
    const t0 = performance.now();
    const codes = await seedLobbies(fleet, options.lobbies);
    const seedSeconds = Number(((performance.now() - t0) / 1000).toFixed(1));
    print(`  ${codes.length} lobbies in every node's index after ${seedSeconds} s`, options.json);
    const queries: Record<string, LatencySummary> = {};
    const first: Record<string, number> = {};
    const alone: Record<string, IndexCost> = {};
    for (const [shape, query] of Object.entries(shapes)) {
      first[shape] = firstQueryMs(fleet, query);
      const cost = indexCost(fleet, query, options.queries);
      alone[shape] = cost;
      print(
        `  query, ${shape} + order: first on each node ≤ ${first[shape]} ms; index alone p50 ${cost.p50Ms} ms, ` +
          `p99 ${cost.p99Ms} ms, ${cost.visited} lines looked at`,
        options.json,
      );
      queries[shape] = await queryLatency(fleet, shape, options.queries, options.inFlight);
      const q = queries[shape];
      print(
        `  query, ${shape} + order, ${options.inFlight} in flight: p50 ${q.p50Ms} ms, p99 ${q.p99Ms} ms`,
        options.json,
      );
    }
    const floor = await refusedQueryFloor(fleet, options.queries, options.inFlight);
    print(
      `  floor, a query refused at once (bad operator), ${options.inFlight} in flight: p50 ${floor.p50Ms} ms, p99 ${floor.p99Ms} ms`,
      options.json,
    );
    const change = await changeDelay(fleet, codes, options.changes);
    print(
      `  a join on one node shows on another: p50 ${change.p50Ms} ms, p99 ${change.p99Ms} ms` +
        (change.missed > 0 ? `; not seen ${change.missed}: ${JSON.stringify(change.refusals)}` : ""),
      options.json,
    );
    const storm = await runStorm(fleet, options.stormPlayers, Math.ceil(options.stormPlayers / 16));
    print(
      `  quick-join storm, ${storm.players} players into 4-seat lobbies: seated ${storm.seated} in ${storm.seconds} s ` +
        `(${storm.seatedPerSecond}/s), lobbies overfilled ${storm.lobbiesOverfilled}, players in two lobbies ${storm.playersInTwoLobbies}` +
        (storm.failed > 0 ? `; not seated ${storm.failed}: ${JSON.stringify(storm.refusals)}` : ""),
      options.json,
    );
    const result = {
      lobbies: codes.length,
      seedSeconds,
      inFlight: options.inFlight,
      firstQueryMs: first,
      indexAlone: alone,
      queries,
      refusedQueryFloor: floor,
      changeVisibleOnOtherNode: change,
      storm,
    };
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await fleet.stop();
  }
}
