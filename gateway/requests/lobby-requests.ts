import {
  isRetryable,
  type ActorSystem,
  type AskResult,
  type NewLobbyPlace,
  type OwnerLocation,
  type Random,
  type RequestId,
} from "../../actors/runtime/index.ts";
import { createProblem, defaultLobbyOptions, type LobbyOptions } from "../../actors/lobby/index.ts";
import { normalizeCode, roomKey } from "../../actors/common/index.ts";
import type { LobbyRequestFrame } from "../protocol/client-frames.ts";
import type { RedirectReason } from "../protocol/server-frames.ts";
import { enteredOrNot, type Session } from "../sessions/index.ts";
import type { BlobRequests } from "./blob-requests.ts";
import { createUnderFreshCode, type CodeAttempt, type DrawnCode } from "./fresh-code.ts";
import { throughRule } from "./entry-rule.ts";
import { refused } from "./refused.ts";
import { hashLobbyPassword } from "../lobby-password.ts";

/** What the private lobby's requests need: the actors, code drawing, and the fleet's owners. */
export interface LobbyRequestsDeps {
  readonly system: ActorSystem;
  /** Codes, and the limits a create is checked against (the defaults where left out). */
  readonly lobby: Pick<LobbyOptions, "codeLength" | "codeAlphabet"> &
    Partial<Pick<LobbyOptions, "maxMembers" | "lobbyData">>;
  /** Cryptographic randomness for invite codes. */
  readonly random: Random;
  /**
   * Where the node that owns a key is (always here without a fleet). A join of a lobby owned elsewhere
   * redirects the player's socket there; one being taken over is refused UNAVAILABLE. Never rejects.
   */
  readonly ownerOf: (key: string) => Promise<OwnerLocation>;
  /**
   * Where a new lobby goes: here, or a peer the player is redirected to (this node drains, or holds its
   * `--max-lobbies`), or nowhere (every node holds its lobbies). Unset: always here.
   */
  readonly placeNew?: () => NewLobbyPlace;
  /** Called once per `redirect` frame sent, with its reason (the node counts them). */
  readonly onRedirect?: (reason: RedirectReason) => void;
  /** Uploads a start may hand to its room; without it a start naming one is refused. */
  readonly blobs?: BlobRequests;
}

const codePattern = /^[A-Z0-9]{1,32}$/;
/** After eight taken codes the code space is crowded: give the lobbies a moment to close. */
const noFreeCodeRetryMs = 1_000;

/** What a create asks for besides its code and host (the password still in clear: hashed per code). */
interface CreateFields {
  public: boolean;
  metadata: Record<string, string | number | boolean> | null;
  data?: Record<string, { value: string | number | boolean; visibility?: "public" | "member" }>;
  maxMembers?: number;
  locked?: boolean;
  password?: string;
}

function createFieldsOf(frame: Extract<LobbyRequestFrame, { type: "create" }>): CreateFields {
  const { type: _type, id: _id, ack: _ack, public: isPublic, metadata, ...rest } = frame;
  // Only the fields given: the spawn's init crosses the fleet, and an absent field takes its default there.
  const given = Object.fromEntries(Object.entries(rest).filter(([, value]) => value !== undefined));
  return { public: isPublic ?? false, metadata: metadata ?? null, ...given };
}

const notInLobby: AskResult = { ok: false, code: "NOT_IN_LOBBY", message: "you are not in a lobby" };

/**
 * The private lobby's requests of a session (`join` … `finish`): each becomes an ask of the lobby the
 * session is in, or a create of a new one under a freshly drawn code.
 */
export class LobbyRequests {
  constructor(private readonly deps: LobbyRequestsDeps) {}

  /** Answers one private lobby request. Never throws. */
  handle(session: Session, frame: LobbyRequestFrame, request: RequestId): Promise<AskResult> {
    const player = session.player;
    switch (frame.type) {
      case "join":
        return this.join(session, normalizeCode(frame.code), request, frame.password);
      case "create":
        return this.create(session, createFieldsOf(frame), request);
      case "leave":
        return this.leave(session, request);
      case "ready":
        return this.inLobby(session, { type: "ready", player, ready: frame.ready }, request);
      case "profile":
        session.name = frame.name;
        return this.inLobby(session, { type: "profile", player, name: frame.name }, request);
      case "start":
        return this.start(session, frame.mode, frame.blob, request);
      case "makeHost":
        return this.inLobby(session, { type: "makeHost", player, target: frame.player }, request);
      case "return":
        return this.inLobby(session, { type: "return", player }, request);
      case "finish":
        return this.finish(session, request);
    }
  }

  /** The host starts its lobby's room, with a finished upload as the room's document when it names one. */
  private async start(
    session: Session,
    mode: string,
    blobId: string | undefined,
    request: RequestId,
  ): Promise<AskResult> {
    const player = session.player;
    if (blobId === undefined) return this.inLobby(session, { type: "start", player, mode }, request);
    if (!this.deps.blobs) return refused("INVALID", "this node takes no documents");
    const blob = this.deps.blobs.claim(player, blobId);
    if ("ok" in blob) return blob;
    const result = await this.inLobby(session, { type: "start", player, mode, blob }, request);
    if (!result.ok && !isRetryable(result.code)) this.deps.blobs.unclaim(player, blob);
    if (result.ok) {
      const room = (result.value as { room?: unknown } | undefined)?.room;
      if (typeof room === "string") this.deps.blobs.held(blob, roomKey(room));
    }
    return result;
  }

  /**
   * Leaves the player's lobby. Leaving when in no lobby — or a lobby that is gone, as for a retried leave
   * of the last member whose lobby closed — is a no-op success: the player is out either way.
   */
  async leave(session: Session, request: RequestId): Promise<AskResult> {
    const leaving = session.lobby;
    const result = await this.inLobby(session, { type: "leave", player: session.player }, request);
    if (!result.ok && result.code !== "NOT_IN_LOBBY") return result;
    // Unless a join of another lobby completed meanwhile: then the session is where that join put it.
    if (session.lobby === leaving || session.lobby === null) {
      session.lastLobby = leaving ?? session.lastLobby;
      session.lobby = null;
      // A player who left has no seat to finish: a later finish must not reach its old room. A room it
      // created or joined directly is not the lobby's, and keeps its seat.
      if (!session.directRoom) {
        session.room = null;
        session.lastRoom = null;
      }
    }
    return result.ok ? result : { ok: true };
  }

  /** Reports a match over. A room that already ended (another player's finish, or a retry) is done. */
  private async finish(session: Session, request: RequestId): Promise<AskResult> {
    const room = session.room ?? session.lastRoom;
    if (!room) return refused("NOT_PLAYING", "you are not seated in a room");
    const result = await this.deps.system.ask(room, { type: "finish", player: session.player }, { request });
    if (!result.ok && result.code === "NOT_FOUND") return { ok: true };
    return result;
  }

  /** A join of the lobby `code` (a `join` frame's; `quickJoin` joins through here too). */
  async join(session: Session, code: string, request: RequestId, password?: string): Promise<AskResult> {
    if (code === "") return this.create(session, { public: false, metadata: null }, request);
    if (!codePattern.test(code)) return refused("NOT_FOUND", `no lobby has the code ${code.slice(0, 32)}`);
    const key = `lobby/${code}`;
    const owner = await this.deps.ownerOf(key);
    if (owner.kind === "elsewhere") {
      session.send({ type: "redirect", url: owner.url, reason: "lobby" });
      this.deps.onRedirect?.("lobby");
      return { ok: false, code: "MOVED", message: `lobby ${code} lives on another node`, retryAfterMs: 100 };
    }
    if (owner.kind === "waiting") {
      const message = `lobby ${code} is being taken over by another node`;
      return { ok: false, code: "UNAVAILABLE", message, retryAfterMs: owner.retryAfterMs };
    }
    const player = { id: session.player, name: session.name };
    const passwordHash =
      password === undefined ? {} : { passwordHash: await hashLobbyPassword(code, password) };
    const join = { type: "join", player, ...passwordHash };
    const result = await this.entering(session, key, () =>
      throughRule(this.deps.system, session, { kind: "lobby", key }, () =>
        this.deps.system.ask(key, join, { request }),
      ),
    );
    if (result.ok) {
      if (session.lobby && session.lobby !== key) session.lastLobby = session.lobby;
      session.lobby = key;
    }
    enteredOrNot(session, key, result, this.deps.system);
    if (!result.ok && result.code === "NOT_FOUND")
      return refused("NOT_FOUND", `no lobby has the code ${code}`);
    return result;
  }

  /** Runs a join or create of `key`, marking the session as entering it meanwhile (see SessionRegistry). */
  private async entering<T>(session: Session, key: string, enter: () => Promise<T>): Promise<T> {
    session.entering = key;
    try {
      return await enter();
    } finally {
      if (session.entering === key) session.entering = null;
    }
  }

  /**
   * Creates a lobby with a fresh code (`createUnderFreshCode`: a retried create — same session and
   * request id — returns the same lobby instead of a second one), where placement says: here, or on the
   * peer the player is redirected to, or nowhere when every node holds its lobbies (`FULL`).
   */
  async create(session: Session, fields: CreateFields, request: RequestId): Promise<AskResult> {
    const { password, ...lobbyFields } = fields;
    const host = { id: session.player, name: session.name };
    const problem = createProblem(
      { code: "CHECK", host, ...lobbyFields },
      { ...defaultLobbyOptions, ...this.deps.lobby },
    );
    if (problem !== undefined) return refused(problem.code, problem.message);
    const place = this.deps.placeNew?.();
    if (place?.kind === "elsewhere") {
      // The new lobby is made on a peer, where the SDK re-sends the create.
      session.send({ type: "redirect", url: place.url, reason: place.reason });
      this.deps.onRedirect?.(place.reason);
      const why = place.reason === "drain" ? "this node is draining" : "this node holds its lobby limit";
      return { ok: false, code: "MOVED", message: why, retryAfterMs: 100 };
    }
    if (place?.kind === "full") return refused("FULL", place.message);
    const { codeLength, codeAlphabet } = this.deps.lobby;
    const codes = { ...this.deps, codeLength, codeAlphabet, what: "lobby", retryAfterMs: noFreeCodeRetryMs };
    return createUnderFreshCode(codes, session, request, (drawn) =>
      this.createAs(session, drawn, lobbyFields, password, request),
    );
  }

  /** One code's attempt of a create: the lobby made, the retried create's lobby joined, or `taken`. */
  private async createAs(
    session: Session,
    { code, recordedBefore }: DrawnCode,
    choices: Omit<CreateFields, "password">,
    password: string | undefined,
    request: RequestId,
  ): Promise<CodeAttempt> {
    const key = `lobby/${code}`;
    const passwordHash = password === undefined ? null : await hashLobbyPassword(code, password);
    const init = { code, host: { id: session.player, name: session.name }, ...choices, passwordHash };
    const spawned = await this.entering(session, key, () =>
      this.spawnThroughRule(session, key, init, request),
    );
    if (spawned.created) {
      if (spawned.result.ok) session.lobby = key;
      enteredOrNot(session, key, spawned.result, this.deps.system);
      return spawned.result;
    }
    // A code taken by another lobby: nothing of this player's was in it, so nothing is held for it.
    session.releaseDisconnect(key);
    if (!recordedBefore) return "taken";
    // A retry of a create that already made its lobby: answer with it (and resend its state).
    const again = await this.join(session, code, request);
    // No lobby under the recorded code (its first attempt was refused before the lobby was stored):
    // the player is in nothing there, so a fresh code is drawn.
    if (!again.ok && again.code === "NOT_FOUND") return "taken";
    return again.ok ? { ok: true, value: { code } } : again;
  }

  /** A new lobby is an entry like a join: the rule may refuse it, and decides what it leaves. */
  private async spawnThroughRule(
    session: Session,
    key: string,
    init: object,
    request: RequestId,
  ): Promise<{ created: false } | { created: true; result: AskResult }> {
    const code = { taken: false };
    // The entry names its code (drawn before the rule is asked): a retry of a create whose lobby was made
    // finds the player there and leaves nothing. An unnamed new lobby (`key: null`) would count the
    // player's own lobby as one to leave, and its intent, once made or expired unreported (a lost report,
    // an answer lost after the registry recorded it), would take the player out of the lobby it created.
    const entry = { kind: "lobby", key } as const;
    const result = await throughRule(this.deps.system, session, entry, async () => {
      const spawned = await this.deps.system.spawn(key, init, { request });
      code.taken = !spawned.created;
      // A code taken by another lobby is no entry made: the next draw asks again.
      return spawned.created ? spawned.result : refused("INVALID", `the code of ${key} is taken`);
    });
    return code.taken ? { created: false } : { created: true, result };
  }

  /** Asks the session's lobby (the data, door and chat requests come through here too). */
  async inLobby(
    session: Session,
    message: { type: string; player: string } & Record<string, unknown>,
    request: RequestId,
  ): Promise<AskResult> {
    // Without a current lobby the request still goes to the last one: if it is a retry whose answer
    // was lost, the lobby answers with its first result; otherwise it refuses NOT_IN_LOBBY itself.
    const key = session.lobby ?? session.lastLobby;
    if (!key) return notInLobby;
    const result = await this.deps.system.ask(key, message, { request });
    if (!result.ok && result.code === "NOT_FOUND") {
      if (session.lobby === key) session.lobby = null;
      return notInLobby;
    }
    return result;
  }
}
