import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer } from "node:https";
import type { AddressInfo } from "node:net";
import type { Duplex } from "node:stream";
import { type Server as SocketServer, WebSocketServer } from "ws";
import { signPlayerToken } from "./auth/player-token.ts";
import { Connection } from "./connection.ts";
import { GatewaySocket } from "./gateway-socket.ts";
import type { ConnectionDeps } from "./connection-deps.ts";
import { closeFor } from "./protocol/error-mapping.ts";

/** How a gateway listens and whom it lets in. */
export interface GatewayOptions {
  readonly host: string;
  readonly port: number;
  /** Origins allowed to open a socket; empty = any (native clients send none). */
  readonly allowedOrigins: readonly string[];
  readonly maxConnectionsPerIp: number;
  /** Dev mode: `GET /dev/token?name=…` issues player tokens signed with the first key. */
  readonly dev: boolean;
  /** TLS certificate and key (PEM) for `wss://`; absent = plain `ws://` (or TLS ends at a proxy). */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** Every socket is pinged this often; one that has not answered the previous ping is dropped. */
  readonly heartbeatMs: number;
  /** How long `close()` waits for clients to answer their SHUTDOWN close frames (default 500 ms). */
  readonly closeGraceMs?: number;
}

/** The HTTP + WebSocket front of a node: `/ws` (and `/n/<nodeId>/ws` behind an ingress), `/healthz`. */
export class GatewayServer {
  private readonly server: Server;
  private readonly wss: SocketServer<typeof GatewaySocket>;
  private readonly perIp = new Map<string, number>();
  /** Each open socket's connection, and the address it came from. */
  private readonly sockets = new Map<Connection, string>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly options: GatewayOptions,
    private readonly deps: ConnectionDeps,
  ) {
    const handler = (req: IncomingMessage, res: ServerResponse): void => {
      this.onHttp(req, res);
    };
    this.server = options.tls
      ? createHttpsServer({ cert: options.tls.cert, key: options.tls.key }, handler)
      : createHttpServer(handler);
    // ws closes frames past maxPayload with 1009 itself; below it we close with our own 4009.
    const maxPayload = Math.max(deps.limits.maxFrameBytes * 4, 1 << 20);
    // The server keeps its own set of sockets (`sockets`): `ws`'s tracking would add a listener to each.
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload,
      perMessageDeflate: false,
      clientTracking: false,
      WebSocket: GatewaySocket,
    });
    this.server.on("upgrade", (req, socket, head) => {
      this.onUpgrade(req, socket, head);
    });
    // One timer for every socket: a timer per socket would cost more than the pings.
    this.heartbeat = setInterval(() => {
      for (const connection of this.sockets.keys()) connection.heartbeat();
    }, options.heartbeatMs);
    this.heartbeat.unref();
  }

  /** Starts listening; resolves with the bound port. */
  async listen(): Promise<number> {
    await new Promise<void>((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.off("error", reject);
        resolve();
      });
    });
    return (this.server.address() as AddressInfo).port;
  }

  /** Number of open sockets. */
  get connections(): number {
    return this.sockets.size;
  }

  /** Closes every socket with `code` and keeps listening (a fenced node: its players resume elsewhere). */
  closeSockets(code: number, reason: string): void {
    for (const connection of this.sockets.keys()) connection.close(code, reason);
  }

  /**
   * Closes every socket with SHUTDOWN and stops listening. Clients get a moment to answer their close
   * frames, so they see 4032 (reconnect anywhere with resume) rather than a bare 1006; sockets still open
   * after `closeGraceMs` are dropped.
   */
  async close(): Promise<void> {
    clearInterval(this.heartbeat);
    const open = [...this.sockets.keys()];
    const gone = Promise.all(open.map((connection) => connection.whenClosed()));
    for (const connection of open) closeFor(connection, "SHUTDOWN");
    this.wss.close();
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, this.options.closeGraceMs ?? 500);
    });
    await Promise.race([gone, deadline]);
    clearTimeout(timer);
    for (const connection of this.sockets.keys()) connection.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }

  private onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/ws" && path !== `/n/${this.deps.nodeId}/ws`) {
      rejectUpgrade(socket, 404, "Not Found");
      return;
    }
    const origin = req.headers.origin;
    const allowed = this.options.allowedOrigins;
    if (allowed.length > 0 && origin !== undefined && !allowed.includes(origin)) {
      this.deps.onRefused?.("ORIGIN");
      rejectUpgrade(socket, 403, "Forbidden");
      return;
    }
    const ip = req.socket.remoteAddress ?? "unknown";
    const count = this.perIp.get(ip) ?? 0;
    if (count >= this.options.maxConnectionsPerIp) {
      this.deps.onRefused?.("CONNECTION_LIMIT");
      rejectUpgrade(socket, 429, "Too Many Requests");
      return;
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => {
      this.perIp.set(ip, (this.perIp.get(ip) ?? 0) + 1);
      this.sockets.set(new Connection(ws, this.deps, this.forget), ip);
    });
  }

  /** A socket has closed: one server-wide function, not a listener a socket. */
  private readonly forget = (connection: Connection): void => {
    const ip = this.sockets.get(connection);
    if (ip === undefined) return;
    this.sockets.delete(connection);
    const left = (this.perIp.get(ip) ?? 1) - 1;
    if (left <= 0) this.perIp.delete(ip);
    else this.perIp.set(ip, left);
  };

  private onHttp(req: IncomingMessage, res: ServerResponse): void {
    const url = parseTarget(req.url);
    if (!url) {
      json(res, 400, { error: "bad request target" });
      return;
    }
    if (url.pathname === "/healthz") {
      json(res, 200, { ok: true, node: this.deps.nodeId, sessions: this.deps.sessions.size });
      return;
    }
    if (url.pathname === "/dev/token" && this.options.dev) {
      this.devToken(url, res);
      return;
    }
    json(res, 404, { error: "not found" });
  }

  /** Dev mode only: a token for any name, so `npm start` can be played with no backend. */
  private devToken(url: URL, res: ServerResponse): void {
    const name = (url.searchParams.get("name") ?? "player").slice(0, 32) || "player";
    const player = (url.searchParams.get("player") ?? `dev-${name.toLowerCase()}`).slice(0, 128);
    const key = this.deps.tokenKeys[0];
    if (!key) {
      json(res, 503, { error: "no token key" });
      return;
    }
    const exp = Math.floor(this.deps.now() / 1000) + 24 * 3600;
    json(res, 200, { token: signPlayerToken({ sub: player, name, exp }, key), player, name });
  }
}

/**
 * The request target as a URL, or undefined when it does not parse. The HTTP parser accepts targets that
 * `new URL` refuses (`GET http://[ HTTP/1.1`): anyone may send one, so it must not throw.
 */
export function parseTarget(target: string | undefined): URL | undefined {
  try {
    return new URL(target ?? "/", "http://local");
  } catch {
    return undefined;
  }
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

function rejectUpgrade(socket: Duplex, status: number, text: string): void {
  socket.end(`HTTP/1.1 ${status} ${text}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
}
