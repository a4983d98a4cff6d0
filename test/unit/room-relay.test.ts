import { describe, expect, it } from "vitest";
import { roomKind, roomLimits } from "../../actors/room/index.ts";
import { expectRefused, lobbyInit, pushed, roomDriver, startedDirectRoom } from "./support/room-driver.ts";

/** What the room relays without reading it: commands, checksums (and desync reports), chat. */

const sum = (player: string, turn: number, value: string | number) => ({
  type: "checksum",
  player,
  turn,
  value,
});

describe("checksums", () => {
  it("are forwarded to the other humans; agreeing values report nothing", () => {
    const d = roomDriver(lobbyInit);
    d.advance(500);
    const effects = d.send(sum("alice", 5, "abc"));
    expect(effects).toEqual([
      { type: "push", to: ["bob", "carol"], frame: { type: "checksum", turn: 5, side: 1, value: "abc" } },
      { type: "reply" },
    ]);
    expect(d.last?.volatile).toBe(true);
    expect(pushed(d.send(sum("bob", 5, "abc")), "desync")).toEqual([]);
    expect(pushed(d.send(sum("carol", 5, "abc")), "desync")).toEqual([]);
  });

  it("a mismatch is reported to every human exactly once per turn", () => {
    const d = roomDriver(lobbyInit);
    d.advance(500);
    d.send(sum("alice", 4, 7));
    const mismatch = d.send(sum("bob", 4, 8));
    expect(pushed(mismatch, "checksum").map((p) => p.to)).toEqual([["alice", "carol"]]);
    expect(pushed(mismatch, "desync")).toEqual([
      { to: ["alice", "bob", "carol"], frame: { type: "desync", turn: 4, sides: [1, 2] } },
    ]);
    expect(pushed(d.send(sum("carol", 4, 9)), "desync")).toEqual([]);
    d.send(sum("alice", 5, 1));
    expect(pushed(d.send(sum("carol", 5, 2)), "desync")).toEqual([
      { to: ["alice", "bob", "carol"], frame: { type: "desync", turn: 5, sides: [1, 3] } },
    ]);
    const desyncs = d.state.checksums.filter((r) => r.desync).map((r) => r.turn);
    expect(desyncs).toEqual([4, 5]);
  });

  it("a repeated checksum changes nothing; a turn not sent yet is INVALID; a stranger NOT_IN_LOBBY", () => {
    const d = roomDriver(lobbyInit);
    d.advance(200);
    d.send(sum("alice", 2, "x"));
    const before = d.state;
    expect(d.send(sum("alice", 2, "y"))).toEqual([{ type: "reply" }]);
    expect(d.state).toBe(before);
    expectRefused(d, sum("alice", 3, "x"), "INVALID");
    expectRefused(d, sum("zed", 2, "x"), "NOT_IN_LOBBY");
    expect(roomKind().parse(sum("alice", 0, "x"))).toBeUndefined();
  });

  it("only the latest turns' checksums are kept", () => {
    const d = roomDriver(lobbyInit);
    d.advance(100 * (roomLimits.checksumTurnsKept + 5));
    for (let turn = 1; turn <= roomLimits.checksumTurnsKept + 5; turn++) d.send(sum("alice", turn, turn));
    expect(d.state.checksums.map((r) => r.turn)[0]).toBe(6);
    expect(d.state.checksums).toHaveLength(roomLimits.checksumTurnsKept);
  });
});

describe("chat", () => {
  it("`all` reaches every seated human, the sender included", () => {
    const d = roomDriver(lobbyInit);
    const before = d.state;
    expect(d.send({ type: "chat", player: "bob", channel: "all", text: "gl hf" })).toEqual([
      {
        type: "push",
        to: ["alice", "bob", "carol"],
        frame: { type: "chat", channel: "all", side: 2, player: "bob", text: "gl hf" },
      },
      { type: "reply" },
    ]);
    expect(d.state).toBe(before);
  });

  it("`team` reaches only the sender's team", () => {
    const d = roomDriver(lobbyInit);
    expect(pushed(d.send({ type: "chat", player: "carol", channel: "team", text: "left" }), "chat")).toEqual([
      {
        to: ["alice", "carol"],
        frame: { type: "chat", channel: "team", side: 3, player: "carol", text: "left" },
      },
    ]);
    expect(
      pushed(d.send({ type: "chat", player: "bob", channel: "team", text: "alone" }), "chat")[0]?.to,
    ).toEqual(["bob"]);
  });

  it("works before the start; bounded; only for seated humans", () => {
    const d = startedDirectRoom([], 2);
    expect(
      pushed(d.send({ type: "chat", player: "alice", channel: "all", text: "hi" }), "chat"),
    ).toHaveLength(1);
    expectRefused(d, { type: "chat", player: "zed", channel: "all", text: "hi" }, "NOT_IN_LOBBY");
    const kind = roomKind();
    expect(kind.parse({ type: "chat", player: "a", channel: "all", text: "" })).toBeUndefined();
    expect(kind.parse({ type: "chat", player: "a", channel: "all", text: "x".repeat(501) })).toBeUndefined();
    expect(kind.parse({ type: "chat", player: "a", channel: "side", text: "x" })).toBeUndefined();
  });
});

describe("commands", () => {
  it("data is a bounded string or byte array", () => {
    const kind = roomKind();
    const max = roomLimits.maxCommandSize;
    const cmd = (data: unknown) => kind.parse({ type: "command", player: "a", data });
    expect(cmd("x".repeat(max))).toBeDefined();
    expect(cmd(new Uint8Array(max))).toBeDefined();
    expect(cmd("x".repeat(max + 1))).toBeUndefined();
    expect(cmd(new Uint8Array(max + 1))).toBeUndefined();
    expect(cmd(42)).toBeUndefined();
    expect(cmd({ act: "dig" })).toBeUndefined();
  });

  it("a side may queue a bounded number per turn, then RATE_LIMITED until the turn goes out", () => {
    const d = roomDriver(lobbyInit);
    for (let i = 0; i < roomLimits.maxCommandsPerSideAndTurn; i++)
      d.send({ type: "command", player: "bob", data: "c" });
    const before = d.state;
    expect(d.send({ type: "command", player: "bob", data: "c" })).toEqual([
      { type: "reject", code: "RATE_LIMITED", message: expect.any(String), retryAfterMs: 100 },
    ]);
    expect(d.state).toBe(before);
    expect(d.send({ type: "command", player: "alice", data: "c" }).at(-1)).toMatchObject({ type: "reply" });
    d.advance(100);
    expect(d.send({ type: "command", player: "bob", data: "c" }).at(-1)).toEqual({
      type: "reply",
      value: { turn: 2 },
    });
  });

  it("before the start is NOT_PLAYING; from a stranger NOT_IN_LOBBY", () => {
    const d = roomDriver({ code: "QWERTY", direct: true, host: { id: "a", name: "A" }, seats: 2, mode: "m" });
    expectRefused(d, { type: "command", player: "a", data: "x" }, "NOT_PLAYING");
    expectRefused(d, { type: "command", player: "zed", data: "x" }, "NOT_IN_LOBBY");
  });
});
