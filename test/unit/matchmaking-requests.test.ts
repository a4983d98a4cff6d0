import { describe, expect, it } from "vitest";
import type { ActorSystem } from "../../actors/runtime/index.ts";
import { MatchmakingRequests } from "../../gateway/requests/index.ts";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import type { MatchmakingRequestFrame } from "../../gateway/protocol/client-frames.ts";
import { Session } from "../../gateway/sessions/index.ts";

/** The gateway's matchmaking requests: where each goes and what it carries. */

function stub() {
  const asked: [string, unknown][] = [];
  const system = {
    ask: (key: string, message: { type: string }) => {
      // The registry's rule allows every entry (test/unit/whereabouts.test.ts has its own tests).
      if (message.type === "enter") return Promise.resolve({ ok: true, value: { leave: [] } });
      asked.push([key, message]);
      return Promise.resolve({ ok: true });
    },
    tell: () => undefined,
  } as unknown as ActorSystem;
  const requests = new MatchmakingRequests({ system, lobbyTypes: ["duel"] });
  const session = new Session("s1", "p1", "P1");
  const send = (frame: unknown) =>
    requests.handle(session, clientFrameSchema.parse(frame) as MatchmakingRequestFrame, {
      session: "s1",
      id: 1,
    });
  return { asked, send };
}

const algorithm = { strategy: "ranged-absolute", alignment: "center", ranges: [10] };

describe("MatchmakingRequests", () => {
  it("a search goes to its type's queue as the session's player, with the queue's defaults", async () => {
    const { asked, send } = stub();
    await send({ type: "findLobby", id: 1, lobbyType: "duel", rating: 50, maxSteps: 2, algorithm });
    expect(asked).toEqual([
      [
        "queue/duel",
        {
          type: "findLobby",
          player: { id: "p1", name: "P1" },
          rating: 50,
          maxSteps: 2,
          algorithm,
          filter: {},
          ready: false,
          extra: {},
          team: "",
          pingData: {},
        },
      ],
    ]);
  });

  it("a type the node does not configure is NOT_FOUND, and no queue is asked", async () => {
    const { asked, send } = stub();
    expect(await send({ type: "cancelSearch", id: 1, lobbyType: "chess" })).toMatchObject({
      ok: false,
      code: "NOT_FOUND",
    });
    expect(asked).toEqual([]);
  });

  it("a client cannot name a party or a player: the frame is refused", () => {
    const frame = { type: "findLobby", id: 1, lobbyType: "duel", rating: 1, maxSteps: 1, algorithm };
    expect(clientFrameSchema.safeParse({ ...frame, party: [{ id: "x", name: "X" }] }).success).toBe(false);
    expect(clientFrameSchema.safeParse({ ...frame, player: { id: "x", name: "X" } }).success).toBe(false);
  });

  it("an accept goes to whoever asked: a queue with the match id, a matched lobby without", async () => {
    const { asked, send } = stub();
    await send({ type: "acceptMatch", id: 1, matchId: "queue/duel#3" });
    await send({ type: "declineMatch", id: 2, matchId: "mmlobby/duel/4#1" });
    expect(asked).toEqual([
      ["queue/duel", { type: "accept", player: "p1", matchId: "queue/duel#3" }],
      ["mmlobby/duel/4", { type: "decline", player: "p1" }],
    ]);
    expect(await send({ type: "acceptMatch", id: 3, matchId: "lobby/ABCD#1" })).toMatchObject({
      code: "INVALID",
    });
    expect(asked).toHaveLength(2);
  });
});
