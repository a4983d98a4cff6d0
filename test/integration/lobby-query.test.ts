import { afterEach, describe, expect, it } from "vitest";
import type { FoyerClient, QueryLobbiesOptions } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, startTestNode } from "../support/node.ts";

/** Lobby queries and quick joins over real sockets, on an embedded node (docs/lobbies-query.md). */

let node: RunningNode | undefined;
const clients: FoyerClient[] = [];

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await node?.stop();
  node = undefined;
});

async function player(id: string): Promise<FoyerClient> {
  if (!node) throw new Error("no node");
  const c = await clientFor(node, id);
  clients.push(c);
  return c;
}

/** The codes a query answers once it answers `count` lobbies (the index follows a change by a moment). */
async function codesOnce(c: FoyerClient, opts: QueryLobbiesOptions, count: number): Promise<string[]> {
  const deadline = Date.now() + 3_000;
  for (;;) {
    const codes = (await c.queryLobbies(opts)).lobbies.map((l) => l.code);
    if (codes.length === count || Date.now() > deadline) return codes;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

async function refusal(call: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await call;
  } catch (error) {
    return error as { code: string; message: string };
  }
  throw new Error("the call was answered");
}

describe("lobby queries over sockets", () => {
  it("filters and orders on public data and built-ins, pages with a cursor, and refuses bad queries", async () => {
    node = await startTestNode({ lobbyIndex: "region:string,level:number", maxMembers: "4" });
    const [alice, bob, carol, dave] = await Promise.all(["alice", "bob", "carol", "dave"].map(player));
    const eu = await alice!.create({ public: true, metadata: { mode: "duo", region: "eu", level: 5 } });
    const us = await bob!.create({ public: true, metadata: { mode: "ffa", region: "us", level: 9 } });
    const eu2 = await carol!.create({ public: true, metadata: { mode: "duo", region: "eu", level: 2 } });
    await dave!.create({ public: false, metadata: { region: "eu" } });

    const euFilter = { field: "data.region", op: "eq", value: "eu" } as const;
    const byLevel = { field: "data.level", dir: "desc" } as const;
    expect(await codesOnce(dave!, { filters: [euFilter], order: byLevel }, 2)).toEqual([eu.code, eu2.code]);
    const page = await dave!.queryLobbies({ order: byLevel, limit: 2 });
    expect(page.lobbies.map((l) => l.code)).toEqual([us.code, eu.code]);
    expect(page.lobbies[0]).toMatchObject({
      mode: "ffa",
      members: 1,
      freeSeats: 3,
      maxMembers: 4,
      locked: false,
    });
    expect(page.lobbies[0]?.data).toEqual({ mode: "ffa", region: "us", level: 9 });
    const next = await dave!.queryLobbies({ order: byLevel, limit: 2, cursor: page.cursor! });
    expect(next.lobbies.map((l) => l.code)).toEqual([eu2.code]);
    expect(next.cursor).toBeNull();

    const bad = [
      { filters: [{ field: "members", op: "like" as never, value: 1 }] },
      { filters: [{ field: "data.level", op: "gt", value: "high" }] },
      { filters: [{ field: "data.colour", op: "eq", value: "red" }] },
    ] satisfies QueryLobbiesOptions[];
    const refusals = await Promise.all(bad.map((q) => refusal(dave!.queryLobbies(q))));
    expect(refusals.map((r) => r.code)).toEqual(["INVALID", "INVALID", "INVALID"]);
    expect(refusals.map((r) => r.message)).toEqual([
      expect.stringContaining("unknown operator like"),
      expect.stringContaining("needs a number"),
      expect.stringContaining("not indexed"),
    ]);
  });

  it("quick join takes the best match, stays out of full lobbies, and creates when asked", async () => {
    node = await startTestNode({ lobbyIndex: "region:string", maxMembers: "2" });
    const [alice, bob, carol, dave] = await Promise.all(["alice", "bob", "carol", "dave"].map(player));
    const eu = await alice!.create({ public: true, metadata: { region: "eu" } });
    const euFilter = { field: "data.region", op: "eq", value: "eu" } as const;
    expect(await codesOnce(bob!, { filters: [euFilter] }, 1)).toEqual([eu.code]);

    expect(await bob!.quickJoin({ filters: [euFilter] })).toEqual({ code: eu.code });
    // Full now: the index follows, and a quick join without orCreate finds nothing.
    expect(
      await codesOnce(carol!, { filters: [euFilter, { field: "freeSeats", op: "gt", value: 0 }] }, 0),
    ).toEqual([]);
    expect((await refusal(carol!.quickJoin({ filters: [euFilter] }))).code).toBe("JOIN_FAIL");

    const made = await carol!.quickJoin({ filters: [euFilter], orCreate: { data: { region: "eu" } } });
    expect(made.code).not.toBe(eu.code);
    expect(await codesOnce(dave!, { filters: [euFilter], order: { field: "code" } }, 2)).toEqual(
      [eu.code, made.code].sort(),
    );
    expect(await dave!.quickJoin({ filters: [euFilter] })).toEqual({ code: made.code });
    expect(
      (await refusal(dave!.quickJoin({ filters: [{ field: "region", op: "eq", value: "eu" }] }))).code,
    ).toBe("INVALID");
  });

  it("browse reads the same index: public lobbies by mode and free seats, by code", async () => {
    node = await startTestNode({ maxMembers: "2" });
    const [alice, bob, carol] = await Promise.all(["alice", "bob", "carol"].map(player));
    const duo = await alice!.create({ public: true, metadata: { mode: "duo", map: "dunes" } });
    const ffa = await bob!.create({ public: true, metadata: { mode: "ffa" } });
    await codesOnce(carol!, {}, 2);
    expect((await carol!.browse({ kind: "lobbies" })).lobbies).toEqual(
      [
        { code: duo.code, mode: "duo", map: "dunes", freeSeats: 1, members: 1, playing: false },
        { code: ffa.code, mode: "ffa", map: null, freeSeats: 1, members: 1, playing: false },
      ].sort((a, b) => (a.code < b.code ? -1 : 1)),
    );
    await carol!.join(ffa.code);
    await codesOnce(carol!, { filters: [{ field: "freeSeats", op: "gt", value: 0 }] }, 1);
    expect((await carol!.browse({ freeOnly: true })).lobbies.map((l) => l.code)).toEqual([duo.code]);
    expect((await carol!.browse({ mode: "ffa" })).lobbies.map((l) => l.code)).toEqual([ffa.code]);
  });
});
