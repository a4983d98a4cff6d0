import type {
  ActorSystem,
  AskResult,
  NewLobbyPlace,
  OwnerLocation,
  Random,
  RequestId,
} from "../../actors/runtime/index.ts";
import type { LobbyOptions, LobbyState } from "../../actors/lobby/index.ts";
import type { RequestFrame } from "../protocol/client-frames.ts";
import type { RedirectReason } from "../protocol/server-frames.ts";
import type { Session } from "../sessions/index.ts";
import { ActivityRequests } from "./activity-requests.ts";
import type { BlobRequests } from "./blob-requests.ts";
import { browse } from "./browse-request.ts";
import { LobbyRequests } from "./lobby-requests.ts";
import { LobbyDataRequests } from "./lobby-data-requests.ts";
import { MatchmakingRequests } from "./matchmaking-requests.ts";
import { QueryRequests, type LobbyListings } from "./query-requests.ts";
import { refused } from "./refused.ts";
import { RoomRequests } from "./room-requests.ts";

/** What the router and its handlers are built from: where requests go and how codes are drawn. */
export interface RequestRouterDeps {
  readonly system: ActorSystem;
  /** Codes, and the limits a create is checked against (the defaults where left out). */
  readonly lobby: Pick<LobbyOptions, "codeLength" | "codeAlphabet"> &
    Partial<Pick<LobbyOptions, "maxMembers" | "lobbyData">>;
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
  /** Where a new lobby goes: here, a peer the player is redirected to (draining, or full), or nowhere. */
  readonly placeNew?: () => NewLobbyPlace;
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
  /** The fleet's public lobbies (docs/lobbies-query.md); without it queries are refused. */
  readonly listings?: LobbyListings;
}

const ownedHere: OwnerLocation = { kind: "here" };

/** The member count of a live lobby's state (`peek`); undefined when it is not live here. */
function liveMembersOf(state: unknown): number | undefined {
  const members = (state as Partial<LobbyState> | undefined)?.members;
  return Array.isArray(members) ? members.length : undefined;
}

const noQueries = refused("INVALID", "this node answers no lobby queries");

/** An ask that timed out met a busy or restarting actor; a retry soon finds it answering again. */
const timeoutRetryMs = 250;

/**
 * The node's own deadline for an actor's answer passed. The request may still be applied after it, so
 * this is not a final answer: the client re-sends with the same id and the actor answers from its stored
 * results. Hence retryable UNAVAILABLE, never TIMEOUT (which is final and would leave the client guessing).
 */
function retryableTimeout(result: AskResult): AskResult {
  if (result.ok || result.code !== "TIMEOUT") return result;
  return refused("UNAVAILABLE", result.message, timeoutRetryMs);
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

/**
 * Sends each request frame of a session to the handler of its kind (private lobby, activity,
 * matchmaking, room, blob, browse), and builds those handlers. Each ask carries the request's session
 * and id, so the actor applies a retried request once and answers it with the first result.
 */
export class RequestRouter {
  private readonly lobbies: LobbyRequests;
  /** The private lobby's data, door, moderation and chat (docs/lobbies.md). */
  private readonly lobbyData: LobbyDataRequests;
  /** Activity lobbies' requests (a player is in at most one lobby: the registry's rule decides). */
  private readonly activities: ActivityRequests;
  /** Relay rooms' requests (docs/rooms.md). */
  private readonly rooms: RoomRequests;
  /** Rating matchmaking's requests (docs/matchmaking.md). */
  private readonly matchmaking: MatchmakingRequests;
  /** Lobby queries and quick joins (docs/lobbies-query.md). */
  private readonly queries: QueryRequests | null;

  constructor(private readonly deps: RequestRouterDeps) {
    const ownerOf = (key: string): Promise<OwnerLocation> => this.ownerOf(key);
    const onRedirect = deps.onRedirect === undefined ? {} : { onRedirect: deps.onRedirect };
    const blobs = deps.blobs === undefined ? {} : { blobs: deps.blobs };
    this.lobbies = new LobbyRequests({
      system: deps.system,
      lobby: deps.lobby,
      random: deps.random,
      ownerOf,
      ...(deps.placeNew === undefined ? {} : { placeNew: deps.placeNew }),
      ...onRedirect,
      ...blobs,
    });
    this.lobbyData = new LobbyDataRequests((session, message, request) =>
      this.lobbies.inLobby(session, message, request),
    );
    this.rooms = new RoomRequests({
      system: deps.system,
      random: deps.random,
      ...blobs,
      ...(deps.canOpenRoom === undefined ? {} : { canOpenRoom: deps.canOpenRoom }),
      ownerOf,
      ...onRedirect,
    });
    this.queries =
      deps.listings === undefined
        ? null
        : new QueryRequests({
            listings: deps.listings,
            join: (session, code, request) => this.lobbies.join(session, code, request),
            create: (session, data, request) =>
              this.lobbies.create(session, { public: true, metadata: data }, request),
            random: deps.random,
            isHere: (code) => deps.system.isLive(`lobby/${code}`),
            liveMembers: (code) => liveMembersOf(deps.system.peek(`lobby/${code}`)),
          });
    this.matchmaking = new MatchmakingRequests({ system: deps.system, lobbyTypes: deps.lobbyTypes ?? [] });
    this.activities = new ActivityRequests({
      system: deps.system,
      ownerOf,
      ...onRedirect,
      ...(deps.activities === undefined ? {} : { activities: new Set(deps.activities) }),
    });
  }

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

  /** Answers one request of a session. Never throws. */
  async handle(session: Session, frame: RequestFrame): Promise<AskResult> {
    // A request sent right after a hello waits until the session knows which lobby the player is in.
    await session.located;
    // The ack is the runtime's (in the request id): handlers copy frames' fields into actors' messages,
    // whose schemas take no `ack`.
    return retryableTimeout(await this.route(session, withoutAck(frame), requestOf(session, frame)));
  }

  /** The handler of each frame type; the switch is checked exhaustive, so a new frame needs a case. */
  private route(session: Session, frame: RequestFrame, request: RequestId): Promise<AskResult> {
    switch (frame.type) {
      case "join":
      case "create":
      case "leave":
      case "ready":
      case "profile":
      case "start":
      case "makeHost":
      case "return":
      case "finish":
        return this.lobbies.handle(session, frame, request);
      case "setLobbyData":
      case "setMemberData":
      case "setLobbyDoor":
      case "kick":
      case "lobbyChat":
        return this.lobbyData.handle(session, frame, request);
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
          : Promise.resolve(refused("INVALID", "this node takes no documents"));
      case "browse":
        return browse(this.deps.system, frame, this.deps.listings);
      case "queryLobbies":
        return Promise.resolve(this.queries?.query(frame) ?? noQueries);
      case "quickJoin":
        return this.queries?.quickJoin(session, frame, request) ?? Promise.resolve(noQueries);
    }
  }
}
