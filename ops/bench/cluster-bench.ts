import { startBenchFleet } from "./bench-fleet.ts";
import {
  countWrites,
  onFleetNodes,
  opKinds,
  ownerLoad,
  redirectLoad,
  type CountedWrites,
  type OpKind,
  type OpLatencies,
} from "./cluster-ops.ts";
import { echoFloor } from "./echo-floor.ts";
import { startEmbeddedBenchNode } from "./embedded-bench-node.ts";
import { summarize, type LatencySummary } from "./latency.ts";
import { viewWrites } from "./kv-write-view.ts";
import { echoThenKvFloor, kvUpdateFloor, natsRequestFloor, startNatsEcho } from "./nats-floors.ts";
import type { NatsLauncher } from "../nats/index.ts";
import type { KvStore } from "../../fleet/index.ts";
import { watchRecovery, type WatchRecovery } from "./watch-recovery.ts";

/** Options of `foyer bench --scenario cluster`. */
export interface ClusterBenchOptions {
  readonly clients: number;
  /** How long each timed phase runs: three floors, the owner load and the redirect load. */
  readonly seconds: number;
  readonly json: boolean;
}

/** The figures of one op kind. */
export interface OpFigures {
  readonly latency: LatencySummary;
  /** KV writes the op waits for in sequence, from the design (see `designWrites`). */
  readonly designWrites: number;
  /** What counting the nodes' writes found. */
  readonly counted: CountedWrites;
  /** echo p50 + counted in-sequence writes × KV update p50, ms. */
  readonly floorMs: number;
  /** op p50 / floorMs. */
  readonly ratio: number;
  /** The same op on an embedded node (in-memory store): nothing to wait for, the CPU kept busy. */
  readonly embedded: LatencySummary;
  /** The same op on an embedded node whose every KV write first waits one NATS request round trip. */
  readonly embeddedWaiting: LatencySummary;
  /**
   * The op's own work, p50 ms, beyond the echo and its writes' waits: on the busy embedded node
   * (embedded − echo), and on the waiting one (embeddedWaiting − echo − writes × NATS request), where
   * `writes` are those counted on the fleet (the embedded node runs the same store code, so it makes
   * the same ones; they are not counted there). Each is a difference of medians measured in different
   * phases, so a short noisy run may give any number.
   */
  readonly ownWorkMs: { readonly busy: number; readonly waiting: number };
}

/** The figures the cluster bench prints. */
export interface ClusterBenchResult {
  readonly scenario: "cluster";
  /** Where the Foyer nodes ran: in this process, each with its own NATS connection and gateway. */
  readonly nodesRun: "in-process";
  readonly foyerNodes: number;
  readonly natsServers: number;
  readonly clients: number;
  readonly seconds: number;
  readonly ops: number;
  readonly opsPerSecond: number;
  readonly opsByKind: Record<OpKind, OpFigures>;
  readonly redirectJoin: LatencySummary;
  readonly floors: {
    readonly echo: LatencySummary;
    readonly natsRequest: LatencySummary;
    readonly kvUpdate: LatencySummary;
    /** A raw ws frame in, one KV update, the frame out: echo + one KV update measured as one op. */
    readonly echoThenKv: LatencySummary;
  };
  readonly watchRecovery: WatchRecovery;
  readonly targets: {
    /** The worst ratio among ops that wait for one write; target ≤ 1.3. */
    readonly oneWriteRatio: number;
    readonly oneWriteMet: boolean;
    /** The worst ratio of any op; target ≤ 1.3. */
    readonly worstRatio: number;
    readonly everyOpMet: boolean;
    /**
     * echoThenKv p50 over echo p50 + KV update p50: what a server that does nothing but the write uses
     * of the one-write target by itself (1 when one op costs what the two floors add up to).
     */
    readonly echoThenKvRatio: number;
  };
}

/**
 * KV writes each op waits for one after another, as the code is designed (gateway/lobby-requests.ts,
 * fleet/actor-store.ts): a create records its code in the player's registry (a snapshot update), the
 * registry records the entry as an intent of where the player is (a second update), then the create
 * claims the code (claim create) and writes the lobby's first snapshot (snapshot create); a join is the
 * registry's intent and one fenced snapshot update of the lobby; ready and leave are that update alone; the last leave closes the lobby, removing its
 * snapshot and then its claim.
 */
export const designWrites: Record<OpKind, number> = {
  create: 4,
  join: 2,
  ready: 1,
  leave: 1,
  leaveLast: 2,
};

const targetRatio = 1.3;
const countingRounds = 7;
const fleetSize = 3;

/**
 * `foyer bench --scenario cluster`: a local fleet of three nats-servers (R3 buckets) and three Foyer
 * nodes in this process. Times lobby ops of SDK clients on the owner node and joins redirected from a
 * non-owner; in the same run the floors (ws echo, NATS request/reply, R3 KV update, and a raw ws frame
 * answered after one KV update), the KV writes of each op, the same ops on an embedded node (with
 * nothing to wait for, and with each write waiting one NATS round trip), and how long a KV watch takes
 * to deliver again after its nats-server is killed.
 */
export async function runClusterBench(options: ClusterBenchOptions): Promise<ClusterBenchResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  say(
    `cluster bench: ${fleetSize} nats-servers (R3), ${fleetSize} Foyer nodes in-process, ${options.clients} clients, ${options.seconds} s per phase`,
  );
  const fleet = await startBenchFleet(fleetSize, fleetSize);
  try {
    const counted = await countWrites(fleet, countingRounds);
    const echo = await echoFloor(options.clients, options.seconds);
    say(line("ws echo", echo));
    const natsRequest = await natsRequestFloor(fleet.nats, options.clients, options.seconds);
    say(line("NATS request", natsRequest));
    const kvUpdate = await kvUpdateFloor(fleet.nats, options.clients, options.seconds);
    say(line("KV update (R3)", kvUpdate));
    const echoThenKv = await echoThenKvFloor(fleet.nats, options.clients, options.seconds);
    say(line("ws frame → KV update → frame", echoThenKv));
    const embedded = await embeddedLoad(options.clients, options.seconds);
    const embeddedWaiting = await waitingEmbeddedLoad(fleet.nats, options.clients, options.seconds);
    const load = await ownerLoad(onFleetNodes(fleet), options.clients, options.seconds);
    const ops = opKinds.reduce((n, kind) => n + load.latencies[kind].length, 0);
    const opsPerSecond = Math.round(ops / load.elapsedS);
    say(`  lobby ops on the owner node: ${opsPerSecond} ops/s (${ops} ops)`);
    const opsByKind = figuresByKind({ fleet: load.latencies, embedded, embeddedWaiting }, counted, {
      echo,
      kvUpdate,
      natsRequest,
    });
    for (const kind of opKinds) say(opLine(kind, opsByKind[kind]));
    const redirectLoops = Math.max(1, Math.floor(options.clients / 2));
    const redirectJoin = summarize(await redirectLoad(fleet, redirectLoops, options.seconds));
    say(line("join via redirect", redirectJoin));
    const recovery = await watchRecovery(fleet.nats);
    say(
      `  KV watch after kill -9 of its server (${recovery.killedServer}; meta leader: ${recovery.wasMetaLeader}, stream leader: ${recovery.wasStreamLeader}): ${recovery.recoveryMs} ms to the next write`,
    );
    const result: ClusterBenchResult = {
      scenario: "cluster",
      nodesRun: "in-process",
      foyerNodes: fleetSize,
      natsServers: fleetSize,
      clients: options.clients,
      seconds: options.seconds,
      ops,
      opsPerSecond,
      opsByKind,
      redirectJoin,
      floors: { echo, natsRequest, kvUpdate, echoThenKv },
      watchRecovery: recovery,
      targets: targetsOf(opsByKind, echo, kvUpdate, echoThenKv),
    };
    const t = result.targets;
    say(`  one-write ops: worst ratio ${t.oneWriteRatio} (target ≤ ${targetRatio}: ${met(t.oneWriteMet)})`);
    say(`  every op: worst ratio ${t.worstRatio} (target ≤ ${targetRatio}: ${met(t.everyOpMet)})`);
    say(`  a ws frame answered after one KV update, over echo + KV update: ${t.echoThenKvRatio}`);
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await fleet.stop();
  }
}

/**
 * The same rounds on an embedded node, no NATS: each op's own work with nothing to wait for. With
 * `kvView`, the node's in-memory store is seen through it.
 */
async function embeddedLoad(
  clients: number,
  seconds: number,
  kvView?: (kv: KvStore) => KvStore,
): Promise<OpLatencies> {
  const node = await startEmbeddedBenchNode(kvView ? { kvView } : {});
  try {
    return (await ownerLoad((_, player) => node.connect(player), clients, seconds)).latencies;
  } finally {
    await node.stop();
  }
}

/**
 * The same rounds on an embedded node whose every KV write first waits one NATS request round trip: the
 * op waits as a fleet op does, between stretches of its own work, but runs none of the NATS store's code.
 */
async function waitingEmbeddedLoad(
  nats: NatsLauncher,
  clients: number,
  seconds: number,
): Promise<OpLatencies> {
  const echo = await startNatsEcho(nats);
  try {
    return await embeddedLoad(clients, seconds, (kv) =>
      viewWrites(kv, async (_bucket, _call, _key, write) => {
        await echo.roundTrip();
        return write();
      }),
    );
  } finally {
    await echo.close();
  }
}

function figuresByKind(
  latencies: { fleet: OpLatencies; embedded: OpLatencies; embeddedWaiting: OpLatencies },
  counted: Record<OpKind, CountedWrites>,
  floors: { echo: LatencySummary; kvUpdate: LatencySummary; natsRequest: LatencySummary },
): Record<OpKind, OpFigures> {
  const { echo, kvUpdate, natsRequest } = floors;
  const figures = (kind: OpKind): OpFigures => {
    const latency = summarize(latencies.fleet[kind]);
    const writes = counted[kind].inSequence;
    const floorMs = echo.p50Ms + writes * kvUpdate.p50Ms;
    const embedded = summarize(latencies.embedded[kind]);
    const embeddedWaiting = summarize(latencies.embeddedWaiting[kind]);
    return {
      latency,
      designWrites: designWrites[kind],
      counted: counted[kind],
      floorMs: rounded(floorMs, 3),
      ratio: rounded(latency.p50Ms / floorMs, 2),
      embedded,
      embeddedWaiting,
      ownWorkMs: {
        busy: rounded(embedded.p50Ms - echo.p50Ms, 3),
        waiting: rounded(embeddedWaiting.p50Ms - echo.p50Ms - writes * natsRequest.p50Ms, 3),
      },
    };
  };
  return {
    create: figures("create"),
    join: figures("join"),
    ready: figures("ready"),
    leave: figures("leave"),
    leaveLast: figures("leaveLast"),
  };
}

function targetsOf(
  opsByKind: Record<OpKind, OpFigures>,
  echo: LatencySummary,
  kvUpdate: LatencySummary,
  echoThenKv: LatencySummary,
): ClusterBenchResult["targets"] {
  const all = opKinds.map((kind) => opsByKind[kind]);
  const oneWrite = all.filter((op) => op.counted.inSequence === 1);
  const oneWriteRatio = Math.max(...oneWrite.map((op) => op.ratio));
  const worstRatio = Math.max(...all.map((op) => op.ratio));
  return {
    oneWriteRatio,
    oneWriteMet: oneWriteRatio <= targetRatio,
    worstRatio,
    everyOpMet: worstRatio <= targetRatio,
    echoThenKvRatio: rounded(echoThenKv.p50Ms / (echo.p50Ms + kvUpdate.p50Ms), 2),
  };
}

function rounded(x: number, digits: number): number {
  return Number(x.toFixed(digits));
}

function line(what: string, s: LatencySummary): string {
  return `  ${what.padEnd(28)} p50 ${s.p50Ms.toFixed(3)} ms  p99 ${s.p99Ms.toFixed(3)} ms  (${s.count})`;
}

function opLine(kind: OpKind, op: OpFigures): string {
  const writes = `writes: design ${op.designWrites}, counted ${op.counted.inSequence} in sequence (${op.counted.awaited} awaited, ${op.counted.caused} caused)`;
  const own = `embedded p50 ${op.embedded.p50Ms.toFixed(3)} ms, its writes waiting a NATS request ${op.embeddedWaiting.p50Ms.toFixed(3)} ms; own work ${op.ownWorkMs.busy} ms busy, ${op.ownWorkMs.waiting} ms waiting`;
  return `${line(kind, op.latency)}  ratio ${op.ratio}\n    ${writes}: ${op.counted.awaitedWrites.join(", ")}\n    ${own}`;
}

function met(ok: boolean): string {
  return ok ? "met" : "NOT met";
}
