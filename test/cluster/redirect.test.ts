import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { startNats, type NatsLauncher } from "../../ops/nats/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { clientFor, eventually, lobbyOf, startTestNode } from "../support/node.ts";

/**
 * Two nodes in a fleet over a real 3-server NATS cluster (R3 buckets): a lobby lives on the node that
 * claimed its code, and a join through the other node's gateway is redirected there.
 */

let nats: NatsLauncher | undefined;
const nodes: RunningNode[] = [];
const clients: FoyerClient[] = [];

beforeAll(async () => {
  nats = await startNats({ servers: 3 });
  const fleet = {
    nats: nats.urls.join(","),
    natsReplicas: "3",
    sessionSecret: "cluster-session-secret-0123",
  };
  nodes.push(await startTestNode({ ...fleet, nodeId: "n1" }));
  nodes.push(await startTestNode({ ...fleet, nodeId: "n2" }));
}, 120_000);

afterAll(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const n of nodes.splice(0)) await n.stop();
  await nats?.stop();
}, 60_000);

async function connect(node: RunningNode, player: string): Promise<FoyerClient> {
  const client = await clientFor(node, player, { callTimeoutMs: 20_000 });
  clients.push(client);
  return client;
}

describe("a fleet of two nodes", () => {
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

  it("gives distinct codes to many concurrent creates spread over both nodes", async () => {
    const creators = await Promise.all(
      Array.from({ length: 40 }, (_, i) => connect(nodes[i % 2]!, `creator-${i}`)),
    );
    const codes = await Promise.all(creators.map(async (c) => (await c.create()).code));
    expect(new Set(codes).size).toBe(codes.length);
  }, 60_000);
});
