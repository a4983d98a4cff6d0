import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { FoyerClient, MatchmakingView, SearchFields } from "../../gateway/client/index.ts";
import { drainUntilAccepted } from "../../ops/admin/index.ts";
import {
  NatsKvStore,
  connectNats,
  decodeClaim,
  decodeNodeRecord,
  isTombstone,
  type NodeIdentity,
} from "../../fleet/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Rating matchmaking in a fleet of node processes over a 3-server NATS cluster (docs/matchmaking.md,
 * "In a fleet"). A queue with players queued through every gateway keeps them across a drain and a
 * kill -9 of its node, and goes on matching; the rooms of its matches open on the least-loaded node;
 * the SDK measures every region of the fleet.
 */

/** One red and one black player, matched by the queue and asked to accept; a step every half second. */
function lobbyTypesFile(): string {
  const duel = {
    id: "Duel",
    teams: [
      { code: "red", minUsers: 1, maxUsers: 1, autoAssign: true },
      { code: "black", minUsers: 1, maxUsers: 1, autoAssign: true },
    ],
    rules: {
      allowEarlyStartWithoutMax: false,
      forceOnTimeStartWithoutReady: false,
      allowJoinInProgress: false,
      onTimeStartSecs: 60,
      disbandOnStart: false,
      everyReadyMinPercent: 0,
      everyReadyMinNum: 1,
      earliestStartSecs: 0,
      tooLateSecs: 60,
    },
    queueAccept: { timeoutSecs: 60 },
    stepSeconds: 0.5,
  };
  const path = join(mkdtempSync(join(tmpdir(), "foyer-mm-fleet-")), "lobby-types.json");
  writeFileSync(path, JSON.stringify({ lobbyTypes: [duel] }));
  return path;
}

const regions: Record<string, string> = { n1: "eu", n2: "us", n3: "eu", n4: "ap" };
const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": "3000", "lobby-types-file": lobbyTypesFile() },
  nodeFlags: (id) => ({ region: regions[id] ?? "eu" }),
});
const { nodes, urls, admins } = fleet;

/** A player, every matchmaking frame it heard, and — once its match's room is ready — its seat there. */
interface Player {
  readonly id: string;
  readonly client: FoyerClient;
  readonly frames: MatchmakingView[];
  seat?: { room: string; side: number };
}

/**
 * A player connected through `url` that accepts every match it is offered and takes its seat in the
 * room of a `matchReady`, on whatever node that room is.
 */
async function player(id: string, url: string): Promise<Player> {
  const client = await fleet.player(id, url);
  const p: Player = { id, client, frames: [] };
  client.on("matchmaking", (frame) => {
    p.frames.push(frame);
    if (frame.type === "matchFound") void client.acceptMatch(frame.matchId).catch(() => undefined);
    if (frame.type === "matchReady")
      void client.enterMatchRoom(frame).then(
        (seat) => (p.seat = seat),
        () => undefined,
      );
  });
  return p;
}

/** A search that matches only within ±10 of `rating`, for a long time (1,000 steps). */
function search(rating: number): SearchFields {
  return {
    rating,
    maxSteps: 1000,
    algorithm: { strategy: "ranged-absolute", alignment: "center", ranges: [10] },
  };
}

function of<T extends MatchmakingView["type"]>(p: Player, type: T) {
  return p.frames.filter((f): f is Extract<MatchmakingView, { type: T }> => f.type === type);
}

/** Reads what the fleet's KV holds now: a key's claim, every node's heartbeat load. */
async function readKv<T>(read: (kv: NatsKvStore) => Promise<T>): Promise<T> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    return await read(new NatsKvStore(nc, { replicas: 3 }));
  } finally {
    await nc.close();
  }
}

async function ownerOf(key: string): Promise<NodeIdentity | null> {
  return readKv(async (kv) => {
    const entry = await (await kv.bucket("claims")).get(key);
    return entry === null ? null : decodeClaim(entry.value);
  });
}

async function loads(): Promise<Map<string, number>> {
  return readKv(async (kv) => {
    const bucket = await kv.bucket("nodes");
    const found = new Map<string, number>();
    for (const node of await bucket.keys()) {
      const entry = await bucket.get(node);
      if (entry === null) continue;
      const record = decodeNodeRecord(entry.value);
      if (!isTombstone(record)) found.set(node, record.load);
    }
    return found;
  });
}

/** Both players of a pair were matched with each other, accepted, and sit in one room. */
async function playTogether(a: Player, b: Player): Promise<{ room: string; url: string }> {
  return eventually(() => {
    const [ready] = of(a, "matchReady");
    expect(ready).toBeDefined();
    expect(of(b, "matchReady")[0]).toMatchObject({ matchId: ready!.matchId, room: ready!.room });
    expect(a.seat?.room).toBe(ready!.room);
    expect(b.seat?.room).toBe(ready!.room);
    expect(a.seat?.side).not.toBe(b.seat?.side);
    return { room: ready!.room, url: ready!.url };
  }, 60_000);
}

/** Waits through the drain case into the kill case: 3000, matched by nobody yet. */
let carol: Player | undefined;

const url = (node: string): string => urls[["n1", "n2", "n3"].indexOf(node)]!;

describe("a queue in a fleet of node processes", () => {
  it("the SDK learns one URL per region from the welcome and measures its round trip to each", async () => {
    const p = await player("region-probe", urls[0]!);
    // A welcome sent before its node had read every peer's heartbeat lists fewer: a reconnect asks again.
    await eventually(async () => {
      const listed = new Set(p.client.regions.map((r) => r.region));
      if (listed.size < 2) {
        p.client.dropConnection();
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
      expect(listed).toEqual(new Set(["eu", "us"]));
    }, 30_000);
    // Its own region is listed with its own URL; n2 is the only node of `us`.
    expect(p.client.regions).toContainEqual({ region: p.client.region, url: p.client.url });
    expect(p.client.regions).toContainEqual({ region: "us", url: urls[1] });
    const pingData = await p.client.pingData(2);
    expect(Object.keys(pingData).sort()).toEqual(["eu", "us"]);
    for (const ms of Object.values(pingData)) expect(ms).toBeLessThan(5_000); // a round trip on this machine, measured
  }, 60_000);

  it("keeps every queued player across a drain of its node, and matches them on the new owner", async () => {
    // The queue is made on n1 by its first search; players wait through all three gateways.
    const alice = await player("q-alice", url("n1"));
    const bob = await player("q-bob", url("n2"));
    carol = await player("q-carol", url("n3"));
    await alice.client.findLobby("Duel", search(1000));
    expect((await ownerOf("queue/Duel"))?.node).toBe("n1");
    await bob.client.findLobby("Duel", search(2000));
    await carol.client.findLobby("Duel", search(3000));
    expect((await drainUntilAccepted("n1", { admin: admins[0]! })).code).toBe(0);
    expect(await nodes[0]!.exited).toBe(0);
    const owner = await ownerOf("queue/Duel");
    expect(["n2", "n3"]).toContain(owner?.node);
    // Still queued where they were: a partner within ±10 of each is matched with them, not with anyone new.
    const alan = await player("q-alan", url("n2"));
    const bert = await player("q-bert", url("n3"));
    await alan.client.findLobby("Duel", search(1005));
    await bert.client.findLobby("Duel", search(2005));
    await playTogether(alice, alan);
    await playTogether(bob, bert);
    expect(of(carol, "matchFound")).toEqual([]);
  }, 180_000);

  it("keeps them across a kill -9 of its node, and matches them on the survivor", async () => {
    const owner = (await ownerOf("queue/Duel"))!.node;
    const survivor = owner === "n2" ? "n3" : "n2";
    // Carol (3000) still waits from the drain case (her gateway may die: the SDK resumes elsewhere); Dora
    // waits through the survivor's gateway.
    const dora = await player("q-dora", url(survivor));
    await dora.client.findLobby("Duel", search(4000));
    nodes[owner === "n2" ? 1 : 2]!.child.kill("SIGKILL");
    await eventually(async () => expect((await ownerOf("queue/Duel"))?.node).toBe(survivor), 60_000);
    const cleo = await player("q-cleo", url(survivor));
    const dave = await player("q-dave", url(survivor));
    await cleo.client.findLobby("Duel", search(3002));
    await dave.client.findLobby("Duel", search(3996));
    await playTogether(carol!, cleo);
    await playTogether(dora, dave);
  }, 180_000);

  it("opens a match's room on the least-loaded node, not on the loaded queue node", async () => {
    const queueNode = (await ownerOf("queue/Duel"))!.node;
    // A fresh node joins: it holds almost nothing, the queue's node holds every actor of the cases above.
    const fresh = fleet.start("n4");
    const freshUrl = await fresh.url;
    // The queue's node counts n4 once it reads n4's heartbeat with its URL: then its welcome lists `ap`.
    let probes = 0;
    await eventually(async () => {
      const probe = await fleet.player(`p-probe-${probes++}`, url(queueNode));
      probe.close();
      expect(probe.regions.map((r) => r.region)).toContain("ap");
      const now = await loads();
      expect(now.get("n4")!).toBeLessThan(now.get(queueNode)!);
    }, 30_000);
    const erin = await player("p-erin", url(queueNode));
    const finn = await player("p-finn", url(queueNode));
    // Both searches go through the queue's node; its room must not.
    await erin.client.findLobby("Duel", search(5000));
    await finn.client.findLobby("Duel", search(5001));
    const { room, url: roomUrl } = await playTogether(erin, finn);
    expect(roomUrl).toBe(freshUrl);
    expect((await ownerOf(`room/${room}`))?.node).toBe("n4");
    // Each player arrived with its own token and moved its connection to the room's node.
    expect(erin.client.url).toBe(freshUrl);
    expect(finn.client.url).toBe(freshUrl);
  }, 180_000);
});
