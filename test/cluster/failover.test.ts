import { afterEach, describe, expect, it } from "vitest";
import WebSocket from "ws";
import type { FoyerClient, SocketLike } from "../../gateway/client/index.ts";
import { decodeServerFrame } from "../../gateway/protocol/codec.ts";
import { KvError, NatsKvStore, connectNats, decodeNodeRecord, isTombstone } from "../../fleet/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Failover with real processes: three Foyer nodes and a 3-server NATS cluster (R3 buckets). A node is
 * killed with `kill -9` or frozen with SIGSTOP under connected members; survivors take its lobbies over.
 */

const failureTimeoutMs = 3_000;
const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": String(failureTimeoutMs) },
});
const { nodes, urls } = fleet;
const nats = fleet.nats;

/** Every frame about a key that any client's socket received, before the SDK's epoch filter. */
interface Heard {
  readonly player: string;
  readonly key: string;
  readonly epoch: number;
  readonly seq: number;
  readonly at: number;
}
const heard: Heard[] = [];

/** A `ws` socket that notes every frame about a key it receives, for the audit of who was heard. */
function listeningSocket(player: string): new (url: string) => SocketLike {
  class Listening extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on("message", (data: Buffer, isBinary: boolean) => {
        const decoded = decodeServerFrame(isBinary ? new Uint8Array(data) : data.toString("utf8"));
        if (!decoded.ok || !("epoch" in decoded.frame)) return;
        const { key, epoch, seq } = decoded.frame;
        heard.push({ player, key, epoch, seq, at: Date.now() });
      });
    }
  }
  return Listening as unknown as new (url: string) => SocketLike;
}

/**
 * FLEET-PROTOCOL's first invariant as clients saw it: per client and key, once a frame of epoch E
 * arrived, none of an older epoch did, and no two frames of one epoch share a sequence number.
 */
function olderOwnersHeard(): string[] {
  const last = new Map<string, { epoch: number; seqs: Set<number> }>();
  const problems: string[] = [];
  for (const frame of heard) {
    const id = `${frame.player} ${frame.key}`;
    const seen = last.get(id);
    if (seen && frame.epoch < seen.epoch) problems.push(`${id}: epoch ${frame.epoch} after ${seen.epoch}`);
    else if (seen?.epoch === frame.epoch && seen.seqs.has(frame.seq)) {
      problems.push(`${id}: seq ${frame.seq} twice in epoch ${frame.epoch}`);
    } else if (seen?.epoch === frame.epoch) seen.seqs.add(frame.seq);
    else last.set(id, { epoch: frame.epoch, seqs: new Set([frame.seq]) });
  }
  return problems;
}

afterEach(() => {
  expect(olderOwnersHeard()).toEqual([]);
});

/** An SDK client that knows every node (its bootstrap list starts with `first`). */
async function player(id: string, first: string): Promise<FoyerClient> {
  const client = await fleet.player(id, first, { WebSocket: listeningSocket(id) });
  const log: string[] = [`+${client.player ?? id}@${Date.now() % 100_000}`];
  journal.set(client, log);
  client.on("connected", (c) => log.push(`+${c.node}${c.resumed ? "r" : ""}@${Date.now() % 100_000}`));
  client.on("disconnected", (c) => log.push(`-${c.code}@${Date.now() % 100_000}`));
  return client;
}

/** What happened to each client's connection, for a failing test's message. */
const journal = new Map<FoyerClient, string[]>();

/** What a member expects of its lobby: the code, members in join order, host and ready flags. */
interface Expected {
  readonly code: string;
  readonly members: readonly string[];
  readonly host: string;
  readonly ready: readonly boolean[];
  readonly epoch: number;
}

function expectLobby(client: FoyerClient, expected: Expected): void {
  const lobby = client.lobby;
  expect(lobby, `lobby ${expected.code}`).not.toBeNull();
  expect(lobby!.code).toBe(expected.code);
  expect(lobby!.members.map((m) => m.player)).toEqual(expected.members);
  expect(lobby!.members.map((m) => m.ready)).toEqual(expected.ready);
  expect(lobby!.members.every((m) => m.connected)).toBe(true);
  expect(lobby!.host).toBe(expected.host);
  // Served again by a new owner: a newer epoch.
  expect(lobby!.epoch).toBeGreaterThan(expected.epoch);
}

/** The fleet's node records, read from NATS. */
/** One series of a Prometheus text exposition, or undefined when it is absent. */
function metricSample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

async function nodeRecords(): Promise<Map<string, ReturnType<typeof decodeNodeRecord>>> {
  const nc = await connectNats({ servers: nats().urls });
  try {
    const bucket = await new NatsKvStore(nc, { replicas: 3 }).bucket("nodes");
    const records = new Map<string, ReturnType<typeof decodeNodeRecord>>();
    for (const key of await bucket.keys()) {
      const entry = await bucket.get(key);
      if (entry) records.set(key, decodeNodeRecord(entry.value));
    }
    return records;
  } finally {
    await nc.close();
  }
}

/** Creates `count` lobbies through `node` (so it owns them): a host and a ready guest in each. */
async function lobbiesOn(
  node: string,
  tag: string,
  count: number,
): Promise<{ host: FoyerClient; guest: FoyerClient; expected: Expected }[]> {
  return Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const host = await player(`${tag}-host-${i}`, node);
      const guest = await player(`${tag}-guest-${i}`, node);
      const { code } = await host.create();
      await guest.join(code);
      await guest.ready(true);
      await eventually(() => expect(host.lobby?.members[1]?.ready).toBe(true), 10_000);
      const expected = {
        code,
        members: [`${tag}-host-${i}`, `${tag}-guest-${i}`],
        host: `${tag}-host-${i}`,
        ready: [false, true],
        epoch: host.lobby!.epoch,
      };
      return { host, guest, expected };
    }),
  );
}

describe("failover on a fleet of three node processes", () => {
  it("kill -9 of a node with 200 lobbies: survivors serve every lobby with its last state, every member resumes", async () => {
    const victim = nodes[0]!;
    const lobbies = await lobbiesOn(urls[0]!, "k", 200);
    victim.child.kill("SIGKILL");
    await victim.exited;
    await eventually(() => {
      const stale = lobbies.filter(({ host, guest, expected }) =>
        [host, guest].some((c) => (c.lobby?.epoch ?? 0) <= expected.epoch),
      );
      const sample = stale.slice(0, 3).map(({ host, guest, expected }) => ({
        code: expected.code,
        epoch: expected.epoch,
        host: [host.lobby?.epoch, host.lobby?.members.map((m) => `${m.player}:${m.connected}`)],
        guest: [guest.lobby?.epoch, guest.lobby?.members.map((m) => `${m.player}:${m.connected}`)],
        journal: journal.get(guest),
      }));
      expect(stale.length, `lobbies not served again: ${JSON.stringify(sample)}`).toBe(0);
      for (const { host, guest, expected } of lobbies) {
        expectLobby(host, expected);
        expectLobby(guest, expected);
      }
    }, failureTimeoutMs + 30_000);
    // Each lobby is live on a survivor: a change after the failover reaches the other member.
    await Promise.all(
      lobbies.slice(0, 20).map(async ({ host, guest }) => {
        await guest.ready(false);
        await eventually(() => expect(host.lobby?.members[1]?.ready).toBe(false), 10_000);
      }),
    );
    const records = await nodeRecords();
    const record = records.get("n1");
    expect(record && isTombstone(record)).toBe(true);
    // The survivors timed each lobby they took: from learning n1 died to the lobby sealed there.
    let taken = 0;
    let timed = 0;
    let seconds = 0;
    for (const admin of fleet.admins.slice(1)) {
      const text = await (await fetch(new URL("/metrics", admin))).text();
      taken += metricSample(text, "foyer_failovers_total") ?? 0;
      timed += metricSample(text, "foyer_failover_recovery_seconds_count") ?? 0;
      seconds += metricSample(text, "foyer_failover_recovery_seconds_sum") ?? 0;
    }
    expect(timed).toBeGreaterThan(0);
    expect(timed).toBeLessThanOrEqual(Math.min(taken, lobbies.length));
    expect(seconds / timed).toBeLessThan(30);
  }, 120_000);

  it("a node frozen past the failure timeout acts no more, finds itself tombstoned and comes back empty", async () => {
    // n1 is dead since the first test: start it again as a new incarnation.
    const restarted = fleet.start("n1");
    urls[0] = await restarted.url;
    await eventually(async () => {
      const record = (await nodeRecords()).get("n1");
      expect(record && !isTombstone(record)).toBe(true);
    }, 20_000);
    const before = (await nodeRecords()).get("n1")!;
    const lobbies = await lobbiesOn(urls[0], "s", 20);
    restarted.child.kill("SIGSTOP");
    const stoppedAt = Date.now();
    // The survivors take the lobbies over while it is frozen.
    await eventually(async () => {
      const record = (await nodeRecords()).get("n1");
      expect(record && isTombstone(record)).toBe(true);
    }, failureTimeoutMs + 20_000);
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    restarted.child.kill("SIGCONT");
    const resumedAt = Date.now();
    // Its members were stuck on a frozen socket; the thawed node closes them (RESET) and they resume
    // on the survivors, where their lobbies are.
    await eventually(() => {
      for (const { host, guest, expected } of lobbies) {
        expectLobby(host, expected);
        expectLobby(guest, expected);
      }
    }, 30_000);
    // It came back as a new incarnation, heartbeating.
    await eventually(async () => {
      const record = (await nodeRecords()).get("n1");
      expect(record && !isTombstone(record) && record.incarnation !== before.incarnation).toBe(true);
    }, 20_000);
    // The thawed node said nothing more about its old lobbies: no frame of an old epoch after the thaw.
    const oldEpochs = new Map(lobbies.map(({ expected }) => [`lobby/${expected.code}`, expected.epoch]));
    const late = heard.filter((f) => f.at >= resumedAt + 200 && f.epoch <= (oldEpochs.get(f.key) ?? -1));
    expect(late).toEqual([]);
    expect(resumedAt - stoppedAt).toBeGreaterThan(failureTimeoutMs);
  }, 120_000);

  it("creates interrupted by a kill -9 of their node are either served by a survivor or retried to a new lobby", async () => {
    const victim = fleet.start("n4");
    const victimUrl = await victim.url;
    urls.push(victimUrl);
    const hosts = await Promise.all(Array.from({ length: 30 }, (_, i) => player(`c-host-${i}`, victimUrl)));
    const creates = hosts.map((host) => host.create().then(({ code }) => code));
    victim.child.kill("SIGKILL");
    const codes = await Promise.all(creates);
    expect(new Set(codes).size).toBe(30);
    // Every create the SDK finally got an answer for is a lobby a survivor serves, with its host in it.
    await eventually(() => {
      hosts.forEach((host, i) => {
        expect(host.lobby?.code).toBe(codes[i]);
        expect(host.lobby?.host).toBe(`c-host-${i}`);
      });
    }, failureTimeoutMs + 30_000);
    const guest = await player("c-guest", urls[1]!);
    await guest.join(codes[0]!);
    await eventually(
      () => expect(hosts[0]!.lobby?.members.map((m) => m.player)).toContain("c-guest"),
      10_000,
    );
  }, 120_000);

  it("killing the nodes bucket's stream leader declares no node dead", async () => {
    const before = await nodeRecords();
    const running = new Set(nodes.filter((n) => n.child.exitCode === null && n.child.signalCode === null));
    const live = [...running].map((n) => n.id);
    expect(live.length).toBeGreaterThanOrEqual(3);
    const leader = await streamLeaderOf("KV_nodes");
    const index = [0, 1, 2].find((i) => nats().config(i).name === leader)!;
    await nats().kill(index, "SIGKILL");
    // Longer than the failure timeout, spanning the re-election.
    await new Promise((resolve) => setTimeout(resolve, 4 * failureTimeoutMs));
    await nats().restart(index);
    const after = await eventually(async () => nodeRecords(), 20_000);
    for (const node of live) {
      const record = after.get(node);
      expect(record && isTombstone(record), `${node} was declared dead`).toBe(false);
      expect(record && !isTombstone(record) && record.incarnation).toBe(
        !isTombstone(before.get(node)!) && before.get(node)!.incarnation,
      );
    }
  }, 120_000);
});

async function streamLeaderOf(stream: string): Promise<string> {
  const nc = await connectNats({ servers: nats().urls });
  try {
    const info = await (await nc.jetstreamManager()).streams.info(stream);
    const leader = info.cluster?.leader;
    if (leader === undefined) throw new KvError("unavailable", `${stream} has no leader`);
    return leader;
  } finally {
    await nc.close();
  }
}
