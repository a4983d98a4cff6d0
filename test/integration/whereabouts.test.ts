import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FoyerClient, MatchmakingView, SearchFields } from "../../gateway/client/index.ts";
import { exampleLobbyTypes } from "../../ops/lobby-types.ts";
import { eventually, lobbyOf, refusal, useTestNode } from "../support/node.ts";

/**
 * Where a player is, end to end over sockets (docs/protocol.md, "Where a player is"): one rule in the
 * player's registry decides every entry, so a seated player is not matched, a search leaves the lobby,
 * and a lobby's host queues its members as one party.
 */

const scope = useTestNode();

/** `CursorPartyV2` (matched lobbies) and `chess`: one red, one black, matched in the queue, asked to accept. */
function lobbyTypesFile(): string {
  const [cursorParty] = exampleLobbyTypes.lobbyTypes;
  if (cursorParty === undefined) throw new Error("no example lobby type");
  const chess = {
    ...cursorParty,
    id: "chess",
    teams: [
      { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
      { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
    ],
    queueAccept: { timeoutSecs: 10 },
  };
  const path = join(mkdtempSync(join(tmpdir(), "foyer-where-test-")), "lobby-types.json");
  writeFileSync(path, JSON.stringify({ lobbyTypes: [cursorParty, chess] }));
  return path;
}

const search: SearchFields = {
  rating: 100,
  maxSteps: 3,
  algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
};

/** A connected player and the matchmaking frames it received. */
async function player(id: string): Promise<{ client: FoyerClient; frames: MatchmakingView[] }> {
  const client = await scope.player(id);
  const frames: MatchmakingView[] = [];
  client.on("matchmaking", (frame) => frames.push(frame));
  return { client, frames };
}

function types(frames: MatchmakingView[]): string[] {
  return frames.map((f) => f.type);
}

describe("where a player is, over the socket", () => {
  it("a player seated in its lobby's running room is refused a queue search, and nobody is matched with it", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    await alice.client.create();
    await alice.client.start("duel");
    await eventually(() => expect(alice.client.room?.phase).toBe("playing"));
    const seatedIn = alice.client.room?.key;
    expect(await refusal(alice.client.findLobby("chess", search))).toBe("ALREADY_PLAYING");
    // The queue never had her: the next two searchers are matched with each other, not with her.
    const bob = await player("bob");
    const carol = await player("carol");
    await bob.client.findLobby("chess", search);
    await carol.client.findLobby("chess", search);
    await eventually(() => {
      expect(types(bob.frames)).toContain("matchFound");
      expect(types(carol.frames)).toContain("matchFound");
    }, 8_000);
    expect(types(alice.frames)).not.toContain("matchFound");
    expect(alice.client.room?.key).toBe(seatedIn);
  });

  it("a lobby member who searches a queue alone leaves the lobby", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    const bob = await player("bob");
    const { code } = await alice.client.create();
    await bob.client.join(code);
    await eventually(() => expect(lobbyOf(alice.client).members).toHaveLength(2));
    await bob.client.findLobby("chess", search);
    await eventually(() => expect(lobbyOf(alice.client).members.map((m) => m.player)).toEqual(["alice"]));
    expect(bob.client.lobby).toBeNull();
    // Joining a lobby again cancels the search: the queue lets bob go, so he may search afresh.
    await bob.client.join(code);
    await eventually(() => expect(lobbyOf(alice.client).members).toHaveLength(2));
    await eventually(async () => {
      await bob.client.leave();
      await expect(bob.client.findLobby("chess", search)).resolves.toMatchObject({
        entry: expect.any(String),
      });
    });
  });

  it("a lobby's host queues its members as one party; they are held until the search ends", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const dave = await player("dave");
    const { lobby: matched } = await dave.client.createLobby("CursorPartyV2", { rating: 100 });
    const alice = await player("alice");
    const bob = await player("bob");
    const { code } = await alice.client.create();
    await bob.client.join(code);
    await eventually(() => expect(lobbyOf(alice.client).members).toHaveLength(2));
    expect(await refusal(bob.client.findLobbyAsParty("CursorPartyV2", search))).toBe("NOT_HOST");
    const { entry } = await alice.client.findLobbyAsParty("CursorPartyV2", search);
    // The lobby stays, shows that it searches, and its members may not go elsewhere meanwhile.
    expect(alice.client.lobby?.code).toBe(code);
    await eventually(() => {
      for (const p of [alice, bob]) {
        expect(lobbyOf(p.client).searching).toEqual({ lobbyType: "CursorPartyV2", entry });
      }
    });
    expect(await refusal(bob.client.create())).toBe("SEARCHING");
    expect(await refusal(bob.client.findLobby("chess", search))).toBe("SEARCHING");
    // Placed together in dave's matched lobby.
    await eventually(() => {
      for (const p of [alice, bob]) {
        const seen = p.frames.filter((f) => f.type === "matchedLobby").at(-1);
        expect(seen).toMatchObject({ lobby: matched });
        expect(seen?.type === "matchedLobby" && seen.members.map((m) => m.id).sort()).toEqual([
          "alice",
          "bob",
          "dave",
        ]);
      }
    }, 8_000);
    // The search is over: the lobby shows it, and bob is free again.
    await eventually(() => expect(lobbyOf(alice.client).searching).toBeNull());
    await eventually(() => expect(bob.client.findLobby("chess", search)).resolves.toBeDefined());
  });

  it("a party is refused when a member is seated in a room, naming the member", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    const carol = await player("carol");
    const { code } = await alice.client.create();
    await carol.client.join(code);
    await carol.client.createRoom({ seats: 2, mode: "duel" });
    await eventually(() => expect(lobbyOf(alice.client).members).toHaveLength(2));
    const refused = alice.client.findLobbyAsParty("CursorPartyV2", search);
    await expect(refused).rejects.toMatchObject({ code: "ALREADY_PLAYING" });
    await expect(refused).rejects.toThrow(/carol/);
    // Nobody was queued: carol, out of her room, may search alone (which leaves the lobby).
    await carol.client.leaveRoom();
    await expect(carol.client.findLobby("chess", search)).resolves.toMatchObject({
      entry: expect.any(String),
    });
  });

  it("a player the queue placed in a matched lobby leaves it for the next lobby it goes to", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const dave = await player("dave");
    await dave.client.createLobby("CursorPartyV2", { rating: 100 });
    const erin = await player("erin");
    await erin.client.findLobby("CursorPartyV2", search);
    const membersSeen = (): string[] => {
      const seen = dave.frames.filter((f) => f.type === "matchedLobby").at(-1);
      return seen?.type === "matchedLobby" ? seen.members.map((m) => m.id).sort() : [];
    };
    await eventually(() => expect(membersSeen()).toEqual(["dave", "erin"]), 8_000);
    // The registry recorded the placement: a private lobby takes erin out of the matched one.
    await erin.client.create();
    await eventually(() => expect(membersSeen()).toEqual(["dave"]), 8_000);
  });
});
