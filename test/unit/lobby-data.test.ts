import { describe, expect, it } from "vitest";
import { upgradeLobbyState, createProblem, defaultLobbyOptions } from "../../actors/lobby/index.ts";
import { expectRefused, lobby, lobbyOf, ofType, pushes } from "./support/lobby-driver.ts";

/** The value of the last lobby frame pushed in `effects`. */
function lastFrame(effects: Parameters<typeof pushes>[0]) {
  return pushes(effects).at(-1)?.frame as unknown as {
    version: number;
    data: unknown;
    members: Record<string, unknown>[];
  };
}

describe("lobby data", () => {
  it("create takes data with visibilities, and the older metadata as public data", () => {
    const d = lobby(
      {},
      {
        metadata: { mode: "duo" },
        extra: { data: { region: { value: "eu" }, seed: { value: 42, visibility: "member" } } },
      },
    );
    expect(d.state.data).toEqual({
      mode: { value: "duo", visibility: "public" },
      region: { value: "eu", visibility: "public" },
      seed: { value: 42, visibility: "member" },
    });
    const frame = lastFrame(d.created);
    expect(frame).toMatchObject({ version: 1, metadata: { mode: "duo", region: "eu" } });
    expect(frame.data).toEqual(d.state.data);
  });

  it("the host sets and deletes several keys in one step; members see public and member keys", () => {
    const d = lobbyOf(["alice", "bob"]);
    const v = d.state.version;
    const effects = d.send({
      type: "setData",
      player: "alice",
      set: { map: { value: "dunes" }, secret: { value: true, visibility: "member" } },
    });
    expect(ofType(effects, "reply")).toEqual([{ type: "reply", value: { version: v + 1 } }]);
    expect(pushes(effects).map((p) => p.to)).toEqual([["alice", "bob"]]);
    expect(lastFrame(effects)).toMatchObject({
      version: v + 1,
      data: { map: { value: "dunes", visibility: "public" }, secret: { value: true, visibility: "member" } },
    });
    const again = d.send({
      type: "setData",
      player: "alice",
      set: { map: { value: 3 } },
      delete: ["secret"],
    });
    expect(ofType(again, "reply")[0]).toEqual({ type: "reply", value: { version: v + 2 } });
    // A key set again keeps its visibility unless the update names one.
    expect(d.state.data).toEqual({ map: { value: 3, visibility: "public" } });
  });

  it("an update that changes nothing answers the current version and writes nothing", () => {
    const d = lobbyOf(["alice"]);
    d.send({ type: "setData", player: "alice", set: { a: { value: 1 } } });
    const before = d.state;
    expect(d.send({ type: "setData", player: "alice", set: { a: { value: 1 } }, delete: ["nope"] })).toEqual([
      { type: "reply", value: { version: before.version } },
    ]);
    expect(d.state).toBe(before);
  });

  it("ifVersion applies the update only to that version; anything changed since is VERSION_CONFLICT", () => {
    const d = lobbyOf(["alice", "bob"]);
    const seen = d.state.version;
    expect(
      ofType(
        d.send({ type: "setData", player: "alice", set: { a: { value: 1 } }, ifVersion: seen }),
        "reply",
      ),
    ).toEqual([{ type: "reply", value: { version: seen + 1 } }]);
    // Not only data moves the version: bob's ready flag does too.
    d.send({ type: "ready", player: "bob", ready: true });
    expect(d.state.version).toBe(seen + 2);
    expectRefused(
      d,
      { type: "setData", player: "alice", set: { a: { value: 2 } }, ifVersion: seen + 1 },
      "VERSION_CONFLICT",
    );
    expect(d.state.data).toEqual({ a: { value: 1, visibility: "public" } });
  });

  it("every change moves the version, and the frames it pushes carry the new one", () => {
    const d = lobbyOf(["alice"]);
    const v = d.state.version;
    const joined = d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(d.state.version).toBe(v + 1);
    expect(lastFrame(joined).version).toBe(v + 1);
    d.send({ type: "profile", player: "bob", name: "Bobby" });
    expect(d.state.version).toBe(v + 2);
    // A refusal or a read changes nothing, so the version stays.
    d.send({ type: "ready", player: "zed", ready: true });
    d.send({ type: "view" });
    expect(d.state.version).toBe(v + 2);
  });

  it("updates by a guest are NOT_HOST, by a non-member NOT_IN_LOBBY; the studio (no player) may", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "setData", player: "bob", set: { a: { value: 1 } } }, "NOT_HOST");
    expectRefused(d, { type: "setData", player: "zed", set: { a: { value: 1 } } }, "NOT_IN_LOBBY");
    d.send({ type: "setData", set: { a: { value: 1 } } });
    expect(d.state.data).toEqual({ a: { value: 1, visibility: "public" } });
  });

  it("over-limit data is DATA_LIMIT and changes nothing: keys, key length, value bytes, total bytes", () => {
    const d = lobbyOf(["alice"], {
      lobbyData: { maxKeys: 3, maxKeyLength: 8, maxValueBytes: 10, maxTotalBytes: 30 },
    });
    const set = (entries: Record<string, unknown>) => ({
      type: "setData",
      player: "alice",
      set: Object.fromEntries(Object.entries(entries).map(([k, value]) => [k, { value }])),
    });
    expectRefused(d, set({ a: 1, b: 2, c: 3, d: 4 }), "DATA_LIMIT");
    expectRefused(d, set({ "123456789": 1 }), "DATA_LIMIT");
    expectRefused(d, set({ a: "x".repeat(11) }), "DATA_LIMIT");
    // "é" is two bytes in UTF-8: six of them are twelve, over the value limit.
    expectRefused(d, set({ a: "é".repeat(6) }), "DATA_LIMIT");
    expectRefused(d, set({ aaaaaaaa: "x".repeat(10), bbbbbbbb: "y".repeat(10) }), "DATA_LIMIT");
    d.send(set({ a: "x".repeat(10), b: true }));
    expect(Object.keys(d.state.data)).toEqual(["a", "b"]);
  });

  it("wrong value types and bad keys do not parse; a key both set and deleted is INVALID", () => {
    const d = lobbyOf(["alice"]);
    for (const value of [null, [1], { x: 1 }]) {
      expect(d.kind.parse({ type: "setData", player: "alice", set: { a: { value } } })).toBeUndefined();
    }
    expect(d.kind.parse({ type: "setData", player: "alice", set: { "a b": { value: 1 } } })).toBeUndefined();
    expect(
      d.kind.parse({ type: "setData", player: "alice", set: { a: { value: 1, visibility: "all" } } }),
    ).toBeUndefined();
    expectRefused(
      d,
      { type: "setData", player: "alice", set: { a: { value: 1 } }, delete: ["a"] },
      "INVALID",
    );
  });

  it("createProblem says what a create's data breaks, before any lobby is made", () => {
    const host = { id: "a", name: "A" };
    const options = { ...defaultLobbyOptions, lobbyData: { ...defaultLobbyOptions.lobbyData, maxKeys: 1 } };
    expect(createProblem({ code: "ABC123", host, data: { a: { value: 1 } } }, options)).toBeUndefined();
    expect(
      createProblem({ code: "ABC123", host, metadata: { m: 1 }, data: { a: { value: 1 } } }, options),
    ).toMatchObject({ code: "DATA_LIMIT" });
    expect(createProblem({ code: "ABC123", host, maxMembers: 9 }, options)).toMatchObject({
      code: "INVALID",
    });
  });
});

describe("member data", () => {
  it("a member sets and deletes its own keys; every member sees them", () => {
    const d = lobbyOf(["alice", "bob"]);
    const effects = d.send({ type: "setMemberData", player: "bob", set: { colour: "red", level: 3 } });
    expect(pushes(effects).map((p) => p.to)).toEqual([["alice", "bob"]]);
    expect(lastFrame(effects).members[1]).toMatchObject({ player: "bob", data: { colour: "red", level: 3 } });
    d.send({ type: "setMemberData", player: "bob", delete: ["level"] });
    expect(d.state.members[1]?.data).toEqual({ colour: "red" });
    expect(d.state.members[0]?.data).toEqual({});
  });

  it("nobody sets another's: the message names only the sender; a non-member is NOT_IN_LOBBY", () => {
    const d = lobbyOf(["alice", "bob"]);
    expect(
      d.kind.parse({ type: "setMemberData", player: "alice", target: "bob", set: { a: 1 } }),
    ).toBeUndefined();
    expectRefused(d, { type: "setMemberData", player: "zed", set: { a: 1 } }, "NOT_IN_LOBBY");
  });

  it("member data has its own limits", () => {
    const d = lobbyOf(["alice"], {
      memberData: { maxKeys: 1, maxKeyLength: 64, maxValueBytes: 4, maxTotalBytes: 64 },
    });
    expectRefused(d, { type: "setMemberData", player: "alice", set: { a: 1, b: 2 } }, "DATA_LIMIT");
    expectRefused(d, { type: "setMemberData", player: "alice", set: { a: "12345" } }, "DATA_LIMIT");
  });

  it("is kept across a drop and a reconnect within the grace", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "setMemberData", player: "bob", set: { colour: "red" } });
    d.send({ type: "connection", player: "bob", connected: false });
    d.ctx.advance(5_000);
    d.send({ type: "connection", player: "bob", connected: true });
    expect(d.state.members[1]).toMatchObject({ connected: true, data: { colour: "red" } });
  });
});

describe("older snapshots", () => {
  it("a version 1 lobby reads as public data, the node's seats, no bans, version 1", () => {
    const v1 = {
      code: "ABC123",
      public: true,
      metadata: { mode: "duo", "odd name": 1 },
      members: [
        { player: "a", memberId: 1, name: "A", ready: false, team: null, connected: true, inRoom: false },
      ],
      host: "a",
      nextMemberId: 2,
      room: null,
    };
    const state = upgradeLobbyState(v1, 1, 6);
    expect(state).toMatchObject({
      data: { mode: { value: "duo", visibility: "public" } },
      door: { maxMembers: 6, locked: false, passwordHash: null },
      banned: [],
      version: 1,
    });
    expect(state.members[0]).toMatchObject({ data: {}, chatAt: [] });
    expect(() => upgradeLobbyState(v1, 4)).toThrow(/version/);
    // Through the kind, the seats are the node's cap.
    const d = lobby({ maxMembers: 5 });
    expect(d.kind.upgrade(v1, 1).door.maxMembers).toBe(5);
  });
});
