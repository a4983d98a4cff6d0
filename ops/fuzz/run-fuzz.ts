import { randomBytes } from "node:crypto";
import { Unpackr } from "msgpackr";
import WebSocket from "ws";
import { seededRandom, type Random } from "../../actors/runtime/index.ts";
import { signPlayerToken } from "../../gateway/auth/player-token.ts";
import { createNodeClient, fetchDevToken } from "../../gateway/client/node.ts";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { startNodeProcess, type NodeProcess } from "../node/node-process.ts";
import { AnswerLedger, owedFor, type Owed } from "./answer-ledger.ts";
import {
  badFirstFrame,
  fuzzCategories,
  fuzzFields,
  keepOutOfHonestLobbies,
  nextFuzzMessage,
  validFrame,
  type FuzzCursor,
  type FuzzIntel,
  type FuzzMessage,
} from "./fuzz-frames.ts";
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

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, moreTypes: false });
/** Frames a fuzz socket may have unanswered at once (pipelining); it waits for half of them back. */
const window = 64;

function bump(map: Map<string, number>, key: string, by = 1): void {
  map.set(key, (map.get(key) ?? 0) + by);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Where tokens come from: signed with the started node's key, or a running node's dev endpoint. */
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
  /** Set when the node is gone: the fuzz sockets stop. */
  aborted: boolean;
  connections: number;
  connectFailures: number;
  unanswered: number;
  hijacked: number;
  stray: number;
  readonly closes: Map<string, number>;
  readonly errorsByCode: Map<string, number>;
  readonly categories: Map<string, number>;
  readonly samples: string[];
}

/** The node under test: a `foyer node` process of its own, so a crash is its exit, not the fuzzer's. */
async function startTarget(
  maxFrameBytes: number,
): Promise<{ node: NodeProcess; url: string; token: TokenSource }> {
  const secret = randomBytes(24).toString("base64url");
  const node = startNodeProcess({
    id: "fuzz-node",
    natsUrls: [],
    natsReplicas: 1,
    tokenKeys: `fuzz:${secret}`,
    sessionSecret: randomBytes(24).toString("base64url"),
    flags: {
      "max-frame-bytes": String(maxFrameBytes),
      // High enough that fuzz frames reach validation instead of the limiter; `flood` still meets it.
      "rate-per-second": "2000",
      "rate-burst": "200",
      "max-connections-per-ip": "100000",
      "log-level": "error",
    },
  });
  const url = await node.url;
  const exp = Math.floor(Date.now() / 1000) + 24 * 3600;
  const token: TokenSource = (player) =>
    Promise.resolve(signPlayerToken({ sub: player, name: player.slice(0, 32), exp }, { id: "fuzz", secret }));
  return { node, url, token };
}

/** Error lines the node logged (pino: level 50 error, 60 fatal). */
function errorLines(output: string): string[] {
  return output.split("\n").filter((line) => /"level":(50|60)\b/.test(line));
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
  let node: NodeProcess | undefined;
  let url: string;
  let token: TokenSource;
  const maxFrameBytes = options.maxFrameBytes ?? 65_536;
  if (options.url === undefined) {
    const target = await startTarget(maxFrameBytes);
    ({ node, url, token } = target);
    spawned.node = node;
  } else {
    url = options.url;
    const http = httpOf(url);
    token = (player) => fetchDevToken(http, player.slice(0, 32), player);
  }
  let crashes = 0;
  const healthUrl = new URL("/healthz", httpOf(url)).toString();
  const health = async (): Promise<boolean> => {
    try {
      const res = await fetch(healthUrl, { signal: AbortSignal.timeout(10_000) });
      return res.ok;
    } catch {
      return false;
    }
  };
  print(`fuzz seed ${options.seed}: ${options.frames} frames at ${url}`);

  const intel: FuzzIntel = {
    honestCodes: new Set(),
    honestPlayers: [],
    resumeTokens: [],
    fieldsHit: new Set(),
  };
  const run: Run = {
    url,
    maxFrameBytes,
    answerTimeoutMs: options.answerTimeoutMs ?? 15_000,
    intel,
    token,
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
  // Set from callbacks (the node's exit, the health check): typed wide so the checks below stay.
  let nodeGone = false as boolean;
  let stopping = false as boolean;
  const target = node;
  void target?.exited.then((code) => {
    if (stopping) return;
    nodeGone = true;
    crashes++;
    run.aborted = true;
    print(`the node exited during the run (code ${String(code)}):\n${target.output().slice(-3_000)}`);
  });

  const pairs: HonestPair[] = [];
  const bots: FoyerClient[] = [];
  const botCount = Math.max(2, options.bots ?? 6);
  for (let p = 0; p < Math.floor(botCount / 2); p++) {
    const [hostId, guestId] = [`honest-${String(p)}-host`, `honest-${String(p)}-guest`];
    const [host, guest] = await Promise.all(
      [hostId, guestId].map(async (id) => {
        const client = createNodeClient({ urls: [url], token: await token(id), callTimeoutMs: 20_000 });
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

  let stopped = false;
  const honest = pairs.map((pair) => pair.run(() => stopped));
  let lastReport = performance.now();
  let healthChecking = false;
  const ticker = setInterval(() => {
    if (!healthChecking && !nodeGone) {
      healthChecking = true;
      void health().then((ok) => {
        healthChecking = false;
        if (!ok && !stopping) {
          crashes++;
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

  const fuzzStarted = performance.now();
  const connectionCount = Math.max(1, options.connections ?? 32);
  await Promise.all(
    Array.from({ length: connectionCount }, (_, i) =>
      fuzzer(run, seededRandom(options.seed * 7919 + i + 1), i, connectionCount),
    ),
  );
  const fuzzSeconds = (performance.now() - fuzzStarted) / 1000;
  stopped = true;
  await Promise.all(honest);
  clearInterval(ticker);
  if (!nodeGone) {
    // Frames still on their way to the bots, then the check of their final lobbies.
    await sleep(500);
    for (const pair of pairs) pair.finalCheck();
    if (!(await health())) {
      crashes++;
      print("the node did not answer its health check after the run");
    }
    // The system, not only its HTTP: a fresh player can still make and leave a lobby.
    const probe = createNodeClient({
      urls: [url],
      token: await token("fuzz-probe"),
      callTimeoutMs: 20_000,
      connectTimeoutMs: 20_000,
    });
    try {
      await probe.connect();
      await probe.create();
      await probe.leave();
    } catch (error) {
      crashes++;
      print(`final probe failed: ${String(error)}`);
    } finally {
      probe.close();
    }
  }
  for (const bot of bots) bot.close();
  stopping = true;
  const nodeErrorLines = node ? errorLines(node.output()) : [];
  if (node && !nodeGone) {
    node.child.kill("SIGTERM");
    const timer = setTimeout(() => node.child.kill("SIGKILL"), 10_000);
    await node.exited;
    clearTimeout(timer);
  }
  const samples = [
    ...run.samples,
    ...pairs.flatMap((p) => p.samples),
    ...nodeErrorLines.map((l) => `node: ${l.slice(0, 300)}`),
  ].slice(0, 12);
  const frames = run.sent;
  return {
    seed: options.seed,
    frames,
    connections: run.connections,
    crashes,
    changedLobbies: pairs.reduce((n, p) => n + p.changed, 0),
    unanswered: run.unanswered,
    hijacked: run.hijacked,
    categories: Object.fromEntries([...run.categories].sort()),
    fieldsCovered: intel.fieldsHit.size,
    fieldsTotal: fuzzFields.length,
    closes: Object.fromEntries([...run.closes].sort()),
    errorsByCode: Object.fromEntries([...run.errorsByCode].sort()),
    stray: run.stray,
    nodeErrors: nodeErrorLines.length,
    honestAckedOps: pairs.reduce((n, p) => n + p.acked, 0),
    honestFailedOps: pairs.reduce((n, p) => n + p.failedOps, 0),
    seconds: Math.round((performance.now() - started) / 100) / 10,
    rate: Math.round(frames / Math.max(fuzzSeconds, 0.001)),
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

function httpOf(url: string): string {
  const u = new URL(url);
  u.protocol = u.protocol === "wss:" ? "https:" : "http:";
  u.pathname = "/";
  return u.toString();
}

/** One fuzz connection slot: socket after socket until the run's frames are spent. */
async function fuzzer(run: Run, random: Random, slot: number, slots: number): Promise<void> {
  // Each slot starts its walk through the fields at its own place, so together they cover all soon.
  const cursor: FuzzCursor = {
    nextId: 1,
    field: Math.floor((slot * fuzzFields.length) / slots),
  };
  let life = 0;
  while (run.remaining > 0 && !run.aborted) {
    await oneSocket(run, random, cursor, slot, life);
    life++;
  }
}

/** Sends a socket's frames and checks that each was answered. */
async function oneSocket(
  run: Run,
  random: Random,
  cursor: FuzzCursor,
  slot: number,
  life: number,
): Promise<void> {
  const player = `fuzz-${String(slot)}-${String(life % 3)}`;
  const ledger = new AnswerLedger();
  const ws = new WebSocket(run.url, { handshakeTimeout: 10_000 });
  let progress = performance.now();
  let wake: (() => void) | undefined;
  const poke = (): void => {
    progress = performance.now();
    wake?.();
  };
  let closed = false as boolean;
  /** Read through a call: the checks after an await must not be narrowed by the ones before it. */
  const isClosed = (): boolean => closed;
  let foreignResume = false;
  ws.on("message", (data: Buffer, binary: boolean) => {
    let frame: unknown;
    try {
      frame = binary ? unpackr.unpack(data) : JSON.parse(data.toString("utf8"));
    } catch {
      frame = undefined;
    }
    const f = frame as { type?: string; resume?: unknown; resumed?: unknown } | undefined;
    if (f?.type === "welcome") {
      if (typeof f.resume === "string" && run.intel.resumeTokens.length < 500) {
        run.intel.resumeTokens.push({ player, token: f.resume });
      }
      if (foreignResume && f.resumed === true) {
        run.hijacked++;
        if (run.samples.length < 10) run.samples.push(`${player} resumed another player's session`);
      }
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
    ws.once("open", () => {
      resolve(true);
    });
    ws.once("close", () => {
      resolve(false);
    });
  });
  if (!opened) {
    if (run.samples.length < 10) run.samples.push(`could not connect as ${player}`);
    run.connectFailures++;
    await sleep(200);
    return;
  }
  run.connections++;
  const waitUntil = async (done: () => boolean): Promise<void> => {
    progress = performance.now();
    while (!done() && performance.now() - progress < run.answerTimeoutMs && !run.aborted) {
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
    bump(run.categories, message.category);
    ledger.sent(owed);
    ws.send(message.data, { binary: typeof message.data !== "string" });
  };

  const goodToken = await run.token(player);
  const json = random.int(4) === 0;
  const hello: Record<string, unknown> = { type: "hello", protocol: 1, token: goodToken };
  const resumeRoll = random.int(4);
  const tokens = run.intel.resumeTokens;
  // One draw whatever the number of tokens seen (timing decides it): the seed fixes the draws after it.
  const seen = tokens[random.int(Math.max(1, tokens.length))];
  let helloCategory: FuzzMessage["category"] = "hello";
  if (resumeRoll === 1 && seen) {
    hello.resume = seen.token;
    foreignResume = seen.player !== player;
    // Another player's resume token: it must not hand this socket that player's session.
    if (foreignResume) helloCategory = "foreign-ids";
  } else if (resumeRoll === 2) {
    hello.resume = "forged.resume.token";
    helloCategory = "foreign-ids";
  }
  // One socket in 128 floods once, a few % of all frames: 600 or 1,500 copies at once, well past the
  // node's burst of 200 (refused RATE_LIMITED, and past twice the burst closed 4029) even if it reads
  // them slowly. The second slot's first socket always floods, and the first slot's first socket always
  // starts with a bad hello, so even a short run meets the limiter and the hello checks.
  const floodRoll = random.int(128);
  const floodAt = floodRoll === 0 || (life === 0 && slot === 1) ? random.int(10) : -1;
  const floodCopies = random.int(2) === 0 ? 600 : 1_500;
  const badHello = random.int(100) < 6 || (life === 0 && slot === 0);
  if (badHello) {
    send(badFirstFrame(random, goodToken, run.badToken), { kind: "welcome" });
  } else {
    send(
      { data: encodeFrame(hello, json ? "json" : "msgpack"), category: helloCategory },
      { kind: "welcome" },
    );
  }
  await waitUntil(() => !ledger.awaitingWelcome() || closed);

  /** Waits until every frame sent is answered; false when the socket went silent (or closed) instead. */
  const settled = async (): Promise<boolean> => {
    await waitUntil(() => ledger.owed() === 0 || closed);
    return ledger.owed() === 0 && !isClosed();
  };
  const frames = 20 + random.int(2000);
  for (let i = 0; i < frames && run.remaining > 0 && !closed && !ledger.awaitingWelcome(); i++) {
    if (ledger.owed() >= window) {
      await waitUntil(() => ledger.owed() < window / 2 || closed);
      if (ledger.owed() >= window && !isClosed()) break; // silence: what is owed counts as unanswered
    }
    if (i === floodAt) {
      // Everything before the flood answered first: a close for flooding answers only the flood.
      if (!(await settled())) break;
      const frame = validFrame(random, cursor);
      const message: FuzzMessage = {
        data: encodeFrame(keepOutOfHonestLobbies(frame, run.intel) as object, "msgpack"),
        category: "flood",
      };
      const owed = owedFor(message.data, run.maxFrameBytes);
      for (let c = 0; c < floodCopies && run.remaining > 0; c++) send(message, owed);
      continue;
    }
    const message = nextFuzzMessage(random, run.intel, cursor, run.maxFrameBytes, hello);
    const owed = owedFor(message.data, run.maxFrameBytes);
    if (owed.kind === "close") {
      // Owed a close (too large): the frames before it must be answered first, since the close would
      // answer them all; and nothing after it, since a closing socket reads no more.
      if (!(await settled())) break;
      send(message, owed);
      await waitUntil(isClosed);
      break;
    }
    send(message, owed);
  }
  await waitUntil(() => ledger.owed() === 0 || closed);
  const code = ledger.closeCode();
  if (code !== undefined) bump(run.closes, String(code));
  const tally = ledger.finish();
  if (tally.unanswered > 0 && run.samples.length < 10 && !run.aborted) {
    run.samples.push(
      `${player}: ${String(tally.unanswered)} unanswered of ${String(tally.sent)} (close ${String(code)})`,
    );
  }
  if (!run.aborted) run.unanswered += tally.unanswered;
  run.stray += tally.stray;
  for (const [c, n] of ledger.errorsByCode) bump(run.errorsByCode, c, n);
  if (!closed) ws.close(1000);
  await new Promise<void>((resolve) => {
    if (ws.readyState === WebSocket.CLOSED) resolve();
    else
      ws.once("close", () => {
        resolve();
      });
    setTimeout(resolve, 2_000);
  });
}
