import { describe, expect, it } from "vitest";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, lobbyOf, useTestNode } from "../support/node.ts";

/**
 * A lobby the studio's server API makes for players goes through the rule of where a player is, as a
 * player's own create does: a player seated in a room, or held by its party's search, refuses it with
 * the same code, and nothing is made.
 */

const { setup, player } = useTestNode();
const adminToken = "admin-token-0123456789";

async function create(
  node: RunningNode,
  body: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(new URL("/api/v1/lobbies", node.adminUrl), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

async function lobbyCount(node: RunningNode): Promise<number> {
  const response = await fetch(new URL("/status", node.adminUrl), {
    headers: { authorization: `Bearer ${adminToken}` },
  });
  return ((await response.json()) as { lobbies: number }).lobbies;
}

const errorOf = (answer: { body: Record<string, unknown> }) =>
  answer.body.error as { code: string; message: string } | undefined;

describe("server API lobbies: where a player is", () => {
  it("a member seated in a room refuses the lobby ALREADY_PLAYING, naming the member; nothing is made", async () => {
    const node = await setup({ adminToken });
    const carol = await player("carol");
    await carol.createRoom({ seats: 2, mode: "duel" });
    const refused = await create(node, { host: { id: "dave" }, members: [{ id: "carol" }] });
    expect(refused.status).toBe(409);
    expect(errorOf(refused)).toMatchObject({
      code: "ALREADY_PLAYING",
      message: expect.stringContaining("carol"),
    });
    expect(await lobbyCount(node)).toBe(0);
    // The host's intent was dropped: dave may be given a lobby at once.
    const made = await create(node, { host: { id: "dave" } });
    expect(made.status).toBe(201);
  });

  it("a member held by its party's search refuses the lobby SEARCHING", async () => {
    const node = await setup({ adminToken });
    const alice = await player("alice");
    const bob = await player("bob");
    const { code } = await alice.create();
    await bob.join(code);
    await eventually(() => expect(lobbyOf(alice).members).toHaveLength(2));
    await alice.findLobbyAsParty("CursorPartyV2", {
      rating: 100,
      maxSteps: 50,
      algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
    });
    const refused = await create(node, { host: { id: "erin" }, members: [{ id: "bob" }] });
    expect(refused.status).toBe(409);
    expect(errorOf(refused)?.code).toBe("SEARCHING");
    expect(await lobbyCount(node)).toBe(1);
  });
});
