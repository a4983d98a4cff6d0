import { describe, expect, it } from "vitest";
import { expectRefused, lobbyOf, ofType, pushes } from "./support/lobby-driver.ts";

describe("kick", () => {
  it("the host kicks a member: it hears why, then the lobby without it; the others the new state", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    const effects = d.send({ type: "kick", player: "alice", target: "bob", reason: "spam" });
    expect(d.state.members.map((m) => m.player)).toEqual(["alice", "carol"]);
    expect(pushes(effects)).toEqual([
      { to: ["alice", "carol"], frame: expect.objectContaining({ type: "lobby" }) },
      { to: ["bob"], frame: { type: "kicked", code: "ABC123", reason: "spam", banned: false } },
      { to: ["bob"], frame: expect.objectContaining({ type: "lobby", members: expect.any(Array) }) },
    ]);
    expect(ofType(effects, "tell")).toContainEqual({
      type: "tell",
      to: "player/bob",
      message: { type: "left", lobby: "lobby/ABC123", kicked: true },
    });
    // Kicked, not banned: it may come back.
    d.send({ type: "join", player: { id: "bob", name: "Bob" } });
    expect(d.state.members).toHaveLength(3);
  });

  it("a ban keeps the player out for the lobby's life, through a snapshot round trip", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "kick", player: "alice", target: "bob", ban: true });
    expect(d.state.banned).toEqual(["bob"]);
    d.state = d.kind.upgrade(JSON.parse(JSON.stringify(d.state)), d.kind.schemaVersion);
    expectRefused(d, { type: "join", player: { id: "bob", name: "Bob" } }, "BANNED");
    // The studio's backend cannot add it back by a join either; a new lobby would.
    expect(d.state.members).toHaveLength(1);
  });

  it("host only; kicks of non-members and of oneself are typed errors and change nothing", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    expectRefused(d, { type: "kick", player: "bob", target: "carol" }, "NOT_HOST");
    expectRefused(d, { type: "kick", player: "zed", target: "carol" }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "kick", player: "alice", target: "zed" }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "kick", player: "alice", target: "zed", ban: true }, "NOT_IN_LOBBY");
    expectRefused(d, { type: "kick", player: "alice", target: "alice" }, "INVALID");
  });

  it("the ban list is bounded by maxBans", () => {
    const d = lobbyOf(["alice", "bob", "carol"], { maxBans: 1 });
    d.send({ type: "kick", player: "alice", target: "bob", ban: true });
    expectRefused(d, { type: "kick", player: "alice", target: "carol", ban: true }, "DATA_LIMIT");
    d.send({ type: "kick", player: "alice", target: "carol" });
    expect(d.state.members).toHaveLength(1);
  });

  it("the studio's backend kicks and bans without naming a player", () => {
    const d = lobbyOf(["alice", "bob"]);
    d.send({ type: "kick", target: "bob", ban: true, reason: "cheating" });
    expect(d.state.banned).toEqual(["bob"]);
    expect(d.events.map((e) => (e.type === "event" ? e.name : null)).at(-1)).toBe("player.left");
  });
});
