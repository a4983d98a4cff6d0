import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";

/**
 * One real, valid example of every client frame type (a unit test checks each parses and that no type
 * is missing): the fuzzer's mutations start from these, so every field of every frame gets wrong values.
 * `hello` is built per connection (it needs a token); the rest carry the id 1, replaced when sent.
 */
export const exampleFrames: Readonly<Record<string, Readonly<Record<string, unknown>>>> = {
  hello: { type: "hello", protocol: 1, token: "a.b.c", resume: "s.p.sig" },
  join: { type: "join", id: 1, code: "AB12CD" },
  create: { type: "create", id: 1, public: true, metadata: { mode: "duo", map: "harbour" } },
  leave: { type: "leave", id: 1 },
  ready: { type: "ready", id: 1, ready: true },
  profile: { type: "profile", id: 1, name: "Mallory" },
  start: { type: "start", id: 1, mode: "duo" },
  makeHost: { type: "makeHost", id: 1, player: "dev-alice" },
  return: { type: "return", id: 1 },
  finish: { type: "finish", id: 1 },
  browse: { type: "browse", id: 1, mode: "duo", freeOnly: true },
  queryLobbies: {
    type: "queryLobbies",
    id: 1,
    filters: [{ field: "freeSeats", op: "gt", value: 0 }],
    order: { field: "createdAt", dir: "desc" },
    limit: 10,
  },
  quickJoin: {
    type: "quickJoin",
    id: 1,
    filters: [{ field: "mode", op: "in", value: ["duo", "ffa"] }],
    orCreate: { data: { mode: "duo" } },
  },
  joinActivity: { type: "joinActivity", id: 1, activity: "raid", vehicle: "tank" },
  activityReady: { type: "activityReady", id: 1, ready: true },
  leaveActivity: { type: "leaveActivity", id: 1 },
  findLobby: {
    type: "findLobby",
    id: 1,
    lobbyType: "ranked",
    rating: 1500,
    ready: true,
    extra: { k: 1 },
    team: "",
    pingData: { eu: 30 },
    maxSteps: 3,
    algorithm: { strategy: "ranged-percent", alignment: "center", ranges: [5, 10, 20] },
    filter: { k: 1 },
  },
  findOrCreateLobby: {
    type: "findOrCreateLobby",
    id: 1,
    lobbyType: "ranked",
    rating: 1500,
    maxSteps: 2,
    algorithm: { strategy: "ranged-absolute", alignment: "high", ranges: [50, 100] },
    settings: { maxPlayers: 4 },
  },
  createLobby: { type: "createLobby", id: 1, lobbyType: "ranked", rating: 1200, settings: {} },
  cancelSearch: { type: "cancelSearch", id: 1, lobbyType: "ranked" },
  acceptMatch: { type: "acceptMatch", id: 1, matchId: "m-1" },
  declineMatch: { type: "declineMatch", id: 1, matchId: "m-1" },
  matchedReady: { type: "matchedReady", id: 1, lobby: "mmlobby/ranked/1", ready: true },
  leaveMatched: { type: "leaveMatched", id: 1, lobby: "mmlobby/ranked/1" },
  runningMatch: { type: "runningMatch", id: 1 },
  createRoom: {
    type: "createRoom",
    id: 1,
    seats: 2,
    mode: "duel",
    map: "dunes",
    options: { fog: true },
    public: false,
    turnMs: 100,
    turnDurability: "volatile",
  },
  joinRoom: { type: "joinRoom", id: 1, code: "RM12CD", side: 1 },
  roomReady: { type: "roomReady", id: 1, ready: true },
  setAi: { type: "setAi", id: 1, side: 1, ai: true },
  roomSetup: { type: "roomSetup", id: 1, mode: "duel", map: null, teams: [0, 1], options: {} },
  command: { type: "command", id: 1, data: "move 1 2" },
  checksum: { type: "checksum", id: 1, turn: 3, value: "abc" },
  chat: { type: "chat", id: 1, channel: "all", text: "gg" },
  resumeRoom: { type: "resumeRoom", id: 1, handToAi: true },
  abortRoom: { type: "abortRoom", id: 1 },
  leaveRoom: { type: "leaveRoom", id: 1 },
  roomTurns: { type: "roomTurns", id: 1, after: 0 },
  heldTurns: {
    type: "heldTurns",
    id: 1,
    after: 0,
    turns: [{ turn: 1, commands: [{ side: 0, data: "x" }], ai: [1] }],
    done: true,
  },
  beginBlob: { type: "beginBlob", id: 1, size: 16, digest: "0".repeat(64) },
  blobChunk: { type: "blobChunk", id: 1, blob: "b-1", index: 0, data: "AAAA" },
  finishBlob: { type: "finishBlob", id: 1, blob: "b-1" },
  getRoomBlob: { type: "getRoomBlob", id: 1, from: 0 },
  ping: { type: "ping", t: 1 },
};

/** Every `type` the node accepts from a client, read from the schema itself. */
export function clientFrameTypes(): string[] {
  return clientFrameSchema.options.map((o) => o.shape.type.value);
}
