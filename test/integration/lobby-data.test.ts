import { describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import type { KickedView, LobbyChatView } from "../../gateway/protocol/server-frames.ts";
import { eventually, lobbyOf, refusal, useTestNode } from "../support/node.ts";

const { setup, player } = useTestNode();

function heard<T>(client: FoyerClient, event: "kicked" | "lobbyChat"): T[] {
  const seen: T[] = [];
  client.on(event, (frame) => seen.push(frame as T));
  return seen;
}

describe("lobby data, door, moderation and chat over real sockets", () => {
  it("data set at create and by the host reaches members; browse shows only public keys", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create({
      public: true,
      metadata: { mode: "duo" },
      data: { region: { value: "eu" }, seed: { value: 7, visibility: "member" } },
    });
    await b.join(code);
    const v = lobbyOf(a).version;
    const { version } = await a.setLobbyData(
      { map: { value: "dunes" } },
      { delete: ["region"], ifVersion: v },
    );
    await eventually(() => expect(lobbyOf(b).version).toBe(version));
    expect(lobbyOf(b).data).toEqual({
      mode: { value: "duo", visibility: "public" },
      seed: { value: 7, visibility: "member" },
      map: { value: "dunes", visibility: "public" },
    });
    const line = await eventually(async () => {
      // A query's line carries the public data and the door; browse keeps its own fields.
      const { lobbies } = await c.queryLobbies();
      expect(lobbies[0]?.data).toEqual({ mode: "duo", map: "dunes" });
      return lobbies[0];
    });
    expect(line).toMatchObject({ code, locked: false, hasPassword: false, maxMembers: 8 });
  });

  it("a stale ifVersion is VERSION_CONFLICT; a guest's update NOT_HOST; over-limit DATA_LIMIT; bad types INVALID", async () => {
    await setup();
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    await eventually(() => expect(lobbyOf(a).members).toHaveLength(2));
    const seen = lobbyOf(a).version;
    await b.ready();
    expect(await refusal(a.setLobbyData({ k: { value: 1 } }, { ifVersion: seen - 1 }))).toBe(
      "VERSION_CONFLICT",
    );
    expect(await refusal(b.setLobbyData({ k: { value: 1 } }))).toBe("NOT_HOST");
    expect(await refusal(a.setLobbyData({ k: { value: "x".repeat(2000) } }))).toBe("DATA_LIMIT");
    expect(await refusal(a.setLobbyData({ k: { value: null as never } }))).toBe("INVALID");
    expect(await refusal(a.kick("nobody"))).toBe("NOT_IN_LOBBY");
    expect(lobbyOf(a).data).toEqual({});
  });

  it("member data: each member its own, seen by all", async () => {
    await setup();
    const [a, b] = [await player("a"), await player("b")];
    const { code } = await a.create();
    await b.join(code);
    await b.setMemberData({ colour: "red" });
    await eventually(() => expect(lobbyOf(a).members[1]?.data).toEqual({ colour: "red" }));
  });

  it("the door: seats, lock, password (a wrong one is WRONG_PASSWORD and never echoed)", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const { code } = await a.create({ maxMembers: 2, password: "open sesame" });
    expect(await refusal(b.join(code))).toBe("WRONG_PASSWORD");
    expect(await refusal(b.join(code, { password: "open sesam" }))).toBe("WRONG_PASSWORD");
    await b.join(code, { password: "open sesame" });
    expect(await refusal(c.join(code, { password: "open sesame" }))).toBe("FULL");
    await a.setLobbyDoor({ maxMembers: 3, password: null });
    await a.lock();
    expect(await refusal(c.join(code))).toBe("LOBBY_LOCKED");
    await a.lock(false);
    await c.join(code);
    await eventually(() =>
      expect(lobbyOf(a)).toMatchObject({ maxMembers: 3, locked: false, hasPassword: false }),
    );
    expect(JSON.stringify(lobbyOf(a))).not.toContain("sesame");
  });

  it("the host kicks and bans: the player is told why, is out, and cannot come back", async () => {
    await setup();
    const [a, b] = [await player("a"), await player("b")];
    const kicked = heard<KickedView>(b, "kicked");
    const { code } = await a.create();
    await b.join(code);
    await a.kick("b", { ban: true, reason: "griefing" });
    await eventually(() => expect(kicked).toMatchObject([{ code, reason: "griefing", banned: true }]));
    await eventually(() => expect(b.lobby).toBeNull());
    expect(lobbyOf(a).members.map((m) => m.player)).toEqual(["a"]);
    expect(await refusal(b.join(code))).toBe("BANNED");
  });

  it("chat reaches every member in order; a non-member cannot send", async () => {
    await setup();
    const [a, b, c] = [await player("a"), await player("b"), await player("c")];
    const lines = heard<LobbyChatView>(b, "lobbyChat");
    const { code } = await a.create();
    await b.join(code);
    for (const text of ["one", "two", "three"]) await a.sendLobbyChat(text);
    await eventually(() =>
      expect(lines.map((l) => [l.player, l.text])).toEqual([
        ["a", "one"],
        ["a", "two"],
        ["a", "three"],
      ]),
    );
    expect(await refusal(c.sendLobbyChat("hi"))).toBe("NOT_IN_LOBBY");
  });
});
