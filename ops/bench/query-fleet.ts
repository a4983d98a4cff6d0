import { randomBytes } from "node:crypto";
import { pino } from "pino";
import { Session } from "../../gateway/index.ts";
import { loadConfig } from "../config.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNode, type RunningNode } from "../node/start-node.ts";
import { benchTokenKeys, unlimitedClients } from "./bench-key.ts";

/**
 * The query bench's fleet: nodes in this process over a local nats-server, indexing the spread data the
 * bench's lobbies carry, and lobbies made by actor messages (no sockets).
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

/** A lobby code of its own for bench lobby `prefix`+`i`. */
export function benchCode(prefix: string, i: number): string {
  return `${prefix}${i.toString(36).toUpperCase().padStart(6, "0")}`;
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
  stop(): Promise<void>;
}

/** Starts `count` fleet nodes in this process over one local nats-server. */
export async function startQueryFleet(count: number): Promise<QueryFleet> {
  const nats = await startNats({ servers: 1 });
  const sessionSecret = randomBytes(24).toString("base64url");
  const nodes: RunningNode[] = [];
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
  }
  return {
    nats,
    nodes,
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

/**
 * Makes `count` public lobbies with spread data, spawned on the nodes in turn by actor messages, each
 * with a host of its own; resolves once every node's index lists them all.
 */
export async function seedLobbies(
  fleet: QueryFleet,
  count: number,
  prefix = "Q",
  data: (i: number) => Record<string, string | number> = benchData,
): Promise<string[]> {
  const before = Math.min(...fleet.nodes.map((n) => n.listings.index.size));
  const codes: string[] = [];
  await inParallel(count, 256, async (i) => {
    const node = fleet.nodes[i % fleet.nodes.length];
    if (!node) return;
    const code = benchCode(prefix, i);
    const init = { code, host: { id: `host-${prefix}${i}`, name: "Host" }, public: true, metadata: data(i) };
    const spawned = await node.system.spawn(`lobby/${code}`, init);
    if (spawned.created && spawned.result.ok) codes.push(code);
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
