import { describe, expect, it } from "vitest";
import type { FoyerClient } from "../../gateway/client/index.ts";
import { NatsKvStore, connectNats, decodeClaim } from "../../fleet/index.ts";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * A player joining a second lobby on another node leaves the first, and a crash of either node between
 * the two steps still ends with the player in exactly one. The move is a persisted intent of the
 * player's registry entry (`player/<id>`): join the second lobby, then tell the first `leave` until it
 * confirms. Here the node of either lobby gets `kill -9` while that runs, on real processes; the survivors
 * take its keys over and the intent is driven to its end.
 */

const fleet = useProcessFleet({
  ids: ["n1", "n2", "n3"],
  natsServers: 1,
  flags: { "failure-timeout-ms": "3000" },
});
const { nodes, urls } = fleet;

/** The node id whose claim holds `key` now. */
async function ownerOf(key: string): Promise<string | undefined> {
  const nc = await connectNats({ servers: fleet.nats().urls });
  try {
    const entry = await (await new NatsKvStore(nc).bucket("claims")).get(key);
    return entry === null ? undefined : decodeClaim(entry.value).node;
  } finally {
    await nc.close();
  }
}

const membersOf = (client: FoyerClient): string[] => client.lobby?.members.map((m) => m.player) ?? [];

/** What the mover's client heard, for a failing case's message. */
const journal: string[] = [];

/** Two lobbies, one hosted through each given node, and a player who is in the first. */
async function twoLobbies(tag: string, registryAt: string, firstAt: string, secondAt: string) {
  journal.length = 0;
  const mover = await fleet.player(`${tag}-mover`, registryAt);
  const t0 = Date.now();
  mover.on("connected", (c) =>
    journal.push(`${Date.now() - t0} connected ${c.node}${c.resumed ? " resumed" : ""}`),
  );
  mover.on("disconnected", (c) => journal.push(`${Date.now() - t0} disconnected ${c.code}`));
  mover.on("lobby", (l) =>
    journal.push(
      `${Date.now() - t0} lobby ${l.code} e${l.epoch} ${l.members.map((m) => m.player).join(",")}`,
    ),
  );
  mover.on("left", (l) => journal.push(`${Date.now() - t0} left ${l.code}`));
  const host1 = await fleet.player(`${tag}-host1`, firstAt);
  const host2 = await fleet.player(`${tag}-host2`, secondAt);
  const first = await host1.create();
  const second = await host2.create();
  await mover.join(first.code);
  await eventually(() => expect(membersOf(host1)).toEqual([`${tag}-host1`, `${tag}-mover`]), 10_000);
  return { mover, host1, host2, first: first.code, second: second.code };
}

/** The end every crash must reach: the mover in the second lobby only, as both hosts and itself see it. */
async function endsInSecondOnly(
  tag: string,
  parts: { mover: FoyerClient; host1: FoyerClient; host2: FoyerClient; second: string },
): Promise<void> {
  await eventually(() => {
    expect(membersOf(parts.host2)).toEqual([`${tag}-host2`, `${tag}-mover`]);
    expect(membersOf(parts.host1)).toEqual([`${tag}-host1`]);
    expect(parts.mover.lobby?.code, journal.join("\n")).toBe(parts.second);
  }, 30_000);
}

describe("a move between lobbies on two nodes, with a crash between its steps", () => {
  it("kill -9 of the first lobby's node as the join of the second is sent: the player ends in the second only", async () => {
    const parts = await twoLobbies("a", urls[0]!, urls[1]!, urls[2]!);
    // The layout the case is about: registry, first and second lobby each on their own node.
    expect(await ownerOf("player/a-mover")).toBe("n1");
    expect(await ownerOf(`lobby/${parts.first}`)).toBe("n2");
    expect(await ownerOf(`lobby/${parts.second}`)).toBe("n3");
    const joined = parts.mover.join(parts.second);
    nodes[1]!.child.kill("SIGKILL");
    await joined;
    await endsInSecondOnly("a", parts);
    // The first lobby lives on at a survivor, its host kept.
    expect(await ownerOf(`lobby/${parts.first}`)).not.toBe("n2");
  }, 90_000);

  it("kill -9 of the node holding the second lobby and the player's registry once the join is acknowledged", async () => {
    const parts = await twoLobbies("b", urls[2]!, urls[0]!, urls[2]!);
    expect(await ownerOf("player/b-mover")).toBe("n3");
    expect(await ownerOf(`lobby/${parts.first}`)).toBe("n1");
    expect(await ownerOf(`lobby/${parts.second}`)).toBe("n3");
    await parts.mover.join(parts.second);
    const epochBefore = parts.host2.lobby!.epoch;
    nodes[2]!.child.kill("SIGKILL");
    // The only survivor takes both keys over; what the clients see after that is the restored state.
    await eventually(async () => {
      expect(await ownerOf(`lobby/${parts.second}`)).toBe("n1");
      expect(await ownerOf("player/b-mover")).toBe("n1");
    }, 30_000);
    await eventually(() => expect(parts.host2.lobby?.epoch).toBeGreaterThan(epochBefore), 30_000);
    await endsInSecondOnly("b", parts);
  }, 90_000);
});
