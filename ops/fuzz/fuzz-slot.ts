import type { Random } from "../../actors/runtime/index.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { owedFor } from "./answer-ledger.ts";
import {
  badFirstFrame,
  fuzzFields,
  keepOutOfHonestLobbies,
  nextFuzzMessage,
  validFrame,
  type FuzzCursor,
  type FuzzMessage,
} from "./fuzz-frames.ts";
import { bump, sleep, type FuzzRunState } from "./fuzz-run-state.ts";
import { FuzzSocket } from "./fuzz-socket.ts";

/** Frames a fuzz socket may have unanswered at once (pipelining); it waits for half of them back. */
const window = 64;

/** When a socket floods and with how many copies, drawn after its hello. */
interface FloodPlan {
  readonly at: number;
  readonly copies: number;
}

/** One fuzz connection slot: socket after socket until the run's frames are spent. */
export async function fuzzSlot(
  run: FuzzRunState,
  random: Random,
  slot: number,
  slots: number,
): Promise<void> {
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
  run: FuzzRunState,
  random: Random,
  cursor: FuzzCursor,
  slot: number,
  life: number,
): Promise<void> {
  const socket = new FuzzSocket(run, `fuzz-${String(slot)}-${String(life % 3)}`);
  if (!(await socket.opened())) {
    if (run.samples.length < 10) run.samples.push(`could not connect as ${socket.player}`);
    run.connectFailures++;
    await sleep(200);
    return;
  }
  run.connections++;
  const { hello, flood } = await sendHello(run, socket, random, slot, life);
  await socket.waitUntil(() => !socket.ledger.awaitingWelcome() || socket.closed());
  await sendFrames(run, socket, random, cursor, hello, flood);
  await socket.waitUntil(() => socket.ledger.owed() === 0 || socket.closed());
  tallySocket(run, socket);
  await socket.close();
}

/** The socket's first frame: a hello (maybe resuming a session seen, maybe forged) or a bad one. */
async function sendHello(
  run: FuzzRunState,
  socket: FuzzSocket,
  random: Random,
  slot: number,
  life: number,
): Promise<{ hello: Record<string, unknown>; flood: FloodPlan }> {
  const goodToken = await run.token(socket.player);
  const json = random.int(4) === 0;
  const hello: Record<string, unknown> = { type: "hello", protocol: 1, token: goodToken };
  const resumeRoll = random.int(4);
  const tokens = run.intel.resumeTokens;
  // One draw whatever the number of tokens seen (timing decides it): the seed fixes the draws after it.
  const seen = tokens[random.int(Math.max(1, tokens.length))];
  let helloCategory: FuzzMessage["category"] = "hello";
  if (resumeRoll === 1 && seen) {
    hello.resume = seen.token;
    socket.foreignResume = seen.player !== socket.player;
    // Another player's resume token: it must not hand this socket that player's session.
    if (socket.foreignResume) helloCategory = "foreign-ids";
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
    socket.send(badFirstFrame(random, goodToken, run.badToken), { kind: "welcome" });
  } else {
    socket.send(
      { data: encodeFrame(hello, json ? "json" : "msgpack"), category: helloCategory },
      { kind: "welcome" },
    );
  }
  return { hello, flood: { at: floodAt, copies: floodCopies } };
}

/** The socket's frames after the hello, pipelined up to the window, with its flood if it has one. */
async function sendFrames(
  run: FuzzRunState,
  socket: FuzzSocket,
  random: Random,
  cursor: FuzzCursor,
  hello: Record<string, unknown>,
  flood: FloodPlan,
): Promise<void> {
  const { ledger } = socket;
  const frames = 20 + random.int(2000);
  for (let i = 0; i < frames && run.remaining > 0 && !socket.closed() && !ledger.awaitingWelcome(); i++) {
    if (ledger.owed() >= window) {
      await socket.waitUntil(() => ledger.owed() < window / 2 || socket.closed());
      if (ledger.owed() >= window && !socket.closed()) break; // silence: what is owed counts as unanswered
    }
    if (i === flood.at) {
      // Everything before the flood answered first: a close for flooding answers only the flood.
      if (!(await socket.settled())) break;
      const frame = validFrame(random, cursor);
      const message: FuzzMessage = {
        data: encodeFrame(keepOutOfHonestLobbies(frame, run.intel) as object, "msgpack"),
        category: "flood",
      };
      const owed = owedFor(message.data, run.maxFrameBytes);
      for (let c = 0; c < flood.copies && run.remaining > 0; c++) socket.send(message, owed);
      continue;
    }
    const message = nextFuzzMessage(random, run.intel, cursor, run.maxFrameBytes, hello);
    const owed = owedFor(message.data, run.maxFrameBytes);
    if (owed.kind === "close") {
      // Owed a close (too large): the frames before it must be answered first, since the close would
      // answer them all; and nothing after it, since a closing socket reads no more.
      if (!(await socket.settled())) break;
      socket.send(message, owed);
      await socket.waitUntil(() => socket.closed());
      break;
    }
    socket.send(message, owed);
  }
}

/** Adds a finished socket's close, unanswered frames, strays and error codes to the run's tallies. */
function tallySocket(run: FuzzRunState, socket: FuzzSocket): void {
  const { ledger } = socket;
  const code = ledger.closeCode();
  if (code !== undefined) bump(run.closes, String(code));
  const tally = ledger.finish();
  if (tally.unanswered > 0 && run.samples.length < 10 && !run.aborted) {
    run.samples.push(
      `${socket.player}: ${String(tally.unanswered)} unanswered of ${String(tally.sent)} (close ${String(code)})`,
    );
  }
  if (!run.aborted) run.unanswered += tally.unanswered;
  run.stray += tally.stray;
  for (const [c, n] of ledger.errorsByCode) bump(run.errorsByCode, c, n);
}
