import { pack, unpack } from "msgpackr";
import { describe, expect, it } from "vitest";
import {
  defaultLobbyOptions,
  lobbyKind,
  lobbySchemaVersion,
  metadataSchema,
} from "../../actors/lobby/index.ts";
import { testContext } from "../../actors/runtime/test-context.ts";
import { expectRefused, lobby, lobbyOf, type LobbyDriver } from "./support/lobby-driver.ts";

const kind = lobbyKind(defaultLobbyOptions);

describe("refusals leave the state identical", () => {
  const cases: [string, (d: LobbyDriver) => void, unknown, string][] = [
    ["FULL", () => undefined, { type: "join", player: { id: "z", name: "Z" } }, "FULL"],
    ["makeHost by a guest", () => undefined, { type: "makeHost", player: "bob", target: "bob" }, "NOT_HOST"],
    ["start by a guest", () => undefined, { type: "start", player: "bob", mode: "duel" }, "NOT_HOST"],
    ["ready by a stranger", () => undefined, { type: "ready", player: "z", ready: true }, "NOT_IN_LOBBY"],
    ["unknown mode", () => undefined, { type: "start", player: "alice", mode: "polo" }, "INVALID"],
    ["too many", () => undefined, { type: "start", player: "alice", mode: "duel" }, "TOO_MANY_PLAYERS"],
    ["return, no room", () => undefined, { type: "return", player: "bob" }, "NOT_PLAYING"],
    [
      "already playing",
      (d) => d.send({ type: "start", player: "alice", mode: "duo" }),
      { type: "start", player: "alice", mode: "duo" },
      "ALREADY_PLAYING",
    ],
    [
      "unavailable",
      (d) => (d.ctx.node = { canOpenRoom: false, draining: false }),
      { type: "start", player: "alice", mode: "duo" },
      "UNAVAILABLE",
    ],
  ];
  for (const [name, setup, message, code] of cases) {
    it(`${name} → ${code}: same state object, exactly one reject, no listing even when public`, () => {
      const d = lobbyOf(["alice", "bob", "carol"], { maxMembers: 3 }, true);
      setup(d);
      expectRefused(d, message, code);
    });
  }
});

describe("parse", () => {
  it("accepts every lobby message and the runtime's timer and restored", () => {
    const good = [
      { type: "join", player: { id: "p", name: "P" } },
      { type: "leave", player: "p" },
      { type: "ready", player: "p", ready: false },
      { type: "profile", player: "p", name: "Q" },
      { type: "makeHost", player: "p", target: "q" },
      { type: "start", player: "p", mode: "duo" },
      { type: "return", player: "p" },
      { type: "connection", player: "p", connected: true },
      { type: "roomEnded", room: "QWERTY" },
      { type: "timer", name: "grace:p" },
      { type: "restored", reason: "failover", connected: ["p"] },
    ];
    for (const message of good) expect(kind.parse(message), JSON.stringify(message)).toEqual(message);
  });

  it("rejects malformed messages", () => {
    const bad: unknown[] = [
      null,
      "join",
      42,
      [],
      {},
      { type: "dance", player: "p" },
      { type: "join", player: "p" },
      { type: "join", player: { id: "p" } },
      { type: "join", player: { id: "", name: "P" } },
      { type: "join", player: { id: "p", name: "x".repeat(65) } },
      { type: "join", player: { id: "p", name: "P", admin: true } },
      { type: "leave" },
      { type: "leave", player: 7 },
      { type: "leave", player: "p", extra: 1 },
      { type: "ready", player: "p", ready: "yes" },
      { type: "start", player: "p" },
      { type: "start", player: "p", mode: "" },
      { type: "connection", player: "p" },
      { type: "roomEnded", room: "lower" },
      { type: "timer" },
      { type: "restored", reason: "reboot", connected: [] },
      { type: "restored", reason: "failover", connected: "p" },
    ];
    for (const message of bad) expect(kind.parse(message), JSON.stringify(message)).toBeUndefined();
  });
});

describe("snapshots", () => {
  function busyLobby() {
    const d = lobby({}, { public: true, metadata: { mode: "duo", map: "dunes", level: 3, ranked: true } });
    d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    d.send({ type: "join", player: { id: "carol", name: "Carol" } });
    d.send({ type: "ready", player: "bob", ready: true });
    d.send({ type: "start", player: "alice", mode: "duo" });
    d.send({ type: "connection", player: "carol", connected: false });
    d.send({ type: "roomEnded", room: d.state.room!.code });
    d.send({ type: "connection", player: "bob", connected: false });
    return d;
  }

  it("upgrade reads back a JSON clone of the state", () => {
    const { state } = busyLobby();
    expect(kind.upgrade(JSON.parse(JSON.stringify(state)), lobbySchemaVersion)).toEqual(state);
  });

  it("upgrade reads back a msgpack round trip of the state", () => {
    const { state } = busyLobby();
    expect(kind.upgrade(unpack(pack(state)), lobbySchemaVersion)).toEqual(state);
  });

  it("a version-2 snapshot (before party searches) reads as not searching; the host's registry sets and ends it", () => {
    const d = busyLobby();
    const { searching, ...v2 } = d.state;
    expect(searching).toBeNull();
    expect(kind.upgrade(JSON.parse(JSON.stringify(v2)), 2)).toEqual(d.state);
    const host = d.state.host!;
    d.send({ type: "partySearch", host, lobbyType: "CursorPartyV2", entry: "e4" });
    expect(d.state.searching).toEqual({ lobbyType: "CursorPartyV2", entry: "e4" });
    // Only the host speaks for the lobby; a late end of another entry changes nothing.
    d.send({ type: "partySearch", host: "nobody", lobbyType: "other", entry: "e9" });
    d.send({ type: "partySearchEnded", lobbyType: "CursorPartyV2", entry: "e3" });
    expect(d.state.searching).toEqual({ lobbyType: "CursorPartyV2", entry: "e4" });
    d.send({ type: "partySearchEnded", lobbyType: "CursorPartyV2", entry: "e4" });
    expect(d.state.searching).toBeNull();
  });

  it("upgrade refuses an unknown version or a damaged state", () => {
    const { state } = busyLobby();
    expect(() => kind.upgrade(state, 99)).toThrow(/version/);
    expect(() => kind.upgrade({ ...state, members: "none" }, 1)).toThrow();
    expect(() => kind.upgrade({ ...state, stray: 1 }, 1)).toThrow();
  });

  it("idle is false while a grace or the return is pending, true otherwise", () => {
    const d = lobbyOf(["alice", "bob"]);
    expect(kind.idle(d.state)).toBe(true);
    d.send({ type: "start", player: "alice", mode: "duel" });
    expect(kind.idle(d.state)).toBe(true);
    d.send({ type: "roomEnded", room: d.state.room!.code });
    expect(kind.idle(d.state)).toBe(false);
    d.fire("return");
    expect(kind.idle(d.state)).toBe(true);
    d.send({ type: "connection", player: "bob", connected: false });
    expect(kind.idle(d.state)).toBe(false);
  });
});

describe("construction", () => {
  it("create throws on an invalid init (a caller's bug, reported as INTERNAL by the runtime)", () => {
    expect(() => kind.create({ code: "abc", host: { id: "a", name: "A" } }, testContext())).toThrow();
    expect(() => kind.create(undefined, testContext())).toThrow();
  });

  it("metadata is bounded: at most 32 fields, names of at most 32 characters", () => {
    expect(metadataSchema.safeParse({ ["n".repeat(32)]: 1 }).success).toBe(true);
    expect(metadataSchema.safeParse({ ["n".repeat(33)]: 1 }).success).toBe(false);
    const many = Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`f${i}`, i]));
    expect(metadataSchema.safeParse(many).success).toBe(false);
  });

  it("create defaults public to false and data to none", () => {
    const { state } = kind.create({ code: "ABC123", host: { id: "a", name: "A" } }, testContext());
    expect(state.public).toBe(false);
    expect(state.data).toEqual({});
  });

  it("lobbyKind refuses invalid options at start-up", () => {
    expect(() => lobbyKind({ ...defaultLobbyOptions, maxMembers: -1 })).toThrow();
  });
});
