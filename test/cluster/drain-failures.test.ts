import { afterEach, describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { connectNats, decodeClaim, KvError, NatsKvStore, type NodeIdentity } from "../../fleet/index.ts";
import { runDrain, type DrainSummary } from "../../ops/admin/index.ts";
import { connectFleetClient } from "../../ops/bench/fleet-client.ts";
import type { NodeStatus } from "../../ops/admin/node-status.ts";
import { startNats, type NatsLauncher } from "../../ops/nats/index.ts";
import { startNodeProcess, type NodeProcess } from "../../ops/node/node-process.ts";
import { eventually, testKey, tokenFor } from "../support/node.ts";
import { snapshotStreamOf } from "../support/snapshot-streams.ts";

/**
 * The failure cases of a drain (docs/fleet.md), with node processes over a 3-server NATS cluster: two
 * nodes drained at once, the target killed mid-migration, a lobby whose room runs, and a drain while the
 * snapshots' stream elects a new leader. Each case starts its own NATS cluster and nodes: nodes killed by
 * an earlier case would leave keys that the next case's nodes take over.
 */

const failureTimeoutMs = 3_000;
let nats: NatsLauncher | undefined;
/** The nodes of the running case (killed after it). */
let nodes: NodeProcess[] = [];
const clients: FoyerClient[] = [];
let fleetNumber = 0;

afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  for (const n of nodes) n.child.kill("SIGKILL");
  await Promise.all(nodes.map((n) => n.exited));
  nodes = [];
  await nats?.stop();
  nats = undefined;
}, 60_000);

interface Fleet {
  readonly nodes: NodeProcess[];
  readonly urls: string[];
  readonly admins: string[];
}

/** Starts `count` nodes (ids `f<N>-n1`…), one after another. */
async function startFleet(count: number, flags: Record<string, string> = {}): Promise<Fleet> {
  fleetNumber++;
  nats = await startNats({ servers: 3 });
  const fleet: Fleet = { nodes: [], urls: [], admins: [] };
  for (let i = 1; i <= count; i++) {
    const node = startNodeProcess({
      id: `f${fleetNumber}-n${i}`,
      natsUrls: nats.urls,
      natsReplicas: 3,
      tokenKeys: `${testKey.id}:${testKey.secret}`,
      sessionSecret: "drain-failures-secret-012345",
      flags: {
        "max-connections-per-ip": "100000",
        "failure-timeout-ms": String(failureTimeoutMs),
        ...flags,
      },
    });
    nodes.push(node);
    fleet.nodes.push(node);
    fleet.urls.push(await node.url);
    fleet.admins.push(await node.admin);
  }
  return fleet;
}

function player(fleet: Fleet, id: string, first: string): Promise<FoyerClient> {
  return connectFleetClient(clients, {
    urls: [first, ...fleet.urls.filter((u) => u !== first)],
    token: tokenFor(id),
    callTimeoutMs: 30_000,
  });
}

interface Lobby {
  readonly host: FoyerClient;
  readonly guest: FoyerClient;
  readonly code: string;
  epoch: number;
  ready: boolean;
}

/** `count` lobbies of two members, created on the node at `url`. */
async function lobbiesOn(fleet: Fleet, url: string, count: number, tag: string): Promise<Lobby[]> {
  const lobbies = await Promise.all(
    Array.from({ length: count }, async (_, i) => {
      const host = await player(fleet, `${tag}-host-${i}`, url);
      const guest = await player(fleet, `${tag}-guest-${i}`, url);
      const { code } = await host.create();
      await guest.join(code);
      return { host, guest, code, epoch: 0, ready: false };
    }),
  );
  for (const lobby of lobbies) lobby.epoch = lobby.host.lobby!.epoch;
  return lobbies;
}

/** Guests keep flipping their ready flag until `stop()`; what was acknowledged is kept in `ready`. */
function readyLoad(lobbies: readonly Lobby[]): { stop(): Promise<void>; errors: unknown[] } {
  const errors: unknown[] = [];
  let loading = true;
  const loops = lobbies.map(async (lobby) => {
    while (loading) {
      const next = !lobby.ready;
      try {
        await lobby.guest.ready(next);
        lobby.ready = next;
      } catch (error) {
        errors.push(error);
        return;
      }
    }
  });
  return {
    errors,
    stop: async () => {
      loading = false;
      await Promise.all(loops);
    },
  };
}

/** The claim of each lobby as the store holds it. */
async function owners(codes: readonly string[]): Promise<Map<string, NodeIdentity>> {
  const nc = await connectNats({ servers: nats!.urls });
  try {
    const claims = await new NatsKvStore(nc).bucket("claims");
    const found = new Map<string, NodeIdentity>();
    for (const code of codes) {
      const entry = await claims.get(`lobby/${code}`);
      if (entry !== null) found.set(code, decodeClaim(entry.value));
    }
    return found;
  } finally {
    await nc.close();
  }
}

async function status(admin: string): Promise<NodeStatus> {
  return (await (await fetch(new URL("/status", admin))).json()) as NodeStatus;
}

/**
 * Every lobby is claimed by one of `survivors`, its members see it with their last acknowledged flags
 * under a newer epoch, and a change made now reaches both members: served once, with its state.
 */
async function expectOwnedOnceBy(lobbies: readonly Lobby[], survivors: readonly string[]): Promise<void> {
  await eventually(async () => {
    const claims = await owners(lobbies.map((l) => l.code));
    for (const lobby of lobbies) expect(survivors).toContain(claims.get(lobby.code)?.node);
  }, 30_000);
  await eventually(() => {
    for (const lobby of lobbies) {
      for (const client of [lobby.host, lobby.guest]) {
        const view = client.lobby;
        expect(view?.code).toBe(lobby.code);
        expect(view?.epoch).toBeGreaterThan(lobby.epoch);
        expect(view?.members.map((m) => [m.player, m.ready])).toEqual([
          [lobby.host.player, false],
          [lobby.guest.player, lobby.ready],
        ]);
        expect(view?.host).toBe(lobby.host.player);
      }
    }
  }, 30_000);
  // A lobby live on two nodes would show a change to one member and not the other.
  await Promise.all(
    lobbies.map(async (lobby) => {
      await lobby.host.ready(true);
      await eventually(() => expect(lobby.guest.lobby?.members[0]?.ready).toBe(true), 15_000);
    }),
  );
}

/**
 * `foyer drain <node> --json`. A node refuses until it has seen a peer's first heartbeat with its URL (a
 * peer that just started): asked again until it accepts.
 */
async function drainJson(node: string, admin: string): Promise<{ code: number; summary: DrainSummary }> {
  for (let attempt = 0; ; attempt++) {
    const lines: string[] = [];
    const code = await runDrain(node, { admin, json: true, pollMs: 50 }, (text) => lines.push(text));
    const summary = JSON.parse(lines.at(-1)!) as DrainSummary;
    if (summary.state !== "refused" || attempt >= 50) return { code, summary };
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

describe("drain failure cases", () => {
  it("drains two nodes at once: every lobby ends on the other two, once, and both exit 0", async () => {
    const fleet = await startFleet(4);
    const [n1, n2, n3, n4] = fleet.nodes;
    const lobbies = [
      ...(await lobbiesOn(fleet, fleet.urls[0]!, 40, "two-a")),
      ...(await lobbiesOn(fleet, fleet.urls[1]!, 40, "two-b")),
    ];
    const load = readyLoad(lobbies.filter((_, i) => i % 3 === 0));
    const [first, second] = await Promise.all([
      drainJson(n1!.id, fleet.admins[0]!),
      drainJson(n2!.id, fleet.admins[1]!),
    ]);
    await load.stop();
    expect([first.code, second.code]).toEqual([0, 0]);
    expect([first.summary.left, second.summary.left]).toEqual([0, 0]);
    expect(await n1!.exited).toBe(0);
    expect(await n2!.exited).toBe(0);
    expect(load.errors).toEqual([]);
    await expectOwnedOnceBy(lobbies, [n3!.id, n4!.id]);
  }, 240_000);

  it("a target killed mid-migration loses no lobby: its adoptions come back through failover", async () => {
    const fleet = await startFleet(3);
    const [n1, n2, n3] = fleet.nodes;
    const lobbies = await lobbiesOn(fleet, fleet.urls[0]!, 150, "kill");
    const drain = drainJson(n1!.id, fleet.admins[0]!);
    // Kill n2 once some lobbies have moved (to n2 and n3 alike) and others are still on their way.
    await eventually(async () => {
      const drainState = (await status(fleet.admins[0]!)).drain;
      expect(drainState?.moved ?? 0).toBeGreaterThanOrEqual(10);
    }, 60_000);
    n2!.child.kill("SIGKILL");
    const { code, summary } = await drain;
    expect(code).toBe(0);
    expect(summary.left).toBe(0);
    expect(await n1!.exited).toBe(0);
    const lost = await owners(lobbies.map((l) => l.code));
    expect(lost.size).toBe(lobbies.length);
    await expectOwnedOnceBy(lobbies, [n3!.id]);
  }, 240_000);

  it("a lobby whose room runs waits for the room to end, then moves", async () => {
    const fleet = await startFleet(2);
    const [n1, n2] = fleet.nodes;
    const host = await player(fleet, "room-host", fleet.urls[0]!);
    const guest = await player(fleet, "room-guest", fleet.urls[0]!);
    const { code } = await host.create();
    await guest.join(code);
    await host.start("duel");
    await eventually(() => expect(guest.lobby?.playing).toBe(true));
    const idle = await lobbiesOn(fleet, fleet.urls[0]!, 5, "room-idle");
    const drain = drainJson(n1!.id, fleet.admins[0]!);
    // The idle lobbies move; the playing one stays, counted as waiting for its room.
    await eventually(async () => {
      const progress = (await status(fleet.admins[0]!)).drain;
      expect(progress?.state).toBe("running");
      expect(progress?.waitingForRoom).toBeGreaterThanOrEqual(1);
      expect(progress?.moved).toBeGreaterThanOrEqual(idle.length);
    }, 30_000);
    expect((await owners([code])).get(code)?.node).toBe(n1!.id);
    expect(guest.lobby?.playing).toBe(true);
    // Each idle lobby the drain moved had its mailbox frozen for a while, timed on the drained node.
    const metrics = await (await fetch(new URL("/metrics", fleet.admins[0]))).text();
    const series = 'foyer_migration_pause_seconds_count{kind="lobby"} ';
    const frozen = Number(
      metrics
        .split("\n")
        .find((l) => l.startsWith(series))
        ?.slice(series.length),
    );
    expect(frozen).toBeGreaterThanOrEqual(idle.length);
    await host.return(); // the host ends the room for everyone
    const { code: exit, summary } = await drain;
    expect(exit).toBe(0);
    expect(summary).toMatchObject({ state: "done", left: 0, waitingForRoom: 0 });
    expect(await n1!.exited).toBe(0);
    await eventually(async () => expect((await owners([code])).get(code)?.node).toBe(n2!.id), 15_000);
    await eventually(() => {
      for (const client of [host, guest]) {
        expect(client.lobby?.code).toBe(code);
        expect(client.lobby?.playing).toBe(false);
        expect(client.lobby?.members.map((m) => m.player)).toEqual(["room-host", "room-guest"]);
      }
    }, 15_000);
    await guest.ready(true);
    await eventually(() => expect(host.lobby?.members[1]?.ready).toBe(true), 10_000);
  }, 120_000);

  it("a drain while a snapshot stream elects a new leader keeps every acknowledged change", async () => {
    const fleet = await startFleet(3);
    const [n1, n2, n3] = fleet.nodes;
    const lobbies = await lobbiesOn(fleet, fleet.urls[0]!, 100, "elect");
    const load = readyLoad(lobbies.slice(0, 30));
    // The stream of the first loaded lobby's snapshot: its share of the lobbies stalls while it elects.
    const leader = await streamLeaderOf(snapshotStreamOf(`lobby/${lobbies[0]!.code}`));
    const index = [0, 1, 2].find((i) => nats!.config(i).name === leader)!;
    const drain = drainJson(n1!.id, fleet.admins[0]!);
    await eventually(async () => {
      expect((await status(fleet.admins[0]!)).drain?.moved ?? 0).toBeGreaterThanOrEqual(5);
    }, 60_000);
    await nats!.kill(index, "SIGKILL");
    const { code, summary } = await drain;
    await load.stop();
    await nats!.restart(index);
    expect(code).toBe(0);
    expect(summary, n1!.output().slice(-3_000)).toMatchObject({ state: "done", left: 0 });
    expect(await n1!.exited).toBe(0);
    expect(load.errors).toEqual([]);
    await expectOwnedOnceBy(lobbies, [n2!.id, n3!.id]);
  }, 240_000);
});

async function streamLeaderOf(stream: string): Promise<string> {
  return eventually(async () => {
    const nc = await connectNats({ servers: nats!.urls });
    try {
      const info = await (await nc.jetstreamManager()).streams.info(stream);
      const leader = info.cluster?.leader;
      if (leader === undefined) throw new KvError("unavailable", `${stream} has no leader`);
      return leader;
    } finally {
      await nc.close();
    }
  }, 20_000);
}
