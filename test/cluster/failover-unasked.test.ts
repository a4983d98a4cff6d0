import { describe, expect, it } from "vitest";
import { NatsKvStore, connectNats, decodeClaim, decodeNodeRecord } from "../../fleet/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Failover of lobbies nobody asks for: their members left their sockets (each seat's grace timer runs),
 * so no resume and no request reaches a survivor for them. No node watches the whole claims bucket; the
 * survivors find the killed node's keys in the claim index, listed at its death, and take them over.
 */

const failureTimeoutMs = 3_000;
const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": String(failureTimeoutMs) },
});
const { nodes, urls } = fleet;

/** The claims of `keys` as NATS holds them now (null: no claim), and n1's incarnation. */
async function readFleet(keys: readonly string[]): Promise<{
  claims: Map<string, { node: string; incarnation: string } | null>;
  n1: string | undefined;
}> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    const kv = new NatsKvStore(nc, { replicas: 3 });
    const claimsBucket = await kv.bucket("claims");
    const claims = new Map<string, { node: string; incarnation: string } | null>();
    for (const key of keys) {
      const entry = await claimsBucket.get(key);
      claims.set(key, entry === null ? null : decodeClaim(entry.value));
    }
    const record = await (await kv.bucket("nodes")).get("n1");
    const n1 = record === null ? undefined : decodeNodeRecord(record.value).incarnation;
    return { claims, n1 };
  } finally {
    await nc.close();
  }
}

describe("failover of lobbies nobody asks for", () => {
  it("kill -9 of their owner: survivors take over every lobby whose members all left, from the claim index", async () => {
    const keys: string[] = [];
    for (let i = 0; i < 12; i++) {
      const host = await fleet.player(`u-host-${i}`, urls[0]!);
      const guest = await fleet.player(`u-guest-${i}`, urls[0]!);
      const { code } = await host.create();
      await guest.join(code);
      await eventually(() => expect(host.lobby?.members.length).toBe(2), 10_000);
      keys.push(`lobby/${code}`);
      // Gone for good without leaving: their seats wait out a grace timer, and nobody asks for the lobby.
      host.close();
      guest.close();
    }
    const before = await readFleet(keys);
    const victim = before.n1;
    expect(victim).toBeDefined();
    for (const key of keys) expect(before.claims.get(key)).toEqual({ node: "n1", incarnation: victim });

    nodes[0]!.child.kill("SIGKILL");
    await nodes[0]!.exited;
    // Each lobby is taken by a survivor (its claim names n2 or n3), or already closed there once its
    // members' grace ran out — either way its actor came back and its timers ran.
    await eventually(async () => {
      const { claims } = await readFleet(keys);
      const stuck = keys.filter((key) => claims.get(key)?.incarnation === victim);
      expect(stuck, `lobbies still claimed by the killed node`).toEqual([]);
      for (const key of keys) {
        const claim = claims.get(key);
        if (claim !== null && claim !== undefined) expect(["n2", "n3"]).toContain(claim.node);
      }
    }, failureTimeoutMs + 30_000);
  }, 120_000);
});
