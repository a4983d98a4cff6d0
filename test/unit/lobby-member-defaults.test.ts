import { describe, expect, it } from "vitest";
import { lobbyOf } from "./support/lobby-driver.ts";

/** New members start from shared empty data and chat times: each one's first change is its own. */

describe("a new member's data and chat times", () => {
  it("change for that member only: the others keep theirs empty", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    d.send({ type: "setMemberData", player: "alice", set: { deck: "red" } });
    d.send({ type: "chat", player: "bob", channel: "all", text: "hi" });
    const byPlayer = Object.fromEntries(d.state.members.map((m) => [m.player, m]));
    expect(byPlayer.alice?.data).toEqual({ deck: "red" });
    expect(byPlayer.alice?.chatAt).toEqual([]);
    expect(byPlayer.bob?.data).toEqual({});
    expect(byPlayer.bob?.chatAt).toHaveLength(1);
    expect(byPlayer.carol?.data).toEqual({});
    expect(byPlayer.carol?.chatAt).toEqual([]);
  });
});
