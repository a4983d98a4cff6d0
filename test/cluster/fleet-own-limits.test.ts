import { describe, expect, it } from "vitest";
import { eventually } from "../support/node.ts";
import { useProcessFleet } from "../support/process-fleet.ts";

/**
 * Each node's limits are in its heartbeat with `--heartbeat-limits true` (docs/operations.md, "Limits"): two node processes with
 * different `--max-lobbies` — n1 takes 1 lobby, n2 takes 3. n1 at its limit sends a create to n2 while
 * n2 holds more lobbies than n1's own limit, since it weighs n2 against n2's limit, not its own.
 */

const fleet = useProcessFleet({
  ids: ["n1", "n2"],
  natsServers: 1,
  nodeFlags: (id) => ({ "max-lobbies": id === "n1" ? "1" : "3", "heartbeat-limits": "true" }),
});
const { urls, admins } = fleet;

/** The lobbies a node's /status counts (its lobby claims). */
async function lobbiesOf(admin: string): Promise<number> {
  return ((await (await fetch(`${admin}/status`)).json()) as { lobbies: number }).lobbies;
}

describe("a fleet of nodes with different limits", () => {
  it("a full node redirects a create to a peer below that peer's own, higher limit", async () => {
    const onTwo = await fleet.player("own-a", urls[1]!);
    await onTwo.create();
    const onOne = await fleet.player("own-b", urls[0]!);
    await onOne.create();
    await eventually(async () => {
      expect(await lobbiesOf(admins[0]!)).toBe(1);
      expect(await lobbiesOf(admins[1]!)).toBe(1);
    });
    // n1 is full; n2 holds 1 lobby, as many as n1's own limit, but fewer than its 3.
    const third = await fleet.player("own-c", urls[0]!);
    const landed = third.next("connected");
    await eventually(async () => {
      await third.create();
    }, 10_000);
    expect((await landed).node).toBe("n2");
    await eventually(async () => expect(await lobbiesOf(admins[1]!)).toBe(2));
  }, 90_000);
});
