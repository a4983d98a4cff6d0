import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  NatsKvStore,
  ShardedKvBucket,
  connectNats,
  fleetSnapshotShards,
  isKvError,
  shardBucketNames,
  shardOf,
  type KvBucket,
} from "../../fleet/index.ts";
import { startNats, type NatsLauncher } from "../../ops/nats/index.ts";
import { startNodeProcess } from "../../ops/node/node-process.ts";
import { eventually } from "../support/node.ts";

/**
 * Sharded snapshot buckets on a real 3-server JetStream cluster: each shard is a stream with its own Raft
 * leader, JetStream spreads those leaders over the servers, and killing one server stalls only the shards
 * it led — writes to the others keep succeeding while the killed leader's shards elect a new one.
 */
const shards = 8; // eight R3 streams on three servers: all leaders on one server has odds of 1 in 2,187
const names = shardBucketNames("lobbies", shards);

let nats: NatsLauncher | undefined;
beforeAll(async () => {
  nats = await startNats({ servers: 3, monitoring: true });
}, 120_000);
afterAll(async () => {
  await nats?.stop();
});

/** Each shard stream's leader (a server name), once every stream has one. */
async function leaders(): Promise<Map<string, string>> {
  return eventually(async () => {
    const nc = await connectNats({ servers: nats!.urls });
    try {
      const jsm = await nc.jetstreamManager();
      const led = new Map<string, string>();
      for (const name of names) {
        const leader = (await jsm.streams.info(`KV_${name}`)).cluster?.leader;
        if (leader === undefined || leader === "") throw new Error(`KV_${name} has no leader yet`);
        led.set(name, leader);
      }
      return led;
    } finally {
      await nc.close();
    }
  }, 30_000);
}

/** One key of each shard (`lobby/K<n>`, found by hashing). */
function keyPerShard(): string[] {
  const keys: string[] = new Array<string>(shards);
  for (let n = 0, found = 0; found < shards; n++) {
    const key = `lobby/K${n}`;
    const shard = shardOf(key, shards);
    if (keys[shard] === undefined) {
      keys[shard] = key;
      found++;
    }
  }
  return keys;
}

/** Writes `key` once; "ok" or the KV failure's code. */
async function tryPut(bucket: KvBucket, key: string, value: string): Promise<string> {
  try {
    await bucket.put(key, new TextEncoder().encode(value));
    return "ok";
  } catch (error) {
    if (isKvError(error)) return error.code;
    throw error;
  }
}

describe("snapshot buckets sharded over a 3-server JetStream cluster", () => {
  it("spreads the shards' stream leaders over the servers, and a leader kill stalls only its share", async () => {
    const serverNames = [0, 1, 2].map((i) => nats!.config(i).name);
    const setup = new NatsKvStore(await connectNats({ servers: nats!.urls }), {
      replicas: 3,
      ownsConnection: true,
    });
    await ShardedKvBucket.open(setup, "lobbies", shards);
    await setup.close();
    const led = await leaders();
    const perServer = serverNames.map((server) => [...led.values()].filter((l) => l === server).length);
    process.stdout.write(`stream leaders per server (${serverNames.join(", ")}): ${perServer.join(", ")}\n`);
    expect(perServer.filter((count) => count > 0).length).toBeGreaterThan(1);

    // The server leading shard 0 dies; the writer is connected to another one, so only leadership moves.
    const victim = led.get(names[0]!)!;
    const victimIndex = serverNames.indexOf(victim);
    const survivor = [0, 1, 2].find((i) => i !== victimIndex)!;
    const kv = new NatsKvStore(await connectNats({ servers: [nats!.urls[survivor]!] }), {
      replicas: 3,
      ownsConnection: true,
      timeoutMs: 500,
    });
    try {
      const bucket = await ShardedKvBucket.open(kv, "lobbies", shards);
      const keys = keyPerShard();
      for (const key of keys) expect(await tryPut(bucket, key, "before")).toBe("ok");
      await nats!.kill(victimIndex, "SIGKILL");
      const during = await Promise.all(keys.map((key) => tryPut(bucket, key, "during")));
      const stalled = names.filter((name) => led.get(name) === victim);
      process.stdout.write(
        `killed ${victim}, leader of ${stalled.join(", ")}; writes right after the kill: ${during.join(", ")}\n`,
      );
      // Every shard led elsewhere took its write at once; the killed leader's shards refused theirs.
      names.forEach((name, shard) => {
        expect(during[shard], name).toEqual(
          led.get(name) === victim ? expect.not.stringMatching(/^ok$/) : "ok",
        );
      });
      // The stalled shards elect a new leader among the two survivors and take writes again.
      await eventually(async () => {
        for (const key of keys) expect(await tryPut(bucket, key, "after")).toBe("ok");
      }, 30_000);
      for (const key of keys) {
        expect(new TextDecoder().decode((await bucket.get(key))!.value)).toBe("after");
      }
    } finally {
      await kv.close();
      await nats!.restart(victimIndex);
    }
  }, 120_000);

  it("refuses a node whose --snapshot-shards is not the fleet's, saying which count to use", async () => {
    const kv = new NatsKvStore(await connectNats({ servers: nats!.urls }), {
      replicas: 3,
      ownsConnection: true,
    });
    try {
      // The fleet's layout, as its first node records it.
      expect(await fleetSnapshotShards(await kv.bucket("claims"), await kv.bucket("nodes"), shards)).toBe(
        shards,
      );
    } finally {
      await kv.close();
    }
    const node = startNodeProcess({
      id: "wrong-shards",
      natsUrls: nats!.urls,
      natsReplicas: 3,
      tokenKeys: "dev:shard-test-secret-0123456789",
      sessionSecret: "shard-test-session-secret-0123",
      flags: { "snapshot-shards": "3" },
    });
    expect(await node.exited).toBe(2);
    expect(node.output()).toContain(
      `this fleet shards its snapshots over ${shards} bucket(s), fixed when it was made, but this node was started with --snapshot-shards 3`,
    );
  }, 60_000);
});
