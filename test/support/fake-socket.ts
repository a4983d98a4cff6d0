import { FoyerClient, type FoyerClientOptions, type SocketLike } from "../../gateway/client/index.ts";
import { decodeClientFrame, encodeFrame } from "../../gateway/protocol/codec.ts";

/**
 * A WebSocket the test plays the node for: it records what the client sends (decoded) and delivers
 * frames the test writes. Nothing touches the network, so the SDK's logic runs on fake timers.
 */
export class FakeSocket implements SocketLike {
  binaryType = "blob";
  readyState = 0;
  readonly sent: Record<string, unknown>[] = [];
  closedWith: { code: number; reason: string } | undefined;
  onopen: ((ev: unknown) => void) | null = null;
  onclose: ((ev: { code: number; reason: string }) => void) | null = null;
  onmessage: ((ev: { data: unknown }) => void) | null = null;
  onerror: ((ev: unknown) => void) | null = null;

  constructor(readonly url: string) {
    // Like `ws` and browsers: a malformed URL throws in the constructor.
    if (!/^wss?:\/\/./.test(url)) throw new SyntaxError(`Invalid URL: ${url}`);
  }

  send(data: Uint8Array | string): void {
    const decoded = decodeClientFrame(data);
    if (!decoded.ok) throw new Error(`the client sent a bad frame: ${decoded.message}`);
    this.sent.push(decoded.frame);
  }

  /** Like a real socket, the close event comes later, never inside `close()`. */
  close(code = 1000, reason = ""): void {
    if (this.readyState >= 2) return;
    this.closedWith = { code, reason };
    this.readyState = 2;
    queueMicrotask(() => {
      this.readyState = 3;
      this.onclose?.({ code, reason });
    });
  }

  /** The node accepts the socket (the client then says hello). */
  accept(): void {
    this.readyState = 1;
    this.onopen?.({});
  }

  /** The node sends a frame (msgpack, as a real node answers a msgpack hello). */
  deliver(frame: object): void {
    const bytes = encodeFrame(frame, "msgpack") as Uint8Array;
    const copy = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
    this.onmessage?.({ data: copy });
  }

  /** The node welcomes the client (`extra`: more fields of the welcome, as `lobbyHint`). */
  welcome(player = "p1", resumed = false, extra: Record<string, unknown> = {}): void {
    this.deliver({
      type: "welcome",
      protocol: 1,
      session: "s1",
      resume: "resume-token",
      player: { id: player, name: player },
      node: "node-1",
      resumed,
      ...extra,
    });
  }

  /** The connection drops (the node closes it, or the network does). */
  drop(code = 1006, reason = ""): void {
    this.readyState = 3;
    this.onclose?.({ code, reason });
  }

  /** The request frames sent so far, as `type#id`. */
  requests(): string[] {
    return this.sent.filter((f) => f.type !== "hello").map((f) => `${String(f.type)}#${String(f.id)}`);
  }
}

/**
 * A fake of `ws` in Node: besides frames it sends WebSocket pings (`ping()`, counted) and reports the
 * node's control frames (`on("ping" | "pong")`), which the test plays with `pong()` and `nodePing()`.
 * A plain FakeSocket has neither, like a browser's WebSocket.
 */
export class PingingFakeSocket extends FakeSocket {
  pings = 0;
  /** Answer each ping at once, inside `ping()`: a node on loopback answers within the same millisecond. */
  answerAtOnce = false;
  private readonly listeners = new Map<string, (() => void)[]>();

  ping(): void {
    if (this.readyState !== 1) throw new Error("ping on a socket that is not open");
    this.pings++;
    if (this.answerAtOnce) this.pong();
  }

  on(event: "ping" | "pong", listener: () => void): this {
    this.listeners.set(event, [...(this.listeners.get(event) ?? []), listener]);
    return this;
  }

  /** The node's WebSocket library answers a ping. */
  pong(): void {
    for (const listener of this.listeners.get("pong") ?? []) listener();
  }

  /** The node's heartbeat: a WebSocket ping (the socket answers it by itself). */
  nodePing(): void {
    for (const listener of this.listeners.get("ping") ?? []) listener();
  }
}

/** A constructor that records every socket it makes, for the `WebSocket` option of a FoyerClient. */
export function fakeSockets(): { Socket: new (url: string) => FakeSocket; made: FakeSocket[] } {
  const made: FakeSocket[] = [];
  class Recorded extends FakeSocket {
    constructor(url: string) {
      super(url);
      made.push(this);
    }
  }
  return { Socket: Recorded, made };
}

/** As `fakeSockets`, of sockets that send WebSocket pings (`ws` in Node). */
export function pingingFakeSockets(): {
  Socket: new (url: string) => PingingFakeSocket;
  made: PingingFakeSocket[];
} {
  const made: PingingFakeSocket[] = [];
  class Recorded extends PingingFakeSocket {
    constructor(url: string) {
      super(url);
      made.push(this);
    }
  }
  return { Socket: Recorded, made };
}

/** A FoyerClient of node-1 on fake sockets, reconnecting after 10 ms, with the sockets it made. */
export function fakeClient(options: Partial<FoyerClientOptions> = {}) {
  const { Socket, made } = fakeSockets();
  const client = new FoyerClient({
    urls: ["ws://node-1/ws"],
    token: "tok",
    reconnectMinMs: 10,
    reconnectMaxMs: 10,
    WebSocket: Socket,
    ...options,
  });
  const last = (): FakeSocket => {
    const socket = made.at(-1);
    if (!socket) throw new Error("no socket was made");
    return socket;
  };
  return { client, made, last };
}

/** A `lobby` frame of `lobby/ABCD` listing `players`, connected, the first the host. */
export function lobbyFrame(epoch: number, seq: number, players: readonly string[]) {
  return {
    type: "lobby",
    key: "lobby/ABCD",
    epoch,
    seq,
    code: "ABCD",
    public: false,
    metadata: null,
    host: players[0] ?? null,
    members: players.map((player) => ({
      player,
      memberId: 1,
      name: player,
      ready: false,
      team: null,
      connected: true,
      inRoom: false,
    })),
    playing: false,
    room: null,
  };
}
