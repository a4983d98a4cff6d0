import { describe, expect, it } from "vitest";
import {
  lobbyTypeSchema,
  matchEntry,
  queueOptionsSchema,
  searchOrder,
  type LobbyTypeInput,
  type QueueState,
} from "../../actors/matchmaking/index.ts";
import type { Effect } from "../../actors/runtime/index.ts";
import { seededRandom } from "../../actors/runtime/index.ts";
import { duel, queue } from "./support/matchmaking-driver.ts";

/**
 * A `queueAccept` queue's step works on an index of its entries by rating (queue-match-step.ts) instead
 * of searching the whole state for every entry: it must come out exactly as the entry-by-entry search
 * (`matchEntry` on the whole state, in search order), over random queues of every shape.
 */

/** The entry-by-entry step, as the queue ran it before the index. */
function reference(
  state: QueueState,
  lobbyType: LobbyTypeInput,
  ctx: Parameters<typeof matchEntry>[2]["ctx"],
) {
  const env = { lobbyType: lobbyTypeSchema.parse(lobbyType), options: queueOptionsSchema.parse({}), ctx };
  let next: QueueState = { ...state, tickAt: null };
  const effects: Effect[] = [];
  for (const { id } of searchOrder(state.entries)) {
    const entry = next.entries.find((e) => e.id === id);
    if (entry?.stage.status !== "waiting") continue;
    const searched = matchEntry(next, entry, env);
    next = searched.state;
    effects.push(...searched.effects);
  }
  return { state: next, effects };
}

const twoVsTwo: LobbyTypeInput = {
  ...duel,
  id: "duo",
  teams: [
    { code: "red", minUsers: 2, maxUsers: 2, autoAssign: true },
    { code: "blue", minUsers: 2, maxUsers: 2, autoAssign: true },
  ],
  queueAccept: { timeoutSecs: 10 },
};
const oneVsOne: LobbyTypeInput = {
  ...duel,
  id: "solo",
  teams: [
    { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
    { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
  ],
  queueAccept: { timeoutSecs: 10 },
};

const algorithms = [
  { strategy: "ranged-absolute", alignment: "center", ranges: [5, 15, 40] },
  { strategy: "ranged-percent", alignment: "high", ranges: [1, 3] },
  { strategy: "ranged-absolute", alignment: "low", ranges: [0, 10] },
  {
    strategy: "compound",
    algos: [
      { criteria: "ping", strategy: "ranged-absolute", alignment: "center" },
      { criteria: "rating", strategy: "ranged-absolute", alignment: "mid-high" },
    ],
    "compound-ranges": [
      [40, [10, 30]],
      [120, [30, 60]],
    ],
  },
];

describe("a queueAccept step over its rating index", () => {
  for (const type of [oneVsOne, twoVsTwo]) {
    it(`matches exactly as the entry-by-entry search (${type.id}, 40 seeds)`, () => {
      let declined = 0;
      const seen = new Set<string>();
      for (let seed = 1; seed <= 40; seed++) {
        const random = seededRandom(seed);
        const q = queue(type, {}, { roomHost: { node: "n1", url: "ws://n1/ws" } });
        let player = 0;
        const arrive = (n: number) => {
          for (let i = 0; i < n; i++) {
            const party = type.id === "duo" && random.int(3) === 0 ? [`p${++player}`] : [];
            const id = `p${++player}`;
            const regions = ["eu", "us", "ap"];
            const orCreate = random.int(2) === 0;
            q.send({
              type: orCreate ? "findOrCreateLobby" : "findLobby",
              player: { id, name: id },
              party: party.map((p) => ({ id: p, name: p })),
              rating: 100 + random.int(120),
              maxSteps: 1 + random.int(4),
              algorithm: algorithms[random.int(algorithms.length)],
              pingData: random.int(4) === 0 ? {} : { [regions[random.int(3)]!]: random.int(150) },
              team: random.int(5) === 0 ? "red" : "",
              ...(orCreate ? { settings: {} } : {}),
            });
          }
        };
        for (let step = 0; step < 5; step++) {
          arrive(5 + random.int(20));
          // Some matches are declined, so entries come back to the front of the queue.
          for (const match of q.state.matches.filter((m) => m.room === null && random.int(2) === 0)) {
            declined++;
            q.send({ type: "decline", player: match.seats[0]!.player, matchId: match.id });
          }
          const at = q.state.tickAt ?? q.ctx.now + 2000;
          const expected = reference(q.state, type, { ...q.ctx, now: at });
          const effects = q.fire("step", at);
          expect({ ...q.state, tickAt: null }, `seed ${seed} step ${step}`).toEqual(expected.state);
          // The kind adds the news of parties whose search ended (queue-party-news.ts); the step is compared.
          const partyNews = (e: Effect) =>
            e.type === "tell" && (e.message as { type?: string }).type === "searchEnded";
          const ofStep = effects.filter((e) => !(e.type === "timer" && e.name === "step") && !partyNews(e));
          expect(ofStep).toEqual(expected.effects);
          for (const e of effects) if (e.type === "push") seen.add(e.frame.type);
        }
      }
      // The seeds matched and failed players, and declines sent entries back to the front: every path of
      // the step was compared.
      expect(declined).toBeGreaterThan(10);
      expect([...seen].sort()).toEqual(["matchFound", "matchmakingFailed"]);
    });
  }
});
