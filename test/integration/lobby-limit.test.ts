import { describe, expect, it } from "vitest";
import { eventually, refusal, useTestNode } from "../support/node.ts";

/**
 * `--max-lobbies` on one embedded node (docs/operations.md, "Limits"): it holds that many private
 * lobbies; a create past them is refused FULL, and one is made again once a lobby ended.
 */

const { setup, player } = useTestNode();

describe("an embedded node's lobby limit", () => {
  it("refuses a create past --max-lobbies FULL, and takes one again once a lobby ended", async () => {
    await setup({ maxLobbies: "2" });
    const hosts = [await player("limit-a"), await player("limit-b")];
    const codes = [];
    for (const host of hosts) codes.push((await host.create()).code);
    const late = await player("limit-c");
    expect(await refusal(late.create())).toBe("FULL");
    // Only new lobbies are refused: joining one works.
    expect(await late.join(codes[0]!)).toEqual({ code: codes[0] });
    await late.leave();
    // The last member of a lobby leaves: it ends, and a create is taken again.
    await hosts[1]!.leave();
    await eventually(async () => expect((await late.create()).code).toMatch(/^[A-Z0-9]+$/));
  });
});
