import {
  isRetryable,
  type ActorSystem,
  type AskResult,
  type ErrorCode,
  type OwnerLocation,
  type Random,
  type RequestId,
} from "../actors/runtime/index.ts";
import type { BlobRequests } from "./blob-requests.ts";
import type { LobbyOptions } from "../actors/lobby/index.ts";
import { drawCode, normalizeCode, roomKey } from "../actors/shared/index.ts";
import { ActivityRequests } from "./activity-requests.ts";
import { MatchmakingRequests } from "./matchmaking-requests.ts";
import type { RequestFrame } from "./protocol/client-frames.ts";
import type { RedirectReason } from "./protocol/server-frames.ts";
import { RoomRequests } from "./room-requests.ts";
import { enteredOrNot, type Session } from "./session-registry.ts";

/** Where requests go and how new lobby codes are drawn. */
export interface LobbyRequestsDeps {
  readonly system: ActorSystem;
  readonly lobby: Pick<LobbyOptions, "codeLength" | "codeAlphabet">;
  /** Cryptographic randomness for invite codes. */
  readonly random: Random;
  /** False when the node may open no more rooms (a direct `createRoom` is then retryable). */
  readonly canOpenRoom?: () => boolean;
  /**
   * In a fleet: where the node that owns a key is. A join of a lobby owned elsewhere redirects the
   * player's socket there (the SDK follows and re-sends the join); one whose owner went silent and is
   * being taken over is refused UNAVAILABLE, which the SDK retries.
   */
  readonly locateOwner?: (key: string) => Promise<OwnerLocation>;
  /** In a fleet: resolves when the node sees the claim of `key` change, or after `maxMs`. */
  readonly ownerChanged?: (key: string, maxMs: number) => Promise<void>;
  /** Where a new lobby goes: here, or (while this node drains) a peer the player is redirected to. */
  readonly placeNew?: () => OwnerLocation;
  /** Called once per `redirect` frame sent, with its reason (the node counts them). */
  readonly onRedirect?: (reason: RedirectReason) => void;
  /** The matchmaking lobby types this node's queues serve (none: every search is NOT_FOUND). */
  readonly lobbyTypes?: readonly string[];
  /**
   * The activity ids the node's configuration names: a `joinActivity` of any other is NOT_FOUND at the
   * gateway, without an actor being asked (or tried, and logged as failed). Unset: every id is asked.
   */
  readonly activities?: readonly string[];
  /** Uploads and downloads of room documents (docs/rooms.md "Large blobs"); without it they are refused. */
  readonly blobs?: BlobRequests;
}

const ownedHere: OwnerLocation = { kind: "here" };

const codePattern = /^[A-Z0-9]{1,32}$/;
const maxCodeDraws = 8;
/** After eight taken codes the code space is crowded: give the lobbies a moment to close. */
const noFreeCodeRetryMs = 1_000;
/** An ask that timed out met a busy or restarting actor; a retry soon finds it answering again. */
const timeoutRetryMs = 250;

const notInLobby: AskResult = { ok: false, code: "NOT_IN_LOBBY", message: "you are not in a lobby" };

/**
 * The node's own deadline for an actor's answer passed. The request may still be applied after it, so
 * this is not a final answer: the client re-sends with the same id and the actor answers from its stored
 * results. Hence retryable UNAVAILABLE, never TIMEOUT (which is final and would leave the client guessing).
 */
function retryableTimeout(result: AskResult): AskResult {
  if (result.ok || result.code !== "TIMEOUT") return result;
  return { ok: false, code: "UNAVAILABLE", message: result.message, retryAfterMs: timeoutRetryMs };
}

/** The request's identity, with what its client says it will never send again (an ack below the id). */
function requestOf(session: Session, frame: RequestFrame): RequestId {
  const ack = frame.ack;
  return ack !== undefined && ack > 0 && ack < frame.id
    ? { session: session.id, id: frame.id, answeredThrough: ack }
    : { session: session.id, id: frame.id };
}

/** The frame without its ack. */
function withoutAck(frame: RequestFrame): RequestFrame {
  if (frame.ack === undefined) return frame;
  const { ack: _ack, ...rest } = frame;
  return rest;
}

/** A room created or joined directly has no lobby that could take the player out of it. */
function seatedInDirectRoom(session: Session): boolean {
  return session.directRoom && session.room !== null;
}

function entersLobby(frame: RequestFrame): boolean {
  return frame.type === "join" || frame.type === "create" || frame.type === "joinActivity";
}

function fail(code: ErrorCode, message: string): AskResult {
  return { ok: false, code, message };
}

/**
 * Turns a session's request frames into asks of the actors that own them. Each ask carries the request's
 * session and id, so the actor applies a retried request once and answers it with the first result.
 */
export class LobbyRequests {
  /** Activity lobbies' requests; a player is in at most one lobby, so each side leaves the other. */
  private readonly activities: ActivityRequests;
  /** Relay rooms' requests (docs/rooms.md). */
  private readonly rooms: RoomRequests;
  /** Rating matchmaking's requests (docs/matchmaking.md). */
  private readonly matchmaking: MatchmakingRequests;

  constructor(private readonly deps: LobbyRequestsDeps) {
    this.rooms = new RoomRequests({
      system: deps.system,
      random: deps.random,
      ...(deps.blobs === undefined ? {} : { blobs: deps.blobs }),
      ...(deps.canOpenRoom === undefined ? {} : { canOpenRoom: deps.canOpenRoom }),
      ownerOf: (key) => this.ownerOf(key),
      ...(deps.onRedirect === undefined ? {} : { onRedirect: deps.onRedirect }),
    });
    this.matchmaking = new MatchmakingRequests({ system: deps.system, lobbyTypes: deps.lobbyTypes ?? [] });
    this.activities = new ActivityRequests({
      system: deps.system,
      leaveLobby: (session, request) => this.leave(session, request),
      ownerOf: (key) => this.ownerOf(key),
      ...(deps.onRedirect === undefined ? {} : { onRedirect: deps.onRedirect }),
      ...(deps.activities === undefined ? {} : { activities: new Set(deps.activities) }),
    });
  }

  /** Answers one request of a session. Never throws. */
  /** Where the owner of `key` is; always here on a node without a fleet. Never rejects. */
  async ownerOf(key: string): Promise<OwnerLocation> {
    const locate = this.deps.locateOwner;
    if (locate === undefined) return ownedHere;
    try {
      return await locate(key);
    } catch {
      return { kind: "waiting", retryAfterMs: timeoutRetryMs };
    }
  }

  /**
   * Waits before asking about `key` again after a retryable answer: until its claim changes hands (a
   * takeover landed) or `maxMs`, whichever is first. Without a fleet, simply `maxMs`.
   */
  waitForOwner(key: string, maxMs: number): Promise<void> {
    if (this.deps.ownerChanged !== undefined) return this.deps.ownerChanged(key, maxMs);
    return new Promise((resolve) => setTimeout(resolve, maxMs));
  }

  async handle(session: Session, frame: RequestFrame): Promise<AskResult> {
    // A request sent right after a hello waits until the session knows which lobby the player is in.
    await session.located;
    if (seatedInDirectRoom(session) && entersLobby(frame)) {
      return fail("ALREADY_PLAYING", "you are seated in a room: leave it before entering a lobby");
    }
    return retryableTimeout(await this.route(session, frame));
  }

  private async route(session: Session, sent: RequestFrame): Promise<AskResult> {
    const request = requestOf(session, sent);
    // The ack is the runtime's (in `request`): handlers copy frames' fields into actors' messages, whose
    // schemas take no `ack`.
    const frame = withoutAck(sent);
    const player = session.player;
    switch (frame.type) {
      case "join":
        return this.join(session, normalizeCode(frame.code), request);
      case "create":
        return this.create(session, frame.public ?? false, frame.metadata ?? null, request);
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
      case "joinActivity":
      case "activityReady":
      case "leaveActivity":
        return this.activities.handle(session, frame, request);
      case "findLobby":
      case "findOrCreateLobby":
      case "createLobby":
      case "cancelSearch":
      case "acceptMatch":
      case "declineMatch":
      case "matchedReady":
      case "leaveMatched":
      case "runningMatch":
        return this.matchmaking.handle(session, frame, request);
      case "createRoom":
      case "joinRoom":
      case "roomReady":
      case "setAi":
      case "roomSetup":
      case "command":
      case "checksum":
      case "chat":
      case "resumeRoom":
      case "abortRoom":
      case "leaveRoom":
      case "roomTurns":
      case "heldTurns":
        return this.rooms.handle(session, frame, request);
      case "beginBlob":
      case "blobChunk":
      case "finishBlob":
      case "getRoomBlob":
        return this.deps.blobs
          ? this.deps.blobs.handle(session, frame, request)
          : fail("INVALID", "this node takes no documents");
      case "browse":
        return this.deps.system.ask("directory/lobbies", {
          type: "browse",
          ...(frame.kind === undefined ? {} : { kind: frame.kind }),
          ...(frame.mode === undefined ? {} : { mode: frame.mode }),
          ...(frame.freeOnly === undefined ? {} : { freeOnly: frame.freeOnly }),
        });
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
    if (!this.deps.blobs) return fail("INVALID", "this node takes no documents");
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
  private async leave(session: Session, request: RequestId): Promise<AskResult> {
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
    if (!room) return fail("NOT_PLAYING", "you are not seated in a room");
    const result = await this.deps.system.ask(room, { type: "finish", player: session.player }, { request });
    if (!result.ok && result.code === "NOT_FOUND") return { ok: true };
    return result;
  }

  private async join(session: Session, code: string, request: RequestId): Promise<AskResult> {
    if (code === "") return this.create(session, false, null, request);
    if (!codePattern.test(code)) return fail("NOT_FOUND", `no lobby has the code ${code.slice(0, 32)}`);
    const key = `lobby/${code}`;
    const owner = await this.ownerOf(key);
    if (owner.kind === "elsewhere") {
      session.send({ type: "redirect", url: owner.url, reason: "lobby" });
      this.deps.onRedirect?.("lobby");
      return { ok: false, code: "MOVED", message: `lobby ${code} lives on another node`, retryAfterMs: 100 };
    }
    if (owner.kind === "waiting") {
      const message = `lobby ${code} is being taken over by another node`;
      return { ok: false, code: "UNAVAILABLE", message, retryAfterMs: owner.retryAfterMs };
    }
    const result = await this.entering(session, key, () =>
      this.deps.system.ask(
        key,
        { type: "join", player: { id: session.player, name: session.name } },
        { request },
      ),
    );
    if (result.ok) {
      if (session.lobby && session.lobby !== key) session.lastLobby = session.lobby;
      session.lobby = key;
    }
    enteredOrNot(session, key, result, this.deps.system);
    if (result.ok) await this.activities.leaveForLobby(session, request);
    else if (result.code === "NOT_FOUND") return fail("NOT_FOUND", `no lobby has the code ${code}`);
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
   * Creates a lobby with a fresh code. The player's registry records the code first (the create's intent),
   * so a retried create — same session and request id — returns the same lobby instead of a second one.
   */
  private async create(
    session: Session,
    isPublic: boolean,
    metadata: Record<string, string | number | boolean> | null,
    request: RequestId,
  ): Promise<AskResult> {
    const place = this.deps.placeNew?.();
    if (place?.kind === "elsewhere") {
      // This node drains: the new lobby is made on a peer, where the SDK re-sends the create.
      session.send({ type: "redirect", url: place.url, reason: "drain" });
      this.deps.onRedirect?.("drain");
      return { ok: false, code: "MOVED", message: "this node is draining", retryAfterMs: 100 };
    }
    const registry = `player/${session.player}`;
    let intent: "beginCreate" | "replaceCreate" = "beginCreate";
    for (let draw = 0; draw < maxCodeDraws; draw++) {
      const proposed = drawCode(this.deps.random, this.deps.lobby.codeLength, this.deps.lobby.codeAlphabet);
      const recorded = await this.deps.system.ask(registry, {
        type: intent,
        session: request.session,
        id: request.id,
        code: proposed,
      });
      if (!recorded.ok) return recorded;
      const code = (recorded.value as { code: string }).code;
      const key = `lobby/${code}`;
      const init = { code, host: { id: session.player, name: session.name }, public: isPublic, metadata };
      const spawned = await this.entering(session, key, () => this.deps.system.spawn(key, init, { request }));
      if (spawned.created) {
        if (spawned.result.ok) session.lobby = key;
        enteredOrNot(session, key, spawned.result, this.deps.system);
        if (spawned.result.ok) await this.activities.leaveForLobby(session, request);
        return spawned.result;
      }
      // A code taken by another lobby: nothing of this player's was in it, so nothing is held for it.
      session.heldDisconnects.delete(key);
      if (code !== proposed) {
        // A retry of a create that already made its lobby: answer with it (and resend its state).
        const again = await this.join(session, code, request);
        return again.ok ? { ok: true, value: { code } } : again;
      }
      intent = "replaceCreate"; // the drawn code was taken by another lobby: draw again
    }
    return {
      ok: false,
      code: "UNAVAILABLE",
      message: "could not draw a free lobby code",
      retryAfterMs: noFreeCodeRetryMs,
    };
  }

  private async inLobby(
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
