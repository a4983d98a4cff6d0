import { describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import type { LobbyChatView } from "../../gateway/protocol/server-frames.ts";
import { drainUntilAccepted } from "../../ops/admin/index.ts";
import { eventually, refusal } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Lobby data, member data, a ban, the door and the version are in the lobby's snapshot: a drain moves
 * them to a peer and a `kill -9` of the owner leaves them to the survivor that takes the lobby over, with
 * every acknowledged change. Three node processes over a 3-server NATS cluster.
 */

const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 3,
  flags: { "failure-timeout-ms": "3000" },
});
const { nodes, urls, admins } = fleet;
const player = (id: string, first: string): Promise<FoyerClient> => fleet.player(id, first);

/** What the members must still see after each move. */
function expectKept(client: FoyerClient, code: string, version: number, epoch: number): void {
  const view = client.lobby;
  expect(view?.code).toBe(code);
  expect(view?.epoch).toBeGreaterThan(epoch);
  expect(view?.data).toEqual({
    mode: { value: "duo", visibility: "public" },
    seed: { value: 42, visibility: "member" },
    round: { value: 3, visibility: "public" },
  });
  expect(view?.members.map((m) => [m.player, m.data])).toEqual([
    ["f-host", {}],
    ["f-guest", { colour: "red" }],
  ]);
  expect(view).toMatchObject({ maxMembers: 4, hasPassword: true, locked: false });
  // Nothing acknowledged is lost: the version went on from where it was, never back.
  expect(view!.version).toBeGreaterThan(version - 1);
}

describe("lobby data across a drain and a kill -9 of the owner", () => {
  it("keeps data, member data, a ban, the door and the version", async () => {
    const host = await player("f-host", urls[0]!);
    const guest = await player("f-guest", urls[0]!);
    const troll = await player("f-troll", urls[0]!);
    const lines: LobbyChatView[] = [];
    guest.on("lobbyChat", (line) => lines.push(line));
    const { code } = await host.create({
      metadata: { mode: "duo" },
      data: { seed: { value: 42, visibility: "member" } },
      maxMembers: 4,
      password: "hunter2",
    });
    await guest.join(code, { password: "hunter2" });
    await troll.join(code, { password: "hunter2" });
    await host.kick("f-troll", { ban: true, reason: "trolling" });
    await guest.setMemberData({ colour: "red" });
    const seen = host.lobby!.version;
    let { version } = await host.setLobbyData({ round: { value: 3 } }, { ifVersion: seen });
    await eventually(() => expect(guest.lobby?.version).toBe(version), 10_000);

    // Drain the owner: the lobby moves to a peer with everything it was told.
    const drainEpoch = host.lobby!.epoch;
    const { summary } = await drainUntilAccepted("n1", { admin: admins[0]! });
    expect(summary).toMatchObject({ state: "done", left: 0 });
    await eventually(() => {
      for (const client of [host, guest]) expectKept(client, code, version, drainEpoch);
    }, 30_000);
    expect(await refusal(troll.join(code, { password: "hunter2" }))).toBe("BANNED");
    expect(await refusal(host.setLobbyData({ round: { value: 4 } }, { ifVersion: version - 1 }))).toBe(
      "VERSION_CONFLICT",
    );
    version = host.lobby!.version;
    // Chat goes on from the new owner, under its epoch.
    await host.sendLobbyChat("after the drain");
    await eventually(() => expect(lines.map((l) => l.text)).toEqual(["after the drain"]), 10_000);
    expect(lines[0]!.epoch).toBeGreaterThan(drainEpoch);

    // Kill the new owner: the node the host's socket followed the lobby to.
    await eventually(() => expect(urls.indexOf(host.url ?? "")).toBeGreaterThan(0), 10_000);
    const owner = nodes[urls.indexOf(host.url!)]!;
    const failEpoch = host.lobby!.epoch;
    owner.child.kill("SIGKILL");
    await owner.exited;
    await eventually(() => {
      for (const client of [host, guest]) expectKept(client, code, version, failEpoch);
    }, 60_000);
    expect(await refusal(troll.join(code, { password: "hunter2" }))).toBe("BANNED");
    await host.sendLobbyChat("after the failover");
    await eventually(
      () => expect(lines.map((l) => l.text)).toEqual(["after the drain", "after the failover"]),
      10_000,
    );
    expect(lines[1]!.epoch).toBeGreaterThan(failEpoch);
    // The version a member saw is the one the survivor goes on from.
    const now = host.lobby!.version;
    expect((await host.setLobbyData({ round: { value: 5 } }, { ifVersion: now })).version).toBe(now + 1);
  }, 180_000);
});
