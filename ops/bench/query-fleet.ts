import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { cryptoRandom } from "../../fleet/index.ts";
import { Session } from "../../gateway/index.ts";
import { ServerApi } from "../admin/index.ts";
import { loadConfig } from "../config.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { lobbyOptionsOf } from "../node/node-kinds.ts";
import { startNode, type RunningNode } from "../node/start-node.ts";
import { benchTokenKeys, unlimitedClients } from "./bench-key.ts";

/**
 * The query bench's fleet: nodes in this process over a local nats-server, indexing the spread data the
 * bench's lobbies carry, and lobbies made through each node's server API (`POST /api/v1/lobbies`, called
 * in the process: no HTTP, no sockets), as a studio's backend makes them.
 */

/** The data keys the bench's nodes index. */
export const benchIndex = "region:string,level:number,tier:string";

export const regions = ["eu", "us", "asia", "sa", "oce", "me", "af", "ru"] as const;
export const tiers = ["bronze", "silver", "gold", "platinum"] as const;
export const modes = ["duo", "ffa", "ctf", "squad"] as const;

/** The spread public data of bench lobby `i`. */
export function benchData(i: number): Record<string, string | number> {
  return {
    mode: modes[i % modes.length] ?? "duo",
    region: regions[Math.floor(i / 4) % regions.length] ?? "eu",
    level: 1 + ((i * 7919) % 50),
    tier: tiers[Math.floor(i / 32) % tiers.length] ?? "gold",
  };
}

/** A session the bench drives a node's request handlers with; it keeps the redirect it was sent. */
export class BenchSession extends Session {
  redirectedTo: string | null = null;

  override send(frame: object): void {
    const f = frame as { type?: unknown; url?: unknown };
    if (f.type === "redirect" && typeof f.url === "string") this.redirectedTo = f.url;
  }
}

export interface QueryFleet {
  readonly nats: NatsLauncher;
  readonly nodes: readonly RunningNode[];
  /** Each node's server API (docs/server-api.md), over that node's actors. */
  readonly apis: readonly ServerApi[];
  stop(): Promise<void>;
}

/** Starts `count` fleet nodes in this process over one local nats-server. */
export async function startQueryFleet(count: number): Promise<QueryFleet> {
  const nats = await startNats({ servers: 1 });
  const sessionSecret = randomBytes(24).toString("base64url");
  const nodes: RunningNode[] = [];
  const apis: ServerApi[] = [];
  for (let i = 0; i < count; i++) {
    const config = loadConfig(
      {
        nodeId: `q${i + 1}`,
        port: "0",
        adminPort: "0",
        nats: nats.urls.join(","),
        natsReplicas: "1",
        tokenKeys: benchTokenKeys,
        sessionSecret,
        ...unlimitedClients,
        maxMembers: "4",
        lobbyIndex: benchIndex,
        lobbyGraceSeconds: "0",
        // Three nodes in one process on a shared machine: a long event-loop stall while seeding must not
        // have a node declared dead (its lobbies would answer UNAVAILABLE for the rest of the run).
        failureTimeoutMs: "60000",
        logLevel: "silent",
      },
      {},
    );
    nodes.push(await startNode(config, pino({ level: "silent" })));
    const system = nodes[i]?.system;
    if (system === undefined) throw new Error("the node did not start");
    apis.push(
      new ServerApi({
        system,
        lobby: lobbyOptionsOf(config),
        random: cryptoRandom(),
        node: { draining: () => false },
      }),
    );
  }
  return {
    nats,
    nodes,
    apis,
    async stop() {
      for (const node of nodes) await node.stop();
      await nats.stop();
    },
  };
}

/** Runs `work(i)` for i in [0, count) with at most `width` at once. */
export async function inParallel(
  count: number,
  width: number,
  work: (i: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < count) await work(next++);
  };
  await Promise.all(Array.from({ length: Math.min(width, count) }, worker));
}

/** How many server API creates the bench has in flight at once while it makes its lobbies. */
const seedWidth = 384;

/**
 * Makes `count` public lobbies with spread data through the server API (`POST /api/v1/lobbies`, a host
 * of its own each), on the nodes in turn; resolves once every node's index lists them all. A refusal
 * other than a retryable one (503) ends the bench.
 */
export async function seedLobbies(
  fleet: QueryFleet,
  count: number,
  prefix = "Q",
  data: (i: number) => Record<string, string | number> = benchData,
): Promise<string[]> {
  const before = Math.min(...fleet.nodes.map((n) => n.listings.index.size));
  const codes: string[] = [];
  await inParallel(count, seedWidth, async (i) => {
    const api = fleet.apis[i % fleet.apis.length];
    if (!api) return;
    // The host never connects: its seat is kept for the reserve (the longest there is, past the run).
    const host = { id: `host-${prefix}${i}`, name: "Host" };
    const body = { host, public: true, metadata: data(i), reserveSeconds: 3600 };
    for (let attempt = 0; ; attempt++) {
      const answer = await api.call("POST", "/api/v1/lobbies", () => Promise.resolve(body));
      const lobby = (answer.body as { lobby?: { code?: unknown } } | null)?.lobby;
      if (answer.status === 201 && typeof lobby?.code === "string") {
        codes.push(lobby.code);
        return;
      }
      if (answer.status !== 503 || attempt >= 5) {
        throw new Error(`POST /api/v1/lobbies answered ${answer.status}: ${JSON.stringify(answer.body)}`);
      }
      await new Promise((resolve) => setTimeout(resolve, (answer.retryAfterSeconds ?? 1) * 1000));
    }
  });
  await untilIndexed(fleet, (size) => size >= before + codes.length, 300_000);
  return codes;
}

/** Waits until every node's index size passes `ready`, or `maxMs`. */
export async function untilIndexed(
  fleet: QueryFleet,
  ready: (size: number) => boolean,
  maxMs: number,
): Promise<void> {
  const deadline = Date.now() + maxMs;
  while (!fleet.nodes.every((n) => ready(n.listings.index.size)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
