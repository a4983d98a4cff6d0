import { playerKey } from "../../actors/common/index.ts";
import { lobbyTypeOfQueueKey, queueKey } from "../../actors/matchmaking/index.ts";
import type { ActorSystem, AskResult, RequestId } from "../../actors/runtime/index.ts";
import { checkMatch, runningMatchOf } from "../match-reconnect.ts";
import type { MatchmakingRequestFrame } from "../protocol/client-frames.ts";
import type { Session } from "../sessions/index.ts";
import { throughRule, type EntryReport } from "./entry-rule.ts";
import { partySearch } from "./party-search.ts";

/** How the matchmaking requests reach the actors. */
export interface MatchmakingRequestsDeps {
  readonly system: ActorSystem;
  /** The configured lobby type ids: a request naming another is NOT_FOUND, before any queue is made. */
  readonly lobbyTypes: readonly string[];
}

function noLobbyType(lobbyType: string): AskResult {
  return { ok: false, code: "NOT_FOUND", message: `no lobby type ${lobbyType}` };
}

/** What the queue's answer tells the registry: the search's entry id, and a create's matched lobby. */
function searchReport(value: unknown): EntryReport {
  const answer = value as { entry?: unknown; lobby?: unknown } | undefined;
  return {
    ...(typeof answer?.entry === "string" ? { queueEntry: answer.entry } : {}),
    ...(typeof answer?.lobby === "string" ? { lobby: answer.lobby } : {}),
  };
}

/**
 * The matchmaking requests of a session (docs/matchmaking.md). Searches and cancels go to the lobby type's
 * queue (`queue/<type>`), with the session's player; accept and decline go to whatever asked — a queue or
 * a matched lobby, named by the match id's key (`queue/<type>#n`, `mmlobby/<type>/<n>#round`).
 */
export class MatchmakingRequests {
  constructor(private readonly deps: MatchmakingRequestsDeps) {}

  /** Answers one matchmaking request. Never throws. */
  handle(session: Session, frame: MatchmakingRequestFrame, request: RequestId): Promise<AskResult> {
    const player = session.player;
    switch (frame.type) {
      case "findLobby":
      case "findOrCreateLobby":
      case "createLobby": {
        const { id: _id, lobbyType, ...fields } = frame;
        const { party, ...search } = "party" in fields ? fields : { ...fields, party: false };
        const message = { ...search, player: { id: player, name: session.name } };
        if (party === true) return this.asParty(session, lobbyType, message, request);
        return this.throughRule(session, lobbyType, () => this.search(lobbyType, message, request));
      }
      case "cancelSearch":
        return this.cancel(session, frame.lobbyType, request);
      case "acceptMatch":
      case "declineMatch":
        return this.answer(
          frame.type === "acceptMatch" ? "accept" : "decline",
          player,
          frame.matchId,
          request,
        );
      case "matchedReady":
        return this.deps.system.ask(frame.lobby, { type: "ready", player, ready: frame.ready }, { request });
      case "leaveMatched":
        return this.leaveMatched(player, frame.lobby, request);
      case "runningMatch":
        return runningMatchOf(this.deps.system, player).then((value) => ({ ok: true, value }));
    }
  }

  /**
   * A search (or a matched lobby's create) is an entry like any other (entry-rule.ts): a seated player is
   * refused, a party member held, and the search takes the player out of its lobby once the queue took it.
   */
  private throughRule(
    session: Session,
    lobbyType: string,
    search: () => Promise<AskResult>,
  ): Promise<AskResult> {
    if (!this.deps.lobbyTypes.includes(lobbyType)) return Promise.resolve(noLobbyType(lobbyType));
    const entry = { kind: "search", queue: queueKey(lobbyType) } as const;
    return throughRule(this.deps.system, session, entry, search, searchReport);
  }

  /** The host queues its private lobby's members with it (party-search.ts). */
  private asParty(
    session: Session,
    lobbyType: string,
    message: { player: { id: string; name: string } },
    request: RequestId,
  ): Promise<AskResult> {
    if (!this.deps.lobbyTypes.includes(lobbyType)) return Promise.resolve(noLobbyType(lobbyType));
    const enqueue = (party: { id: string; name: string }[]) =>
      this.search(lobbyType, { ...message, party }, request);
    const deps = { system: this.deps.system, enqueue, reportOf: searchReport };
    return partySearch(deps, session, queueKey(lobbyType));
  }

  /** Leaves a matched lobby; its player's registry forgets it once the lobby let the player go. */
  private async leaveMatched(player: string, lobby: string, request: RequestId): Promise<AskResult> {
    const result = await this.deps.system.ask(lobby, { type: "leave", player }, { request });
    if (result.ok) this.deps.system.tell(playerKey(player), { type: "left", lobby });
    return result;
  }

  /** Stops the search; once the queue let the player go its registry forgets the search too. */
  private async cancel(session: Session, lobbyType: string, request: RequestId): Promise<AskResult> {
    const result = await this.toQueue(lobbyType, { type: "cancel", player: session.player }, request);
    if (result.ok) {
      this.deps.system.tell(playerKey(session.player), {
        type: "searchEnded",
        queue: queueKey(lobbyType),
        entry: null,
      });
    }
    return result;
  }

  /**
   * A search refused `ALREADY_PLAYING` is checked against the room (SPEC §4): a record whose room is gone
   * (lost without its `roomEnded` reaching the queue, and never found by a reconnect) is cleared and the
   * search asked once more, so a player is never kept out of the queue by a room that no longer exists.
   */
  private async search(
    lobbyType: string,
    message: { player: { id: string; name: string }; party?: { id: string; name: string }[] },
    request: RequestId,
  ): Promise<AskResult> {
    // A refusal changes nothing, so the runtime keeps no result for it: the same request id may ask again.
    const first = await this.toQueue(lobbyType, message, request);
    if (first.ok || first.code !== "ALREADY_PLAYING") return first;
    const checked = await checkMatch(this.deps.system, queueKey(lobbyType), message.player.id);
    return checked.status === "gone" ? this.toQueue(lobbyType, message, request) : first;
  }

  private toQueue(lobbyType: string, message: object, request: RequestId): Promise<AskResult> {
    if (!this.deps.lobbyTypes.includes(lobbyType)) return Promise.resolve(noLobbyType(lobbyType));
    return this.deps.system.ask(queueKey(lobbyType), message, { request });
  }

  /** A queue's match is named in the answer; a matched lobby has one match at a time and takes no id. */
  private answer(
    type: "accept" | "decline",
    player: string,
    matchId: string,
    request: RequestId,
  ): Promise<AskResult> {
    const key = matchId.slice(0, Math.max(0, matchId.indexOf("#")));
    const lobbyType = lobbyTypeOfQueueKey(key);
    if (lobbyType !== undefined) return this.toQueue(lobbyType, { type, player, matchId }, request);
    if (key.startsWith("mmlobby/")) return this.deps.system.ask(key, { type, player }, { request });
    return Promise.resolve({ ok: false, code: "INVALID", message: `${matchId} names no match` });
  }
}
