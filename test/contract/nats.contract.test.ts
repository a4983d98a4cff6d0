import { type AddressInfo, type Socket, createServer } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { NatsVersionError, connectNats, isWrongRevision } from "../../fleet/index.ts";
import type { KvBucket, KvEntry, KvStore } from "../../fleet/index.ts";
import { describeBusContract } from "./bus-contract.ts";
import { describeKvContract } from "./kv-contract.ts";
import { type NatsHarness, useNats } from "./nats-harness.ts";
import { startFleetNode } from "../support/fleet-nodes.ts";
import { bytes, text, waitFor } from "./wait-for.ts";

// Real nats-servers (>= 2.10, fetched into .foyer/nats when missing), started per block on free ports.

describe("NATS, one server", { timeout: 15_000 }, () => {
  const harness = useNats(1);
  describeKvContract("nats, one server", () => harness.openStore());
  describeBusContract("nats, one server", () => harness.openBuses());
});

describe("NATS, 3-server JetStream cluster", { timeout: 20_000 }, () => {
  const harness = useNats(3);
  // R3 buckets; each new store connects to the next server, each bus of a test to a different server.
  describeKvContract("nats, 3-server cluster (R3)", () => harness.openStore());
  describeBusContract("nats, 3-server cluster", () => harness.openBuses());
  describeClusterCases(harness);
  describeTwoNodes(harness);
});

describe("NATS server version", () => {
  it("a server reporting 2.9.10 is refused at connect, saying why", async () => {
    const fake = await fakeNatsServer("2.9.10");
    try {
      const connecting = connectNats({
        servers: fake.url,
        waitOnFirstConnect: false,
        natsOptions: { reconnect: false },
      });
      await expect(connecting).rejects.toBeInstanceOf(NatsVersionError);
      await expect(connecting).rejects.toThrow(/2\.9\.10 is too old.*#4320/s);
    } finally {
      await fake.close();
    }
  });
});

function describeClusterCases(harness: NatsHarness): void {
  describe("cluster cases", () => {
    const opened: KvStore[] = [];
    afterEach(async () => {
      await Promise.all(opened.splice(0).map((store) => store.close()));
    });

    async function bucketsOn(servers: readonly number[], name: string): Promise<KvBucket[]> {
      const stores = await Promise.all(servers.map((i) => harness.openStore(i)));
      opened.push(...stores);
      return Promise.all(stores.map((store) => store.bucket(name)));
    }

    it("an update race of 12 clients on different servers has exactly one winner, round after round", async () => {
      const buckets = await bucketsOn(
        Array.from({ length: 12 }, (_, i) => i % 3),
        unique("race"),
      );
      let revision = await buckets[0]!.create("lobby/RACE01", bytes("start"));
      for (let round = 0; round < 40; round += 1) {
        const outcomes = await Promise.allSettled(
          buckets.map((bucket, i) => bucket.update("lobby/RACE01", bytes(`${round}:${i}`), revision)),
        );
        const won = outcomes.flatMap((o) => (o.status === "fulfilled" ? [o.value] : []));
        const lost = outcomes.filter((o) => o.status === "rejected" && isWrongRevision(o.reason));
        expect(won, `round ${round}`).toHaveLength(1);
        expect(lost, `round ${round}`).toHaveLength(11);
        revision = won[0]!;
      }
    });

    it("a get through any server sees a write that returned through another (read from the leader)", async () => {
      const buckets = await bucketsOn([0, 1, 2], unique("read"));
      for (let i = 0; i < 60; i += 1) {
        const revision = await buckets[i % 3]!.put("player/p-1", bytes(String(i)));
        const read = await buckets[(i + 1) % 3]!.get("player/p-1");
        expect(read?.revision).toBe(revision);
        expect(text(read!.value)).toBe(String(i));
      }
    });

    it("a watch whose server is killed resumes through another server without losing an entry", async () => {
      const nats = harness.nats();
      const name = unique("watchkill");
      const [setup] = await bucketsOn([0], name);
      await setup!.put("w/0", bytes("0"));
      // Kill a server that leads neither the stream (writes go on) nor the JetStream meta group (a new
      // consumer needs it: killing the meta leader stalls every watch until it is re-elected).
      const leaders = [await streamLeader(harness, name), await nats.metaLeader()];
      const victim = [0, 1, 2].find((i) => !leaders.includes(nats.config(i).name))!;
      const [watched, writer] = await bucketsOn([victim, (victim + 1) % 3], name);
      const seen: KvEntry[] = [];
      const watch = watched!.watch({ prefix: "w/" }, (entry) => seen.push(entry));
      await waitFor("the first entry", () => seen.length === 1);
      try {
        await nats.kill(victim, "SIGKILL");
        const killedAt = Date.now();
        for (let i = 1; i <= 5; i += 1) await writer!.put(`w/${i}`, bytes(String(i)));
        await waitFor("the entries written after the kill", () => seen.length === 6, 10_000);
        expect(Date.now() - killedAt).toBeLessThan(5_000);
        expect(seen.map((e) => `${e.key}=${text(e.value)}`)).toEqual(
          [0, 1, 2, 3, 4, 5].map((i) => `w/${i}=${i}`),
        );
      } finally {
        watch.stop();
        await nats.restart(victim);
      }
    });
  });
}

function describeTwoNodes(harness: NatsHarness): void {
  it("two fleet nodes: a key is asked through the other node and answered by its owner, once", async () => {
    const buckets = `${unique("fleet")}_`;
    const [busA, busB, spare] = await harness.openBuses();
    await spare!.close();
    const [a, b] = await Promise.all([
      startFleetNode("a", await harness.openStore(0), busA!, { replicas: 3, buckets }),
      startFleetNode("b", await harness.openStore(1), busB!, { replicas: 3, buckets }),
    ]);
    try {
      expect(await a.system.spawn("counter/k1", undefined)).toMatchObject({ created: true });
      const request = { session: "s-1", id: 1 };
      expect(await b.system.ask("counter/k1", { type: "add", by: 2 }, { request })).toEqual({
        ok: true,
        value: 2,
      });
      // The same request retried through the owner itself: applied once.
      expect(await a.system.ask("counter/k1", { type: "add", by: 2 }, { request })).toEqual({
        ok: true,
        value: 2,
      });
      expect(await b.system.ask("counter/k1", { type: "get" })).toEqual({ ok: true, value: 2 });
      expect(b.system.isLive("counter/k1")).toBe(false);
      expect(a.system.peek("counter/k1")).toEqual({ n: 2 });
      // Created on demand by both at once: one owner, every add applied there.
      const answers = await Promise.all(
        [a, b, a, b].map((node) => node.system.ask("tally/t1", { type: "add", by: 1 })),
      );
      expect(
        answers.map((answer) => (answer.ok ? answer.value : `${answer.code}: ${answer.message}`)).sort(),
      ).toEqual([1, 2, 3, 4]);
      expect([a, b].filter((node) => node.system.isLive("tally/t1"))).toHaveLength(1);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });
}

/** The `server_name` of the stream leader of KV bucket `bucket`. */
async function streamLeader(harness: NatsHarness, bucket: string): Promise<string> {
  const nc = await connectNats({ servers: harness.nats().urls, waitOnFirstConnect: false });
  try {
    const info = await (await nc.jetstreamManager()).streams.info(`KV_${bucket}`);
    const leader = info.cluster?.leader;
    if (leader === undefined) throw new Error(`KV_${bucket} has no leader`);
    return leader;
  } finally {
    await nc.close();
  }
}

function unique(tag: string): string {
  return `${tag}_${Date.now().toString(36)}_${Math.floor(Math.random() * 1e6)}`;
}

/** Speaks just enough of the NATS protocol to announce `version` and answer the client's PING. */
async function fakeNatsServer(version: string): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    const { port } = server.address() as AddressInfo;
    const info = { server_id: "FAKE", server_name: "fake", version, proto: 1, host: "127.0.0.1", port };
    socket.write(`INFO ${JSON.stringify({ ...info, headers: true, max_payload: 1_048_576 })}\r\n`);
    socket.on("data", (data) => {
      if (data.toString().includes("PING")) socket.write("PONG\r\n");
    });
    socket.on("error", () => undefined);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `nats://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => {
          resolve();
        });
      }),
  };
}
