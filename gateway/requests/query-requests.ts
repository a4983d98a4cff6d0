import { isRetryable, type AskResult, type Random, type RequestId } from "../../actors/runtime/index.ts";
import {
  QueryError,
  checkQuery,
  filtersTest,
  type Filter,
  type IndexedKeys,
  type ListedLobby,
  type ListingIndex,
  type Query,
  type QueryInput,
} from "../../fleet/listings/index.ts";
import type { QueryLobbiesFrame, QuickJoinFrame } from "../protocol/query-frames.ts";
import type { Session } from "../sessions/index.ts";
import { refused } from "./refused.ts";

/** The node's index of the fleet's public lobbies, and the data keys it indexes. */
export interface LobbyListings {
  readonly index: ListingIndex;
  readonly indexed: IndexedKeys;
}

/** What the query requests need: the index, and the private lobby's own join and create. */
export interface QueryRequestsDeps {
  readonly listings: LobbyListings;
  /** A `join` of the lobby `code`, exactly as the join frame makes it (the registry's rules apply). */
  readonly join: (session: Session, code: string, request: RequestId) => Promise<AskResult>;
  /** A `create` of a public lobby with this public data, as the create frame makes it. */
  readonly create: (
    session: Session,
    data: Record<string, string | number | boolean> | null,
    request: RequestId,
  ) => Promise<AskResult>;
  readonly random: Random;
  /** True when the lobby `code` is live on this node: tried first, since a lobby elsewhere redirects. */
  readonly isHere?: (code: string) => boolean;
  /**
   * How many members the lobby `code` has when it is live on this node (its actor's state, which the
   * index follows only through the listings bucket); undefined when it is not live here.
   */
  readonly liveMembers?: (code: string) => number | undefined;
}

/** A quick join looks at this many of the best matches, and tries at most this many of them. */
const quickJoinCandidates = 32;
const quickJoinTries = 12;
/** Concurrent quick joins spread over the best few, so they do not all knock at the same door first. */
const spreadOver = 8;
/** At most this many quick joins are remembered as waiting on an unsettled join (the oldest are forgotten). */
const unsettledLimit = 4_096;

/**
 * A join whose answer says nothing final: its deadline passed (`TIMEOUT`) or the node could not serve it
 * (`UNAVAILABLE`, as when the lobby's write failed after it may have landed). The join may still be
 * applied, so no other lobby may be tried for the request: the player would end up in that one while
 * the answer names another.
 */
function unsettled(result: AskResult): boolean {
  return !result.ok && (result.code === "TIMEOUT" || isRetryable(result.code)) && result.code !== "MOVED";
}

/** What a quick join never joins: a full lobby, a locked one, one with a password. */
const joinable = (indexed: IndexedKeys): Filter[] =>
  checkQuery(
    {
      filters: [
        { field: "freeSeats", op: "gt", value: 0 },
        { field: "locked", op: "eq", value: false },
        { field: "hasPassword", op: "eq", value: false },
      ],
    },
    indexed,
  ).filters.slice();

function checked(input: QueryInput, indexed: IndexedKeys): Query | AskResult {
  try {
    return checkQuery(input, indexed);
  } catch (error) {
    if (error instanceof QueryError) return refused("INVALID", error.message);
    throw error;
  }
}

function isRefusal(value: Query | AskResult): value is AskResult {
  return "ok" in value;
}

/** The lobby queries of a session: `queryLobbies` answered from the node's index, and `quickJoin`. */
export class QueryRequests {
  /** By request (session and id): the lobby whose join had no final answer, asked first on the retry. */
  private readonly unsettled = new Map<string, string>();

  constructor(private readonly deps: QueryRequestsDeps) {}

  /** One page of public lobbies, from this node's index of the whole fleet. */
  query(frame: QueryLobbiesFrame): AskResult {
    const query = checked(frame, this.deps.listings.indexed);
    if (isRefusal(query)) return query;
    const page = this.deps.listings.index.query(query);
    return { ok: true, value: { lobbies: page.lobbies, cursor: page.cursor } };
  }

  /**
   * Joins the best public lobby that matches, through the same join as a `join` frame: the lobby's
   * mailbox refuses a join past its seats (FULL), and the next match is tried, unless the index (or the
   * lobby's state, when it is live here) says meanwhile that it filled up: a join asks the player's
   * registry first, so a FULL answer costs two registry writes and a lobby ask, and in a storm every
   * player races for the same few lobbies. A player already in a lobby that matches stays there (so a
   * re-sent quick join answers the same lobby). A join without a final answer (`unsettled`) ends the walk
   * with that answer, which the client retries; the retry asks that lobby first, under the same request,
   * so it answers with what became of the join. Nothing matched: creates a lobby with `orCreate`'s data,
   * or JOIN_FAIL.
   */
  async quickJoin(session: Session, frame: QuickJoinFrame, request: RequestId): Promise<AskResult> {
    const { indexed, index } = this.deps.listings;
    const input = {
      filters: frame.filters,
      order: frame.order ?? { field: "members", dir: "desc" as const },
    };
    const query = checked({ ...input, limit: quickJoinCandidates }, indexed);
    if (isRefusal(query)) return query;
    const current = this.currentMatch(session, query);
    if (current !== null) return this.deps.join(session, current, request);
    const asked = `${request.session}/${request.id}`;
    const earlier = this.unsettled.get(asked);
    this.unsettled.delete(asked);
    const wanted: Query = { ...query, filters: [...query.filters, ...joinable(indexed)] };
    const stillWanted = filtersTest(wanted.filters);
    const candidates = this.spread(index.query(wanted).lobbies.map((l) => l.code));
    const tries = earlier === undefined ? candidates : [earlier, ...candidates.filter((c) => c !== earlier)];
    for (const code of tries) {
      if (code !== earlier && this.filledSince(code, stillWanted)) continue;
      const result = await this.deps.join(session, code, request);
      // Joined, or redirected to the lobby's node (where the SDK sends the quick join again).
      if (result.ok || result.code === "MOVED") return result;
      if (unsettled(result)) {
        this.remember(asked, code);
        return result;
      }
    }
    if (frame.orCreate) return this.deps.create(session, frame.orCreate.data ?? null, request);
    return refused("JOIN_FAIL", "no public lobby with a free seat matched");
  }

  /** The request's join of `code` had no final answer: its retry asks `code` first. */
  private remember(asked: string, code: string): void {
    this.unsettled.set(asked, code);
    for (const oldest of this.unsettled.keys()) {
      if (this.unsettled.size <= unsettledLimit) break;
      this.unsettled.delete(oldest);
    }
  }

  /**
   * True when the lobby, since the query, filled up (other quick joins raced for it) or stopped matching:
   * as the index says now, or as its actor's state says when it is live here (ahead of the index).
   */
  private filledSince(code: string, stillWanted: (line: ListedLobby) => boolean): boolean {
    const line = this.deps.listings.index.get(code);
    if (line === undefined || !stillWanted(line)) return true;
    const members = this.deps.liveMembers?.(code);
    return members !== undefined && members >= line.maxMembers;
  }

  /** The session's own lobby when it is listed and matches the query; null otherwise. */
  private currentMatch(session: Session, query: Query): string | null {
    const key = session.lobby;
    if (!key?.startsWith("lobby/")) return null;
    const code = key.slice("lobby/".length);
    const line = this.deps.listings.index.get(code);
    return line !== undefined && filtersTest(query.filters)(line) ? code : null;
  }

  /**
   * The first few candidates shuffled, the rest in order, at most `quickJoinTries`; those live on this
   * node first (a join elsewhere redirects the player, and the quick join starts again there).
   */
  private spread(all: string[]): string[] {
    const isHere = this.deps.isHere ?? (() => false);
    const codes = [...all.filter(isHere), ...all.filter((c) => !isHere(c))];
    const head = codes.slice(0, spreadOver);
    const shuffled: string[] = [];
    while (head.length > 0) shuffled.push(...head.splice(this.deps.random.int(head.length), 1));
    return [...shuffled, ...codes.slice(spreadOver)].slice(0, quickJoinTries);
  }
}
