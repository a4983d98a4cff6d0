import { describe, expect, it } from "vitest";
import { expectRefused, lobbyOf, ofType, pushes } from "./support/lobby-driver.ts";

const line = (player: string, text: string, channel = "all") => ({ type: "chat", player, channel, text });

describe("lobby chat", () => {
  it("a line on `all` goes to every member, the sender too, and is acknowledged without a write", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    const version = d.state.version;
    const t = d.kind.handle(d.state, d.kind.parse(line("bob", "hi"))!, d.ctx);
    expect(t.volatile).toBe(true);
    expect(pushes(t.effects)).toEqual([
      {
        to: ["alice", "bob", "carol"],
        frame: { type: "lobbyChat", code: "ABC123", channel: "all", player: "bob", name: "BOB", text: "hi" },
      },
    ]);
    expect(ofType(t.effects, "reply")).toEqual([{ type: "reply" }]);
    // Chat is no change of the lobby: the version stays.
    expect(t.state.version).toBe(version);
  });

  it("`team` reaches the sender's team of the last room; before any room it is INVALID", () => {
    const d = lobbyOf(["alice", "bob", "carol"]);
    expectRefused(d, line("alice", "go", "team"), "INVALID");
    d.send({ type: "start", player: "alice", mode: "duo" });
    const effects = d.send(line("alice", "go", "team"));
    expect(pushes(effects).map((p) => p.to)).toEqual([["alice", "carol"]]);
  });

  it("length: the node's limit and the wire's bound; non-members NOT_IN_LOBBY", () => {
    const d = lobbyOf(["alice"], { chatMaxLength: 5 });
    expectRefused(d, line("alice", "123456"), "INVALID");
    expectRefused(d, line("zed", "hi"), "NOT_IN_LOBBY");
    expect(d.kind.parse(line("alice", ""))).toBeUndefined();
    expect(d.kind.parse(line("alice", "x".repeat(501)))).toBeUndefined();
  });

  it("rate: chatBurst lines per window, then RATE_LIMITED with the wait until the oldest leaves it", () => {
    const d = lobbyOf(["alice", "bob"], { chatBurst: 2, chatWindowSeconds: 5 });
    d.send(line("alice", "1"));
    d.ctx.advance(1_000);
    d.send(line("alice", "2"));
    const refused = d.send(line("alice", "3"));
    expect(refused).toEqual([
      expect.objectContaining({ type: "reject", code: "RATE_LIMITED", retryAfterMs: 4_000 }),
    ]);
    // Another member has its own budget.
    expect(pushes(d.send(line("bob", "x")))).toHaveLength(1);
    d.ctx.advance(4_000);
    expect(pushes(d.send(line("alice", "4")))).toHaveLength(1);
  });
});
