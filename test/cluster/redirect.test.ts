import { describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, lobbyOf } from "../support/node.ts";
import { useInProcessFleet } from "../support/process-fleet.ts";

/**
 * Three nodes in a fleet over a real 3-server NATS cluster (R3 buckets): a lobby lives on the node that
 * claimed its code, and a join through the other node's gateway is redirected there.
 */

const fleet = useInProcessFleet(["n1", "n2", "n3"]);
const { nodes } = fleet;
const connect = (node: RunningNode, player: string): Promise<FoyerClient> => fleet.connect(node, player);

describe("a fleet of three nodes", () => {
  it("redirects a join through a non-owner gateway to the owner's lobby", async () => {
    const [n1, n2] = nodes as [RunningNode, RunningNode];
    const alice = await connect(n1, "alice");
    const bob = await connect(n2, "bob");
    const { code } = await alice.create();
    const landed = bob.next("connected");
    await bob.join(code);
    expect((await landed).node).toBe("n1");
    await eventually(() => expect(lobbyOf(alice).members.map((m) => m.player)).toEqual(["alice", "bob"]));
    expect(lobbyOf(bob).host).toBe("alice");
    await bob.ready(true);
    await eventually(() => expect(lobbyOf(alice).members[1]?.ready).toBe(true));
  }, 60_000);

  it("gives 2,000 concurrent creates spread over three nodes 2,000 distinct codes", async () => {
    const creators = await Promise.all(
      Array.from({ length: 2_000 }, (_, i) => connect(nodes[i % 3]!, `creator-${i}`)),
    );
    const codes = await Promise.all(creators.map(async (c) => (await c.create()).code));
    expect(codes).toHaveLength(2_000);
    expect(new Set(codes).size).toBe(2_000);
    for (const c of creators) c.close();
  }, 60_000);

  it("a player joining a lobby on another node leaves the first", async () => {
    const [n1, n2] = nodes as [RunningNode, RunningNode];
    const host1 = await connect(n1, "host-one");
    const host2 = await connect(n2, "host-two");
    const wanderer = await connect(n1, "wanderer");
    const first = await host1.create();
    const second = await host2.create();
    await wanderer.join(first.code);
    await eventually(() =>
      expect(lobbyOf(host1).members.map((m) => m.player)).toEqual(["host-one", "wanderer"]),
    );
    await wanderer.join(second.code);
    await eventually(() =>
      expect(lobbyOf(host2).members.map((m) => m.player)).toEqual(["host-two", "wanderer"]),
    );
    await eventually(() => expect(lobbyOf(host1).members.map((m) => m.player)).toEqual(["host-one"]));
  }, 60_000);
});
