import { randomBytes } from "node:crypto";
import { Worker } from "node:worker_threads";
import { signPlayerToken } from "../../gateway/auth/player-token.ts";
import { drainClient } from "./drain-client.ts";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { fetchStatuses } from "../admin/index.ts";
import { startNats } from "../nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";
import type { ProbeCommand, ProbeReport, ProbeWork } from "./drain-probes.ts";
import { summarize, type LatencySummary } from "./latency.ts";

/** Options of `foyer bench --scenario drain`. */
export interface DrainBenchOptions {
  /** Idle lobbies on the drained node. */
  readonly lobbies: number;
  /** Connected members of each. */
  readonly members: number;
  /**
   * Members that keep toggling their ready flag through the drain: one more member in each of as many
   * lobbies, spread over the set, on a thread of their own (see `drain-probes.ts`).
   */
  readonly probes: number;
  /** How long the probes run before the drain (the baseline). */
  readonly baselineSeconds: number;
  readonly json: boolean;
}

/** The figures the drain bench prints. */
export interface DrainBenchResult {
  readonly scenario: "drain";
  readonly foyerNodes: number;
  readonly natsServers: number;
  readonly lobbies: number;
  readonly members: number;
  /** Keys the drained node moved: the lobbies and the members' player records. */
  readonly keysMoved: number;
  /** From `POST /drain` to the node's drain finishing, as the node measured it. */
  readonly seconds: number;
  readonly lobbiesPerSecond: number;
  /** Ready toggles of the probes before the drain. */
  readonly before: LatencySummary;
  /** Ready toggles of the probes that started during the drain. */
  readonly during: LatencySummary;
  /**
   * Each probe's slowest request during the whole drain: its lobby's move, and whatever the drain's load
   * did to its other requests (compare `stayPause`).
   */
  readonly pause: LatencySummary;
  /**
   * The pause the drain target is about: each probe's slowest request during its own lobby's move (in flight at some moment
   * from the `moved` its client heard to the new node's welcome). Probes with no request in that window
   * are not counted (`count` says how many had one).
   */
  readonly movePause: LatencySummary;
  /** Probes whose client heard its lobby move (`moving`): all of them, in a drain that finished. */
  readonly probesMoved: number;
  /**
   * The same for control probes, each in a lobby of its own on a node that is not drained: the slowest
   * request the drain's load alone causes, with no move. What `pause` is over it is the move's own.
   */
  readonly stayPause: LatencySummary;
  /**
   * Requests that failed, the probes' and the controls' (the SDK retries on its own: any failure is one a
   * player would see).
   */
  readonly errors: number;
  readonly targets: {
    /** 5 s per 1,000 lobbies (30 s per 10,000 from 10,000 on). */
    readonly seconds: number;
    readonly secondsMet: boolean;
    /** On `movePause`. */
    readonly pauseP99Under50ms: boolean;
    /** On `pause`, the stricter reading: no request during the whole drain over 50 ms at p99. */
    readonly worstP99Under50ms: boolean;
  };
}

const tokenKey = { id: "bench", secret: randomBytes(24).toString("base64url") };
const nodeCount = 3;
const natsServers = 3;
/** Connects and lobby ops in flight at once while the load is built. */
const setupConcurrency = 64;
const workerBoot = new URL("../worker-boot.js", import.meta.url);
const probeModule = new URL("./drain-probes.ts", import.meta.url);
/** How often the drained node's progress is read (each read walks its claims: 5 ms per 5,000). */
const statusPollMs = 250;
/** A probe's pause between two ready toggles (light: the probes must not be the load that slows the drain). */
const probeGapMs = 100;

/**
 * `foyer bench --scenario drain`: three nats-servers (R3 buckets) and three Foyer node processes; the
 * first holds `lobbies` idle lobbies of `members` connected members (the sockets live in this process:
 * 4,000 or 10,000 is well below the ~20,000 one process may hold). A probe member added to some of them,
 * on a thread of its own, keeps toggling its ready flag, and as many control probes do the same in
 * lobbies of their own on the other two nodes; then the first node is drained to the other two. Prints the
 * drain's length, lobbies per second, the probes' latency before and during the drain, each probe's worst
 * request during its lobby's move (the pause) and during the whole drain, and the controls' worst: what
 * the load alone does, with no move.
 */
export async function runDrainBench(options: DrainBenchOptions): Promise<DrainBenchResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  say(
    `drain bench: ${natsServers} nats-servers (R3), ${nodeCount} Foyer node processes; draining one with ${options.lobbies} lobbies of ${options.members}`,
  );
  const nats = await startNats({ servers: natsServers });
  const nodes: NodeProcess[] = [];
  const clients: FoyerClient[] = [];
  let probes: Worker | undefined;
  try {
    await startNodes(nats.urls, options.members, nodes);
    const [source] = nodes;
    if (source === undefined) throw new Error("no node");
    const urls = await Promise.all(nodes.map((n) => n.url));
    const admin = await source.admin;
    const lobbies = await fillLobbies(urls, options, clients);
    say(`  ${options.lobbies} lobbies of ${options.members} connected on ${source.id}`);
    probes = new Worker(workerBoot, {
      workerData: { worker: probeModule.href, ...probeWorkOf(urls, lobbies, options) },
    });
    const reports = reportsOf(probes);
    const joined = await reports.next();
    if (joined.type !== "joined") throw new Error(`the probes did not join: ${JSON.stringify(joined)}`);
    await new Promise((resolve) => setTimeout(resolve, options.baselineSeconds * 1000));
    probes.postMessage({ type: "drain" } satisfies ProbeCommand);
    await startDrain(admin);
    const progress = await followDrain(admin, source);
    probes.postMessage({ type: "stop" } satisfies ProbeCommand);
    const probed = await reports.next();
    if (probed.type !== "done") throw new Error(`the probes failed: ${JSON.stringify(probed)}`);
    if (progress?.finishedAt == null) {
      throw new Error(
        `the drain did not report its end: ${JSON.stringify(progress)}\n${source.output().slice(-2_000)}`,
      );
    }
    const result = resultOf(options, { ...progress, finishedAt: progress.finishedAt }, probed);
    printResult(say, options, result);
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    await probes?.terminate();
    for (const c of clients) c.close();
    for (const n of nodes) n.child.kill("SIGKILL");
    await Promise.all(nodes.map((n) => n.exited));
    await nats.stop();
  }
}

/** A drain's progress as the drained node's `/status` reports it. */
interface DrainProgress {
  total: number;
  moved: number;
  startedAt: number;
  finishedAt: number | null;
}

/** What the probe thread reports at its end. */
type ProbesDone = Extract<ProbeReport, { type: "done" }>;

/** The Foyer node processes, one after another: each opens the buckets the first one made. */
async function startNodes(natsUrls: readonly string[], members: number, nodes: NodeProcess[]): Promise<void> {
  const sessionSecret = randomBytes(24).toString("base64url");
  for (let i = 1; i <= nodeCount; i++) {
    const node = startNodeProcess({
      id: `n${i}`,
      natsUrls: [...natsUrls],
      natsReplicas: 3,
      tokenKeys: `${tokenKey.id}:${tokenKey.secret}`,
      sessionSecret,
      flags: {
        "max-connections-per-ip": "1000000",
        "max-members": String(Math.max(8, members + 1)), // and a probe
      },
    });
    nodes.push(node);
    await node.url;
  }
}

/** The idle lobbies on the first node, each with its connected members (their clients kept in `clients`). */
async function fillLobbies(
  urls: readonly string[],
  options: DrainBenchOptions,
  clients: FoyerClient[],
): Promise<{ code: string; host: FoyerClient; guests: FoyerClient[] }[]> {
  const connect = async (player: string): Promise<FoyerClient> => {
    const client = drainClient([...urls], tokenFor(player));
    clients.push(client);
    await client.connect();
    return client;
  };
  return inBatches(options.lobbies, async (i) => {
    const host = await connect(`h${i}`);
    const { code } = await host.create();
    const guests: FoyerClient[] = [];
    for (let m = 1; m < options.members; m++) {
      const guest = await connect(`m${i}-${m}`);
      await guest.join(code);
      guests.push(guest);
    }
    return { code, host, guests };
  });
}

/** Probes: one more member in each of lobbies spread over the whole set, and controls on the other nodes. */
function probeWorkOf(
  urls: string[],
  lobbies: readonly { code: string }[],
  options: DrainBenchOptions,
): ProbeWork {
  const probeCount = Math.min(options.probes, options.lobbies);
  const stayUrls = urls.slice(1); // the nodes that are not drained
  return {
    urls,
    probes: Array.from({ length: probeCount }, (_, p) => {
      const lobby = lobbies[Math.floor((p * options.lobbies) / probeCount)] ?? lobbies[0];
      if (lobby === undefined) throw new Error("no lobby");
      return { token: tokenFor(`probe${p}`), code: lobby.code };
    }),
    controls: Array.from({ length: probeCount }, (_, p) => ({
      token: tokenFor(`control${p}`),
      url: stayUrls[p % stayUrls.length] ?? "",
    })),
    gapMs: probeGapMs,
  };
}

/** `POST /drain`, refused until the node has seen a peer's heartbeat with its URL (just after the start). */
async function startDrain(admin: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    const started = await fetch(new URL("/drain", admin), { method: "POST" });
    if (started.status === 202) break;
    if (attempt >= 50) throw new Error(`the drain was refused: ${await started.text()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Reads the drain's progress until it ends (or the node exits); the last progress read. */
async function followDrain(admin: string, source: NodeProcess): Promise<DrainProgress | null> {
  let progress: DrainProgress | null = null;
  for (;;) {
    const [row] = await fetchStatuses([admin]);
    const drain = row !== undefined && "status" in row ? row.status.drain : null;
    if (drain) progress = drain;
    if (drain && drain.state !== "running") break;
    if (source.child.exitCode !== null) break; // exited after its drain (a poll missed the end)
    // The node times its drain itself; a status read counts every claim, so it is not asked too often.
    await new Promise((resolve) => setTimeout(resolve, statusPollMs));
  }
  return progress;
}

/** The figures from the drain's progress and the probes' report. */
function resultOf(
  options: DrainBenchOptions,
  progress: DrainProgress & { finishedAt: number },
  probed: ProbesDone,
): DrainBenchResult {
  const { before, during, worst, movePause: moveWorst, probesMoved, controlWorst, errors } = probed;
  const seconds = (progress.finishedAt - progress.startedAt) / 1000;
  // The drain's targets: 1,000 lobbies in 5 s, 10,000 in 30 s (scaled to the count asked for).
  const targetSeconds =
    options.lobbies >= 10_000 ? (30 * options.lobbies) / 10_000 : (5 * options.lobbies) / 1_000;
  const pause = summarize(worst.filter((ms) => ms > 0));
  const movePause = summarize(moveWorst.filter((ms) => ms > 0));
  return {
    scenario: "drain",
    foyerNodes: nodeCount,
    natsServers,
    lobbies: options.lobbies,
    members: options.members,
    keysMoved: progress.moved,
    seconds,
    lobbiesPerSecond: Math.round(options.lobbies / seconds),
    before: summarize(before),
    during: summarize(during),
    pause,
    movePause,
    probesMoved,
    stayPause: summarize(controlWorst.filter((ms) => ms > 0)),
    errors,
    targets: {
      seconds: targetSeconds,
      secondsMet: seconds < targetSeconds,
      pauseP99Under50ms: movePause.count > 0 && movePause.p99Ms < 50,
      worstP99Under50ms: pause.p99Ms < 50,
    },
  };
}

/** The text report. */
function printResult(
  say: (line: string) => void,
  options: DrainBenchOptions,
  result: DrainBenchResult,
): void {
  say(
    `  drained in ${result.seconds.toFixed(2)} s: ${result.lobbiesPerSecond} lobbies/s (${result.keysMoved} keys moved)`,
  );
  say(line("ready before the drain", result.before));
  say(line("ready during the drain", result.during));
  say(line("pause (each probe's worst in its lobby's move)", result.movePause));
  say(line("each probe's worst in the whole drain", result.pause));
  say(line("worst in a lobby that stays", result.stayPause));
  say(`  errors seen by callers: ${result.errors}`);
  say(
    `  targets: ${options.lobbies} lobbies in < ${result.targets.seconds} s: ${verdict(result.targets.secondsMet)}; p99 pause < 50 ms: ${verdict(result.targets.pauseP99Under50ms)}`,
  );
}

function tokenFor(player: string): string {
  return signPlayerToken({ sub: player, name: player, exp: Math.floor(Date.now() / 1000) + 3600 }, tokenKey);
}

/** The probe thread's reports, one at a time; an error of the thread rejects the next. */
function reportsOf(worker: Worker): { next(): Promise<ProbeReport> } {
  const queue: ProbeReport[] = [];
  const waiting: { resolve: (r: ProbeReport) => void; reject: (e: Error) => void }[] = [];
  let failure: Error | undefined;
  worker.on("message", (report: ProbeReport) => {
    const waiter = waiting.shift();
    if (waiter) waiter.resolve(report);
    else queue.push(report);
  });
  worker.on("error", (error) => {
    failure = error;
    for (const waiter of waiting.splice(0)) waiter.reject(error);
  });
  return {
    next: () => {
      const report = queue.shift();
      if (report !== undefined) return Promise.resolve(report);
      if (failure !== undefined) return Promise.reject(failure);
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
  };
}

/** Runs `make(i)` for i in [0, count), `setupConcurrency` at a time, keeping the order. */
async function inBatches<T>(count: number, make: (i: number) => Promise<T>): Promise<T[]> {
  const out = new Array<T>(count);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(setupConcurrency, count) }, async () => {
      while (next < count) {
        const i = next++;
        out[i] = await make(i);
      }
    }),
  );
  return out;
}

function line(label: string, s: LatencySummary): string {
  return `  ${label.padEnd(28)} p50 ${s.p50Ms.toFixed(1)} ms  p99 ${s.p99Ms.toFixed(1)} ms  (${s.count})`;
}

function verdict(met: boolean): string {
  return met ? "met" : "MISSED";
}
