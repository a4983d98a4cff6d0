import { randomBytes } from "node:crypto";
import { Unpackr } from "msgpackr";
import { pino } from "pino";
import WebSocket from "ws";
import { seededRandom, type Random } from "../../actors/runtime/index.ts";
import { signPlayerToken } from "../../gateway/auth/player-token.ts";
import { createNodeClient, fetchDevToken } from "../../gateway/client/node.ts";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { loadConfig } from "../config.ts";
import { startNode, type RunningNode } from "../node/start-node.ts";
import { AnswerLedger, owedFor, type Owed } from "./answer-ledger.ts";
import { badFirstFrame, nextFuzzMessage, type FuzzIntel, type FuzzMessage } from "./fuzz-frames.ts";
import { HonestPair } from "./honest-pairs.ts";

/** Options of `foyer fuzz`. */
export interface FuzzOptions {
  readonly frames: number;
  readonly seed: number;
  /** A running node's WebSocket URL (dev mode, for its tokens); default: an embedded node. */
  readonly url?: string;
  readonly connections?: number;
  /** Honest SDK bots, in pairs (one lobby a pair). */
  readonly bots?: number;
  /** The node's maxFrameBytes (embedded: set to it). */
  readonly maxFrameBytes?: number;
  /** Silence after which a frame still owed an answer is unanswered. */
  readonly answerTimeoutMs?: number;
  readonly print?: (line: string) => void;
}

/** The figures of a run; crashes, honestLobbiesChanged and unanswered must all be 0. */
export interface FuzzSummary {
  readonly seed: number;
  readonly frames: number;
  readonly connections: number;
  readonly crashes: number;
  readonly honestLobbiesChanged: number;
  readonly unanswered: number;
  /** Sockets closed by the node, by close code. */
  readonly closes: Record<string, number>;
  readonly errorsByCode: Record<string, number>;
  /** Answers nobody was owed, or errors with an unknown code (reported, not a failure by itself). */
  readonly stray: number;
  readonly framesByKind: Record<string, number>;
  readonly honestAckedOps: number;
  readonly honestFailedOps: number;
  readonly seconds: number;
  readonly samples: string[];
}

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
const window = 64;

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

/** Where tokens come from: signed with the embedded node's key, or the running node's dev endpoint. */
type TokenSource = (player: string) => Promise<string>;

interface Run {
  readonly url: string;
  readonly maxFrameBytes: number;
  readonly answerTimeoutMs: number;
  readonly intel: FuzzIntel;
  readonly token: TokenSource;
  readonly badToken: string;
  remaining: number;
  sent: number;
  connections: number;
  connectFailures: number;
  unanswered: number;
  stray: number;
  readonly closes: Map<string, number>;
  readonly errorsByCode: Map<string, number>;
  readonly kinds: Map<string, number>;
  readonly samples: string[];
}

/**
 * `foyer fuzz` (issue 6): honest SDK bots in their lobbies, and fuzz connections sending seeded random
 * and mutated frames to the same node; counts crashes, honest lobbies changed and frames not answered.
 */
export async function runFuzz(options: FuzzOptions): Promise<FuzzSummary> {
  const print = options.print ?? ((): void => undefined);
  const started = performance.now();
  const random = seededRandom(options.seed);
  let node: RunningNode | undefined;
  let url = options.url;
  let token: TokenSource;
  let maxFrameBytes = options.maxFrameBytes ?? 65_536;
  let crashes = 0;
  const onCrash = (error: unknown): void => {
    crashes++;
    print(`uncaught in the node's process: ${String(error)}`);
  };
  if (url === undefined) {
    const secret = randomBytes(24).toString("base64url");
    const config = loadConfig(
      {
        port: "0",
        adminPort: "0",
        tokenKeys: `fuzz:${secret}`,
        maxFrameBytes: String(maxFrameBytes),
        // High enough that most fuzz frames reach validation; bursts still meet the limiter.
        ratePerSecond: "2000",
        rateBurst: "200",
        maxConnectionsPerIp: "100000",
        logLevel: "silent",
      },
      {},
    );
    node = await startNode(config, pino({ level: "silent" }));
    url = node.url;
    maxFrameBytes = config.maxFrameBytes;
    process.on("uncaughtException", onCrash);
    process.on("unhandledRejection", onCrash);
    const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
    token = (player) =>
      Promise.resolve(
        signPlayerToken({ sub: player, name: player.slice(0, 32), exp }, { id: "fuzz", secret }),
      );
  } else {
    const http = httpOf(url);
    token = (player) => fetchDevToken(http, player.slice(0, 32), player);
  }
  const healthUrl = new URL("/healthz", httpOf(url)).toString();
  const health = async (): Promise<boolean> => {
    try {
      const res = await fetch(healthUrl, { signal: AbortSignal.timeout(5_000) });
      return res.ok;
    } catch {
      return false;
    }
  };
  print(`fuzz seed ${options.seed}: ${options.frames} frames at ${url}`);

  const botCount = Math.max(2, options.bots ?? 6);
  const pairs: HonestPair[] = [];
  const bots: FoyerClient[] = [];
  const intel: FuzzIntel = { honestCodes: new Set(), honestPlayers: [], resumeTokens: [] };
  const honestPlayers: string[] = [];
  for (let p = 0; p < Math.floor(botCount / 2); p++) {
    const ids = [`honest-${p}-host`, `honest-${p}-guest`] as const;
    const clients = await Promise.all(
      ids.map(async (id) => {
        const client = createNodeClient({ urls: [url], token: await token(id), callTimeoutMs: 20_000 });
        await client.connect();
        bots.push(client);
        return client;
      }),
    );
    honestPlayers.push(...ids);
    pairs.push(
      new HonestPair(clients[0]!, clients[1]!, ids[0], ids[1], (code) => intel.honestCodes.add(code)),
    );
  }
  (intel.honestPlayers as string[]).push(...honestPlayers);

  const run: Run = {
    url,
    maxFrameBytes,
    answerTimeoutMs: options.answerTimeoutMs ?? 8_000,
    intel,
    token,
    badToken: signPlayerToken(
      { sub: "forger", name: "F", exp: Math.floor(Date.now() / 1000) + 3600 },
      { id: "fuzz", secret: "not-the-key-0123456789" },
    ),
    remaining: options.frames,
    sent: 0,
    connections: 0,
    connectFailures: 0,
    unanswered: 0,
    stray: 0,
    closes: new Map(),
    errorsByCode: new Map(),
    kinds: new Map(),
    samples: [],
  };

  let stopped = false;
  const honest = pairs.map((pair) => pair.run(() => stopped));
  let healthFailures = 0;
  let lastReport = performance.now();
  const ticker = setInterval(() => {
    void health().then((ok) => {
      if (!ok) healthFailures++;
    });
    if (performance.now() - lastReport > 10_000) {
      lastReport = performance.now();
      print(
        `  ${run.sent} frames sent, ${run.connections} connections (${run.connectFailures} refused), ${run.unanswered} unanswered`,
      );
    }
  }, 1_000);

  const connectionCount = options.connections ?? 20;
  await Promise.all(
    Array.from({ length: connectionCount }, (_, i) =>
      fuzzer(run, seededRandom(options.seed * 7919 + i + 1), i),
    ),
  );
  stopped = true;
  await Promise.all(honest);
  clearInterval(ticker);
  await new Promise((r) => setTimeout(r, 500));
  for (const pair of pairs) pair.finalCheck();
  if (!(await health())) healthFailures++;
  // The system, not only its HTTP: a fresh player can still make and leave a lobby.
  try {
    const probe = createNodeClient({
      urls: [url],
      token: await token("fuzz-probe"),
      callTimeoutMs: 10_000,
      connectTimeoutMs: 10_000,
    });
    await probe.connect();
    await probe.create();
    await probe.leave();
    probe.close();
  } catch (error) {
    healthFailures++;
    print(`final probe failed: ${String(error)}`);
  }
  for (const bot of bots) bot.close();
  if (node) {
    await node.stop();
    process.off("uncaughtException", onCrash);
    process.off("unhandledRejection", onCrash);
  }
  void random;
  const samples = [...run.samples, ...pairs.flatMap((p) => p.samples)].slice(0, 10);
  return {
    seed: options.seed,
    frames: run.sent,
    connections: run.connections,
    crashes: crashes + healthFailures,
    honestLobbiesChanged: pairs.reduce((n, p) => n + p.changed, 0),
    unanswered: run.unanswered,
    closes: Object.fromEntries([...run.closes].sort()),
    errorsByCode: Object.fromEntries([...run.errorsByCode].sort()),
    stray: run.stray,
    framesByKind: Object.fromEntries([...run.kinds].sort()),
    honestAckedOps: pairs.reduce((n, p) => n + p.acked, 0),
    honestFailedOps: pairs.reduce((n, p) => n + p.failedOps, 0),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    samples,
  };
}

/** Whether a run found something: a crash, an honest lobby changed or a frame unanswered. */
export function fuzzFailed(summary: FuzzSummary): boolean {
  return summary.crashes > 0 || summary.honestLobbiesChanged > 0 || summary.unanswered > 0;
}

function httpOf(url: string): string {
  const u = new URL(url);
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = "/";
  return u.toString();
}

/** One fuzz connection slot: socket after socket until the run's frames are spent. */
async function fuzzer(run: Run, random: Random, slot: number): Promise<void> {
  let life = 0;
  while (run.remaining > 0) {
    await oneSocket(run, random, `fuzz-${slot}-${life % 3}`);
    life++;
  }
}

/** Sends a socket's frames and checks that each was answered. */
async function oneSocket(run: Run, random: Random, player: string): Promise<void> {
  const ledger = new AnswerLedger();
  const ws = new WebSocket(run.url, { handshakeTimeout: 5_000 });
  let progress = performance.now();
  let wake: (() => void) | undefined;
  const poke = (): void => {
    progress = performance.now();
    wake?.();
  };
  let closed = false;
  ws.on("message", (data: Buffer, binary: boolean) => {
    let frame: unknown;
    try {
      frame = binary ? unpackr.unpack(data) : JSON.parse(data.toString("utf8"));
    } catch {
      frame = undefined;
    }
    const f = frame as { type?: string; resume?: string } | undefined;
    if (f?.type === "welcome" && typeof f.resume === "string" && run.intel.resumeTokens.length < 200) {
      run.intel.resumeTokens.push(f.resume);
    }
    ledger.received(frame);
    // Only answers count as progress: a room's turn frames every 100 ms must not hide a silent request.
    if (f?.type === "result" || f?.type === "error" || f?.type === "pong" || f?.type === "welcome") poke();
  });
  ws.on("close", (code: number) => {
    closed = true;
    ledger.closed(code);
    poke();
  });
  ws.on("error", () => undefined);
  const opened = await new Promise<boolean>((resolve) => {
    ws.once("open", () => resolve(true));
    ws.once("close", () => resolve(false));
  });
  if (!opened) {
    if (run.samples.length < 10) run.samples.push(`could not connect as ${player}`);
    run.connectFailures++;
    await new Promise((r) => setTimeout(r, 100));
    return;
  }
  run.connections++;
  const waitUntil = async (done: () => boolean): Promise<void> => {
    progress = performance.now();
    while (!done() && performance.now() - progress < run.answerTimeoutMs) {
      await new Promise<void>((resolve) => {
        wake = resolve;
        setTimeout(resolve, 100);
      });
    }
    wake = undefined;
  };
  const send = (message: FuzzMessage, owed: Owed): void => {
    if (closed || ws.readyState !== WebSocket.OPEN) return;
    run.remaining--;
    run.sent++;
    bump(run.kinds, message.kind);
    ledger.sent(owed);
    ws.send(message.data, { binary: typeof message.data !== "string" });
  };

  const goodToken = await run.token(player);
  const json = random.int(4) === 0;
  const hello: Record<string, unknown> = { type: "hello", protocol: 1, token: goodToken };
  const resumeRoll = random.int(4);
  const tokens = run.intel.resumeTokens;
  if (resumeRoll === 1 && tokens.length) hello.resume = tokens[random.int(tokens.length)];
  else if (resumeRoll === 2) hello.resume = "forged.resume.token";
  if (random.int(100) < 6) {
    send(badFirstFrame(random, goodToken, run.badToken), { kind: "welcome" });
  } else {
    send({ data: encodeFrame(hello, json ? "json" : "msgpack"), kind: "hello" }, { kind: "welcome" });
  }
  await waitUntil(() => !ledger.awaitingWelcome() || closed);

  let nextId = 1 + random.int(1000);
  const next = (): number => nextId++;
  const frames = 20 + random.int(2000);
  for (let i = 0; i < frames && run.remaining > 0 && !closed && !ledger.awaitingWelcome(); i++) {
    if (ledger.owed() >= window) {
      await waitUntil(() => ledger.owed() < window / 2 || closed);
      if (ledger.owed() >= window && !closed) break; // silence: the rest counts as unanswered
    }
    const message = nextFuzzMessage(random, run.intel, next, run.maxFrameBytes, hello);
    if (message.kind === "burst") {
      const count = random.int(2) === 0 ? 250 : 450;
      for (let b = 0; b < count && run.remaining > 0; b++) {
        send(message, owedFor(message.data, run.maxFrameBytes));
      }
      continue;
    }
    send(message, owedFor(message.data, run.maxFrameBytes));
  }
  await waitUntil(() => ledger.owed() === 0 || closed);
  const code = ledger.closeCode();
  if (code !== undefined) bump(run.closes, String(code));
  const tally = ledger.finish();
  if (tally.unanswered > 0 && run.samples.length < 10) {
    run.samples.push(`${player}: ${tally.unanswered} unanswered of ${tally.sent} (close ${String(code)})`);
  }
  run.unanswered += tally.unanswered;
  run.stray += tally.stray;
  for (const [c, n] of ledger.errorsByCode) bump(run.errorsByCode, c, n);
  if (!closed) ws.close(1000);
  await new Promise<void>((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) resolve();
    else ws.once("close", () => resolve());
    setTimeout(resolve, 2_000);
  });
}
