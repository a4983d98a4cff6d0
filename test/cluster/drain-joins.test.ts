import { describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import type { NodeStatus } from "../../ops/admin/node-status.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Joins that race a drain, with node processes over a nats-server: players on the draining node join its
 * lobbies at moments spread over the drain, so some joins land while their lobby is frozen to move and
 * are answered by the lobby's new owner. A running room keeps the drain (and the node) open, as in a
 * rolling deploy. Every member must end on the lobby's new owner and hear a change made after the new
 * owner stopped relaying the lobby to the node it left (`--relay-after-move-ms`, short here).
 */

const relayAfterMoveMs = 2_000;
const fleet = useProcessFleet({
  ids: ["n1", "n2"],
  natsServers: 1,
  flags: { "relay-after-move-ms": String(relayAfterMoveMs), "drain-deadline-ms": "120000" },
});
const { urls, admins } = fleet;

const lobbyCount = 24;
const joinersPerLobby = 4;
/** The joins start over this long after the drain was asked for. */
const joinSpreadMs = 1_200;

async function status(admin: string): Promise<NodeStatus> {
  return (await (await fetch(new URL("/status", admin))).json()) as NodeStatus;
}

/** A client and the node it was last welcomed by since it connected to n1 ("" until it moved). */
interface Followed {
  readonly client: FoyerClient;
  node: string;
}

async function followed(id: string, first: string): Promise<Followed> {
  const client = await fleet.player(id, first);
  const seen: Followed = { client, node: "" };
  client.on("connected", ({ node }) => (seen.node = node));
  return seen;
}

describe("joins answered while their lobby moves off a draining node", () => {
  it("end with every member on the new owner, hearing changes after the relay window", async () => {
    // A lobby whose room runs pins the drain open (the node stays up past every other move).
    const pinHost = await fleet.player("dj-pin-host", urls[0]!);
    const pinGuest = await fleet.player("dj-pin-guest", urls[0]!);
    const pinned = await pinHost.create();
    await pinGuest.join(pinned.code);
    await pinHost.start("duel");
    await eventually(() => expect(pinGuest.lobby?.playing).toBe(true), 10_000);

    const lobbies = await Promise.all(
      Array.from({ length: lobbyCount }, async (_, i) => {
        const host = await followed(`dj-host-${i}`, urls[0]!);
        const { code } = await host.client.create();
        return { host, code };
      }),
    );
    const joiners = await Promise.all(
      Array.from({ length: lobbyCount * joinersPerLobby }, (_, j) => followed(`dj-joiner-${j}`, urls[0]!)),
    );

    // Refused (409) until this node has heard its peer live; then the drain starts.
    await eventually(async () => {
      expect((await fetch(new URL("/drain", admins[0]), { method: "POST" })).status).toBe(202);
    }, 15_000);
    const joined = joiners.map(async (joiner, j) => {
      const lobby = lobbies[j % lobbyCount]!;
      await new Promise((resolve) => setTimeout(resolve, (j / joiners.length) * joinSpreadMs));
      await joiner.client.join(lobby.code);
      return { joiner, lobby };
    });
    const members = await Promise.all(joined);

    // Every lobby but the pinned one has left n1; then the new owner's relay window runs out.
    await eventually(async () => {
      const drain = (await status(admins[0]!)).drain;
      expect(drain?.state).toBe("running");
      expect(drain?.left).toBe(drain?.waitingForRoom);
      expect(drain?.moved).toBeGreaterThanOrEqual(lobbyCount);
    }, 30_000);
    await new Promise((resolve) => setTimeout(resolve, relayAfterMoveMs + 1_000));

    // A change made now reaches every member of each lobby, each on the lobby's owner.
    await Promise.all(lobbies.map((lobby) => lobby.host.client.ready(true)));
    await eventually(() => {
      const astray = members
        .filter(({ joiner, lobby }) => {
          const view = joiner.client.lobby;
          const host = view?.members.find((m) => m.player === lobby.host.client.player);
          return joiner.node !== "n2" || view?.code !== lobby.code || host?.ready !== true;
        })
        .map(({ joiner }) => `${joiner.client.player} on ${joiner.node}`);
      expect(astray).toEqual([]);
      for (const lobby of lobbies) expect(lobby.host.node).toBe("n2");
    }, 15_000);
  }, 180_000);
});
