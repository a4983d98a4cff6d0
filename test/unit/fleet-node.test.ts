import { afterEach, describe, expect, it } from "vitest";
import { seededRandom } from "../../actors/runtime/index.ts";
import {
  FleetNode,
  MemoryBlobStore,
  MemoryBusServer,
  MemoryKvServer,
  realScheduler,
  type FleetNodeHooks,
} from "../../fleet/index.ts";

// A FleetNode is built from its ports alone: two of them over the in-memory KV and bus see each other,
// place new lobbies and drain by the fleet's rules, with no NATS and no gateway.

const silent = { info: () => undefined, warn: () => undefined, error: () => undefined };

function hooks(): FleetNodeHooks {
  return {
    outbox: { push: () => undefined },
    capacity: { canOpenRoom: () => true },
    events: {},
    register: () => undefined,
    playersHere: () => [],
    connectedHere: () => false,
    inKeyHere: () => false,
    reset: () => undefined,
    moved: () => undefined,
    draining: () => undefined,
    log: silent,
  };
}

describe("a fleet node built from its ports", () => {
  const running: FleetNode[] = [];
  afterEach(async () => {
    for (const node of running.splice(0)) await node.close();
  });

  async function start(kv: MemoryKvServer, bus: MemoryBusServer, nodeId: string): Promise<FleetNode> {
    const store = kv.connect();
    let incarnations = 0;
    const node = await FleetNode.start({
      buckets: {
        claims: await store.bucket("claims"),
        nodes: await store.bucket("nodes"),
        lobbies: await store.bucket("lobbies"),
      },
      bus: bus.connect(),
      blobs: new MemoryBlobStore(1024),
      scheduler: realScheduler(),
      monotonic: () => performance.now(),
      wallClock: () => Date.now(),
      random: seededRandom(1),
      newIncarnation: () => `${nodeId}.${++incarnations}`,
      settings: {
        nodeId,
        region: nodeId === "a" ? "eu" : "us",
        heartbeatMs: 50,
        failureTimeoutMs: 1_000,
        drainDeadlineMs: 1_000,
        drainConcurrency: 4,
        version: "test",
        protocol: 1,
        resultSessions: 16,
      },
      hooks: hooks(),
    });
    running.push(node);
    return node;
  }

  it("sees its peer, lists the regions, and sends new lobbies to the peer once it drains", async () => {
    const kv = new MemoryKvServer();
    const bus = new MemoryBusServer();
    const a = await start(kv, bus, "a");
    const b = await start(kv, bus, "b");
    await a.announce("ws://a/ws");
    await b.announce("ws://b/ws");
    await expect.poll(() => a.peerViews().find((p) => p.node === "b")?.heartbeat?.url).toBe("ws://b/ws");
    expect(a.regions()).toEqual([
      { region: "eu", url: "ws://a/ws" },
      { region: "us", url: "ws://b/ws" },
    ]);
    expect(a.placeNew()).toEqual({ kind: "here" });
    expect(a.state.draining()).toBe(false);
    expect(a.drain()).toEqual({ accepted: true, message: "draining" });
    expect(a.drain()).toEqual({ accepted: true, message: "already draining" });
    expect(a.placeNew()).toEqual({ kind: "elsewhere", url: "ws://b/ws", reason: "drain" });
    expect(a.state.canOpenRoom()).toBe(false);
    expect((await a.drained).state).toBe("done");
    expect(a.failovers()).toEqual({ count: 0, recent: [] });
  });

  it("refuses to drain with no live peer to take its keys", async () => {
    const a = await start(new MemoryKvServer(), new MemoryBusServer(), "a");
    expect(a.drain().accepted).toBe(false);
    expect(a.drainProgress()).toBeNull();
    expect(a.state.mayAct()).toBe(true);
  });
});
