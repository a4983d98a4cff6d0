import { createHash, timingSafeEqual } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import type { Logger } from "pino";
import { parseTarget } from "../../gateway/index.ts";
import type { PageRoute } from "./dashboard/dashboard-pages.ts";
import type { NodeMetrics } from "./node-metrics.ts";
import type { DrainHook } from "./drain-hook.ts";
import type { NodeStatus } from "./node-status.ts";
import { apiError, type ApiAnswer, type ServerApi } from "./server-api.ts";

/** Where the admin API listens and what it asks of callers. */
export interface AdminServerOptions {
  readonly host: string;
  readonly port: number;
  /** Every request must carry `Authorization: Bearer <token>`; absent = no check (loopback only). */
  readonly token?: string;
  /**
   * Without a token, the server API (`/api/v1`) is open only when this is true: a dev-mode node whose
   * admin port is on loopback. Otherwise it answers 401 until the node has `--admin-token`.
   */
  readonly apiWithoutToken?: boolean;
}

/** What the admin API reads and drives. */
export interface AdminDeps {
  readonly metrics: NodeMetrics;
  readonly status: () => NodeStatus;
  readonly drain?: DrainHook;
  /** `GET /fleet`: this node's view of the fleet (a node in a fleet only). */
  readonly fleet?: () => unknown;
  /** `GET /cluster`: the whole fleet for the dashboard. */
  readonly cluster?: () => Promise<unknown>;
  /** The studio's server API under `/api/v1` (docs/server-api.md). */
  readonly api?: ServerApi;
  /** Pages served without the token (`/dashboard`, `/demo`): they hold no data; what they read does. */
  readonly pages?: Readonly<Record<string, PageRoute>>;
  readonly logger: Logger;
}

type Route = (res: ServerResponse) => Promise<void>;

/**
 * The operator's HTTP API of one node, on its own port: `GET /metrics` (Prometheus), `GET /status`
 * (JSON), `POST /drain`. Plain node:http: three routes do not need a framework.
 */
export class AdminServer {
  private readonly server: Server;
  private readonly routes: Readonly<Record<string, Partial<Record<string, Route>>>>;
  private readonly tokenDigest: Buffer | undefined;

  constructor(
    private readonly options: AdminServerOptions,
    private readonly deps: AdminDeps,
  ) {
    this.tokenDigest = options.token === undefined ? undefined : digest(options.token);
    this.routes = {
      "/metrics": { GET: (res) => this.metrics(res) },
      "/status": { GET: (res) => this.status(res) },
      "/drain": { POST: (res) => this.drain(res) },
      ...optionalRoute("/fleet", deps.fleet, (res, read) => this.answer(res, read)),
      ...optionalRoute("/cluster", deps.cluster, (res, read) => this.answer(res, read)),
    };
    this.server = createServer((req, res) => {
      this.onRequest(req, res).catch((error: unknown) => {
        deps.logger.error({ err: error, url: req.url }, "admin request failed");
        if (!res.headersSent) json(res, 500, { error: "the request failed" });
        else res.destroy();
      });
    });
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

  /** Stops listening and drops open connections (a scraper's keep-alive would hold the close). */
  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) =>
      this.server.close(() => {
        resolve();
      }),
    );
  }

  private async onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = parseTarget(req.url);
    const page = target && req.method === "GET" ? this.deps.pages?.[target.pathname] : undefined;
    if (target && page) {
      const answer = await page(target);
      res.writeHead(answer.status, { "content-type": answer.contentType, "cache-control": "no-cache" });
      res.end(answer.body);
      return;
    }
    if (target?.pathname.startsWith("/api/")) {
      await this.api(req, res, target.pathname);
      return;
    }
    if (this.tokenDigest && !bearerMatches(req.headers.authorization, this.tokenDigest)) {
      res.setHeader("www-authenticate", 'Bearer realm="foyer-admin"');
      json(res, 401, { error: "this admin API needs Authorization: Bearer <admin token>" });
      return;
    }
    const url = parseTarget(req.url);
    if (!url) {
      json(res, 400, { error: "bad request target" });
      return;
    }
    const methods = this.routes[url.pathname];
    if (!methods) {
      json(res, 404, { error: "not found", routes: Object.keys(this.routes) });
      return;
    }
    const route = methods[req.method ?? ""];
    if (!route) {
      res.setHeader("allow", Object.keys(methods).join(", "));
      json(res, 405, { error: `${url.pathname} takes ${Object.keys(methods).join(", ")}` });
      return;
    }
    await route(res);
  }

  /**
   * The server API: always behind the token, except on a dev-mode node whose admin port is loopback and
   * has no token (docs/server-api.md "Authentication"). Errors are `{ error: { code, message } }`.
   */
  private async api(req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
    const open = this.tokenDigest === undefined && this.options.apiWithoutToken === true;
    if (!open && !(this.tokenDigest && bearerMatches(req.headers.authorization, this.tokenDigest))) {
      res.setHeader("www-authenticate", 'Bearer realm="foyer-admin"');
      const message = this.tokenDigest
        ? "the server API needs Authorization: Bearer <admin token>"
        : "the server API needs the node to run with --admin-token (FOYER_ADMIN_TOKEN)";
      apiJson(res, apiError(401, "UNAUTHORIZED", message));
      return;
    }
    if (!this.deps.api) {
      apiJson(res, apiError(404, "NOT_FOUND", "this node serves no server API"));
      return;
    }
    const answer = await this.deps.api.call(req.method ?? "", pathname, () => readJsonBody(req));
    apiJson(res, answer);
  }

  private async metrics(res: ServerResponse): Promise<void> {
    const { text, contentType } = await this.deps.metrics.exposition();
    res.writeHead(200, { "content-type": contentType });
    res.end(text);
  }

  private status(res: ServerResponse): Promise<void> {
    json(res, 200, this.deps.status());
    return Promise.resolve();
  }

  private async answer(res: ServerResponse, read: () => unknown): Promise<void> {
    json(res, 200, await read());
  }

  private async drain(res: ServerResponse): Promise<void> {
    if (!this.deps.drain) {
      json(res, 501, { error: "drain is not available on this node yet: this release cannot move lobbies" });
      return;
    }
    const answer = await this.deps.drain();
    json(res, answer.accepted ? 202 : 409, answer);
  }
}

/** A GET route answering what `read` gives, when the node has it. */
function optionalRoute(
  path: string,
  read: (() => unknown) | undefined,
  answer: (res: ServerResponse, read: () => unknown) => Promise<void>,
): Record<string, Partial<Record<string, Route>>> {
  return read ? { [path]: { GET: (res) => answer(res, read) } } : {};
}

/** SHA-256 of a token: equal-length digests let the comparison take the same time whatever was sent. */
function digest(token: string): Buffer {
  return createHash("sha256").update(token, "utf8").digest();
}

/** True when the header is `Bearer <token>` with the expected token, compared in constant time. */
function bearerMatches(header: string | undefined, expected: Buffer): boolean {
  const given = /^Bearer +(\S+)\s*$/i.exec(header ?? "")?.[1] ?? "";
  return timingSafeEqual(digest(given), expected);
}

/** The largest request body the server API reads. */
const maxBodyBytes = 64 * 1024;

/** Reads a request's JSON body (an empty body is `{}`); throws with a message a caller can read. */
async function readJsonBody(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBodyBytes) throw new Error(`the body is larger than ${maxBodyBytes} bytes`);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString("utf8").trim();
  if (text === "") return {};
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new Error("the body is not JSON");
  }
}

function apiJson(res: ServerResponse, answer: ApiAnswer): void {
  if (answer.retryAfterSeconds !== undefined) res.setHeader("retry-after", String(answer.retryAfterSeconds));
  json(res, answer.status, answer.body);
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}
