import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { SearchFields } from "../../gateway/client/index.ts";
import { exampleLobbyTypes } from "../../ops/lobby-types.ts";
import { eventually, lobbyOf, refusal, useTestNode } from "../support/node.ts";

/**
 * A kick is a member's departure (docs/lobbies.md, "Moderation"): the kicked player is out of the lobby
 * and out of the queue search its party was in. The party's search is cancelled for everyone, as when a
 * member leaves: the host queues the lobby again without the kicked player.
 */

const scope = useTestNode();

/** `CursorPartyV2` alone: nobody else searches, so the party waits in the queue. */
function lobbyTypesFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), "foyer-kick-test-")), "lobby-types.json");
  writeFileSync(path, JSON.stringify(exampleLobbyTypes));
  return path;
}

const search: SearchFields = {
  rating: 100,
  maxSteps: 50,
  algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
};

describe("a kick during a party search", () => {
  it("takes the kicked member out of the lobby and the search; the host may queue the rest again", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await scope.player("alice");
    const bob = await scope.player("bob");
    const carol = await scope.player("carol");
    const { code } = await alice.create();
    await bob.join(code);
    await carol.join(code);
    await eventually(() => expect(lobbyOf(alice).members).toHaveLength(3));
    await alice.findLobbyAsParty("CursorPartyV2", search);
    await eventually(() => expect(lobbyOf(alice).searching).not.toBeNull());
    await alice.kick("bob");
    await eventually(() => {
      expect(lobbyOf(alice).members.map((m) => m.player)).toEqual(["alice", "carol"]);
      expect(lobbyOf(alice).searching).toBeNull();
    });
    // Bob is held by no search: he may search alone at once, and the queue takes him.
    await eventually(() =>
      expect(bob.findLobby("CursorPartyV2", search)).resolves.toMatchObject({ entry: expect.any(String) }),
    );
    // The rest are out of the cancelled search: the host queues them again, and carol is held by it.
    await eventually(async () => {
      const again = await alice.findLobbyAsParty("CursorPartyV2", search);
      expect(again.entry).toEqual(expect.any(String));
    });
    expect(await refusal(carol.create())).toBe("SEARCHING");
  });

  it("a member kicked after its party was placed leaves the party's matched lobby too; the others stay", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const dave = await scope.player("dave");
    const seen: { type: string; members?: { id: string }[] }[] = [];
    dave.on("matchmaking", (frame) => seen.push(frame as never));
    await dave.createLobby("CursorPartyV2", { rating: 100 });
    const alice = await scope.player("alice");
    const bob = await scope.player("bob");
    const { code } = await alice.create();
    await bob.join(code);
    await eventually(() => expect(lobbyOf(alice).members).toHaveLength(2));
    await alice.findLobbyAsParty("CursorPartyV2", search);
    const members = () =>
      (seen.filter((f) => f.type === "matchedLobby").at(-1)?.members ?? []).map((m) => m.id).sort();
    await eventually(() => expect(members()).toEqual(["alice", "bob", "dave"]), 8_000);
    await alice.kick("bob");
    await eventually(() => expect(members()).toEqual(["alice", "dave"]), 8_000);
    expect(lobbyOf(alice).members.map((m) => m.player)).toEqual(["alice"]);
  });
});
