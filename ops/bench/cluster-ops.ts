import type { FoyerClient } from "../../gateway/index.ts";
import type { BenchFleet } from "./bench-fleet.ts";
import { writesInSequence, type KvWrite } from "./kv-write-log.ts";
import { timed } from "./latency.ts";

/** The lobby ops the cluster bench times; `leaveLast` is the host's leave, which closes the lobby. */
export const opKinds = ["create", "join", "ready", "leave", "leaveLast"] as const;
export type OpKind = (typeof opKinds)[number];

/** Latencies (ms) by op kind. */
export type OpLatencies = Record<OpKind, number[]>;

/** The writes one op caused, counted over quiet rounds (medians). */
export interface CountedWrites {
  /** KV writes the op set off, awaited or not. */
  readonly caused: number;
  /** Of those, the ones the answer waited for (see `awaitedOf`). */
  readonly awaited: number;
  /** The longest chain among the awaited ones of writes each started after the previous returned. */
  readonly inSequence: number;
  /** What the count is made of: the awaited writes of a round with the median count, as `bucket.call kind/`. */
  readonly awaitedWrites: readonly string[];
}

/** One round of a pair: the host creates, the guest joins, the host readies, the guest then the host leave. */
function roundOf(host: FoyerClient, guest: FoyerClient): [OpKind, () => Promise<unknown>][] {
  let code = "";
  return [
    ["create", async () => (code = (await host.create()).code)],
    ["join", () => guest.join(code)],
    ["ready", () => host.ready(true)],
    ["leave", () => guest.leave()],
    ["leaveLast", () => host.leave()],
  ];
}

function emptyLatencies(): OpLatencies {
  return { create: [], join: [], ready: [], leave: [], leaveLast: [] };
}

/** Connects the player of a pair: `pair` says which (a fleet spreads pairs over its nodes). */
export type PairConnect = (pair: number, player: string) => Promise<FoyerClient>;

/** Pairs on a fleet's nodes, spread over them, each pair connected to the node that will own its lobby. */
export function onFleetNodes(fleet: BenchFleet): PairConnect {
  return (pair, player) => fleet.connect(pair % fleet.nodes.length, player);
}

/**
 * Pairs loop create / join / ready / leave / leave until `seconds` pass; both players of a pair are
 * connected to the same node (`connect`), the one that owns their lobby.
 */
export async function ownerLoad(
  connect: PairConnect,
  clients: number,
  seconds: number,
): Promise<{ latencies: OpLatencies; elapsedS: number }> {
  const pairs = Math.max(1, Math.floor(clients / 2));
  const players = await Promise.all(
    Array.from(
      { length: pairs },
      async (_, p) => [await connect(p, `host-${p}`), await connect(p, `guest-${p}`)] as const,
    ),
  );
  const latencies = emptyLatencies();
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    players.map(async ([host, guest]) => {
      while (performance.now() < deadline) {
        for (const [kind, op] of roundOf(host, guest)) await timed(op, latencies[kind]);
      }
    }),
  );
  const elapsedS = (performance.now() - started) / 1000;
  for (const [host, guest] of players) {
    host.close();
    guest.close();
  }
  return { latencies, elapsedS };
}

/**
 * Joins through a node that does not own the lobby: the guest connects to the next node, joins, is
 * redirected to the owner, reconnects there with its resume token and re-sends the join; timed from the
 * join call until it is answered. Each loop then leaves and connects a fresh guest to the non-owner.
 */
export async function redirectLoad(fleet: BenchFleet, loops: number, seconds: number): Promise<number[]> {
  const latencies: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  await Promise.all(
    Array.from({ length: loops }, async (_, l) => {
      const owner = l % fleet.nodes.length;
      const host = await fleet.connect(owner, `redirect-host-${l}`);
      while (performance.now() < deadline) {
        const { code } = await host.create();
        const guest = await fleet.connect((owner + 1) % fleet.nodes.length, `redirect-guest-${l}`);
        await timed(() => guest.join(code), latencies);
        await guest.leave();
        guest.close();
        await host.leave();
      }
      host.close();
    }),
  );
  return latencies;
}

/**
 * Counts the KV writes of each op kind: one pair on node 0 plays `rounds` rounds, each op alone with
 * the writes it set off allowed to finish before the next; medians over the rounds (the first round
 * also makes the players' registry entries).
 */
export async function countWrites(fleet: BenchFleet, rounds: number): Promise<Record<OpKind, CountedWrites>> {
  const host = await fleet.connect(0, "count-host");
  const guest = await fleet.connect(0, "count-guest");
  const samples: Record<OpKind, CountedWrites[]> = {
    create: [],
    join: [],
    ready: [],
    leave: [],
    leaveLast: [],
  };
  const log = fleet.writes;
  log.counting = true;
  for (let round = 0; round < rounds; round++) {
    for (const [kind, op] of roundOf(host, guest)) {
      await log.settled();
      const from = log.writes.length;
      const started = performance.now();
      await op();
      const answered = performance.now();
      await log.settled();
      const caused = log.writes.slice(from).filter((w) => w.startedMs >= started);
      const awaited = awaitedOf(caused, answered);
      samples[kind].push({
        caused: caused.length,
        awaited: awaited.length,
        inSequence: writesInSequence(awaited),
        awaitedWrites: awaited.map((w) => `${w.bucket}.${w.call} ${w.key.split("/")[0] ?? ""}/`),
      });
    }
  }
  log.counting = false;
  host.close();
  guest.close();
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
  const counted = (kind: OpKind): CountedWrites => {
    const awaited = median(samples[kind].map((s) => s.awaited));
    return {
      caused: median(samples[kind].map((s) => s.caused)),
      awaited,
      inSequence: median(samples[kind].map((s) => s.inSequence)),
      awaitedWrites: samples[kind].find((s) => s.awaited === awaited)?.awaitedWrites ?? [],
    };
  };
  return {
    create: counted("create"),
    join: counted("join"),
    ready: counted("ready"),
    leave: counted("leave"),
    leaveLast: counted("leaveLast"),
  };
}

/**
 * The writes an op's answer waited for: those that returned before it, less the ones that started after
 * the lobby's last write returned — the lobby answers as soon as its own write is done, and what it
 * tells the player registry then (`joined`, `left`) is written while the answer travels, unawaited.
 */
function awaitedOf(caused: readonly KvWrite[], answeredMs: number): KvWrite[] {
  const lobbyDone = Math.max(...caused.filter((w) => w.key.startsWith("lobby/")).map((w) => w.endedMs));
  return caused.filter((w) => w.endedMs <= answeredMs && w.startedMs < lobbyDone);
}
