import { signPlayerToken, type TokenKey } from "../../gateway/auth/player-token.ts";
import { FoyerClient, isFoyerError } from "../../gateway/client/index.ts";
import type { Random } from "../../actors/runtime/index.ts";
import type { BotOpKind, ChaosJournal, DataChange, FinalView, OpOutcome } from "./chaos-journal.ts";
import { listeningSocket } from "./listening-socket.ts";

/** What bots share: the fleet's URLs and token key, the journal, the codes of lobbies others made. */
export interface BotContext {
  readonly urls: readonly string[];
  readonly tokenKey: TokenKey;
  readonly journal: ChaosJournal;
  /** Codes of lobbies bots created, for joins by code. */
  readonly codes: string[];
  /** The next op id (one counter for every bot, so ids order sends). */
  nextOpId: () => number;
  /** The deadline of each request, retries included. */
  readonly callTimeoutMs: number;
}

/** Errors after which a request may or may not have been applied. */
const uncertain = new Set(["TIMEOUT", "UNAVAILABLE", "MOVED", "RATE_LIMITED"]);

/**
 * One player of the chaos load: an SDK client on a listening socket, doing one lobby request at a time —
 * create (private, or public with a few seats), join by code, quick join, ready, leave, make host, start
 * and return, lobby data (with and without `ifVersion`), member data, chat, kick with a ban, lock and
 * unlock, reconnect — chosen by its own seeded random source, and recording each request with its outcome.
 */
export class ChaosBot {
  readonly client: FoyerClient;
  /** The node that welcomed the bot last (null before its first welcome). */
  protected node: string | null = null;
  private connected = false;
  private closed = false;
  /** Data changes sent, for values unique to each request. */
  private changes = 0;

  constructor(
    readonly id: string,
    protected readonly ctx: BotContext,
    protected readonly random: Random,
    /** The node the bot connects to first (default: one drawn from `random`). */
    first: number = random.int(ctx.urls.length),
  ) {
    const key = ctx.tokenKey;
    this.client = new FoyerClient({
      urls: rotate(ctx.urls, first),
      token: () => signPlayerToken({ sub: id, name: id, exp: Math.floor(Date.now() / 1000) + 3600 }, key),
      reconnectMinMs: 50,
      reconnectMaxMs: 1_000,
      callTimeoutMs: ctx.callTimeoutMs,
      WebSocket: listeningSocket(id, (frame) => ctx.journal.heard.push(frame)),
    });
    this.client.on("connected", ({ node }) => {
      this.connected = true;
      this.node = node;
      ctx.journal.connections.push({ bot: id, at: Date.now(), connected: true, node });
    });
    this.client.on("disconnected", () => {
      this.connected = false;
      ctx.journal.connections.push({ bot: id, at: Date.now(), connected: false, node: null });
    });
    this.client.on("closed", () => {
      this.connected = false;
      this.closed = true;
    });
  }

  get isConnected(): boolean {
    return this.connected;
  }

  /** Plays until `done()` says stop, a pause of 150–700 ms between requests. */
  async play(done: () => boolean): Promise<void> {
    while (!done() && !this.closed) {
      await this.step();
      await new Promise((resolve) => setTimeout(resolve, 150 + this.random.int(550)));
    }
  }

  /** What the bot looks like now, for the audit. */
  view(): FinalView {
    const lobby = this.client.lobby;
    return {
      bot: this.id,
      connected: this.connected,
      closed: this.closed,
      lobby: lobby && {
        code: lobby.code,
        host: lobby.host,
        members: lobby.members.map((m) => ({ player: m.player, ready: m.ready, connected: m.connected })),
        epoch: lobby.epoch,
        seq: lobby.seq,
      },
    };
  }

  /** One request, chosen by what the bot sees of its lobby. */
  protected async step(): Promise<void> {
    const lobby = this.client.lobby;
    const roll = this.random.int(100);
    if (!lobby) {
      const code = this.ctx.codes[this.random.int(Math.max(1, this.ctx.codes.length))];
      if (roll < 30 || code === undefined) await this.create();
      else if (roll < 70) await this.send("join", code, null, () => this.client.join(code));
      else if (roll < 92) await this.quickJoin();
      else await this.reconnect();
      return;
    }
    const me = lobby.members.find((m) => m.player === this.id);
    const isHost = lobby.host === this.id;
    const other = lobby.members.filter((m) => m.player !== this.id)[
      this.random.int(Math.max(1, lobby.members.length - 1))
    ];
    if (roll < 26) {
      const ready = !(me?.ready ?? false);
      await this.send("ready", lobby.code, ready, () => this.client.ready(ready));
    } else if (roll < 37) {
      await this.send("leave", lobby.code, null, () => this.client.leave());
    } else if (roll < 42) {
      const code = this.ctx.codes[this.random.int(Math.max(1, this.ctx.codes.length))];
      if (code !== undefined && code !== lobby.code)
        await this.send("join", code, null, () => this.client.join(code));
    } else if (roll < 50 && isHost && other) {
      await this.send("makeHost", lobby.code, other.player, () => this.client.makeHost(other.player));
    } else if (roll < 54 && isHost && !lobby.playing) {
      const started = await this.send("start", lobby.code, "ffa", () => this.client.start("ffa"));
      if (started === "acked") await this.send("return", lobby.code, null, () => this.client.return());
    } else if (roll < 60) {
      await this.reconnect();
    } else {
      await this.dataStep(roll, isHost, other?.player);
    }
  }

  /** Lobby data, member data, chat, a kick with a ban, the lock — or idling (a third of the time). */
  private async dataStep(roll: number, isHost: boolean, other: string | undefined): Promise<void> {
    const lobby = this.client.lobby;
    if (!lobby) return;
    const value = `${this.id}.${(this.changes += 1)}`;
    if (roll < 68 && isHost) {
      const key = `k${this.random.int(3)}`;
      const ifVersion = this.random.int(2) === 0 ? lobby.version : null;
      const data: DataChange = { key, value, ifVersion };
      const set = { [key]: { value, visibility: this.random.int(2) === 0 ? "public" : "member" } } as const;
      await this.send(
        "setLobbyData",
        lobby.code,
        null,
        () => this.client.setLobbyData(set, ifVersion === null ? {} : { ifVersion }),
        data,
      );
    } else if (roll < 75) {
      const key = `m${this.random.int(2)}`;
      const data: DataChange = { key, value, ifVersion: null };
      await this.send(
        "setMemberData",
        lobby.code,
        null,
        () => this.client.setMemberData({ [key]: value }),
        data,
      );
    } else if (roll < 79) {
      await this.send("chat", lobby.code, null, () => this.client.sendLobbyChat(value));
    } else if (roll < 81 && isHost && other !== undefined) {
      await this.send("kick", lobby.code, other, () =>
        this.client.kick(other, { ban: true, reason: "chaos" }),
      );
    } else if (roll < 84 && isHost) {
      const locked = !lobby.locked;
      await this.send("lock", lobby.code, locked, () => this.client.lock(locked));
    }
  }

  /** Joins the fullest public chaos lobby with a free seat, or creates one. */
  protected async quickJoin(): Promise<OpOutcome> {
    return this.send("quickJoin", null, null, () =>
      this.client.quickJoin({
        filters: [{ field: "mode", op: "eq", value: "chaos" }],
        orCreate: { data: { mode: "chaos" } },
      }),
    );
  }

  /** Creates a lobby; a shared one is offered to the other bots' joins. Returns its code, or null. */
  protected async create(share = true): Promise<string | null> {
    const sentAt = Date.now();
    const id = this.ctx.nextOpId();
    try {
      // Half public, with 3–5 seats: what quick joins fill (and must never overfill).
      const open = this.random.int(2) === 0;
      const { code } = await this.client.create(
        open ? { public: true, metadata: { mode: "chaos" }, maxMembers: 3 + this.random.int(3) } : {},
      );
      if (share) this.ctx.codes.push(code);
      if (this.ctx.codes.length > 64) this.ctx.codes.shift();
      this.record(id, "create", code, null, sentAt, "acked", null);
      return code;
    } catch (error) {
      this.record(id, "create", null, null, sentAt, outcomeOf(error), String(error));
      return null;
    }
  }

  /**
   * Sends a request and records it; a join (or quick join) records the code the node answered, a data
   * change the key and value it set and the version answered.
   */
  protected async send(
    kind: BotOpKind,
    code: string | null,
    arg: boolean | string | null,
    call: () => Promise<unknown>,
    data?: DataChange,
  ): Promise<OpOutcome> {
    const sentAt = Date.now();
    const id = this.ctx.nextOpId();
    const extra = data === undefined ? {} : { data };
    try {
      const value = (await call()) as
        { code?: unknown; lobby?: unknown; version?: unknown } | null | undefined;
      const answered =
        kind === "join" || kind === "quickJoin"
          ? value?.code
          : kind === "joinActivity"
            ? value?.lobby
            : undefined;
      const version = typeof value?.version === "number" ? value.version : null;
      this.record(id, kind, typeof answered === "string" ? answered : code, arg, sentAt, "acked", null, {
        ...extra,
        version,
      });
      return "acked";
    } catch (error) {
      const outcome = outcomeOf(error);
      this.record(id, kind, code, arg, sentAt, outcome, String(error), extra);
      return outcome;
    }
  }

  /** Drops the socket as a network failure would, and waits for the SDK to resume (up to the call deadline). */
  protected async reconnect(): Promise<void> {
    const sentAt = Date.now();
    const id = this.ctx.nextOpId();
    const code = this.client.lobby?.code ?? null;
    const back = new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        resolve(false);
      }, this.ctx.callTimeoutMs);
      const off = this.client.on("connected", () => {
        off();
        clearTimeout(timer);
        resolve(true);
      });
    });
    this.client.dropConnection();
    const ok = await back;
    this.record(id, "reconnect", code, null, sentAt, ok ? "acked" : "unknown", ok ? null : "no welcome");
  }

  private record(
    id: number,
    kind: BotOpKind,
    code: string | null,
    arg: boolean | string | null,
    sentAt: number,
    outcome: OpOutcome,
    error: string | null,
    extra: { data?: DataChange; version?: number | null } = {},
  ): void {
    this.ctx.journal.ops.push({
      ...extra,
      id,
      bot: this.id,
      kind,
      code,
      arg,
      sentAt,
      endedAt: Date.now(),
      outcome,
      error,
    });
  }
}

function outcomeOf(error: unknown): OpOutcome {
  return isFoyerError(error) && !uncertain.has(error.code) ? "refused" : "unknown";
}

/** The URLs starting at `first`, so bots spread over the nodes. */
function rotate(urls: readonly string[], first: number): string[] {
  return [...urls.slice(first), ...urls.slice(0, first)];
}
