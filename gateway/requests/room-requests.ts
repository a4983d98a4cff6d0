import { normalizeCode, playerKey, roomKey } from "../../actors/common/index.ts";
import type { Entry } from "../../actors/player/index.ts";
import { directRoomInitSchema } from "../../actors/room/index.ts";
import type {
  ActorSystem,
  AskResult,
  BlobRef,
  OwnerLocation,
  Random,
  RequestId,
} from "../../actors/runtime/index.ts";
import type { BlobRequests } from "./blob-requests.ts";
import { createUnderFreshCode, type CodeAttempt, type DrawnCode } from "./fresh-code.ts";
import type { RoomRequestFrame, RoomRequestOf } from "../protocol/room-client-frames.ts";
import type { RedirectReason } from "../protocol/server-frames.ts";
import { enteredOrNot, type Session } from "../sessions/index.ts";
import { throughRule, type EntryReport } from "./entry-rule.ts";
import { refused } from "./refused.ts";

/** Where room requests go, how room codes are drawn and whether this node may open another room. */
export interface RoomRequestsDeps {
  readonly system: ActorSystem;
  /** Cryptographic randomness for room codes. */
  readonly random: Random;
  /** False when the node runs as many rooms as it may (or is stopping); a create is then retryable. */
  readonly canOpenRoom?: () => boolean;
  /** Where a create's document comes from (`blob`: a finished upload of the creator). */
  readonly blobs?: BlobRequests;
  /**
   * In a fleet: where the node that owns a room is. A room's pushes reach only sockets on its own node,
   * so a join of a room owned elsewhere (a transfer that names a node the room has left, after a
   * failover) redirects the player there; the SDK follows and re-sends the join. Never rejects.
   */
  readonly ownerOf?: (key: string) => Promise<OwnerLocation>;
  /** Called once per `redirect` frame sent. */
  readonly onRedirect?: (reason: RedirectReason) => void;
}

/** How soon the SDK re-sends a join it was redirected for (on the room's node). */
const redirectRetryMs = 100;

/** Room codes: six letters, as a lobby's rooms have (SPEC §5). */
export const roomCodeLength = 6;
const roomCodeAlphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
const roomCodePattern = /^[A-Z]{1,16}$/;
const busyRetryMs = 1_000;

/** A room not created yet: its code is drawn after the registry recorded the create. */
const newRoom: Entry = { kind: "room", key: null };

const notInRoom: AskResult = { ok: false, code: "NOT_IN_LOBBY", message: "you are not seated in a room" };

/**
 * The relay room requests of a session (docs/rooms.md). A room is created directly (`createRoom`, the
 * creator is side 0 and host) or joined by code; a lobby's room seats its members itself. Every other
 * request goes to the session's room as the room's message, with the session's player as sender.
 */
export class RoomRequests {
  constructor(private readonly deps: RoomRequestsDeps) {}

  /** Answers one room request. Never throws. */
  handle(session: Session, frame: RoomRequestFrame, request: RequestId): Promise<AskResult> {
    const player = session.player;
    switch (frame.type) {
      case "createRoom":
        return this.create(session, frame, request);
      case "joinRoom":
        return this.join(session, normalizeCode(frame.code), frame.side, request, frame.token);
      case "roomReady":
        return this.inRoom(session, { type: "ready", player, ready: frame.ready }, request);
      case "setAi":
        return this.inRoom(session, { type: "setAi", player, side: frame.side, ai: frame.ai }, request);
      case "roomSetup": {
        const { type: _type, id: _id, ...choices } = frame;
        return this.inRoom(session, { type: "setup", player, ...choices }, request);
      }
      case "command":
        return this.inRoom(session, { type: "command", player, data: frame.data }, request);
      case "checksum":
        return this.inRoom(
          session,
          { type: "checksum", player, turn: frame.turn, value: frame.value },
          request,
        );
      case "chat":
        return this.inRoom(
          session,
          { type: "chat", player, channel: frame.channel, text: frame.text },
          request,
        );
      case "resumeRoom":
        return this.inRoom(
          session,
          { type: "resume", player, ...(frame.handToAi === undefined ? {} : { handToAi: frame.handToAi }) },
          request,
        );
      case "abortRoom":
        return this.inRoom(session, { type: "abort", player }, request);
      case "leaveRoom":
        return this.leave(session, request);
      case "roomTurns":
        return this.inRoom(session, { type: "turns", player, after: frame.after }, request);
      case "heldTurns":
        return this.inRoom(
          session,
          { type: "heldTurns", player, after: frame.after, turns: frame.turns, done: frame.done },
          request,
        );
    }
  }

  /**
   * Creates a room under a freshly drawn code (`createUnderFreshCode`, as a lobby's create: a retried
   * create joins the room its first attempt made instead of making a second one). The rule
   * (entry-rule.ts) decides next: a player seated in another room is refused ALREADY_PLAYING.
   */
  private create(
    session: Session,
    frame: RoomRequestOf<"createRoom">,
    request: RequestId,
  ): Promise<AskResult> {
    const codes = {
      ...this.deps,
      codeLength: roomCodeLength,
      codeAlphabet: roomCodeAlphabet,
      what: "room",
      retryAfterMs: busyRetryMs,
    };
    return createUnderFreshCode(codes, session, request, (drawn) =>
      this.createAs(session, drawn, frame, request),
    );
  }

  /** One code's attempt of a create: the room made, the retried create's room joined, a refusal, or `taken`. */
  private async createAs(
    session: Session,
    { code, recordedBefore }: DrawnCode,
    frame: RoomRequestOf<"createRoom">,
    request: RequestId,
  ): Promise<CodeAttempt> {
    if (recordedBefore) return this.join(session, code, undefined, request);
    // Asked after the registry, so that a retry of a create that made its room (above) is answered.
    const taken = { code: false };
    const result = await throughRule(
      this.deps.system,
      session,
      newRoom,
      () => this.open(session, frame, code, request, taken),
      () => ({ room: roomKey(code) }),
    );
    return taken.code ? "taken" : result;
  }

  /** Spawns a direct room under `code`; `taken.code` says the code was another room's (nothing made). */
  private async open(
    session: Session,
    frame: RoomRequestOf<"createRoom">,
    code: string,
    request: RequestId,
    taken: { code: boolean },
  ): Promise<AskResult> {
    const { type: _type, id: _id, blob: blobId, ...choices } = frame;
    if (this.deps.canOpenRoom?.() === false) {
      return {
        ok: false,
        code: "UNAVAILABLE",
        message: "this node cannot open a room now",
        retryAfterMs: busyRetryMs,
      };
    }
    let blob: BlobRef | undefined;
    if (blobId !== undefined) {
      if (!this.deps.blobs) return refused("INVALID", "this node takes no documents");
      const claimed = this.deps.blobs.claim(session.player, blobId);
      if ("ok" in claimed) return claimed;
      blob = claimed;
    }
    const init = directRoomInitSchema.safeParse({
      code,
      direct: true,
      host: { id: session.player, name: session.name },
      ...choices,
      ...(blob === undefined ? {} : { blob }),
    });
    if (!init.success) {
      if (blob) this.deps.blobs?.unclaim(session.player, blob);
      return refused("INVALID", init.error.issues[0]?.message ?? "invalid room");
    }
    const key = roomKey(code);
    const spawned = await this.deps.system.spawn(key, init.data, { request });
    if (!spawned.created) {
      taken.code = true;
      if (blob) this.deps.blobs?.unclaim(session.player, blob);
      return refused("INVALID", `the code of ${key} is taken`);
    }
    if (spawned.result.ok) {
      this.seat(session, key);
      if (blob) this.deps.blobs?.held(blob, key);
    } else if (blob) this.deps.blobs?.unclaim(session.player, blob);
    return spawned.result;
  }

  private async join(
    session: Session,
    code: string,
    side: number | undefined,
    request: RequestId,
    token?: string,
  ): Promise<AskResult> {
    if (!roomCodePattern.test(code)) return refused("NOT_FOUND", `no room has the code ${code.slice(0, 32)}`);
    const key = roomKey(code);
    const away = await this.ownedElsewhere(session, key, code);
    if (away) return away;
    // Entering it meanwhile: a disconnect another node tells about the player's old socket is stale.
    session.enteringRoom = key;
    const join = {
      type: "join",
      player: { id: session.player, name: session.name },
      ...(side === undefined ? {} : { side }),
      // An activity room checks it (and tells the activity lobby the player loaded into the room).
      ...(token === undefined ? {} : { token }),
    };
    // A new seat is the registry's to know; the room one's lobby started is the lobby's.
    const seatOf = (): EntryReport => (session.room === key ? {} : { room: key });
    const result = await throughRule(
      this.deps.system,
      session,
      { kind: "room", key },
      () => this.deps.system.ask(key, join, { request }),
      seatOf,
    ).finally(() => {
      if (session.enteringRoom === key) session.enteringRoom = null;
    });
    if (result.ok) {
      // Arriving with a transfer token took the player out of its activity lobby (the room told it).
      if (token !== undefined) session.activity = null;
      // Joining the room one's lobby started again only fetches its frame: it stays the lobby's.
      if (session.room !== key) this.seat(session, key);
    }
    enteredOrNot(session, key, result, this.deps.system);
    if (!result.ok && result.code === "NOT_FOUND")
      return refused("NOT_FOUND", `no room has the code ${code}`);
    return result;
  }

  /**
   * A room owned by another node: the player's socket is sent there (`redirect`, reason `room`) and the
   * join is answered retryable MOVED, which the SDK re-sends on the owner; the room is not asked. A room
   * whose owner went silent is UNAVAILABLE until a survivor took it over. Undefined when the room is here
   * (or nobody owns the code: the ask then answers NOT_FOUND).
   */
  private async ownedElsewhere(session: Session, key: string, code: string): Promise<AskResult | undefined> {
    if (this.deps.ownerOf === undefined) return undefined;
    const owner = await this.deps.ownerOf(key);
    if (owner.kind === "here") return undefined;
    if (owner.kind === "waiting") {
      const message = `room ${code} is being taken over by another node`;
      return { ok: false, code: "UNAVAILABLE", message, retryAfterMs: owner.retryAfterMs };
    }
    session.send({ type: "redirect", url: owner.url, reason: "room" });
    this.deps.onRedirect?.("room");
    return {
      ok: false,
      code: "MOVED",
      message: `room ${code} lives on another node`,
      retryAfterMs: redirectRetryMs,
    };
  }

  private seat(session: Session, key: string): void {
    if (session.room !== null) session.lastRoom = session.room;
    session.room = key;
    session.directRoom = true;
  }

  /**
   * Leaves a room created directly. A lobby's room is left through the lobby (`return`), which keeps
   * its members' places; leaving when seated nowhere, or in a room that is gone, is a no-op success.
   */
  private async leave(session: Session, request: RequestId): Promise<AskResult> {
    const key = session.room;
    if (key === null) return { ok: true };
    if (!session.directRoom) return refused("INVALID", "a lobby's room is left with return");
    const result = await this.deps.system.ask(
      key,
      { type: "leaveSeat", player: session.player },
      { request },
    );
    if (!result.ok && result.code !== "NOT_FOUND") return result;
    this.deps.system.tell(playerKey(session.player), { type: "seatLeft", room: key });
    if (session.room === key) {
      session.lastRoom = key;
      session.room = null;
      session.directRoom = false;
    }
    return { ok: true };
  }

  /**
   * A request for the player's room. Without a current room it still goes to the last one: a retry whose
   * answer was lost gets its first result there; otherwise the room refuses it itself.
   */
  private async inRoom(
    session: Session,
    message: { type: string; player: string } & Record<string, unknown>,
    request: RequestId,
  ): Promise<AskResult> {
    const key = session.room ?? session.lastRoom;
    if (key === null) return notInRoom;
    const result = await this.deps.system.ask(key, message, { request });
    if (!result.ok && result.code === "NOT_FOUND") {
      if (session.room === key) {
        session.room = null;
        session.directRoom = false;
      }
      return notInRoom;
    }
    return result;
  }
}
