import { randomBytes } from "node:crypto";
import type { FoyerClient } from "../../gateway/index.ts";
import { benchToken, benchTokenKeys } from "./bench-key.ts";
import { type DeathSeen, watchClaims } from "./claim-watch.ts";
import { holds, makeLobby, type Lobby, type Member } from "./failover-lobbies.ts";
import { connectCountingClient, redirectFigures, type RedirectFigures } from "./failover-redirects.ts";
import { startNats, type NatsLauncher } from "../nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";
import { summarize, type LatencySummary } from "./latency.ts";

/** Options of `foyer bench --scenario failover`. */
export interface FailoverBenchOptions {
  /** Lobbies created on the node that is killed (the failover target is measured at 1,000). */
  readonly lobbies: number;
  /** Members of each lobby, the host included; each is one SDK client (default 1: hosts only). */
  readonly members: number;
  /** The nodes' `--failure-timeout-ms`. */
  readonly failureTimeoutMs: number;
  readonly json: boolean;
  /** How long to wait after the kill before counting what is still not back (default timeout + 60 s). */
  readonly giveUpMs?: number;
}

/** p50/p99/max of one recovery figure, in ms from the kill, and how many never got there. */
export interface RecoveryFigures extends LatencySummary {
  /** The first one back: detection (failure timeout, heartbeat phase) before takeover throughput. */
  readonly minMs: number;
  readonly maxMs: number;
  /** Lobbies (or members) that were not back when the bench gave up. */
  readonly missing: number;
}

/** The figures the failover bench prints. */
export interface FailoverBenchResult {
  readonly scenario: "failover";
  /** Foyer nodes run as their own processes (`foyer node`), so one can be killed with SIGKILL. */
  readonly nodesRun: "processes";
  readonly foyerNodes: number;
  readonly natsServers: number;
  readonly lobbies: number;
  readonly membersPerLobby: number;
  readonly clients: number;
  readonly failureTimeoutMs: number;
  /** The node killed with `kill -9`; every lobby was created through it, so it owned them all. */
  readonly killedNode: string;
  /** Time to create the lobbies (connect, create, ready) before the kill, ms. */
  readonly setupMs: number;
  /**
   * Per lobby, kill → the first lobby frame of a newer epoch (a survivor's) any of its members
   * received. The SDK drops frames of an older epoch, so this is the lobby served again as clients see it.
   */
  readonly servedAgain: RecoveryFigures;
  /**
   * Kill → the tombstone a survivor wrote over the killed node's record in the `nodes` bucket: the death
   * declared (detection: the failure timeout and the heartbeat's phase). What follows is the takeovers'.
   */
  readonly death: DeathSeen;
  /**
   * Per lobby, kill → its claim in the `claims` bucket names a survivor (seen by a KV watch of the
   * bench): detection and takeover, without the clients' reconnects.
   */
  readonly claimedBySurvivor: RecoveryFigures;
  /**
   * Per member, kill → connected again (a welcome after the kill) and holding the lobby at a newer epoch
   * with the same code, members, host and ready flags, itself shown connected.
   */
  readonly memberResumed: RecoveryFigures;
  /**
   * Per member, the `redirect` frames it received from the kill until it was back (a survivor that
   * still believes the dead node owns the lobby sends it there).
   */
  readonly redirectsUntilBack: RedirectFigures;
  /** Lobbies by the survivor whose frame served them again. */
  readonly servedBy: Record<string, number>;
  readonly target: {
    /** failure timeout + 1 s. */
    readonly limitMs: number;
    /** Every lobby served again within the limit. */
    readonly met: boolean;
  };
}

const fleetSize = 3;
/** Creates in flight at once while setting up (each connects its members first). */
const setupConcurrency = 50;

/**
 * `foyer bench --scenario failover`: three nats-servers (R3 buckets) and three Foyer node processes;
 * `lobbies` lobbies with connected members are created through node n1 (so n1 owns them), n1 is killed
 * with SIGKILL, and the bench times, per lobby, until a survivor serves it again and, per member, until
 * it is connected again and holds the lobby's state from the survivor.
 */
export async function runFailoverBench(options: FailoverBenchOptions): Promise<FailoverBenchResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  const members = Math.max(1, Math.floor(options.members));
  say(
    `failover bench: ${fleetSize} nats-servers (R3), ${fleetSize} Foyer node processes, ${options.lobbies} lobbies × ${members} member(s) on n1, failure timeout ${options.failureTimeoutMs} ms`,
  );
  const fleet = await startFleet(options.failureTimeoutMs);
  const clients: FoyerClient[] = [];
  let killedAt = Number.POSITIVE_INFINITY;
  const memberOf = new Map<string, Member>();
  const redirected = (player: string): void => {
    const member = memberOf.get(player);
    if (member !== undefined && performance.now() >= killedAt && member.resumedAt === undefined)
      member.redirects += 1;
  };
  try {
    const connect = (player: string): Promise<FoyerClient> =>
      connectCountingClient(
        clients,
        {
          // n1 first, so every member lands on the node that will die; the others to resume through.
          urls: fleet.urls,
          token: benchToken(player),
          callTimeoutMs: 60_000,
          connectTimeoutMs: 30_000,
        },
        () => {
          redirected(player);
        },
      );
    const setupStarted = performance.now();
    const lobbies = await pool(options.lobbies, setupConcurrency, (i) => makeLobby(connect, i, members));
    const setupMs = Math.round(performance.now() - setupStarted);
    say(`  ${lobbies.length} lobbies with ${lobbies.length * members} members on n1 in ${setupMs} ms`);
    for (const member of lobbies.flatMap((l) => l.members)) memberOf.set(member.player, member);
    const recovery = trackRecovery(lobbies, members, () => killedAt);
    const victim = fleet.nodes[0];
    if (victim === undefined) throw new Error("no node to kill");
    const claimed = await watchClaims(
      fleet.nats,
      victim.id,
      new Set(lobbies.map((l) => l.code)),
      () => killedAt,
    );
    killedAt = performance.now();
    victim.child.kill("SIGKILL");
    const giveUpMs = options.giveUpMs ?? options.failureTimeoutMs + 60_000;
    const timer = setTimeout(recovery.giveUp, giveUpMs);
    await recovery.allBack;
    clearTimeout(timer);
    await victim.exited;
    await claimed.stop();
    const result = resultOf(options, lobbies, members, {
      clients: clients.length,
      killedNode: victim.id,
      setupMs,
      killedAt,
      claimedAt: [...claimed.at.values()],
      death: claimed.death(),
    });
    printResult(say, result);
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    for (const client of clients.splice(0)) client.close();
    await fleet.stop();
  }
}

/**
 * Listens on every member for the lobby served again (a frame of a newer epoch) and for the member
 * back in it, from `killedAt()` on; `allBack` resolves when every lobby and member is, or at `giveUp()`.
 */
function trackRecovery(
  lobbies: readonly Lobby[],
  members: number,
  killedAt: () => number,
): { allBack: Promise<void>; giveUp: () => void } {
  let resolveAllBack: () => void = () => undefined;
  const allBack = new Promise<void>((resolve) => (resolveAllBack = resolve));
  let back = 0;
  const total = lobbies.length * (members + 1);
  const mark = (): void => {
    back += 1;
    if (back === total) resolveAllBack();
  };
  for (const lobby of lobbies) {
    for (const member of lobby.members) {
      const check = (): void => {
        if (member.resumedAt !== undefined || member.connectedAgainAt === undefined) return;
        const view = member.client.lobby;
        if (view !== null && holds(view, lobby, member.player)) {
          member.resumedAt = performance.now();
          if (member.node !== undefined) lobby.servedBy ??= member.node;
          mark();
        }
      };
      member.client.on("connected", (c) => {
        if (performance.now() < killedAt()) return;
        member.connectedAgainAt ??= performance.now();
        member.node = c.node;
        check();
      });
      member.client.on("lobby", (view) => {
        if (performance.now() < killedAt() || view.code !== lobby.code || view.epoch <= lobby.epoch) return;
        if (lobby.servedAt === undefined) {
          lobby.servedAt = performance.now();
          mark();
        }
        check();
      });
    }
  }
  return {
    allBack,
    giveUp: () => {
      resolveAllBack();
    },
  };
}

/** The figures from the lobbies' and members' times back and the claims' takeover times. */
function resultOf(
  options: FailoverBenchOptions,
  lobbies: readonly Lobby[],
  members: number,
  run: {
    clients: number;
    killedNode: string;
    setupMs: number;
    killedAt: number;
    claimedAt: readonly number[];
    death: DeathSeen;
  },
): FailoverBenchResult {
  const { killedAt } = run;
  const served = lobbies.flatMap((l) => (l.servedAt === undefined ? [] : [l.servedAt - killedAt]));
  const resumed = lobbies.flatMap((l) =>
    l.members.flatMap((m) => (m.resumedAt === undefined ? [] : [m.resumedAt - killedAt])),
  );
  const servedAgain = figures(served, lobbies.length);
  const memberResumed = figures(resumed, lobbies.length * members);
  const claimedBySurvivor = figures(run.claimedAt, lobbies.length);
  const servedBy: Record<string, number> = {};
  for (const l of lobbies) {
    const by = l.servedBy ?? "none";
    servedBy[by] = (servedBy[by] ?? 0) + 1;
  }
  const limitMs = options.failureTimeoutMs + 1_000;
  return {
    scenario: "failover",
    nodesRun: "processes",
    foyerNodes: fleetSize,
    natsServers: fleetSize,
    lobbies: lobbies.length,
    membersPerLobby: members,
    clients: run.clients,
    failureTimeoutMs: options.failureTimeoutMs,
    killedNode: run.killedNode,
    setupMs: run.setupMs,
    death: run.death,
    servedAgain,
    claimedBySurvivor,
    memberResumed,
    redirectsUntilBack: redirectFigures(lobbies.flatMap((l) => l.members.map((m) => m.redirects))),
    servedBy,
    target: { limitMs, met: servedAgain.missing === 0 && servedAgain.maxMs <= limitMs },
  };
}

/** The text report. */
function printResult(say: (line: string) => void, result: FailoverBenchResult): void {
  const { failureTimeoutMs } = result;
  const { declaredMs } = result.death;
  say(`  death declared       ${declaredMs === undefined ? "not seen" : `${ms(declaredMs)} after the kill`}`);
  say(line("lobby served again", result.servedAgain, failureTimeoutMs));
  say(line("claimed by survivor", result.claimedBySurvivor, failureTimeoutMs));
  say(line("member resumed", result.memberResumed, failureTimeoutMs));
  const r = result.redirectsUntilBack;
  say(
    `  redirects until back  p50 ${r.p50}  p99 ${r.p99}  max ${r.max}  (${r.total} in all, ${r.members} members)`,
  );
  say(`  served again by: ${JSON.stringify(result.servedBy)}`);
  say(
    `  target: every lobby served again within failure timeout + 1 s (${result.target.limitMs} ms): ${result.target.met ? "met" : "NOT met"}`,
  );
}

function figures(latencies: readonly number[], expected: number): RecoveryFigures {
  const summary = summarize(latencies);
  const round = (x: number): number => (latencies.length === 0 ? 0 : Number(x.toFixed(3)));
  const minMs = round(Math.min(...latencies));
  const maxMs = round(Math.max(...latencies));
  return { ...summary, minMs, maxMs, missing: expected - latencies.length };
}

function line(what: string, f: RecoveryFigures, failureTimeoutMs: number): string {
  const missing = f.missing > 0 ? `, ${f.missing} NOT back` : "";
  return `  ${what.padEnd(20)} first ${ms(f.minMs)}  p50 ${ms(f.p50Ms)}  p99 ${ms(f.p99Ms)}  max ${ms(f.maxMs)}  (${f.count}${missing}; failure timeout ${failureTimeoutMs} ms)`;
}

function ms(x: number): string {
  return `${Math.round(x)} ms`;
}

/** Runs `make(0..count-1)` with at most `concurrency` in flight; results in index order. */
async function pool<T>(count: number, concurrency: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const results: T[] = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(count, concurrency) }, async () => {
      for (let i = next++; i < count; i = next++) results[i] = await make(i);
    }),
  );
  return results;
}

/** Three nats-servers and three `foyer node` processes started one after another (n1, n2, n3). */
async function startFleet(
  failureTimeoutMs: number,
): Promise<{ nats: NatsLauncher; nodes: NodeProcess[]; urls: string[]; stop(): Promise<void> }> {
  const nats = await startNats({ servers: fleetSize });
  const sessionSecret = randomBytes(24).toString("base64url");
  const nodes: NodeProcess[] = [];
  const urls: string[] = [];
  const stop = async (): Promise<void> => {
    for (const node of nodes) node.child.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exited));
    await nats.stop();
  };
  try {
    for (let i = 0; i < fleetSize; i++) {
      const node = startNodeProcess({
        id: `n${i + 1}`,
        natsUrls: nats.urls,
        natsReplicas: fleetSize,
        tokenKeys: benchTokenKeys,
        sessionSecret,
        flags: {
          "failure-timeout-ms": String(failureTimeoutMs),
          "max-connections-per-ip": "100000",
          "rate-per-second": "1000000",
          "rate-burst": "1000000",
          "log-level": "error",
        },
      });
      nodes.push(node);
      // One after another: each opens the buckets the first one made.
      urls.push(await node.url);
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return { nats, nodes, urls, stop };
}
