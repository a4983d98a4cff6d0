import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { settle, type AskResult } from "../../actors/runtime/index.ts";
import { NatsKvStore, ShardedKvBucket, connectNats } from "../../fleet/index.ts";
import { startNats, type NatsLauncher } from "../../ops/nats/index.ts";
import { eventually } from "../support/node.ts";
import { tallyNode, type TallyNode } from "../support/tally-kind.ts";

// Answers stored apart from the snapshot on a real JetStream KV (sharded snapshot buckets): a retry of
// one is answered by the node that took the actor over, and the actor's removal deletes them.

let nats: NatsLauncher | undefined;
beforeAll(async () => {
  nats = await startNats({ servers: 1 });
}, 120_000);
afterAll(async () => {
  await nats?.stop();
});

async function node(id: string): Promise<TallyNode> {
  const kv = new NatsKvStore(await connectNats({ servers: nats!.urls }), {
    replicas: 1,
    ownsConnection: true,
  });
  const snapshots = await ShardedKvBucket.open(kv, "lobbies", 4);
  return tallyNode(kv, snapshots, { node: id, incarnation: `${id}-1` }, id.length);
}

const value = (result: AskResult): unknown => (result.ok ? result.value : result.code);
const add = { type: "add", by: 1 };

describe("answers stored apart on JetStream KV", () => {
  it("are read by the node that takes the actor over, and deleted with the actor", async () => {
    const a = await node("a");
    const b = await node("b");
    const key = "tally/t1";
    let closedA = false;
    try {
      await a.system.spawn(key, undefined);
      for (let s = 0; s < 40; s++) {
        expect(value(await a.system.ask(key, add, { request: { session: `s${s}`, id: 1 } }))).toBe(s + 1);
      }
      const stored = await a.store.read(key);
      expect(stored?.snapshot.apart?.length).toBeGreaterThan(0);
      const records = (await a.snapshots.keys()).filter((k) => k.startsWith(`${key}.answers.`));
      expect(records).toHaveLength(stored?.snapshot.apart?.length ?? -1);
      closedA = true;
      await a.close();
      expect((await b.store.takeOver(key, stored?.epoch ?? -1)).outcome).toBe("taken");
      // s0's answer is in a record apart: the same answer, nothing applied again.
      expect(value(await b.system.ask(key, add, { request: { session: "s0", id: 1 } }))).toBe(1);
      expect(value(await b.system.ask(key, add, { request: { session: "new", id: 1 } }))).toBe(41);
      await b.system.ask(key, { type: "end" });
      await settle();
      const left = await eventually(async () => {
        const keys = await b.snapshots.keys();
        if (keys.length > 0) throw new Error(`still stored: ${keys.join(", ")}`);
        return keys;
      }, 10_000);
      expect(left).toEqual([]);
    } finally {
      if (!closedA) await a.close();
      await b.close();
    }
  }, 60_000);
});
