import { describe, expect, it } from "vitest";
import { lobbyFrame } from "../../actors/lobby/index.ts";
import { expectRefused, KEY, lobby, lobbyOf, pushes, roster } from "./support/lobby-driver.ts";

const alice = {
  player: "alice",
  memberId: 1,
  name: "ALICE",
  ready: false,
  team: null,
  connected: true,
  inRoom: false,
  data: {},
  chatAt: [],
};

/** A member as the lobby frame shows it: its chat bookkeeping left out. */
const { chatAt: _chatAt, ...aliceSeen } = alice;

describe("lobby membership (SPEC §1)", () => {
  it("create makes the creator the first member and host, and welcomes it", () => {
    const d = lobby();
    expect(d.state).toEqual({
      code: "ABC123",
      public: false,
      data: {},
      version: 1,
      createdAt: 1_000_000,
      door: { maxMembers: 8, locked: false, passwordHash: null },
      banned: [],
      members: [alice],
      host: "alice",
      nextMemberId: 2,
      room: null,
      searching: null,
    });
    expect(d.created).toEqual([
      {
        type: "push",
        to: ["alice"],
        frame: {
          type: "lobby",
          code: "ABC123",
          version: 1,
          public: false,
          metadata: null,
          data: {},
          maxMembers: 8,
          locked: false,
          hasPassword: false,
          host: "alice",
          members: [aliceSeen],
          playing: false,
          room: null,
          searching: null,
        },
      },
      { type: "reply", value: { code: "ABC123" } },
      { type: "tell", to: "player/alice", message: { type: "joined", lobby: KEY } },
    ]);
  });

  it("join adds a member at the end with the next member id and tells everyone", () => {
    const d = lobby();
    const effects = d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(d.state.members[1]).toEqual({
      player: "bob",
      memberId: 2,
      name: "Bob",
      ready: false,
      team: null,
      connected: true,
      inRoom: false,
      data: {},
      chatAt: [],
    });
    expect(effects).toEqual([
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply", value: { code: "ABC123" } },
      { type: "tell", to: "player/bob", message: { type: "joined", lobby: KEY } },
    ]);
  });

  it("member ids are never reused after a leave", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "leave", player: "bob" });
    d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(roster(d.state).map(([p, id]) => [p, id])).toEqual([
      ["alice", 1],
      ["bob", 3],
    ]);
  });

  it("join is refused FULL at maxMembers, leaving the state untouched", () => {
    const d = lobbyOf(["alice", "bob", "carol"], { maxMembers: 3 });
    expectRefused(d, { type: "join", player: { id: "dave", name: "Dave" } }, "FULL");
  });

  it("joining the lobby you are in resends the state to you only", () => {
    const d = lobbyOf(["alice", "bob"]);
    const before = d.state;
    const effects = d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(d.state).toBe(before);
    expect(effects).toEqual([
      // A migration's arrival window, if one is open, is closed (cancelling none changes nothing).
      { type: "cancelTimer", name: "grace:bob" },
      { type: "push", to: ["bob"], frame: lobbyFrame(before) },
      { type: "reply", value: { code: "ABC123" } },
    ]);
  });

  it("leave removes the member, tells its registry and the others", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    const effects = d.send({ type: "leave", player: "bob" });
    expect(roster(d.state).map(([p]) => p)).toEqual(["alice", "carol"]);
    expect(d.state.host).toBe("alice");
    expect(effects).toEqual([
      // Whatever grace it had running (an arrival window, after a migration) goes with it.
      { type: "cancelTimer", name: "grace:bob" },
      { type: "tell", to: "player/bob", message: { type: "left", lobby: KEY } },
      { type: "push", to: ["alice", "carol"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
  });

  it("leave of a non-member is a success that changes nothing, and confirms to the player's registry", () => {
    const d = lobbyOf(["alice", "bob"]);
    const before = d.state;
    expect(d.send({ type: "leave", player: "zed" })).toEqual([
      { type: "tell", to: "player/zed", message: { type: "left", lobby: d.ctx.key } },
      { type: "reply" },
    ]);
    expect(d.state).toBe(before);
  });

  it("when the host leaves, the next connected member in join order becomes host", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    d.send({ type: "connection", player: "bob", connected: false });
    const effects = d.send({ type: "leave", player: "alice" });
    expect(d.state.host).toBe("carol");
    expect(pushes(effects)[0]?.frame).toMatchObject({ host: "carol" });
  });

  it("when nobody else is connected, the host role goes to the next member in join order", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    d.send({ type: "connection", player: "bob", connected: false });
    d.send({ type: "connection", player: "carol", connected: false });
    d.send({ type: "leave", player: "alice" });
    expect(d.state.host).toBe("bob");
  });

  it("the last member leaving closes the lobby", () => {
    const d = lobby();
    expect(d.send({ type: "leave", player: "alice" })).toEqual([
      { type: "cancelTimer", name: "grace:alice" },
      { type: "tell", to: "player/alice", message: { type: "left", lobby: KEY } },
      { type: "reply" },
      { type: "stop" },
    ]);
    expect(d.state.members).toEqual([]);
    expect(d.state.host).toBeNull();
  });

  it("the last member leaving disposes of the room it was playing", () => {
    const d = lobby();
    d.send({ type: "start", player: "alice", mode: "duel" });
    const room = d.state.room!.code;
    expect(d.send({ type: "leave", player: "alice" })).toEqual([
      { type: "cancelTimer", name: "grace:alice" },
      { type: "tell", to: "player/alice", message: { type: "left", lobby: KEY } },
      { type: "tell", to: `room/${room}`, message: { type: "end" } },
      { type: "reply" },
      { type: "stop" },
    ]);
  });

  it("ready and profile changes are sent to every member; a repeat changes nothing", () => {
    const d = lobbyOf(["alice", "bob"]);
    const ready = d.send({ type: "ready", player: "bob", ready: true });
    expect(d.state.members[1]?.ready).toBe(true);
    expect(ready).toEqual([
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
    const before = d.state;
    expect(d.send({ type: "ready", player: "bob", ready: true })).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    const profile = d.send({ type: "profile", player: "bob", name: "Robert" });
    expect(d.state.members[1]?.name).toBe("Robert");
    expect(pushes(profile)).toEqual([{ to: ["alice", "bob"], frame: lobbyFrame(d.state) }]);
  });

  it("ready and profile from a non-member are refused NOT_IN_LOBBY", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "ready", player: "zed", ready: true }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "profile", player: "zed", name: "Zed" }, "NOT_IN_LOBBY");
  });

  it("makeHost hands the role over and tells everyone", () => {
    const d = lobbyOf(["alice", "bob"]);
    const effects = d.send({ type: "makeHost", player: "alice", target: "bob" });
    expect(d.state.host).toBe("bob");
    expect(effects).toEqual([
      { type: "push", to: ["alice", "bob"], frame: lobbyFrame(d.state) },
      { type: "reply" },
    ]);
  });

  it("makeHost by a guest is NOT_HOST; to a non-member or by a non-member NOT_IN_LOBBY", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "makeHost", player: "bob", target: "bob" }, "NOT_HOST");
    expectRefused(d, { type: "makeHost", player: "alice", target: "zed" }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "makeHost", player: "zed", target: "bob" }, "NOT_IN_LOBBY");
  });
});
