import { describe, expect, it } from "vitest";
import { ManualScheduler, settle } from "../../actors/runtime/index.ts";
import { MemoryKvServer } from "../../fleet/index.ts";
import {
  ClaimIndex,
  type ClaimView,
  DeadNodeKeys,
  type NodeIdentity,
  type OwnerState,
  unreadRevision,
} from "../../fleet/protocol/index.ts";

const frozen = { node: "n4", incarnation: "n4.1" };
const relistMs = 3_000;

/** The claim index and a DeadNodeKeys on `node`, to which n4.1 and n1.1 are dead. */
async function setup(node: string) {
  const scheduler = new ManualScheduler();
  const index = new ClaimIndex(await new MemoryKvServer().connect().bucket("claim-owners"), scheduler);
  const found: ClaimView[] = [];
  let sweeps = 0;
  const keys = new DeadNodeKeys({
    index,
    ownerState: (owner: NodeIdentity): OwnerState =>
      owner.incarnation === "n4.1" || owner.incarnation === "n1.1" ? "dead" : "live",
    scheduler,
    relistMs,
    listed: () => {
      sweeps++;
    },
    own: {
      node,
      found: (claim) => {
        found.push(claim);
      },
    },
  });
  return { scheduler, index, keys, found, sweeps: () => sweeps };
}

/** Runs the scheduler's timers up to `ms` from now, letting the listings they start finish. */
async function advance(scheduler: ManualScheduler, ms: number): Promise<void> {
  await settle();
  await scheduler.advance(ms);
  await settle();
}

describe("DeadNodeKeys", () => {
  it("stops listing a dead node after two empty listings: a claim that lands later is not seen there", async () => {
    const { scheduler, index, keys } = await setup("n2");
    keys.died("n4");
    await advance(scheduler, relistMs);
    await advance(scheduler, relistMs);
    // The frozen process wakes and its claim lands after every listing of the survivors.
    await index.record(frozen, "player/P1");
    await advance(scheduler, relistMs * 3);
    expect([...keys.claims()]).toEqual([]);
  });

  it("hands the keys its own listing finds of an earlier incarnation of this node over to be taken here", async () => {
    const { index, keys, found, sweeps } = await setup("n4");
    await index.record(frozen, "player/P1");
    await index.record(frozen, "counter/K3");
    keys.died("n4");
    await settle();
    const listed = (key: string): ClaimView => ({ key, owner: frozen, revision: unreadRevision });
    expect(found.sort((a, b) => a.key.localeCompare(b.key))).toEqual([
      listed("counter/K3"),
      listed("player/P1"),
    ]);
    expect(sweeps()).toBe(1);
  });

  it("leaves another node's dead keys to the sweep's rendezvous", async () => {
    const { index, keys, found } = await setup("n4");
    await index.record({ node: "n1", incarnation: "n1.1" }, "player/P2");
    keys.died("n1");
    await settle();
    expect(found).toEqual([]);
    expect([...keys.claims()].map((claim) => claim.key)).toEqual(["player/P2"]);
  });
});
