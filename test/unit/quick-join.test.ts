import { describe, expect, it } from "vitest";
import { seededRandom, type AskResult, type RequestId } from "../../actors/runtime/index.ts";
import { ListingIndex, parseIndexedKeys, type ListedLobby } from "../../fleet/listings/index.ts";
import { QueryRequests } from "../../gateway/requests/index.ts";
import type { QuickJoinFrame } from "../../gateway/protocol/query-frames.ts";
import { Session } from "../../gateway/sessions/index.ts";

/** A quick join's walk over its candidates, against a node's index that changes while it walks. */

const indexed = parseIndexedKeys("region:string");

function line(code: string, fields: Partial<ListedLobby> = {}): ListedLobby {
  return {
    code,
    mode: "duo",
    map: null,
    freeSeats: 3,
    members: 1,
    playing: false,
    data: { region: "storm" },
    locked: false,
    hasPassword: false,
    maxMembers: 4,
    createdAt: 0,
    ...fields,
  };
}

const full = { ok: false, code: "FULL", message: "full" } as const;
const request: RequestId = { session: "s1", id: 1 };
const frame: QuickJoinFrame = {
  type: "quickJoin",
  id: 1,
  filters: [{ field: "data.region", op: "eq", value: "storm" }],
  orCreate: { data: { region: "storm" } },
};

describe("quickJoin", () => {
  it("passes over candidates the index has since heard filled up, instead of asking them for FULL", async () => {
    const index = new ListingIndex(indexed);
    const codes = ["AAAAAA", "BBBBBB", "CCCCCC", "DDDDDD"];
    for (const code of codes) index.upsert(line(code));
    const asked: string[] = [];
    let created = 0;
    const requests = new QueryRequests({
      listings: { index, indexed },
      random: seededRandom(7),
      // The first lobby asked answers FULL; meanwhile (other players' joins) the index hears that every
      // other candidate filled up, and one was removed.
      join: (_session, code): Promise<AskResult> => {
        asked.push(code);
        for (const other of codes.filter((c) => c !== code))
          index.upsert(line(other, { members: 4, freeSeats: 0 }));
        index.remove(codes.find((c) => c !== code) ?? "");
        return Promise.resolve(full);
      },
      create: (): Promise<AskResult> => {
        created++;
        return Promise.resolve({ ok: true, value: { code: "NEWNEW" } });
      },
    });
    const result = await requests.quickJoin(new Session("s1", "p1", "P"), frame, request);
    expect(asked).toHaveLength(1);
    expect(created).toBe(1);
    expect(result).toEqual({ ok: true, value: { code: "NEWNEW" } });
  });

  it("passes over a lobby live on its node whose actor is full, though the index has not heard yet", async () => {
    const index = new ListingIndex(indexed);
    index.upsert(line("AAAAAA"));
    const asked: string[] = [];
    let created = 0;
    const requests = new QueryRequests({
      listings: { index, indexed },
      random: seededRandom(5),
      isHere: (code) => code === "AAAAAA",
      liveMembers: (code) => (code === "AAAAAA" ? 4 : undefined),
      join: (_session, code): Promise<AskResult> => {
        asked.push(code);
        return Promise.resolve(full);
      },
      create: (): Promise<AskResult> => {
        created++;
        return Promise.resolve({ ok: true, value: { code: "NEWNEW" } });
      },
    });
    const result = await requests.quickJoin(new Session("s1", "p1", "P"), frame, request);
    expect(asked).toEqual([]);
    expect(created).toBe(1);
    expect(result).toEqual({ ok: true, value: { code: "NEWNEW" } });
  });

  it("still tries the next candidate the index lists as free", async () => {
    const index = new ListingIndex(indexed);
    for (const code of ["AAAAAA", "BBBBBB"]) index.upsert(line(code));
    const asked: string[] = [];
    const requests = new QueryRequests({
      listings: { index, indexed },
      random: seededRandom(3),
      join: (_session, code): Promise<AskResult> => {
        asked.push(code);
        return Promise.resolve(asked.length === 1 ? full : { ok: true, value: { code } });
      },
      create: (): Promise<AskResult> => Promise.reject(new Error("a free lobby was listed")),
    });
    const result = await requests.quickJoin(new Session("s1", "p1", "P"), frame, request);
    expect([...asked].sort()).toEqual(["AAAAAA", "BBBBBB"]);
    expect(result).toEqual({ ok: true, value: { code: asked[1] } });
  });

  for (const unanswered of [
    { ok: false, code: "TIMEOUT", message: "lobby/AAAAAA did not answer in time" },
    { ok: false, code: "UNAVAILABLE", message: "the store is not taking writes", retryAfterMs: 250 },
  ] as const) {
    it(`tries no other lobby after a join answered ${unanswered.code}, and asks the same one on the retry`, async () => {
      const index = new ListingIndex(indexed);
      for (const code of ["AAAAAA", "BBBBBB", "CCCCCC"]) index.upsert(line(code));
      const asked: string[] = [];
      let created = 0;
      const requests = new QueryRequests({
        listings: { index, indexed },
        random: seededRandom(11),
        // The first lobby asked is stuck behind a write: its join gets no final answer, and lands later
        // (its stored result then answers the retry). Any other lobby would take the player at once.
        join: (_session, code): Promise<AskResult> => {
          asked.push(code);
          const first = asked[0] === code;
          if (first && asked.length === 1) return Promise.resolve(unanswered);
          return Promise.resolve({ ok: true, value: { code } });
        },
        create: (): Promise<AskResult> => {
          created++;
          return Promise.resolve({ ok: true, value: { code: "NEWNEW" } });
        },
      });
      const session = new Session("s1", "p1", "P");
      const result = await requests.quickJoin(session, frame, request);
      expect(result).toEqual(unanswered);
      expect(asked).toHaveLength(1);
      expect(created).toBe(0);
      // The client sends the quick join again (same id): the lobby it may already be in answers it.
      const again = await requests.quickJoin(session, frame, request);
      expect(asked).toEqual([asked[0], asked[0]]);
      expect(again).toEqual({ ok: true, value: { code: asked[0] } });
    });
  }
});
