import { randomBytes } from "node:crypto";
import { Packr } from "msgpackr";
import WebSocket from "ws";
import { match, show, substitute, type MatchResult } from "./match.ts";
import type { Scenario, Step } from "./scenario-format.ts";

/**
 * The reference conformance runner: plays a scenario (docs/conformance.md) against a node over raw
 * WebSockets — no SDK — in JSON text frames or msgpack binary frames. A runner in another language is a
 * copy of this file and match.ts.
 */

export type Encoding = "json" | "msgpack";

export interface RunOptions {
  /** The node's WebSocket URL, e.g. ws://127.0.0.1:7350/ws. */
  readonly url: string;
  /** The other nodes of the same fleet, for scenarios that need several (`nodes`): node 2 first. */
  readonly moreUrls?: readonly string[];
  readonly encoding: Encoding;
  /**
   * The admin API URL of each node, in the order of `url` and `moreUrls`, for the scenarios with a `drain`
   * step (a scenario that drains a node without one here is skipped).
   */
  readonly adminUrls?: readonly string[];
  /** A token for a player id and display name: signed with a key the node has, or a dev token. */
  readonly tokenFor: (player: string, name: string) => string | Promise<string>;
  /** Prepended to client names to make player ids; default: fresh per run, so runs never share players. */
  readonly playerPrefix?: string;
  /** How long an expectation waits by default (5000 ms). */
  readonly timeoutMs?: number;
}

/** One scenario's outcome on one encoding. */
export interface ScenarioResult {
  readonly scenario: string;
  readonly encoding: Encoding;
  readonly ok: boolean;
  /** Steps that passed (all of them when ok). */
  readonly passed: number;
  readonly steps: number;
  /** Why it failed, naming the step. */
  readonly failure?: string;
  /** Why it was not run (it needs more nodes than the runner was given); `ok` is then false. */
  readonly skipped?: string;
}

/** Plain maps and arrays only, as the node encodes them (docs/protocol.md, Transport). */
const packr = new Packr({ useRecords: false, mapsAsObjects: true, moreTypes: false });

interface Received {
  readonly frame: unknown;
  readonly encoding: Encoding;
}

/** A client's socket, the frames it received and not yet consumed, and its close. */
class ClientSocket {
  readonly inbox: Received[] = [];
  closed: { code: number; reason: string } | undefined;
  private wake: (() => void) | undefined;

  private constructor(readonly ws: WebSocket) {
    ws.on("message", (data: Buffer, binary: boolean) => {
      let frame: unknown;
      try {
        frame = binary ? packr.unpack(data) : JSON.parse(data.toString("utf8"));
      } catch {
        frame = { undecodable: data.toString("hex").slice(0, 200) };
      }
      this.inbox.push({ frame, encoding: binary ? "msgpack" : "json" });
      this.notify();
    });
    ws.on("close", (code: number, reason: Buffer) => {
      this.closed = { code, reason: reason.toString("utf8") };
      this.notify();
    });
  }

  static async open(url: string): Promise<ClientSocket> {
    const ws = new WebSocket(url);
    const socket = new ClientSocket(ws);
    await new Promise<void>((resolve, reject) => {
      ws.once("open", () => {
        resolve();
      });
      ws.once("error", reject);
    });
    ws.on("error", () => undefined);
    return socket;
  }

  /** Whether the close arrived (a method, as it changes while a step waits). */
  isClosed(): boolean {
    return this.closed !== undefined;
  }

  private notify(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** Waits until a frame or the close arrives, or until the deadline; false at the deadline. */
  async changed(deadline: number): Promise<boolean> {
    const left = deadline - Date.now();
    if (left <= 0) return false;
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.wake = undefined;
        resolve(false);
      }, left);
      this.wake = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }
}

/** A step failed: the message names the step and what was wrong. */
class StepFailure extends Error {}

/** A step's title for failure messages: its number (from 1), client, kind and note. */
export function describeStep(step: Step | undefined, index: number): string {
  if (!step) return `step ${index + 1}`;
  const kind = Object.keys(step).find(
    (k) => k !== "client" && k !== "note" && k !== "skipping" && k !== "timeoutMs" && k !== "repeat",
  );
  const note = step.note === undefined ? "" : ` "${step.note}"`;
  return `step ${index + 1} (${step.client} ${kind ?? "?"})${note}`;
}

/** Plays one scenario against a node and reports the first failing step, if any. Closes its sockets. */
export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioResult> {
  const prefix = options.playerPrefix ?? `cf${randomBytes(4).toString("hex")}-`;
  const defaultTimeout = options.timeoutMs ?? 5_000;
  const vars = new Map<string, unknown>();
  const tokens = new Map<string, string>();
  for (const [client, { name }] of Object.entries(scenario.clients)) {
    const player = `${prefix}${client}`;
    vars.set(client, player);
    tokens.set(client, await options.tokenFor(player, name));
  }
  const sockets = new Map<string, ClientSocket>();
  const result = (passed: number, failure?: string): ScenarioResult => ({
    scenario: scenario.name,
    encoding: options.encoding,
    ok: failure === undefined,
    passed,
    steps: scenario.steps.length,
    ...(failure === undefined ? {} : { failure }),
  });

  const urls = [options.url, ...(options.moreUrls ?? [])];
  const needs = scenario.nodes ?? 1;
  if (needs > urls.length) {
    const skipped = `needs ${needs} nodes of one fleet, given ${urls.length} URL${urls.length === 1 ? "" : "s"}`;
    return { ...result(0), ok: false, skipped };
  }
  const undrainable = scenario.steps.find(
    (step) => "drain" in step && options.adminUrls?.[step.drain - 1] === undefined,
  );
  if (undrainable && "drain" in undrainable) {
    return { ...result(0), ok: false, skipped: `drains node ${undrainable.drain}: needs its admin API URL` };
  }
  let index = 0;
  try {
    for (const step of scenario.steps) {
      await playStep(step, {
        options,
        urls,
        vars,
        token: tokens.get(step.client) ?? "",
        sockets,
        timeoutMs: "timeoutMs" in step && step.timeoutMs !== undefined ? step.timeoutMs : defaultTimeout,
      });
      index++;
    }
    return result(index);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return result(
      index,
      `${scenario.name} [${options.encoding}] ${describeStep(scenario.steps[index], index)}: ${message}`,
    );
  } finally {
    for (const socket of sockets.values()) socket.ws.terminate();
  }
}

interface StepContext {
  readonly options: RunOptions;
  /** The fleet's nodes: node 1 is `options.url`. */
  readonly urls: readonly string[];
  readonly vars: Map<string, unknown>;
  readonly token: string;
  readonly sockets: Map<string, ClientSocket>;
  readonly timeoutMs: number;
}

/** One step of each kind. */
type StepOf<K extends string> = Extract<Step, Record<K, unknown>>;

/** Plays a step: connects the client, or sends, closes or waits on its socket. */
async function playStep(step: Step, ctx: StepContext): Promise<void> {
  const { sockets } = ctx;
  const socket = sockets.get(step.client);
  if ("drain" in step) {
    await drainNode(step, ctx);
    return;
  }
  if ("connect" in step) {
    if (socket && !socket.closed) throw new StepFailure("the client already has an open socket");
    sockets.set(step.client, await ClientSocket.open(connectUrl(step, ctx)));
    return;
  }
  if (!socket) throw new StepFailure("the client has no socket: connect it first");
  if ("send" in step) sendFrame(step, socket, ctx);
  else if ("sendRaw" in step) sendRaw(step, socket, ctx);
  else if ("close" in step) await closeSocket(socket, ctx);
  else if ("expectNothing" in step) await expectNothing(step, socket);
  else if ("expectClose" in step) await expectClose(step, socket, ctx);
  else await expectFrames(step, socket, ctx);
}

/** Where a `connect` goes: its `url` (variables filled in), or node `node` of the run (1 by default). */
function connectUrl(step: StepOf<"connect">, ctx: StepContext): string {
  if (step.url !== undefined) {
    const url = substitute(step.url, ctx.vars);
    if (typeof url !== "string") throw new StepFailure(`the url to connect to is not a string: ${show(url)}`);
    return url;
  }
  const url = ctx.urls[(step.node ?? 1) - 1];
  if (url === undefined)
    throw new StepFailure(`no node ${step.node ?? 1}: the runner has ${ctx.urls.length}`);
  return url;
}

/** `drain`: POST /drain on the node's admin API until it is accepted (202); 409 while it has no live peer yet. */
async function drainNode(step: StepOf<"drain">, ctx: StepContext): Promise<void> {
  const admin = ctx.options.adminUrls?.[step.drain - 1] ?? "";
  const deadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    const response = await fetch(new URL("/drain", admin), { method: "POST" });
    if (response.status === 202) return;
    const why = `${response.status} ${await response.text()}`;
    if (response.status !== 409 || Date.now() > deadline)
      throw new StepFailure(`the drain was refused: ${why}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** `send`: the frame with the scenario's variables filled in, in the run's encoding. */
function sendFrame(step: StepOf<"send">, socket: ClientSocket, ctx: StepContext): void {
  const frame = substitute(step.send, new Map([...ctx.vars, ["token", ctx.token]]));
  const data = ctx.options.encoding === "json" ? JSON.stringify(frame) : packr.pack(frame);
  if (socket.closed) throw new StepFailure(`the socket is closed (${socket.closed.code}); cannot send`);
  for (let i = 0; i < (step.repeat ?? 1); i++) socket.ws.send(data);
}

/** `sendRaw`: the step's bytes as they are, text for JSON and hex-decoded binary for msgpack. */
function sendRaw(step: StepOf<"sendRaw">, socket: ClientSocket, ctx: StepContext): void {
  if (socket.closed) throw new StepFailure(`the socket is closed (${socket.closed.code}); cannot send`);
  const raw = step.sendRaw;
  socket.ws.send(ctx.options.encoding === "json" ? raw.json : Buffer.from(raw.msgpack, "hex"), {
    binary: ctx.options.encoding === "msgpack",
  });
}

/** `close`: the client closes its socket (1000) and waits for the close. */
async function closeSocket(socket: ClientSocket, ctx: StepContext): Promise<void> {
  if (socket.closed) return;
  socket.ws.close(1000);
  const deadline = Date.now() + ctx.timeoutMs;
  while (!socket.isClosed()) {
    if (!(await socket.changed(deadline))) throw new StepFailure("the socket did not close");
  }
}

/** `expectNothing`: no frame and no close for the step's window. */
async function expectNothing(step: StepOf<"expectNothing">, socket: ClientSocket): Promise<void> {
  const deadline = Date.now() + step.expectNothing;
  while (await socket.changed(deadline)) {
    /* keep listening until the window ends */
  }
  const first = socket.inbox[0];
  if (first)
    throw new StepFailure(`expected no frame within ${step.expectNothing} ms, got ${show(first.frame)}`);
  if (socket.closed)
    throw new StepFailure(`expected no frame, but the socket closed with ${socket.closed.code}`);
}

/** `expectClose`: the node closes the socket with this code, with no frame first but skipped ones. */
async function expectClose(
  step: StepOf<"expectClose">,
  socket: ClientSocket,
  ctx: StepContext,
): Promise<void> {
  const skipping = new Set(step.skipping ?? []);
  const deadline = Date.now() + ctx.timeoutMs;
  for (;;) {
    const next = socket.inbox.shift();
    if (next) {
      if (skipping.has(typeOf(next.frame))) continue;
      throw new StepFailure(`expected close ${step.expectClose}, got the frame ${show(next.frame)}`);
    }
    if (socket.closed) break;
    if (!(await socket.changed(deadline))) {
      throw new StepFailure(
        `expected close ${step.expectClose}, but the socket is still open after ${ctx.timeoutMs} ms`,
      );
    }
  }
  if (socket.closed.code !== step.expectClose) {
    throw new StepFailure(
      `expected close ${step.expectClose}, got close ${socket.closed.code} (${JSON.stringify(socket.closed.reason)})`,
    );
  }
}

/**
 * `expect` / `expectAll`: the next frames match the patterns (in any order for `expectAll`), binding
 * their variables; a frame of a skipped type that matches none is passed over.
 */
async function expectFrames(
  step: StepOf<"expect"> | StepOf<"expectAll">,
  socket: ClientSocket,
  ctx: StepContext,
): Promise<void> {
  const skipping = new Set(step.skipping ?? []);
  const patterns = "expect" in step ? [step.expect] : step.expectAll;
  const remaining = patterns.map((pattern, i) => ({ pattern, i }));
  const deadline = Date.now() + ctx.timeoutMs;
  while (remaining.length > 0) {
    const next = socket.inbox.shift();
    if (!next) {
      if (socket.closed) {
        throw new StepFailure(
          `expected ${show(remaining[0]?.pattern)}, but the socket closed with ${socket.closed.code} (${JSON.stringify(socket.closed.reason)})`,
        );
      }
      if (!(await socket.changed(deadline))) {
        throw new StepFailure(
          `expected ${show(remaining[0]?.pattern)}, but no frame came within ${ctx.timeoutMs} ms`,
        );
      }
      continue;
    }
    if (next.encoding !== ctx.options.encoding) {
      throw new StepFailure(
        `the node answered in ${next.encoding} on a ${ctx.options.encoding} connection: ${show(next.frame)}`,
      );
    }
    let firstMiss: MatchResult | undefined;
    const found = remaining.findIndex(({ pattern }) => {
      const outcome = match(pattern, next.frame, ctx.vars);
      if (outcome.ok) {
        for (const [k, v] of outcome.bound) ctx.vars.set(k, v);
        return true;
      }
      firstMiss ??= outcome;
      return false;
    });
    if (found >= 0) {
      remaining.splice(found, 1);
      continue;
    }
    if (skipping.has(typeOf(next.frame))) continue;
    const why = firstMiss && !firstMiss.ok ? `at ${firstMiss.path}: ${firstMiss.reason}` : "";
    throw new StepFailure(
      remaining.length === 1
        ? `frame does not match ${why}\n  expected: ${show(remaining[0]?.pattern)}\n  received: ${show(next.frame)}`
        : `frame matches none of the ${remaining.length} expected frames (first: ${why})\n  expected any of: ${remaining.map((r) => show(r.pattern)).join("\n    ")}\n  received: ${show(next.frame)}`,
    );
  }
}

function typeOf(frame: unknown): string {
  const type = (frame as { type?: unknown } | null)?.type;
  return typeof type === "string" ? type : "";
}
