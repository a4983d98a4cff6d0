import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import type { FoyerClient, MatchmakingView, SearchFields } from "../../gateway/client/index.ts";
import type { QueueState } from "../../actors/matchmaking/index.ts";
import { exampleLobbyTypes } from "../../ops/lobby-types.ts";
import { createNodeClient } from "../../gateway/client/node.ts";
import { eventually, refusal, tokenFor, useTestNode } from "../support/node.ts";

/**
 * Rating matchmaking end to end (docs/matchmaking.md): SDK clients over real sockets, queues and matched
 * lobbies on an embedded node. A queue steps every 2 s, so each test waits a step or two.
 */

const scope = useTestNode();
const logins: FoyerClient[] = [];
afterEach(() => {
  for (const c of logins.splice(0)) c.close();
});

/** The seed's `CursorPartyV2`, and `chess`: one red, one black, matched in the queue and asked to accept. */
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
  const path = join(mkdtempSync(join(tmpdir(), "foyer-mm-test-")), "lobby-types.json");
  // `filtered` runs the `levels` filter of test/support/filters.ts on every candidate.
  const filtered = { ...cursorParty, id: "filtered", filter: "levels" };
  writeFileSync(path, JSON.stringify({ lobbyTypes: [cursorParty, chess, filtered] }));
  return path;
}

/** A fresh login of a player that listens before it connects (the gateway's frames may follow the welcome at once). */
async function freshLogin(url: string, id: string) {
  const client = createNodeClient({ urls: [url], token: tokenFor(id), reconnectMinMs: 20 });
  const frames: MatchmakingView[] = [];
  client.on("matchmaking", (frame) => frames.push(frame));
  await client.connect();
  return { client, frames };
}

/** A connected player and every matchmaking frame it received. */
async function player(id: string): Promise<{ client: FoyerClient; frames: MatchmakingView[] }> {
  const client = await scope.player(id);
  const frames: MatchmakingView[] = [];
  client.on("matchmaking", (frame) => frames.push(frame));
  return { client, frames };
}

const search: SearchFields = {
  rating: 100,
  maxSteps: 1,
  algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
};

function last<T extends MatchmakingView["type"]>(frames: MatchmakingView[], type: T) {
  const found = frames.filter((f): f is Extract<MatchmakingView, { type: T }> => f.type === type).at(-1);
  if (found === undefined) throw new Error(`no ${type} frame yet`);
  return found;
}

describe("matchmaking over the socket", () => {
  it("two players queue and are matched into one lobby", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    const bob = await player("bob");
    expect(
      await alice.client.findOrCreateLobby("CursorPartyV2", { ...search, settings: { level: 3 } }),
    ).toEqual({
      entry: "e1",
    });
    // Nothing to find at alice's only step: her lobby is opened.
    const lobby = await eventually(() => last(alice.frames, "matchedLobby"), 8_000);
    expect(lobby.members.map((m) => m.id)).toEqual(["alice"]);
    await bob.client.findLobby("CursorPartyV2", { ...search, rating: 105 });
    await eventually(() => {
      expect(last(bob.frames, "matchedLobby").members.map((m) => m.id)).toEqual(["alice", "bob"]);
      expect(last(alice.frames, "matchedLobby").members.map((m) => m.id)).toEqual(["alice", "bob"]);
    }, 8_000);
    expect(last(bob.frames, "matchedLobby")).toMatchObject({
      lobby: lobby.lobby,
      owner: "alice",
      rating: 102.5,
    });
  });

  it("a search that finds nothing by maxSteps fails with JOIN_FAIL", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    await alice.client.findLobby("CursorPartyV2", search);
    const failed = await eventually(() => last(alice.frames, "matchmakingFailed"), 8_000);
    expect(failed).toMatchObject({ code: "JOIN_FAIL", message: "No lobbies found matching criteria" });
  });

  it("counts the players waiting in each queue in foyer_queue_depth, and not those matched", async () => {
    const node = await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const depth = async (lobbyType: string): Promise<number | undefined> => {
      const text = await (await fetch(new URL("/metrics", node.adminUrl))).text();
      const series = `foyer_queue_depth{lobby_type="${lobbyType}"} `;
      const line = text.split("\n").find((l) => l.startsWith(series));
      return line === undefined ? undefined : Number(line.slice(series.length));
    };
    expect(await depth("chess")).toBe(0);
    const alice = await player("alice");
    await alice.client.findLobby("chess", { ...search, maxSteps: 3 });
    expect(await depth("chess")).toBe(1);
    expect(await depth("CursorPartyV2")).toBe(0);
    const bob = await player("bob");
    await bob.client.findLobby("chess", { ...search, maxSteps: 3 });
    // Matched (at the queue's next step), they wait for each other's accept, not for a search.
    await eventually(() => last(alice.frames, "matchFound"), 8_000);
    expect(await depth("chess")).toBe(0);
  });

  it("a queue with an accept phase: matchFound to both, both accept, matchReady with each one's token", async () => {
    const node = await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    const bob = await player("bob");
    await alice.client.findLobby("chess", { ...search, maxSteps: 3 });
    await bob.client.findLobby("chess", { ...search, maxSteps: 3 });
    const found = await eventually(() => last(alice.frames, "matchFound"), 8_000);
    expect(last(bob.frames, "matchFound").matchId).toBe(found.matchId);
    await alice.client.acceptMatch(found.matchId);
    await bob.client.acceptMatch(found.matchId);
    const ready = await eventually(() => [last(alice.frames, "matchReady"), last(bob.frames, "matchReady")]);
    expect(ready.map((r) => r.url)).toEqual([node.url, node.url]);
    expect(ready[0]?.room).toBe(ready[1]?.room);
    expect(ready[0]?.token).not.toBe(ready[1]?.token);
    await eventually(() => expect(node.system.isLive(`room/${ready[0]?.room ?? ""}`)).toBe(true));
  });

  it("the room checks each player's token; a player who drops or logs in afresh is sent back to its running match; after the room ends it can queue again", async () => {
    const node = await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    const bob = await player("bob");
    await alice.client.findLobby("chess", { ...search, maxSteps: 3 });
    await bob.client.findLobby("chess", { ...search, maxSteps: 3 });
    const found = await eventually(() => last(alice.frames, "matchFound"), 8_000);
    await alice.client.acceptMatch(found.matchId);
    await bob.client.acceptMatch(found.matchId);
    const aliceReady = await eventually(() => last(alice.frames, "matchReady"));
    const bobReady = await eventually(() => last(bob.frames, "matchReady"));
    const { room } = aliceReady;
    // Another player's token, or none, does not seat alice.
    expect(await refusal(alice.client.enterMatchRoom({ room, token: bobReady.token }))).toBe("UNAUTHORIZED");
    expect(await refusal(alice.client.joinRoom(room))).toBe("UNAUTHORIZED");
    expect(await alice.client.enterMatchRoom(aliceReady)).toMatchObject({ room });

    // Alice's connection drops; the SDK resumes and the gateway tells her where her match runs.
    alice.client.dropConnection();
    const back = await eventually(() => last(alice.frames, "matchRunning"), 8_000);
    expect(back).toEqual({
      type: "matchRunning",
      queue: "queue/chess",
      matchId: found.matchId,
      url: aliceReady.url,
      room,
      token: aliceReady.token,
    });
    expect(await alice.client.enterMatchRoom(back)).toMatchObject({ room });

    // Bob never arrived and logs in afresh (a new client, no resume): told too, and his token seats him.
    const bobAgain = await freshLogin(node.url, "bob");
    logins.push(bobAgain.client);
    const bobBack = await eventually(() => last(bobAgain.frames, "matchRunning"), 8_000);
    expect(bobBack).toMatchObject({ room, token: bobReady.token });
    expect(await bobAgain.client.enterMatchRoom(bobBack)).toMatchObject({ room });
    // An app that missed the frame asks for it.
    expect(await bobAgain.client.runningMatch()).toEqual({
      queue: "queue/chess",
      matchId: found.matchId,
      url: bobReady.url,
      room,
      token: bobReady.token,
    });

    // While the room runs nobody of it can queue; once it ends they can.
    expect(await refusal(alice.client.findLobby("chess", search))).toBe("ALREADY_PLAYING");
    await alice.client.finish();
    await eventually(async () => {
      expect(await alice.client.findLobby("chess", { ...search, maxSteps: 3 })).toMatchObject({
        entry: expect.any(String),
      });
    }, 5_000);
    expect(await alice.client.runningMatch()).toBeNull();
    // A later login finds no running match: nothing is sent.
    const late = await freshLogin(node.url, "bob");
    logins.push(late.client);
    await new Promise((r) => setTimeout(r, 300));
    expect(late.frames.filter((f) => f.type === "matchRunning")).toEqual([]);
  });

  it("regions and ping: the SDK learns its node's region, measures pingData, and a new lobby is placed in the nearest region", async () => {
    const node = await scope.setup({ lobbyTypesFile: lobbyTypesFile(), region: "eu-west" });
    const alice = await player("alice");
    const bob = await player("bob");
    expect(alice.client.region).toBe("eu-west");
    const pingData = await alice.client.pingData();
    expect(Object.keys(pingData)).toEqual(["eu-west"]);
    expect(typeof pingData["eu-west"]).toBe("number");
    expect(pingData["eu-west"]).toBeLessThan(1_000);
    // An embedded node lists no other regions; a probe (pings before any hello) measures any node's URL.
    expect(alice.client.regions).toEqual([]);
    expect(await alice.client.probeRoundTrip(node.url, 2)).toBeLessThan(1_000);
    // A compound search: a lobby in a region within 1 s, then rating.
    const compound: SearchFields["algorithm"] = {
      strategy: "compound",
      algos: [
        { criteria: "ping", strategy: "ranged-absolute", alignment: "center" },
        { criteria: "rating", strategy: "ranged-absolute", alignment: "center" },
      ],
      "compound-ranges": [[1_000, [10]]],
    };
    await alice.client.findOrCreateLobby("CursorPartyV2", {
      ...search,
      pingData: { ...pingData, "us-east": 2_000 },
      settings: {},
    });
    const lobby = await eventually(() => last(alice.frames, "matchedLobby"), 8_000);
    const view = () => (node.system.peek("queue/CursorPartyV2") as QueueState).lobbies;
    expect(view().map((l) => [l.lobby, l.region])).toEqual([[lobby.lobby, "eu-west"]]);
    // Bob's ping to eu-west is within the tier: he finds alice's lobby.
    await bob.client.findLobby("CursorPartyV2", {
      ...search,
      algorithm: compound,
      pingData: await bob.client.pingData(),
    });
    await eventually(() => expect(last(bob.frames, "matchedLobby").lobby).toBe(lobby.lobby), 8_000);
  });

  it("a type's filter runs in the node's filter pool: a candidate it rejects is not joined", async () => {
    const filtersModule = fileURLToPath(new URL("../support/filters.ts", import.meta.url));
    await scope.setup({ lobbyTypesFile: lobbyTypesFile(), filtersModule });
    const alice = await player("alice");
    const bob = await player("bob");
    const carol = await player("carol");
    const { lobby } = await alice.client.createLobby("filtered", { rating: 100, settings: { level: 5 } });
    await bob.client.findLobby("filtered", { ...search, filter: { maxLevel: 3 } });
    // Three steps: the pool's workers may still be loading at the first.
    await carol.client.findLobby("filtered", { ...search, maxSteps: 3, filter: { maxLevel: 9 } });
    await eventually(() => {
      expect(last(bob.frames, "matchmakingFailed").code).toBe("JOIN_FAIL");
      expect(last(carol.frames, "matchedLobby")).toMatchObject({ lobby });
    }, 12_000);
    expect(last(alice.frames, "matchedLobby").members.map((m) => m.id)).toEqual(["alice", "carol"]);
  });

  it("bad requests are refused and change nothing", async () => {
    await scope.setup({ lobbyTypesFile: lobbyTypesFile() });
    const alice = await player("alice");
    expect(await refusal(alice.client.findLobby("nope", search))).toBe("NOT_FOUND");
    expect(await refusal(alice.client.findLobby("CursorPartyV2", { ...search, maxSteps: 0 }))).toBe(
      "INVALID",
    );
    expect(await refusal(alice.client.acceptMatch("nothing"))).toBe("INVALID");
    expect(await refusal(alice.client.cancelSearch("CursorPartyV2"))).toBe("NOT_FOUND");
  });
});
