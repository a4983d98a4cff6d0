import WebSocket from "ws";
import { describe, expect, it } from "vitest";
import { connectNats, decodeClaim, NatsKvStore } from "../../fleet/index.ts";
import type { FoyerClient, SocketLike } from "../../gateway/client/index.ts";
import { decodeServerFrame } from "../../gateway/protocol/codec.ts";
import type { NodeStatus } from "../../ops/admin/node-status.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * What a rolling deploy relies on, with node processes over a 3-server NATS cluster: SIGTERM drains a
 * fleet node into its peers and it exits 0; a drain tells members not in a room `serverDraining`; a
 * create sent to a draining node is redirected (reason `drain`) to a peer; and a lobby pinned by a
 * running room keeps a drain open until `--drain-deadline-ms`, when the node exits and failover serves
 * the lobby again.
 */

const drainDeadlineMs = 8_000;
const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "drain-deadline-ms": String(drainDeadlineMs), "failure-timeout-ms": "3000" },
});
const { nodes, urls, admins } = fleet;

/** The node holding each lobby's claim, as the store says. */
async function ownerOf(code: string): Promise<string | undefined> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    const entry = await (await new NatsKvStore(nc).bucket("claims")).get(`lobby/${code}`);
    return entry === null ? undefined : decodeClaim(entry.value).node;
  } finally {
    await nc.close();
  }
}

async function status(admin: string): Promise<NodeStatus> {
  return (await (await fetch(new URL("/status", admin))).json()) as NodeStatus;
}

/** A player on `first` whose client records every frame its sockets receive. */
async function recordedPlayer(
  id: string,
  first: string,
): Promise<{ client: FoyerClient; frames: Record<string, unknown>[] }> {
  const frames: Record<string, unknown>[] = [];
  class Recording extends WebSocket {
    constructor(url: string) {
      super(url);
      this.on("message", (data: Buffer, binary: boolean) => {
        const decoded = decodeServerFrame(binary ? new Uint8Array(data) : data.toString("utf8"));
        if (decoded.ok) frames.push(decoded.frame);
      });
    }
  }
  const WebSocketLike = Recording as unknown as new (url: string) => SocketLike;
  return { client: await fleet.player(id, first, { WebSocket: WebSocketLike }), frames };
}

/** The node a client was last welcomed by. */
function follow(client: FoyerClient): { node: string; moving: number } {
  const seen = { node: "", moving: 0 };
  client.on("connected", ({ node }) => (seen.node = node));
  client.on("moving", () => (seen.moving += 1));
  return seen;
}

describe("the operator paths of a drain", () => {
  it("SIGTERM drains a fleet node with a live peer: its lobbies move, members follow, it exits 0", async () => {
    const lobbies = await Promise.all(
      [0, 1, 2].map(async (i) => {
        const host = await fleet.player(`term-host-${i}`, urls[0]!);
        const guest = await fleet.player(`term-guest-${i}`, urls[0]!);
        const { code } = await host.create();
        await guest.join(code);
        const epoch = host.lobby!.epoch;
        return { host, guest, code, epoch, seen: [follow(host), follow(guest)] };
      }),
    );
    for (const lobby of lobbies) expect(await ownerOf(lobby.code)).toBe("n1");
    nodes[0]!.child.kill("SIGTERM");
    expect(await nodes[0]!.exited, nodes[0]!.output().slice(-2_000)).toBe(0);
    for (const lobby of lobbies) {
      const owner = await ownerOf(lobby.code);
      expect(["n2", "n3"]).toContain(owner);
      await eventually(() => {
        for (const [i, client] of [lobby.host, lobby.guest].entries()) {
          // Told `moved`, each member went over to the lobby's new node and sees it there.
          expect(lobby.seen[i]!.moving).toBeGreaterThanOrEqual(1);
          expect(lobby.seen[i]!.node).toBe(owner);
          expect(client.lobby?.code).toBe(lobby.code);
          expect(client.lobby?.epoch).toBeGreaterThan(lobby.epoch);
        }
      }, 20_000);
      await lobby.guest.ready(true);
      await eventually(() => expect(lobby.host.lobby?.members[1]?.ready).toBe(true), 10_000);
    }
  }, 120_000);

  // The next cases share one drain of n2, held open by a lobby whose room runs.
  const pinned = { code: "", epoch: 0, startedAt: 0 };
  let host: FoyerClient | undefined;
  let guest: FoyerClient | undefined;

  it("a drain starting tells members not in a room `serverDraining`, and not those in a room", async () => {
    host = await fleet.player("pin-host", urls[1]!);
    guest = await fleet.player("pin-guest", urls[1]!);
    const { code } = await host.create();
    await guest.join(code);
    await host.start("duel");
    await eventually(() => expect(guest?.lobby?.playing).toBe(true), 10_000);
    pinned.code = code;
    pinned.epoch = host.lobby!.epoch;
    const idle = await fleet.player("idle-host", urls[1]!);
    await idle.create();
    const told: string[] = [];
    for (const [name, client] of [
      ["idle-host", idle],
      ["pin-host", host],
      ["pin-guest", guest],
    ] as const) {
      client.on("serverDraining", () => told.push(name));
    }
    pinned.startedAt = Date.now();
    expect((await fetch(new URL("/drain", admins[1]), { method: "POST" })).status).toBe(202);
    await eventually(() => expect(told).toContain("idle-host"), 10_000);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(told).toEqual(["idle-host"]);
  }, 60_000);

  it("a create sent to a draining node is answered `redirect` (reason `drain`) to a peer", async () => {
    expect((await status(admins[1]!)).drain?.state).toBe("running");
    const { client, frames } = await recordedPlayer("drain-creator", urls[1]!);
    const { code } = await client.create();
    const redirect = frames.find((f) => f.type === "redirect");
    expect(redirect).toEqual({ type: "redirect", url: expect.any(String), reason: "drain" });
    expect([urls[2]]).toContain(redirect?.url);
    expect(await ownerOf(code)).toBe("n3");
    expect(client.lobby?.code).toBe(code);
  }, 60_000);

  it("a lobby pinned by its room keeps the drain open until the deadline; then failover serves it", async () => {
    // Well before the deadline the drain still runs, waiting for the room, and the node is up.
    const before = pinned.startedAt + drainDeadlineMs - 2_000;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, before - Date.now())));
    const running = await status(admins[1]!);
    expect(running.drain?.state).toBe("running");
    expect(running.drain?.waitingForRoom).toBeGreaterThanOrEqual(1); // the lobby (and its room)
    expect(await ownerOf(pinned.code)).toBe("n2");
    expect(await nodes[1]!.exited, nodes[1]!.output().slice(-2_000)).toBe(0);
    expect(Date.now() - pinned.startedAt).toBeGreaterThanOrEqual(drainDeadlineMs);
    await eventually(async () => expect(await ownerOf(pinned.code)).toBe("n3"), 30_000);
    await eventually(() => {
      for (const client of [host, guest]) {
        expect(client?.lobby?.code).toBe(pinned.code);
        expect(client?.lobby?.epoch).toBeGreaterThan(pinned.epoch);
        expect(client?.lobby?.members.map((m) => m.player)).toEqual(["pin-host", "pin-guest"]);
      }
    }, 30_000);
  }, 90_000);
});
