import { describe, expect, it } from "vitest";
import type { FoyerClient, LobbyFilter, LobbyLine } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually } from "../support/node.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * Lobby queries across a fleet of three nodes over a real 3-server NATS cluster (R3 buckets): a query on
 * one node sees a lobby another node's player created, and quick joins racing through two gateways never
 * overfill a lobby nor seat a player twice (docs/lobbies-query.md).
 */

const fleet = useInProcessFleet(["q1", "q2", "q3"], () => ({ lobbyIndex: "region:string", maxMembers: "4" }));
const { nodes } = fleet;
const connect = (node: RunningNode, player: string): Promise<FoyerClient> => fleet.connect(node, player);

/** A change shows in every node's results within this (docs/lobbies-query.md). */
const visibleWithinMs = 1_000;

async function lobbiesOf(client: FoyerClient, filters: LobbyFilter[]): Promise<LobbyLine[]> {
  const lines: LobbyLine[] = [];
  let cursor: string | undefined;
  do {
    const page = await client.queryLobbies({ filters, limit: 100, ...(cursor ? { cursor } : {}) });
    lines.push(...page.lobbies);
    cursor = page.cursor ?? undefined;
  } while (cursor !== undefined);
  return lines;
}

describe("lobby queries in a fleet", () => {
  it("a query on one node sees a lobby created on another, and its changes", async () => {
    const [q1, q2, q3] = nodes as [RunningNode, RunningNode, RunningNode];
    const host = await connect(q1, "host-seen");
    const watcher = await connect(q2, "watcher");
    const guest = await connect(q3, "guest-seen");
    const filters: LobbyFilter[] = [{ field: "data.region", op: "eq", value: "seen" }];
    const { code } = await host.create({ public: true, metadata: { region: "seen" } });
    await eventually(async () => {
      expect((await lobbiesOf(watcher, filters)).map((l) => [l.code, l.members])).toEqual([[code, 1]]);
    }, visibleWithinMs);
    await guest.join(code);
    await eventually(async () => {
      expect((await lobbiesOf(watcher, filters)).map((l) => [l.code, l.members])).toEqual([[code, 2]]);
    }, visibleWithinMs);
    await host.leave();
    await guest.leave();
    await eventually(async () => {
      expect(await lobbiesOf(watcher, filters)).toEqual([]);
    }, visibleWithinMs);
  }, 60_000);

  it("quick joins racing through two gateways never overfill a lobby nor seat a player twice", async () => {
    const [q1, q2] = nodes as [RunningNode, RunningNode];
    const filters: LobbyFilter[] = [{ field: "data.region", op: "eq", value: "race" }];
    const hosts = await Promise.all([connect(q1, "host-a"), connect(q2, "host-b")]);
    for (const h of hosts) await h.create({ public: true, metadata: { region: "race" } });
    await eventually(async () => {
      expect(await lobbiesOf(hosts[0], filters)).toHaveLength(2);
    });
    const racers = await Promise.all(
      Array.from({ length: 18 }, (_, i) => connect(i % 2 === 0 ? q1 : q2, `racer-${i}`)),
    );
    const joined = await Promise.all(
      racers.map((r) => r.quickJoin({ filters, orCreate: { data: { region: "race" } } })),
    );
    expect(joined).toHaveLength(18);
    // 2 hosts and 18 racers: each seated exactly once, and no lobby past its 4 seats.
    await eventually(async () => {
      const lobbies = await lobbiesOf(hosts[0], filters);
      expect(lobbies.reduce((n, l) => n + l.members, 0)).toBe(20);
      expect(Math.max(...lobbies.map((l) => l.members))).toBeLessThanOrEqual(4);
    });
    for (const [i, r] of racers.entries()) expect(r.lobby?.code, `racer-${i}`).toBe(joined[i]!.code);
  }, 90_000);
});
