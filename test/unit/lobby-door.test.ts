import { describe, expect, it } from "vitest";
import { expectRefused, lobby, lobbyOf, ofType, pushes } from "./support/lobby-driver.ts";

const join = (id: string, passwordHash?: string) => ({
  type: "join",
  player: { id, name: id.toUpperCase() },
  ...(passwordHash === undefined ? {} : { passwordHash }),
});

describe("the door: seats", () => {
  it("maxMembers at create limits the joins (FULL), up to the node's cap", () => {
    const d = lobby({}, { extra: { maxMembers: 2 } });
    d.send(join("bob"));
    expectRefused(d, join("carol"), "FULL");
    expect(() => lobby({ maxMembers: 4 }, { extra: { maxMembers: 5 } })).toThrow(/at most 4/);
  });

  it("the host changes it down to the members there are, never past the node's cap", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    expectRefused(d, { type: "setDoor", player: "alice", maxMembers: 2 }, "INVALID");
    expectRefused(d, { type: "setDoor", player: "alice", maxMembers: 9 }, "INVALID");
    const effects = d.send({ type: "setDoor", player: "alice", maxMembers: 3 });
    expect(ofType(effects, "reply")[0]).toEqual({ type: "reply", value: { version: d.state.version } });
    expect(pushes(effects)[0]?.frame).toMatchObject({ maxMembers: 3, locked: false, hasPassword: false });
    expectRefused(d, join("dave"), "FULL");
  });
});

describe("the door: lock", () => {
  it("a locked lobby takes no new member; members stay, and one away comes back", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "setDoor", player: "alice", locked: true });
    expectRefused(d, join("carol"), "LOBBY_LOCKED");
    d.send({ type: "connection", player: "bob", connected: false });
    d.send(join("bob"));
    expect(d.state.members.map((m) => [m.player, m.connected])).toEqual([
      ["alice", true],
      ["bob", true],
    ]);
    d.send({ type: "setDoor", player: "alice", locked: false });
    d.send(join("carol"));
    expect(d.state.members).toHaveLength(3);
  });

  it("only the host (or the studio, without a player) changes the door", () => {
    const d = lobbyOf(["alice", "bob"]);
    expectRefused(d, { type: "setDoor", player: "bob", locked: true }, "NOT_HOST");
    expectRefused(d, { type: "setDoor", player: "zed", locked: true }, "NOT_IN_LOBBY");
    d.send({ type: "setDoor", locked: true });
    expect(d.state.door.locked).toBe(true);
  });

  it("a change to what it already is answers the version and writes nothing", () => {
    const d = lobbyOf(["alice"]);
    const before = d.state;
    expect(d.send({ type: "setDoor", player: "alice", locked: false })).toEqual([
      { type: "reply", value: { version: before.version } },
    ]);
    expect(d.state).toBe(before);
  });
});

describe("the door: password", () => {
  it("a lobby with a password's hash takes only a join with the same hash; frames say only hasPassword", () => {
    const d = lobby({}, { extra: { passwordHash: "scrypt1:abc" } });
    expect(pushes(d.created)[0]?.frame).toMatchObject({ hasPassword: true });
    expect(JSON.stringify(pushes(d.created))).not.toContain("scrypt1:abc");
    expectRefused(d, join("bob"), "WRONG_PASSWORD");
    expectRefused(d, join("bob", "scrypt1:abd"), "WRONG_PASSWORD");
    expectRefused(d, join("bob", "scrypt1:ab"), "WRONG_PASSWORD");
    d.send(join("bob", "scrypt1:abc"));
    expect(d.state.members).toHaveLength(2);
  });

  it("the host sets, changes and removes it", () => {
    const d = lobbyOf(["alice"]);
    d.send({ type: "setDoor", player: "alice", passwordHash: "h1" });
    expectRefused(d, join("bob", "h2"), "WRONG_PASSWORD");
    d.send({ type: "setDoor", player: "alice", passwordHash: null });
    d.send(join("bob"));
    expect(d.state.door.passwordHash).toBeNull();
    expect(d.state.members).toHaveLength(2);
  });

  it("checks in order: banned, locked, password, seats", () => {
    const d = lobby({}, { extra: { maxMembers: 2, passwordHash: "h" } });
    d.send(join("bob", "h"));
    d.send({ type: "kick", player: "alice", target: "bob", ban: true });
    d.send({ type: "setDoor", player: "alice", locked: true });
    expectRefused(d, join("bob", "h"), "BANNED");
    expectRefused(d, join("carol", "h"), "LOBBY_LOCKED");
    d.send({ type: "setDoor", player: "alice", locked: false });
    expectRefused(d, join("carol", "x"), "WRONG_PASSWORD");
    d.send(join("carol", "h"));
    expectRefused(d, join("dave", "h"), "FULL");
  });
});
