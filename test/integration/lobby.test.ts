import { describe, expect, it } from "vitest";
import { type FoyerClient } from "../../gateway/client/index.ts";
import { eventually, lobbyOf, refusal, useTestNode } from "../support/node.ts";

const { setup, player } = useTestNode();

const players = (c: FoyerClient): string[] => lobbyOf(c).members.map((m) => m.player);

describe("private lobbies over real sockets", () => {
  it("creates a lobby and joins it by code from a second client, in lower case with spaces", async () => {
    await setup();
    const alice = await player("alice");
    const bob = await player("bob");
    const { code } = await alice.create();
    expect(code).toMatch(/^[A-Z2-9]{6}$/);
    await bob.join(`  ${code.toLowerCase()} `);
    await eventually(() => expect(players(alice)).toEqual(["alice", "bob"]));
    expect(players(bob)).toEqual(["alice", "bob"]);
    expect(lobbyOf(bob).host).toBe("alice");
    expect(lobbyOf(bob).code).toBe(code);
  });

  it("join with an empty code creates a lobby with the caller as host", async () => {
    await setup();
    const alice = await player("alice");
    const { code } = await alice.join("");
    await eventually(() => expect(lobbyOf(alice)).toMatchObject({ code, host: "alice" }));
  });

  it("refuses a join past maxMembers with FULL and an unknown code with NOT_FOUND", async () => {
    await setup({ maxMembers: "2" });
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create();
    await b.join(code);
    expect(await refusal(c.join(code))).toBe("FULL");
    expect(await refusal(c.join("ZZZZZZ"))).toBe("NOT_FOUND");
    expect(await refusal(c.join("no such code!"))).toBe("NOT_FOUND");
    await eventually(() => expect(players(a)).toEqual(["a", "b"]));
  });

  it("moves the host to the next connected member when the host leaves", async () => {
    // A lobby grace long enough that the dropped member stays in the lobby for the whole test.
    await setup({ lobbyGraceSeconds: "60" });
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create();
    await b.join(code);
    await c.join(code);
    b.close();
    await eventually(() => expect(lobbyOf(a).members[1]).toMatchObject({ player: "b", connected: false }));
    await a.leave();
    // b is next in join order but away: the role skips it for the first member who is connected.
    await eventually(() => expect(lobbyOf(c).host).toBe("c"));
    expect(players(c)).toEqual(["b", "c"]);
    expect(lobbyOf(c).members[0]).toMatchObject({ player: "b", connected: false });
  });

  it("moves the host on when a disconnected host's grace runs out, not before", async () => {
    await setup({ lobbyGraceSeconds: "1" });
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    a.close();
    await eventually(() => expect(lobbyOf(b).members[0]).toMatchObject({ player: "a", connected: false }));
    expect(lobbyOf(b).host).toBe("a");
    await eventually(() => expect(lobbyOf(b).host).toBe("b"), 4_000);
    expect(players(b)).toEqual(["b"]);
  });

  it("with lobbyGraceSeconds 0 a dropped member leaves at once", async () => {
    await setup({ lobbyGraceSeconds: "0" });
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    a.close();
    await eventually(() => expect(lobbyOf(b)).toMatchObject({ host: "b" }));
    expect(players(b)).toEqual(["b"]);
  });

  it("makeHost hands the role over; only the host may", async () => {
    await setup();
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    expect(await refusal(b.makeHost("b"))).toBe("NOT_HOST");
    await a.makeHost("b");
    await eventually(() => expect(lobbyOf(a).host).toBe("b"));
  });

  it("starts a room with alternating teams and bots filling each team", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create();
    await b.join(code);
    await c.join(code);
    expect(await refusal(b.start("duo"))).toBe("NOT_HOST");
    const { room } = await a.start("duo");
    expect(room).toMatch(/^[A-Z]{6}$/);
    await eventually(() => expect(lobbyOf(c).playing).toBe(true));
    const seats = [...(lobbyOf(c).room?.seats ?? [])].sort((x, y) => x.seat - y.seat);
    expect(seats).toEqual([
      { seat: 1, team: 0, player: "a" },
      { seat: 2, team: 1, player: "b" },
      { seat: 3, team: 0, player: "c" },
      { seat: 50, team: 1, player: null },
    ]);
    expect(lobbyOf(c).members.map((m) => m.team)).toEqual([0, 1, 0]);
    expect(await refusal(a.start("duo"))).toBe("ALREADY_PLAYING");
  });

  it("refuses a start with more members than two teams hold", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create();
    await b.join(code);
    await c.join(code);
    expect(await refusal(a.start("duel"))).toBe("TOO_MANY_PLAYERS");
    expect(lobbyOf(a).playing).toBe(false);
  });

  it("a host's return ends the room for everyone; a guest's return only for itself", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create();
    await b.join(code);
    await c.join(code);
    await a.start("trio");
    await b.return();
    await eventually(() => expect(lobbyOf(a).members.map((m) => m.inRoom)).toEqual([true, false, true]));
    expect(lobbyOf(a).playing).toBe(true);
    await a.return();
    await eventually(() => expect(lobbyOf(c).playing).toBe(false));
    expect(lobbyOf(c).members.every((m) => !m.inRoom)).toBe(true);
    await a.start("trio");
    await eventually(() => expect(lobbyOf(b).playing).toBe(true));
  });

  it("returns everyone to the lobby returnAfterEndSeconds after the room ends", async () => {
    await setup({ returnAfterEndSeconds: "1" });
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    await a.start("duel");
    await eventually(() => expect(lobbyOf(b).playing).toBe(true));
    await b.finish();
    expect(lobbyOf(b).playing).toBe(true);
    await eventually(() => expect(lobbyOf(b).playing).toBe(false), 4_000);
  });

  it("a member who drops during a room rejoins within the grace with its seat, and leaves after it", async () => {
    await setup({ reconnectGraceSeconds: "1" });
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    await a.start("duel");
    const seenByA: (boolean | undefined)[] = [];
    a.on("lobby", (l) => seenByA.push(l.members[1]?.connected));
    b.dropConnection();
    await eventually(() => expect(seenByA).toContain(false));
    await eventually(() =>
      expect(lobbyOf(a).members[1]).toMatchObject({ player: "b", connected: true, inRoom: true }),
    );
    expect(lobbyOf(a).host).toBe("a");
    expect(lobbyOf(b).room?.seats.map((s) => s.player)).toEqual(["a", "b"]);
    b.close();
    await eventually(() => expect(players(a)).toEqual(["a"]), 4_000);
  });

  it("joining another lobby leaves the first", async () => {
    await setup();
    const [a, b] = [await player("a"), await player("b")];
    const first = await a.create();
    const second = await b.create();
    await a.join(second.code);
    await eventually(() => expect(players(b)).toEqual(["b", "a"]));
    expect(await refusal(b.join(first.code))).toBe("NOT_FOUND");
  });

  it("lists public lobbies in browse and never private ones", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const pub = await a.create({ public: true, metadata: { mode: "duo", map: "harbor" } });
    await b.create();
    const listed = await eventually(async () => {
      const { lobbies } = await c.browse();
      expect(lobbies).toHaveLength(1);
      return lobbies;
    });
    expect(listed[0]).toMatchObject({ code: pub.code, mode: "duo", map: "harbor", freeSeats: 7 });
    expect((await c.browse({ mode: "duel" })).lobbies).toHaveLength(0);
  });

  it("draws codes of the configured length from the configured alphabet", async () => {
    await setup({ codeAlphabet: "XY7", codeLength: "5" });
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    expect(code).toMatch(/^[XY7]{5}$/);
    await b.join(code.toLowerCase());
    await eventually(() => expect(players(a)).toEqual(["a", "b"]));
  });
});
