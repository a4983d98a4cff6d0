import { z } from "zod";
import {
  createProblem,
  dataDeleteSchema,
  defaultLobbyOptions,
  lobbyDataSetSchema,
  metadataSchema,
  type LobbyOptions,
} from "../../actors/lobby/index.ts";
import { admitPlayers, hashLobbyPassword } from "../../gateway/index.ts";
import {
  codeSchema,
  drawCode,
  normalizeCode,
  playerIdSchema,
  playerNameSchema,
} from "../../actors/common/index.ts";
import { roomResultSchema } from "../../actors/room/index.ts";
import {
  isRetryable,
  type ActorSystem,
  type AskResult,
  type ErrorCode,
  type NodeState,
  type Random,
} from "../../actors/runtime/index.ts";
import type { LobbyListings } from "../../gateway/index.ts";
import type { DrainHook } from "./drain-hook.ts";
import { queryLobbiesAnswer } from "./lobby-query-api.ts";

/**
 * The studio's own backend API (docs/server-api.md), under `/api/v1` on the admin port: make a lobby for
 * given players, read it, kick a member, end a room, drain the node. Every call goes through the actors'
 * own messages (ActorSystem ask, which carries it to the owning node in a fleet), so any node's API serves
 * any lobby. Bad input is answered 400 with a typed error and changes nothing.
 */

/** What an API call answers: an HTTP status and a JSON body. */
export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
  /** Seconds, for a `retry-after` header (503). */
  readonly retryAfterSeconds?: number;
}

/** What the API drives. */
export interface ServerApiDeps {
  readonly system: ActorSystem;
  readonly lobby: Pick<LobbyOptions, "codeLength" | "codeAlphabet" | "maxMembers"> &
    Partial<Pick<LobbyOptions, "lobbyData">>;
  /** Cryptographic randomness for lobby codes. */
  readonly random: Random;
  /** The node's draining flag: a draining node makes no new lobbies. */
  readonly node: Pick<NodeState, "draining">;
  readonly drain?: DrainHook;
  /** The node's index of the fleet's public lobbies, for `POST /api/v1/lobbies/query`. */
  readonly listings?: LobbyListings;
}

/** How long a lobby made for players keeps their seats until they connect, unless the call says. */
export const defaultReserveSeconds = 60;
const maxCodeDraws = 8;
/**
 * How long `POST /api/v1/lobbies` waits for its players' registries to name the new lobby. The lobby tells
 * them as it starts; a player who connects before its registry heard finds no lobby (`noLobby`), and
 * through another node is not sent to it. Past this the answer goes out anyway: the lobby exists.
 */
const registryWaitMs = 3_000;
const registryPollMs = 20;

const playerSchema = z.strictObject({ id: playerIdSchema, name: playerNameSchema.optional() });

/** `POST /api/v1/lobbies`. */
export const createLobbyBodySchema = z
  .strictObject({
    host: playerSchema,
    members: z.array(playerSchema).max(100).default([]),
    public: z.boolean().default(false),
    metadata: metadataSchema.nullable().default(null),
    reserveSeconds: z.number().int().min(1).max(3600).default(defaultReserveSeconds),
    /** Lobby data and the door, as a player's `create` takes them (docs/lobbies.md). */
    data: lobbyDataSetSchema.default({}),
    maxMembers: z.number().int().min(1).max(100).optional(),
    locked: z.boolean().default(false),
    password: z.string().min(1).max(128).optional(),
  })
  .refine(
    (body) => new Set([body.host.id, ...body.members.map((m) => m.id)]).size === body.members.length + 1,
    { message: "a player is listed twice", path: ["members"] },
  );

/** `POST /api/v1/lobbies/:code/kick`. */
export const kickBodySchema = z.strictObject({
  player: playerIdSchema,
  /** The player may not join this lobby again while it lives. */
  ban: z.boolean().optional(),
  /** Told to the kicked player. */
  reason: z.string().max(200).optional(),
});

/** `POST /api/v1/lobbies/:code/data`: what the host's `setLobbyData` takes. */
export const lobbyDataBodySchema = z.strictObject({
  set: lobbyDataSetSchema.default({}),
  delete: dataDeleteSchema.default([]),
  ifVersion: z.number().int().min(0).optional(),
});

/** `POST /api/v1/lobbies/:code/door`: what the host's `setLobbyDoor` takes. */
export const lobbyDoorBodySchema = z.strictObject({
  maxMembers: z.number().int().min(1).max(100).optional(),
  locked: z.boolean().optional(),
  password: z.string().min(1).max(128).nullable().optional(),
});

/** `POST /api/v1/rooms/:code/end`. */
export const endRoomBodySchema = z.strictObject({ result: roomResultSchema.nullable().default(null) });

/** The typed error body every refusal carries. */
export function apiError(status: number, code: ErrorCode, message: string): ApiAnswer {
  return { status, body: { error: { code, message } } };
}

/** The HTTP status of an actor's refusal. */
function statusOf(code: ErrorCode): number {
  if (code === "INVALID" || code === "TOO_LARGE" || code === "DATA_LIMIT") return 400;
  if (code === "UNAUTHORIZED") return 401;
  if (code === "NOT_FOUND" || code === "NOT_IN_LOBBY" || code === "NOT_PLAYING") return 404;
  if (code === "TIMEOUT" || isRetryable(code)) return 503;
  if (code === "INTERNAL") return 500;
  return 409;
}

/** An ask's answer as HTTP: the value on success, the typed error otherwise. */
function answerOf(result: AskResult, ok: (value: unknown) => ApiAnswer): ApiAnswer {
  if (result.ok) return ok(result.value);
  const refused = apiError(statusOf(result.code), result.code, result.message);
  const retry = result.retryAfterMs ?? (statusOf(result.code) === 503 ? 1_000 : undefined);
  return retry === undefined
    ? refused
    : { ...refused, retryAfterSeconds: Math.max(1, Math.ceil(retry / 1000)) };
}

/** The first problem zod found, as one line. */
function invalid(error: z.ZodError): ApiAnswer {
  const issue = error.issues[0];
  const where = issue && issue.path.length > 0 ? `${issue.path.join(".")}: ` : "";
  return apiError(400, "INVALID", `${where}${issue?.message ?? "invalid body"}`);
}

/** A code from a path segment, normalised as players type it; undefined when no code could look so. */
function codeOf(segment: string): string | undefined {
  let decoded: string;
  try {
    decoded = decodeURIComponent(segment);
  } catch {
    return undefined;
  }
  const code = normalizeCode(decoded);
  return codeSchema.safeParse(code).success ? code : undefined;
}

type Handler = (params: readonly string[], body: unknown) => Promise<ApiAnswer>;

interface ApiRoute {
  readonly method: string;
  readonly pattern: RegExp;
  /** Takes a JSON body. */
  readonly body: boolean;
  readonly handle: Handler;
}

/** The routes of `/api/v1`, and the one entry point the admin server calls. */
export class ServerApi {
  private readonly routes: readonly ApiRoute[];

  constructor(private readonly deps: ServerApiDeps) {
    this.routes = [
      { method: "POST", pattern: /^\/api\/v1\/lobbies$/, body: true, handle: (_, b) => this.create(b) },
      { method: "GET", pattern: /^\/api\/v1\/lobbies\/([^/]+)$/, body: false, handle: (p) => this.read(p) },
      {
        method: "POST",
        pattern: /^\/api\/v1\/lobbies\/query$/,
        body: true,
        handle: (_, b) => Promise.resolve(queryLobbiesAnswer(this.deps.listings, b)),
      },
      {
        method: "POST",
        pattern: /^\/api\/v1\/lobbies\/([^/]+)\/kick$/,
        body: true,
        handle: (p, b) => this.kick(p, b),
      },
      {
        method: "POST",
        pattern: /^\/api\/v1\/lobbies\/([^/]+)\/data$/,
        body: true,
        handle: (p, b) => this.setData(p, b),
      },
      {
        method: "POST",
        pattern: /^\/api\/v1\/lobbies\/([^/]+)\/door$/,
        body: true,
        handle: (p, b) => this.setDoor(p, b),
      },
      {
        method: "POST",
        pattern: /^\/api\/v1\/rooms\/([^/]+)\/end$/,
        body: true,
        handle: (p, b) => this.endRoom(p, b),
      },
      { method: "POST", pattern: /^\/api\/v1\/drain$/, body: false, handle: () => this.drain() },
    ];
  }

  /** The route for `pathname`, or why there is none: 404 (no such path) or 405 (with the methods it takes). */
  route(method: string, pathname: string): { route: ApiRoute; params: string[] } | ApiAnswer {
    const matching = this.routes.flatMap((route) => {
      const match = route.pattern.exec(pathname);
      return match ? [{ route, params: match.slice(1) }] : [];
    });
    if (matching.length === 0) return apiError(404, "NOT_FOUND", `no API route ${pathname}`);
    const found = matching.find((m) => m.route.method === method);
    if (found) return found;
    const takes = matching.map((m) => m.route.method).join(", ");
    return apiError(405, "INVALID", `${pathname} takes ${takes}`);
  }

  /** Creates a lobby for the given players (see docs/server-api.md). */
  private async create(raw: unknown): Promise<ApiAnswer> {
    const parsed = createLobbyBodySchema.safeParse(raw);
    if (!parsed.success) return invalid(parsed.error);
    const body = parsed.data;
    const players = [body.host, ...body.members];
    if (players.length > this.deps.lobby.maxMembers) {
      return apiError(400, "FULL", `a lobby has at most ${this.deps.lobby.maxMembers} members`);
    }
    if (this.deps.node.draining()) {
      const refused = apiError(503, "UNAVAILABLE", "this node is draining: ask another node");
      return { ...refused, retryAfterSeconds: 1 };
    }
    const ref = (p: z.output<typeof playerSchema>) => ({ id: p.id, name: p.name ?? p.id.slice(0, 64) });
    const door = {
      data: body.data,
      locked: body.locked,
      ...(body.maxMembers ? { maxMembers: body.maxMembers } : {}),
    };
    const options = { ...defaultLobbyOptions, ...this.deps.lobby };
    const problem = createProblem(
      { code: "CHECK", host: ref(body.host), metadata: body.metadata, ...door },
      options,
    );
    if (problem !== undefined) return apiError(400, problem.code, problem.message);
    // Where a player is: the same rule as a player's own create (its refusals, its departures).
    const entry = { kind: "lobby", key: null } as const;
    const admission = await admitPlayers(
      this.deps.system,
      players.map((p) => p.id),
      entry,
    );
    if (!admission.ok) return answerOf(admission.refusal, () => ({ status: 500, body: null }));
    const made = await this.spawnFor(body, players, door, ref);
    if (made.status !== 201) admission.admitted.release();
    return made;
  }

  /** Spawns the lobby under a freshly drawn code, and answers its view once its players' registries know it. */
  private async spawnFor(
    body: z.output<typeof createLobbyBodySchema>,
    players: readonly z.output<typeof playerSchema>[],
    door: { data: Record<string, unknown>; locked: boolean; maxMembers?: number },
    ref: (p: z.output<typeof playerSchema>) => { id: string; name: string },
  ): Promise<ApiAnswer> {
    for (let draw = 0; draw < maxCodeDraws; draw++) {
      const code = drawCode(this.deps.random, this.deps.lobby.codeLength, this.deps.lobby.codeAlphabet);
      const key = `lobby/${code}`;
      const init = {
        code,
        host: ref(body.host),
        members: body.members.map(ref),
        public: body.public,
        metadata: body.metadata,
        reserveSeconds: body.reserveSeconds,
        ...door,
        passwordHash: body.password === undefined ? null : await hashLobbyPassword(code, body.password),
      };
      const spawned = await this.deps.system.spawn(key, init);
      if (!spawned.created) continue; // the code is taken: draw another
      if (!spawned.result.ok) return answerOf(spawned.result, () => ({ status: 500, body: null }));
      await this.registered(
        key,
        players.map((p) => p.id),
      );
      const view = await this.deps.system.ask(key, { type: "view" });
      return answerOf(view, (value) => ({ status: 201, body: { key, lobby: lobbyView(value) } }));
    }
    const refused = apiError(503, "UNAVAILABLE", "could not draw a free lobby code");
    return { ...refused, retryAfterSeconds: 1 };
  }

  /** Waits (at most `registryWaitMs`) until every player's registry names `key` as its lobby. */
  private async registered(key: string, players: readonly string[]): Promise<void> {
    const deadline = Date.now() + registryWaitMs;
    for (const player of players) {
      for (;;) {
        const found = await this.deps.system.ask(`player/${player}`, { type: "get" });
        if (found.ok && (found.value as { lobby?: unknown } | null)?.lobby === key) break;
        if (Date.now() >= deadline) return;
        await new Promise((resolve) => setTimeout(resolve, registryPollMs));
      }
    }
  }

  private async read(params: readonly string[]): Promise<ApiAnswer> {
    const code = codeOf(params[0] ?? "");
    if (code === undefined) return apiError(404, "NOT_FOUND", "no lobby has this code");
    const key = `lobby/${code}`;
    const view = await this.deps.system.ask(key, { type: "view" });
    return answerOf(view, (value) => ({ status: 200, body: { key, lobby: lobbyView(value) } }));
  }

  private async kick(params: readonly string[], raw: unknown): Promise<ApiAnswer> {
    const parsed = kickBodySchema.safeParse(raw);
    if (!parsed.success) return invalid(parsed.error);
    const code = codeOf(params[0] ?? "");
    if (code === undefined) return apiError(404, "NOT_FOUND", "no lobby has this code");
    const { player, ...how } = parsed.data;
    const kicked = await this.deps.system.ask(`lobby/${code}`, { type: "kick", target: player, ...how });
    return answerOf(kicked, () => ({ status: 200, body: { kicked: player, code } }));
  }

  /** Sets and deletes lobby data keys, as the host may (docs/server-api.md). */
  private async setData(params: readonly string[], raw: unknown): Promise<ApiAnswer> {
    const parsed = lobbyDataBodySchema.safeParse(raw);
    if (!parsed.success) return invalid(parsed.error);
    const code = codeOf(params[0] ?? "");
    if (code === undefined) return apiError(404, "NOT_FOUND", "no lobby has this code");
    const set = await this.deps.system.ask(`lobby/${code}`, { type: "setData", ...parsed.data });
    return answerOf(set, (value) => ({ status: 200, body: { code, ...(value as object) } }));
  }

  /** Changes the door, as the host may; a password is hashed here and only its hash goes on. */
  private async setDoor(params: readonly string[], raw: unknown): Promise<ApiAnswer> {
    const parsed = lobbyDoorBodySchema.safeParse(raw);
    if (!parsed.success) return invalid(parsed.error);
    const code = codeOf(params[0] ?? "");
    if (code === undefined) return apiError(404, "NOT_FOUND", "no lobby has this code");
    const { password, ...door } = parsed.data;
    const message: Record<string, unknown> = { type: "setDoor", ...door };
    if (password !== undefined) {
      message.passwordHash = password === null ? null : await hashLobbyPassword(code, password);
    }
    const set = await this.deps.system.ask(`lobby/${code}`, message);
    return answerOf(set, (value) => ({ status: 200, body: { code, ...(value as object) } }));
  }

  private async endRoom(params: readonly string[], raw: unknown): Promise<ApiAnswer> {
    const parsed = endRoomBodySchema.safeParse(raw);
    if (!parsed.success) return invalid(parsed.error);
    const code = codeOf(params[0] ?? "");
    if (code === undefined) return apiError(404, "NOT_FOUND", "no room has this code");
    const ended = await this.deps.system.ask(`room/${code}`, {
      type: "serverEnd",
      result: parsed.data.result,
    });
    const answer = answerOf(ended, () => ({ status: 200, body: { ended: code } }));
    // A room that ended has stopped: its key is gone, and so is the room.
    return answer.status === 404 ? apiError(404, "NOT_FOUND", `no room ${code} is running`) : answer;
  }

  private async drain(): Promise<ApiAnswer> {
    if (!this.deps.drain) return apiError(409, "INVALID", "this node cannot drain");
    const answer = await this.deps.drain();
    return { status: answer.accepted ? 202 : 409, body: answer };
  }

  /** Runs a matched route. */
  async call(method: string, pathname: string, body: () => Promise<unknown>): Promise<ApiAnswer> {
    const found = this.route(method, pathname);
    if (!("route" in found)) return found;
    let parsed: unknown = undefined;
    if (found.route.body) {
      try {
        parsed = await body();
      } catch (error) {
        return apiError(400, "INVALID", error instanceof Error ? error.message : "the body is not JSON");
      }
    }
    return found.route.handle(found.params, parsed);
  }
}

/** A lobby's `view` answer without the frame's `type`: what the API shows of it. */
function lobbyView(value: unknown): unknown {
  if (typeof value !== "object" || value === null) return value;
  const { type: _type, ...view } = value as Record<string, unknown>;
  return view;
}
