import { describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { drainUntilAccepted, runDrain } from "../../ops/admin/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Drain with real processes: three Foyer nodes over a 3-server NATS cluster. A node with lobbies whose
 * members keep changing them is drained: every lobby moves to a peer with every acknowledged change, no
 * caller sees an error, and the drained node exits 0.
 */

const fleet = useProcessFleet({ ids: ["n1", "n2", "n3"], natsServers: 3 });
const { nodes, urls, admins } = fleet;
const player = (id: string, first: string): Promise<FoyerClient> => fleet.player(id, first);

describe("draining a node of a fleet of three node processes", () => {
  it("moves 150 lobbies under load with every acknowledged change, no error, and the node exits 0", async () => {
    const victim = nodes[0]!;
    const lobbies = await Promise.all(
      Array.from({ length: 150 }, async (_, i) => {
        const host = await player(`d-host-${i}`, urls[0]!);
        const guest = await player(`d-guest-${i}`, urls[0]!);
        const { code } = await host.create();
        await guest.join(code);
        return { host, guest, code, epoch: 0, ready: false };
      }),
    );
    for (const lobby of lobbies) lobby.epoch = lobby.host.lobby!.epoch;
    // Load during the drain: guests of a third of the lobbies keep flipping their ready flag.
    const errors: unknown[] = [];
    let loading = true;
    const load = lobbies.slice(0, 50).map(async (lobby) => {
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
    const { code: drained, summary } = await drainUntilAccepted("n1", { admin: admins[0]! });
    loading = false;
    await Promise.all(load);
    expect(summary).toMatchObject({ state: "done", left: 0 });
    expect(drained).toBe(0);
    expect(summary.moved).toBeGreaterThanOrEqual(150);
    expect(await victim.exited).toBe(0);
    expect(errors).toEqual([]);
    // Every lobby is served by a survivor, once, with its members, host and last acknowledged flags.
    await eventually(() => {
      for (const lobby of lobbies) {
        for (const client of [lobby.host, lobby.guest]) {
          const view = client.lobby;
          expect(view?.code).toBe(lobby.code);
          expect(view?.epoch).toBeGreaterThan(lobby.epoch);
          expect(view?.members.map((m) => [m.player, m.ready, m.connected])).toEqual([
            [lobby.host.player, false, true],
            [lobby.guest.player, lobby.ready, true],
          ]);
          expect(view?.host).toBe(lobby.host.player);
        }
      }
    }, 30_000);
    // They keep working where they are now.
    await Promise.all(
      lobbies.slice(100, 110).map(async (lobby) => {
        await lobby.guest.ready(true);
        await eventually(() => expect(lobby.host.lobby?.members[1]?.ready).toBe(true), 10_000);
      }),
    );
  }, 180_000);

  it("sends a new lobby created through a draining node to a peer", async () => {
    // n1 drained and exited; drain n2 while a player creates through it.
    const alice = await player("d-alice", urls[1]!);
    const drain = fetch(new URL("/drain", admins[1]), { method: "POST" });
    expect((await drain).status).toBe(202);
    const { code } = await alice.create();
    await eventually(() => expect(alice.lobby?.code).toBe(code), 10_000);
    expect(await nodes[1]!.exited).toBe(0);
  }, 120_000);

  it("refuses to drain the last live node", async () => {
    const lines: string[] = [];
    expect(await runDrain("n3", { admin: admins[2]!, json: true }, (text) => lines.push(text))).toBe(1);
    expect(JSON.parse(lines.at(-1)!)).toMatchObject({
      state: "refused",
      message: expect.stringMatching(/no other live node/),
    });
  }, 60_000);
});
