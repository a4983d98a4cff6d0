import { lobbyTypesFileSchema, type LobbyTypeInput } from "../../actors/matchmaking/index.ts";
import type { ActorSystem, NodeState, Outbox } from "../../actors/runtime/index.ts";
import { loadConfig } from "../config.ts";
import { buildEmbeddedRuntime } from "../node/embedded-runtime.ts";
import { summarize, type LatencySummary } from "./latency.ts";

/** Options of `foyer bench --scenario matchmaking`. */
export interface MatchmakingBenchOptions {
  /** Players queued at once. */
  readonly players: number;
  /** The queue's step. */
  readonly stepSeconds: number;
  /** Ratings are spread evenly at random over [1000, 1000 + spread). */
  readonly spread: number;
  /** The longest the bench waits for the queue to match everyone it can. */
  readonly maxSeconds: number;
  readonly seed: number;
  readonly json: boolean;
}

/** The figures the matchmaking bench prints. */
export interface MatchmakingBenchResult {
  readonly scenario: "matchmaking";
  /** The queue actor is driven in this process through the node's runtime (asks, its real timers). */
  readonly mode: "in-process";
  readonly players: number;
  readonly stepSeconds: number;
  readonly spread: number;
  /** Seconds to queue every player (each search answered, so written to the queue's snapshot). */
  readonly enqueueSeconds: number;
  /** Matches formed (a pair taken out of the queue, each player told `matchFound`). */
  readonly matches: number;
  /** Players still queued at the end. */
  readonly unmatched: number;
  /** Seconds from the first search to the last match. */
  readonly matchingSeconds: number;
  readonly matchesPerSecond: number;
  /** From a player's search being sent to its `matchFound`. */
  readonly enqueueToMatch: LatencySummary;
  /** Steps the queue ran that matched at least one pair. */
  readonly matchingSteps: number;
  /**
   * The longest step: from its timer's deadline to its `matchFound` frames (the handler searching every
   * waiting entry, then the snapshot write). The queue answers nothing else meanwhile.
   */
  readonly longestStepMs: number;
  /**
   * CPU seconds this process spent from the first search to the end (queueing and every step): what the
   * queue cost, whatever else the machine was running.
   */
  readonly cpuSeconds: number;
}

/**
 * A 1-vs-1 type matched in its queue (SPEC §4 accept phase, 10 minutes to accept, so nobody is asked
 * twice during the bench). Every search: ±10 around its rating, then ±20, ±40, ±80, ±160.
 */
function benchType(stepSeconds: number): LobbyTypeInput {
  return {
    id: "BenchDuel",
    teams: [
      { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
      { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
    ],
    rules: {
      allowEarlyStartWithoutMax: false,
      forceOnTimeStartWithoutReady: false,
      allowJoinInProgress: false,
      onTimeStartSecs: 600,
      disbandOnStart: false,
      everyReadyMinPercent: 0,
      everyReadyMinNum: 1,
      earliestStartSecs: 0,
      tooLateSecs: 600,
    },
    queueAccept: { timeoutSecs: 600 },
    stepSeconds,
  };
}

/** A small seeded source (mulberry32), so every run queues the same ratings. */
function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** How many searches are in flight at once while queueing. */
const inFlight = 200;

/**
 * `players` searches of one queue with ratings spread over `spread`, all sent at once (200 in flight),
 * then the queue steps until everyone is matched or nothing more matches for five steps: how many
 * matches it forms a second and how long a player waits from its search to its `matchFound`. The queue
 * runs on an embedded node's runtime (the in-memory KV, the real snapshot path, real timers), driven in
 * this process; no sockets (docs/results.md says why).
 */
export async function runMatchmakingBench(options: MatchmakingBenchOptions): Promise<MatchmakingBenchResult> {
  const say = (line: string): void => {
    if (!options.json) process.stdout.write(`${line}\n`);
  };
  say(
    `matchmaking bench: ${options.players} players, ratings over ${options.spread}, ` +
      `queue step ${options.stepSeconds} s, in-process`,
  );
  const config = {
    ...loadConfig({ logLevel: "silent" }, {}),
    lobbyTypes: lobbyTypesFileSchema.parse({ lobbyTypes: [benchType(options.stepSeconds)] }),
  };
  const matched = new MatchLog();
  // A room host is named so the queue matches at all (it matches nobody while no node can take a room);
  // nobody accepts here, so no room is ever opened.
  const node: NodeState = {
    canOpenRoom: () => false,
    draining: () => false,
    mayAct: () => true,
    roomHost: () => ({ node: "bench", url: "ws://127.0.0.1:0/ws" }),
  };
  const { system, kv } = await buildEmbeddedRuntime(config, matched.outbox, node, {});
  const started = performance.now();
  const cpuAtStart = process.cpuUsage();
  // The step's deadline is read between steps (the queue's state, as the admin view reads it).
  const watch = setInterval(() => {
    const state = system.peek("queue/BenchDuel") as { tickAt: number | null } | undefined;
    if (state?.tickAt != null) matched.tickAt = state.tickAt;
  }, 20);
  try {
    await queueAll(system, options, matched.sentAt);
    const enqueueSeconds = (performance.now() - started) / 1000;
    say(`queued ${options.players} in ${enqueueSeconds.toFixed(2)} s`);
    const deadline = started + options.maxSeconds * 1000;
    const quietMs = 5 * options.stepSeconds * 1000;
    while (performance.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (matched.matches * 2 >= options.players - 1) break;
      if (performance.now() - Math.max(matched.lastMatchAt, started + enqueueSeconds * 1000) > quietMs) break;
    }
    const matchingSeconds = ((matched.lastMatchAt || performance.now()) - started) / 1000;
    const result = resultOf(options, matched, { enqueueSeconds, matchingSeconds, cpuAtStart });
    printResult(say, options, result);
    if (options.json) process.stdout.write(`${JSON.stringify(result)}\n`);
    return result;
  } finally {
    clearInterval(watch);
    system.close();
    await kv.close();
  }
}

/** The queue's `matchFound` frames as they go out: how many, when, and each player's wait. */
class MatchLog {
  /** When each player's search was sent (performance.now()). */
  readonly sentAt = new Map<string, number>();
  readonly waits: number[] = [];
  readonly stepTimes = new Set<number>();
  matches = 0;
  lastMatchAt = 0;
  /** The deadline of the step timer (wall clock, as the runtime's scheduler) last seen armed. */
  tickAt: number | null = null;
  longestStepMs = 0;

  readonly outbox: Outbox = {
    push: (players, frame) => {
      if (frame.type !== "matchFound") return;
      const now = performance.now();
      this.matches++;
      this.lastMatchAt = now;
      if (this.tickAt !== null) this.longestStepMs = Math.max(this.longestStepMs, Date.now() - this.tickAt);
      this.stepTimes.add(Math.round(now / 50));
      for (const player of players) this.waits.push(now - (this.sentAt.get(player) ?? now));
    },
  };
}

/** Every player's search, `inFlight` at a time, each answered before the next of its lane. */
async function queueAll(
  system: ActorSystem,
  options: MatchmakingBenchOptions,
  sentAt: Map<string, number>,
): Promise<void> {
  const random = seeded(options.seed);
  let next = 0;
  const queueOne = async (): Promise<void> => {
    while (next < options.players) {
      const id = `p${next++}`;
      sentAt.set(id, performance.now());
      const answer = await system.ask(
        "queue/BenchDuel",
        {
          type: "findLobby",
          player: { id, name: id },
          rating: 1000 + Math.floor(random() * options.spread),
          maxSteps: 1000,
          algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10, 20, 40, 80, 160] },
        },
        { timeoutMs: 60_000 },
      );
      if (!answer.ok) throw new Error(`search of ${id} refused: ${answer.code} ${answer.message}`);
    }
  };
  await Promise.all(Array.from({ length: inFlight }, queueOne));
}

/** The figures from the match log and the run's times. */
function resultOf(
  options: MatchmakingBenchOptions,
  matched: MatchLog,
  run: { enqueueSeconds: number; matchingSeconds: number; cpuAtStart: NodeJS.CpuUsage },
): MatchmakingBenchResult {
  const { matches } = matched;
  const { enqueueSeconds, matchingSeconds } = run;
  return {
    scenario: "matchmaking",
    mode: "in-process",
    players: options.players,
    stepSeconds: options.stepSeconds,
    spread: options.spread,
    enqueueSeconds: Number(enqueueSeconds.toFixed(3)),
    matches,
    unmatched: options.players - matches * 2,
    matchingSeconds: Number(matchingSeconds.toFixed(3)),
    matchesPerSecond: Number((matchingSeconds > 0 ? matches / matchingSeconds : 0).toFixed(1)),
    enqueueToMatch: summarize(matched.waits),
    matchingSteps: countSteps([...matched.stepTimes]),
    longestStepMs: Math.round(matched.longestStepMs),
    cpuSeconds: cpuSecondsSince(run.cpuAtStart),
  };
}

/** The text report. */
function printResult(
  say: (line: string) => void,
  options: MatchmakingBenchOptions,
  result: MatchmakingBenchResult,
): void {
  say(
    `${result.matches} matches (${result.unmatched} players unmatched) in ${result.matchingSeconds} s: ` +
      `${result.matchesPerSecond} matches/s over ${result.matchingSteps} matching steps; ` +
      `longest step ${result.longestStepMs} ms; ${result.cpuSeconds} CPU s in all`,
  );
  say(
    `enqueue → matchFound: p50 ${result.enqueueToMatch.p50Ms.toFixed(0)} ms, ` +
      `p99 ${result.enqueueToMatch.p99Ms.toFixed(0)} ms (step ${options.stepSeconds} s)`,
  );
}

function cpuSecondsSince(start: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(start);
  return Number(((used.user + used.system) / 1e6).toFixed(2));
}

/** Matches arrive in bursts, one per step: bursts are told apart by a gap of over 250 ms. */
function countSteps(ticks: number[]): number {
  const sorted = ticks.sort((a, b) => a - b);
  let steps = 0;
  let last = Number.NEGATIVE_INFINITY;
  for (const tick of sorted) {
    if (tick - last > 5) steps++;
    last = tick;
  }
  return steps;
}
