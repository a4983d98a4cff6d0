import { seededRandom } from "../../actors/runtime/index.ts";
import { createNodeClient, fetchDevToken, signPlayerToken, type FoyerClient } from "../../gateway/index.ts";
import type { NodeProcess } from "../node/node-process.ts";
import { fuzzCategories, fuzzFields, type FuzzIntel } from "./fuzz-frames.ts";
import { sleep, type FuzzRunState, type TokenSource } from "./fuzz-run-state.ts";
import { fuzzSlot } from "./fuzz-slot.ts";
import { errorLines, healthCheck, httpOf, startTarget, stopTarget } from "./fuzz-target.ts";
import { HonestPair } from "./honest-pairs.ts";

/** Options of `foyer fuzz`. */
export interface FuzzOptions {
  readonly frames: number;
  readonly seed: number;
  /** A running node's WebSocket URL (dev mode, for its tokens); default: a node started for the run. */
  readonly url?: string;
  /** Fuzz sockets open at once. */
  readonly connections?: number;
  /** Honest SDK bots, in pairs (one lobby a pair). */
  readonly bots?: number;
  /** The node's maxFrameBytes (a started node is set to it). */
  readonly maxFrameBytes?: number;
  /** Silence after which a frame still owed an answer is unanswered. */
  readonly answerTimeoutMs?: number;
  readonly print?: (line: string) => void;
}

/** The figures of a run; crashes, changedLobbies, unanswered, hijacked, INTERNAL answers and nodeErrors must all be 0. */
export interface FuzzSummary {
  readonly seed: number;
  /** Frames the fuzz sockets sent (hellos included; see `categories`). */
  readonly frames: number;
  /** Fuzz sockets opened. */
  readonly connections: number;
  /** The node process exited, or stopped answering its health check or a fresh player, during the run. */
  readonly crashes: number;
  /** Lobby frames honest bots heard that no honest op explains, and final lobbies not as acked. */
  readonly changedLobbies: number;
  /** Frames answered neither by a typed error (or result, or pong) nor by a close with a known code. */
  readonly unanswered: number;
  /** A socket resumed another player's session (must be 0 too). */
  readonly hijacked: number;
  /** Frames sent, by category (docs/fuzz.md). */
  readonly categories: Record<string, number>;
  /** Fields of request frames given a wrong value, of all there are. */
  readonly fieldsCovered: number;
  readonly fieldsTotal: number;
  /** Sockets closed by the node, by close code. */
  readonly closes: Record<string, number>;
  /** Error frames the fuzz sockets got, by code. */
  readonly errorsByCode: Record<string, number>;
  /** Answers nobody was owed, or errors with an unknown code (reported, not a failure by itself). */
  readonly stray: number;
  /** Error lines the node logged (an INTERNAL answer logs one); reported with samples. */
  readonly nodeErrors: number;
  readonly honestAckedOps: number;
  readonly honestFailedOps: number;
  readonly seconds: number;
  /** Fuzz frames a second over the run. */
  readonly rate: number;
  readonly samples: string[];
}

/** The node a run fuzzes: one it started (and must stop), or a running one at `--url`. */
interface Target {
  readonly node: NodeProcess | undefined;
  readonly url: string;
  readonly token: TokenSource;
}

/** What the watch on the node saw; set from callbacks, so read through the object, never narrowed. */
interface NodeWatch {
  crashes: number;
  nodeGone: boolean;
  stopping: boolean;
}

/**
 * `foyer fuzz`: honest SDK bots in their lobbies, and fuzz sockets sending seeded random and
 * mutated frames to the same node; counts crashes, honest lobbies changed and frames not answered.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const target: { node?: NodeProcess } = {};
  try {
    return await fuzzRun(options, target);
  } finally {
    // A run that threw (a bug in the fuzzer itself) must not leave its node running.
    const child = target.node?.child;
    if (child?.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  }
}

async function fuzzRun(options: FuzzOptions, spawned: { node?: NodeProcess }): Promise<FuzzSummary> {
  const print = options.print ?? ((): void => undefined);
  const started = performance.now();
  const maxFrameBytes = options.maxFrameBytes ?? 65_536;
  const target = await connectTarget(options.url, maxFrameBytes);
  if (target.node) spawned.node = target.node;
  const { node, url } = target;
  const watch: NodeWatch = { crashes: 0, nodeGone: false, stopping: false };
  const health = healthCheck(url);
  print(`fuzz seed ${options.seed}: ${options.frames} frames at ${url}`);
  const run = newRunState(options, target, maxFrameBytes);
  void node?.exited.then((code) => {
    if (watch.stopping) return;
    watch.nodeGone = true;
    watch.crashes++;
    run.aborted = true;
    print(`the node exited during the run (code ${String(code)}):\n${node.output().slice(-3_000)}`);
  });

  const { pairs, bots } = await startHonestBots(target, run.intel, Math.max(2, options.bots ?? 6));
  let stopped = false;
  const honest = pairs.map((pair) => pair.run(() => stopped));
  const ticker = startTicker(run, pairs, watch, health, print, started);

  const fuzzStarted = performance.now();
  const connectionCount = Math.max(1, options.connections ?? 32);
  await Promise.all(
    Array.from({ length: connectionCount }, (_, i) =>
      fuzzSlot(run, seededRandom(options.seed * 7919 + i + 1), i, connectionCount),
    ),
  );
  const fuzzSeconds = (performance.now() - fuzzStarted) / 1000;
  stopped = true;
  await Promise.all(honest);
  clearInterval(ticker);
  if (!watch.nodeGone) await finalChecks(target, pairs, watch, health, print);
  for (const bot of bots) bot.close();
  watch.stopping = true;
  const nodeErrorLines = node ? errorLines(node.output()) : [];
  if (node && !watch.nodeGone) await stopTarget(node);
  return summaryOf(options.seed, run, pairs, watch.crashes, nodeErrorLines, {
    seconds: (performance.now() - started) / 1000,
    fuzzSeconds,
  });
}

/** Starts the node to fuzz, or names the running one at `url` (its tokens from its dev endpoint). */
async function connectTarget(url: string | undefined, maxFrameBytes: number): Promise<Target> {
  if (url === undefined) return startTarget(maxFrameBytes);
  const http = httpOf(url);
  return { node: undefined, url, token: (player) => fetchDevToken(http, player.slice(0, 32), player) };
}

/** The state the fuzz sockets share, before the first of them. */
function newRunState(options: FuzzOptions, target: Target, maxFrameBytes: number): FuzzRunState {
  const intel: FuzzIntel = {
    honestCodes: new Set(),
    honestPlayers: [],
    resumeTokens: [],
    fieldsHit: new Set(),
  };
  return {
    url: target.url,
    maxFrameBytes,
    answerTimeoutMs: options.answerTimeoutMs ?? 15_000,
    intel,
    token: target.token,
    badToken: signPlayerToken(
      { sub: "forger", name: "F", exp: Math.floor(Date.now() / 1000) + 3600 },
      { id: "fuzz", secret: "not-the-key-0123456789" },
    ),
    remaining: options.frames,
    sent: 0,
    aborted: false,
    connections: 0,
    connectFailures: 0,
    unanswered: 0,
    hijacked: 0,
    stray: 0,
    closes: new Map(),
    errorsByCode: new Map(),
    categories: new Map(),
    samples: [],
  };
}

/** Honest SDK bots, a host and a guest a pair, each pair in a lobby the fuzz frames must not change. */
async function startHonestBots(
  target: Target,
  intel: FuzzIntel,
  botCount: number,
): Promise<{ pairs: HonestPair[]; bots: FoyerClient[] }> {
  const pairs: HonestPair[] = [];
  const bots: FoyerClient[] = [];
  for (let p = 0; p < Math.floor(botCount / 2); p++) {
    const [hostId, guestId] = [`honest-${String(p)}-host`, `honest-${String(p)}-guest`];
    const [host, guest] = await Promise.all(
      [hostId, guestId].map(async (id) => {
        const client = createNodeClient({
          urls: [target.url],
          token: await target.token(id),
          callTimeoutMs: 20_000,
        });
        await client.connect();
        bots.push(client);
        return client;
      }),
    );
    if (!host || !guest) throw new Error("honest bots did not start");
    (intel.honestPlayers as string[]).push(hostId, guestId);
    pairs.push(
      new HonestPair(host, guest, hostId, guestId, (code) => {
        intel.honestCodes.add(code);
      }),
    );
  }
  return { pairs, bots };
}

/** Every second a health check (a failed one is a crash), and every 10 s a progress line. */
function startTicker(
  run: FuzzRunState,
  pairs: readonly HonestPair[],
  watch: NodeWatch,
  health: () => Promise<boolean>,
  print: (line: string) => void,
  started: number,
): NodeJS.Timeout {
  let lastReport = performance.now();
  let healthChecking = false;
  return setInterval(() => {
    if (!healthChecking && !watch.nodeGone) {
      healthChecking = true;
      void health().then((ok) => {
        healthChecking = false;
        if (!ok && !watch.stopping) {
          watch.crashes++;
          print("the node did not answer its health check");
        }
      });
    }
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      const seconds = (performance.now() - started) / 1000;
      print(
        `  ${String(run.sent)} frames (${String(Math.round(run.sent / seconds))}/s), ${String(run.connections)} sockets, ` +
          `${String(run.unanswered)} unanswered, ${String(pairs.reduce((n, p) => n + p.changed, 0))} lobbies changed, ` +
          `${String(pairs.reduce((n, p) => n + p.acked, 0))} honest ops`,
      );
    }
  }, 1_000);
}

/** After the fuzzing: the honest lobbies as acked, the node healthy, and a fresh player served. */
async function finalChecks(
  target: Target,
  pairs: readonly HonestPair[],
  watch: NodeWatch,
  health: () => Promise<boolean>,
  print: (line: string) => void,
): Promise<void> {
  // Frames still on their way to the bots, then the check of their final lobbies.
  await sleep(500);
  for (const pair of pairs) pair.finalCheck();
  if (!(await health())) {
    watch.crashes++;
    print("the node did not answer its health check after the run");
  }
  // The system, not only its HTTP: a fresh player can still make and leave a lobby.
  const probe = createNodeClient({
    urls: [target.url],
    token: await target.token("fuzz-probe"),
    callTimeoutMs: 20_000,
    connectTimeoutMs: 20_000,
  });
  try {
    await probe.connect();
    await probe.create();
    await probe.leave();
  } catch (error) {
    watch.crashes++;
    print(`final probe failed: ${String(error)}`);
  } finally {
    probe.close();
  }
}

/** The run's figures from the shared tallies, the honest pairs and the node's error lines. */
function summaryOf(
  seed: number,
  run: FuzzRunState,
  pairs: readonly HonestPair[],
  crashes: number,
  nodeErrorLines: readonly string[],
  time: { seconds: number; fuzzSeconds: number },
): FuzzSummary {
  const samples = [
    ...run.samples,
    ...pairs.flatMap((p) => p.samples),
    ...nodeErrorLines.map((l) => `node: ${l.slice(0, 300)}`),
  ].slice(0, 12);
  const frames = run.sent;
  return {
    seed,
    frames,
    connections: run.connections,
    crashes,
    changedLobbies: pairs.reduce((n, p) => n + p.changed, 0),
    unanswered: run.unanswered,
    hijacked: run.hijacked,
    categories: Object.fromEntries([...run.categories].sort()),
    fieldsCovered: run.intel.fieldsHit.size,
    fieldsTotal: fuzzFields.length,
    closes: Object.fromEntries([...run.closes].sort()),
    errorsByCode: Object.fromEntries([...run.errorsByCode].sort()),
    stray: run.stray,
    nodeErrors: nodeErrorLines.length,
    honestAckedOps: pairs.reduce((n, p) => n + p.acked, 0),
    honestFailedOps: pairs.reduce((n, p) => n + p.failedOps, 0),
    seconds: Math.round(time.seconds * 10) / 10,
    rate: Math.round(frames / Math.max(time.fuzzSeconds, 0.001)),
    samples,
  };
}

/** Whether a run found something: a crash, an honest lobby changed, a frame unanswered, a session taken. */
export function fuzzFailed(summary: FuzzSummary): boolean {
  return (
    summary.crashes > 0 ||
    summary.changedLobbies > 0 ||
    summary.unanswered > 0 ||
    summary.hijacked > 0 ||
    // Bad input gets a typed error: an INTERNAL answer, or the error line it logs, is a bug found.
    (summary.errorsByCode.INTERNAL ?? 0) > 0 ||
    summary.nodeErrors > 0
  );
}

/** Every bad-frame category, so a caller can check a run sent each of them. */
export const badFrameCategories: readonly string[] = fuzzCategories;
