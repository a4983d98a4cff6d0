import type { BrowseAnswer } from "../protocol/client-frames.ts";
import type { CommandData, RoomGameOptions, TurnDurability } from "../protocol/room-client-frames.ts";
import type { CreateFields, FindOrCreateFields, SearchFields } from "../protocol/matchmaking-frames.ts";
import { LobbyClient, type LobbyDataEntry } from "./lobby-client.ts";
import type { QueryLobbiesAnswer, QueryLobbiesOptions, QuickJoinOptions } from "../protocol/query-frames.ts";
import type { RequestBody } from "./client-types.ts";
import { sha256Hex, uploadChunkBytes } from "./blob-transfer.ts";

export type { FoyerClientOptions, FoyerEvents, SocketLike } from "./client-types.ts";
export type { LobbyDataEntry, LobbyDoor } from "./lobby-client.ts";
export type { BrowseAnswer, BrowseLine, BrowseRoomLine } from "../protocol/client-frames.ts";
export type {
  LobbyFilter,
  LobbyLine,
  QueryLobbiesAnswer,
  QueryLobbiesOptions,
  QuickJoinOptions,
} from "../protocol/query-frames.ts";

/** Where a queue match runs: a `matchRunning` frame's fields. */
export interface RunningMatchView {
  readonly queue: string;
  readonly matchId: string;
  readonly url: string;
  readonly room: string;
  readonly token: string;
}

/**
 * The TypeScript SDK (browsers and Node): the player's requests, typed. Connection handling, retries and
 * resume are in `ClientSockets` and `ClientConnection`, the player's picture in `ClientCore`.
 */
export class FoyerClient extends LobbyClient {
  /**
   * Joins a lobby by code (any case; blanks around it are trimmed), with its password if it has one; an
   * empty code creates a private lobby.
   */
  join(code: string, opts: { password?: string } = {}): Promise<{ code: string }> {
    return this.call({ type: "join", code, ...opts }) as Promise<{ code: string }>;
  }

  /**
   * Creates a lobby: public ones appear in browse lists with their public data (`metadata` is the older
   * form of it); `maxMembers`, `locked` and `password` set its door (docs/lobbies.md).
   */
  create(
    opts: {
      public?: boolean;
      metadata?: Record<string, string | number | boolean>;
      data?: Record<string, LobbyDataEntry>;
      maxMembers?: number;
      locked?: boolean;
      password?: string;
    } = {},
  ): Promise<{ code: string }> {
    return this.call({ type: "create", ...opts }) as Promise<{ code: string }>;
  }

  /** Leaves the lobby (a success when in none); then `lobby` is null and `left` was emitted. */
  async leave(): Promise<unknown> {
    const value = await this.call({ type: "leave" });
    // The node sends a leaver no more lobby frames, so the answer is the only news that it is out.
    const left = this.lobby;
    this.lobby = null;
    if (left) this.emit("left", { code: left.code });
    return value;
  }
  ready(ready = true): Promise<unknown> {
    return this.call({ type: "ready", ready });
  }
  profile(name: string): Promise<unknown> {
    return this.call({ type: "profile", name });
  }
  /** Host only: starts a room in `mode`, with a document uploaded by `uploadBlob` (its id) if given. */
  start(mode: string, blob?: string): Promise<{ room: string }> {
    return this.call({ type: "start", mode, ...(blob === undefined ? {} : { blob }) }) as Promise<{
      room: string;
    }>;
  }

  /**
   * Uploads a document for a room's create or a lobby's start (docs/rooms.md "Large blobs"): begins with
   * its size and SHA-256, sends chunks that fit the node's frame limit (`maxFrameBytes` option), finishes,
   * and returns the id to pass as `blob`. An upload must be used within the node's upload timeout.
   */
  async uploadBlob(bytes: Uint8Array): Promise<string> {
    const digest = await sha256Hex(bytes);
    const begun = (await this.call({ type: "beginBlob", size: bytes.byteLength, digest })) as {
      blob: string;
    };
    const json = this.options.json === true;
    const chunk = uploadChunkBytes(this.options.maxFrameBytes ?? 65_536, json);
    for (let index = 0, at = 0; at < bytes.byteLength; index++, at += chunk) {
      const part: Uint8Array<ArrayBuffer> = new Uint8Array(
        bytes.buffer,
        bytes.byteOffset,
        bytes.byteLength,
      ).slice(at, Math.min(at + chunk, bytes.byteLength));
      const data = json ? btoa(String.fromCharCode(...part)) : part;
      await this.call({ type: "blobChunk", blob: begun.blob, index, data });
    }
    await this.call({ type: "finishBlob", blob: begun.blob });
    return begun.blob;
  }
  /** Host only: hands the host role to another member. */
  makeHost(player: string): Promise<unknown> {
    return this.call({ type: "makeHost", player });
  }
  /** Back to the lobby: the host ends the room for everyone, a guest steps out alone. */
  return(): Promise<unknown> {
    return this.call({ type: "return" });
  }
  /** Reports that the match in the player's room is over. */
  finish(): Promise<unknown> {
    return this.call({ type: "finish" });
  }
  /**
   * Joins an activity's countdown lobby (docs/activity.md), with the vehicle the player picked, if any.
   * The lobby's events come as `activity` events; when its countdown reaches 0, `activityTransfer` says
   * where to go. Joining another activity, or a private lobby, leaves this one.
   */
  async joinActivity(activity: string, opts: { vehicle?: string } = {}): Promise<{ lobby: string }> {
    const value = (await this.call({ type: "joinActivity", activity, ...opts })) as { lobby: string };
    this.activityLobby = value.lobby;
    // The node took the player out of its private lobby, which sends a leaver no more lobby frames.
    const left = this.lobby;
    this.lobby = null;
    if (left) this.emit("left", { code: left.code });
    return value;
  }
  /** Ready (or not) in the player's activity lobby; everyone ready cuts the countdown to its start delay. */
  activityReady(ready = true): Promise<unknown> {
    return this.call({ type: "activityReady", ready });
  }
  /** No longer ready in the player's activity lobby. */
  activityNotReady(): Promise<unknown> {
    return this.activityReady(false);
  }
  /** Leaves the player's activity lobby (a success when in none). */
  async leaveActivity(): Promise<unknown> {
    const value = await this.call({ type: "leaveActivity" });
    this.activityLobby = null;
    return value;
  }
  /**
   * The browse list, current across the fleet: public lobbies and public rooms still in setup (`kind`,
   * default both), of one `mode` if given, only those with a free seat with `freeOnly`. At most 100 of
   * each, sorted by code. Private lobbies and rooms never appear.
   */
  browse(
    opts: { kind?: "lobbies" | "rooms" | "all"; mode?: string; freeOnly?: boolean } = {},
  ): Promise<BrowseAnswer> {
    return this.call({ type: "browse", ...opts }) as Promise<BrowseAnswer>;
  }

  /**
   * Public lobbies of the whole fleet that pass every filter (docs/lobbies-query.md), in `order` (by code
   * by default), a page of `limit`; the answer's `cursor` asks for the next page. A filter on a field the
   * node does not index, an unknown operator or a value of the wrong type is refused INVALID.
   */
  queryLobbies(opts: QueryLobbiesOptions = {}): Promise<QueryLobbiesAnswer> {
    return this.call({ type: "queryLobbies", ...opts }) as Promise<QueryLobbiesAnswer>;
  }

  /**
   * Joins the best public lobby with a free seat that passes the filters (the fullest first, unless
   * `order` says otherwise), or creates one with `orCreate`'s data when none does; without `orCreate`,
   * no match is JOIN_FAIL. The answer is the lobby's code, as for `join`.
   */
  quickJoin(opts: QuickJoinOptions = {}): Promise<{ code: string }> {
    return this.call({ type: "quickJoin", ...opts }) as Promise<{ code: string }>;
  }

  /**
   * Creates a relay room directly (docs/rooms.md): `seats` 1 to 4, the player is side 0 and host. The
   * room's frames come as `room` and `roomEvent`; `client.room` holds the latest room frame.
   */
  createRoom(opts: {
    seats: number;
    mode: string;
    map?: string;
    options?: RoomGameOptions;
    public?: boolean;
    turnMs?: number;
    turnDurability?: TurnDurability;
    /** A document's id from `uploadBlob`: every seat receives it at the start (the `blob` event). */
    blob?: string;
  }): Promise<{ room: string; side: number }> {
    return this.call({ type: "createRoom", ...opts }) as Promise<{ room: string; side: number }>;
  }
  /**
   * Takes the next free seat of a room (or the `side` named) before its match starts; with the `token` of
   * an `activityTransfer`, takes the seat an activity lobby gave you.
   */
  joinRoom(code: string, side?: number, token?: string): Promise<{ room: string; side: number }> {
    return this.call({
      type: "joinRoom",
      code,
      ...(side === undefined ? {} : { side }),
      ...(token === undefined ? {} : { token }),
    }) as Promise<{ room: string; side: number }>;
  }
  /** Loads into the room an `activityTransfer` names, with its token (which also leaves the activity lobby). */
  enterActivityRoom(transfer: { room: string; token: string }): Promise<{ room: string; side: number }> {
    return this.joinRoom(transfer.room, undefined, transfer.token);
  }
  /**
   * SPEC §3 ping: the round trip to each region of the fleet, the best of `samples` pings, as the
   * `pingData` of a search (`{ [region]: ms }`). The connected node's region is measured on this
   * connection; every other region the welcome listed (`regions`, one node URL each) on a short-lived
   * probe socket. A region that cannot be reached is left out; a node without a region gives `{}` for
   * itself (the queue then uses its default region).
   */
  async pingData(samples = 3): Promise<Record<string, number>> {
    const data: Record<string, number> = {};
    const others = this.regions.filter((r) => r.region !== this.region);
    const probed = await Promise.all(
      others.map((r) =>
        this.probeRoundTrip(r.url, samples).then(
          (ms) => ms,
          () => undefined,
        ),
      ),
    );
    others.forEach((r, i) => {
      const ms = probed[i];
      if (ms !== undefined) data[r.region] = ms;
    });
    if (this.region !== null) {
      let best = Number.POSITIVE_INFINITY;
      for (let i = 0; i < samples; i++) best = Math.min(best, await this.measurePing());
      data[this.region] = best;
    }
    return data;
  }
  /**
   * Takes (or takes again) this player's seat in a queue match's room, with the token of its `matchReady`
   * or `matchRunning` frame (docs/matchmaking.md, "Reconnect"). A room on another node (`url`) is joined
   * there: the connection moves to that node first (its frames are sent only to sockets there).
   */
  async enterMatchRoom(ready: {
    room: string;
    token: string;
    url?: string;
  }): Promise<{ room: string; side: number }> {
    if (ready.url !== undefined && ready.url !== "" && ready.url !== this.url) await this.moveTo(ready.url);
    return this.joinRoom(ready.room, undefined, ready.token);
  }
  /** Ready (or not) in the room: the match starts when every human seat is ready. */
  roomReady(ready = true): Promise<unknown> {
    return this.call({ type: "roomReady", ready });
  }
  /** Host only, before the start: a free seat played by AI (or not). */
  setAi(side: number, ai = true): Promise<unknown> {
    return this.call({ type: "setAi", side, ai });
  }
  /** Host only, before the start: mode, map (null clears it), teams (one per seat), options (replaced). */
  roomSetup(
    opts: { mode?: string; map?: string | null; teams?: number[]; options?: RoomGameOptions } = {},
  ): Promise<unknown> {
    return this.call({ type: "roomSetup", ...opts });
  }
  /** A command for the next turn; answers the turn it goes out in (absent while a restore waits). */
  command(data: CommandData): Promise<{ turn?: number } | null> {
    return this.call({ type: "command", data }) as Promise<{ turn?: number } | null>;
  }
  /** The player's checksum of its game state after `turn`. */
  checksum(turn: number, value: string | number): Promise<unknown> {
    return this.call({ type: "checksum", turn, value });
  }
  /** A chat line to everyone in the room (`all`) or to the player's team (`team`). */
  chat(channel: "all" | "team", text: string): Promise<unknown> {
    return this.call({ type: "chat", channel, text });
  }
  /** Host only: resumes a paused clock; `handToAi` gives the missing players' seats to AI first. */
  resumeRoom(opts: { handToAi?: boolean } = {}): Promise<unknown> {
    return this.call({ type: "resumeRoom", ...opts });
  }
  /** Host only: ends the match (or, before the start, closes the room). */
  abortRoom(): Promise<unknown> {
    return this.call({ type: "abortRoom" });
  }
  /** Leaves a room created directly (after the start the seat goes to AI); then `room` is null. */
  async leaveRoom(): Promise<unknown> {
    const value = await this.call({ type: "leaveRoom" });
    // A leaver gets no more room frames: the answer is the only news that it is out.
    this.room = null;
    return value;
  }
  /**
   * Searches `lobbyType`'s lobbies near `rating`, widening by step (docs/matchmaking.md). Answers the queue
   * entry at once; the lobby's `matchedLobby` frame, or `matchmakingFailed` by `maxSteps`, comes as a
   * `matchmaking` event.
   */
  findLobby(lobbyType: string, fields: SearchFields): Promise<{ entry: string }> {
    return this.search({ type: "findLobby", lobbyType, ...fields }) as Promise<{ entry: string }>;
  }
  /** As `findLobby`, but opens a lobby the player owns (with `settings`) when nothing matched by `maxSteps`. */
  findOrCreateLobby(lobbyType: string, fields: FindOrCreateFields): Promise<{ entry: string }> {
    return this.search({ type: "findOrCreateLobby", lobbyType, ...fields }) as Promise<{ entry: string }>;
  }
  /** Opens a lobby of `lobbyType` at once, owned by the player. */
  createLobby(lobbyType: string, fields: CreateFields): Promise<{ entry: string; lobby: string }> {
    return this.search({ type: "createLobby", lobbyType, ...fields }) as Promise<{
      entry: string;
      lobby: string;
    }>;
  }
  /**
   * The host of a private lobby queues the whole lobby as one party (`findLobby` with `party: true`): its
   * members search together, the lobby stays, and none of them may join another lobby or search until the
   * search ends (docs/protocol.md, "Where a player is").
   */
  findLobbyAsParty(lobbyType: string, fields: Omit<SearchFields, "party">): Promise<{ entry: string }> {
    return this.findLobby(lobbyType, { ...fields, party: true });
  }
  /**
   * A search alone takes the player out of its private lobby, which sends a leaver no more lobby frames:
   * the answer is the only news that it is out. A party's search keeps the lobby.
   */
  private async search(
    body: { type: string; party?: boolean | undefined } & Record<string, unknown>,
  ): Promise<unknown> {
    const value = await this.call(body as RequestBody);
    if (body.party !== true) {
      const left = this.lobby;
      this.lobby = null;
      if (left) this.emit("left", { code: left.code });
    }
    return value;
  }
  /**
   * Where this player's queue match runs (as in `matchRunning`), or null: for an app that was not
   * listening when the node sent `matchRunning` after the welcome.
   */
  runningMatch(): Promise<RunningMatchView | null> {
    return this.call({ type: "runningMatch" }) as Promise<RunningMatchView | null>;
  }
  /** Stops searching in `lobbyType`'s queue; a match waiting for the player's accept is declined. */
  cancelSearch(lobbyType: string): Promise<unknown> {
    return this.call({ type: "cancelSearch", lobbyType });
  }
  /** Accepts the match of a `matchFound` event. */
  acceptMatch(matchId: string): Promise<unknown> {
    return this.call({ type: "acceptMatch", matchId });
  }
  /** Declines the match of a `matchFound` event: the player is out, the others search again. */
  declineMatch(matchId: string): Promise<unknown> {
    return this.call({ type: "declineMatch", matchId });
  }
  /** Ready (or not) in a matched lobby (`mmlobby/<type>/<n>`). */
  matchedReady(lobby: string, ready = true): Promise<unknown> {
    return this.call({ type: "matchedReady", lobby, ready });
  }
  /** Leaves a matched lobby. */
  leaveMatched(lobby: string): Promise<unknown> {
    return this.call({ type: "leaveMatched", lobby });
  }
}
