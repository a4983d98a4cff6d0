import { pino } from "pino";
import { afterEach, expect } from "vitest";
import WebSocket from "ws";
import { signPlayerToken } from "../../gateway/auth/player-token.ts";
import { createNodeClient } from "../../gateway/client/node.ts";
import { isFoyerError, type FoyerClient, type LobbyView } from "../../gateway/client/index.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { loadConfig } from "../../ops/config.ts";
import { startNode, type RunningNode } from "../../ops/node/start-node.ts";

export const testKey = { id: "k1", secret: "test-secret-0123456789abcdef" };

/** Starts an embedded node on free ports (its own and its admin API's) with a known token key; settings override the defaults. */
export async function startTestNode(overrides: Record<string, string> = {}): Promise<RunningNode> {
  const config = loadConfig(
    {
      port: "0",
      adminPort: "0",
      tokenKeys: `${testKey.id}:${testKey.secret}`,
      logLevel: "silent",
      ...overrides,
    },
    {},
  );
  return startNode(config, pino({ level: "silent" }));
}

/** A signed token for a player. */
export function tokenFor(player: string, name = player, expInSeconds = 3600, key = testKey): string {
  return signPlayerToken({ sub: player, name, exp: Math.floor(Date.now() / 1000) + expInSeconds }, key);
}

/** A connected SDK client for a player. */
export async function clientFor(
  node: RunningNode,
  player: string,
  extra: { callTimeoutMs?: number } = {},
): Promise<FoyerClient> {
  const client = createNodeClient({
    urls: [node.url],
    token: tokenFor(player),
    reconnectMinMs: 20,
    ...extra,
  });
  await client.connect();
  return client;
}

/** Starts a node with these settings, checks that it serves a create, and stops it. */
export async function servesLobbies(settings: Record<string, string>): Promise<void> {
  const node = await startTestNode(settings);
  try {
    const client = await clientFor(node, "alice");
    await expect(client.create()).resolves.toMatchObject({ code: expect.any(String) as string });
    client.close();
  } finally {
    await node.stop();
  }
}

/** Waits until `check` passes or the deadline passes (then fails with the last error). */
export async function eventually<T>(check: () => T | Promise<T>, timeoutMs = 5_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      last = error;
    }
    if (Date.now() > deadline) throw last;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The latest lobby state a client holds, failing if it has none. */
export function lobbyOf(client: FoyerClient): LobbyView {
  if (!client.lobby) throw new Error("client has no lobby");
  return client.lobby;
}

/** A raw socket, the frames it received (decoded) and its close. */
export interface RawSocket {
  readonly ws: WebSocket;
  readonly frames: unknown[];
  readonly closed: Promise<{ code: number; reason: string }>;
}

/** A raw socket that has said hello, for bad-input tests; collects every decoded frame. */
export async function rawSocket(
  node: RunningNode,
  opts: {
    player?: string;
    token?: string;
    resume?: string;
    /** `hello.lobby`: the lobby code a resuming client says it was in. */
    lobby?: string;
    json?: boolean;
    headers?: Record<string, string>;
    hello?: boolean;
    /** false: the socket never answers the node's pings, like a peer that vanished without a FIN. */
    autoPong?: boolean;
  } = {},
): Promise<RawSocket> {
  const ws = new WebSocket(node.url, { headers: opts.headers ?? {}, autoPong: opts.autoPong ?? true });
  const frames: unknown[] = [];
  const { Packr } = await import("msgpackr");
  const packr = new Packr({ useRecords: false, mapsAsObjects: true });
  ws.on("message", (data, binary) => {
    frames.push(binary ? packr.unpack(data as Buffer) : JSON.parse((data as Buffer).toString("utf8")));
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on("close", (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once("open", () => resolve());
    ws.once("error", reject);
  });
  if (opts.hello !== false) {
    const token = opts.token ?? tokenFor(opts.player ?? "raw");
    const hello = {
      type: "hello",
      protocol: 1,
      token,
      ...(opts.resume ? { resume: opts.resume } : {}),
      ...(opts.lobby === undefined ? {} : { lobby: opts.lobby }),
    };
    ws.send(encodeFrame(hello, opts.json ? "json" : "msgpack"));
    await eventually(() => {
      if (
        !frames.some(
          (f) => (f as { type: string }).type === "welcome" || (f as { type: string }).type === "error",
        )
      ) {
        throw new Error("no welcome yet");
      }
    });
  }
  return { ws, frames, closed };
}

/** Waits for a frame matching `match` among collected frames and returns it. */
export async function waitFrame<T = Record<string, unknown>>(
  frames: unknown[],
  match: (frame: Record<string, unknown>) => boolean,
  timeoutMs = 5_000,
): Promise<T> {
  return eventually(() => {
    const found = (frames as Record<string, unknown>[]).find(match);
    if (!found) throw new Error("frame not received");
    return found as T;
  }, timeoutMs);
}

/** Has a raw socket join the lobby with `code` (request id `id`) and waits for the result. */
export async function rawJoin(raw: RawSocket, code: string, id = 1): Promise<void> {
  raw.ws.send(encodeFrame({ type: "join", id, code }, "msgpack"));
  const answer = await waitFrame(
    raw.frames,
    (f) => f.id === id && (f.type === "result" || f.type === "error"),
  );
  if (answer.type !== "result") throw new Error(`join ${code} refused: ${JSON.stringify(answer)}`);
}

/** The error code a call is refused with; fails the test when the call succeeds. */
export async function refusal(call: Promise<unknown>): Promise<string> {
  try {
    await call;
  } catch (error) {
    if (isFoyerError(error)) return error.code;
    throw error;
  }
  throw new Error("the call was not refused");
}

/** One embedded node per test and the SDK clients connected to it, all stopped after each test. */
export interface TestNodeScope {
  /** Starts the test's node with these settings (flags by setting name). */
  readonly setup: (overrides?: Record<string, string>) => Promise<RunningNode>;
  /** A connected SDK client of the test's node. */
  readonly player: (id: string) => Promise<FoyerClient>;
}

/** Registers the per-test teardown and returns the helpers that start a node and connect players. */
export function useTestNode(): TestNodeScope {
  let node: RunningNode | undefined;
  const clients: FoyerClient[] = [];
  afterEach(async () => {
    for (const c of clients.splice(0)) c.close();
    await node?.stop();
    node = undefined;
  });
  return {
    setup: async (overrides = {}) => {
      node = await startTestNode(overrides);
      return node;
    },
    player: async (id) => {
      if (!node) throw new Error("no node: call setup() first");
      const client = await clientFor(node, id);
      clients.push(client);
      return client;
    },
  };
}
