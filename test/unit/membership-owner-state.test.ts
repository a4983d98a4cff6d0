import { describe, expect, it } from "vitest";
import { ManualScheduler } from "../../actors/runtime/index.ts";
import { MemoryKvServer, encodeNodeRecord } from "../../fleet/index.ts";
import { member } from "./support/membership.ts";

describe("Membership.ownerState", () => {
  it("a claim of an incarnation not read yet, after its node's tombstone, is unknown — not dead", async () => {
    // Found by the fleet simulation (seed 203): a fenced node rejoined as a new incarnation and claimed a
    // key; a peer that still held the old tombstone called the new incarnation dead and took the key.
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    const a = member(nodes, "n1", "a1", scheduler);
    const b = member(nodes, "n2", "b1", scheduler);
    await a.join();
    await b.join();
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a1" })).toBe("live");
    const record = (await nodes.get("n1"))!;
    await nodes.update("n1", encodeNodeRecord({ dead: true, incarnation: "a1", by: "n3" }), record.revision);
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
    expect(b.ownerState({ node: "n1", incarnation: "a2" })).toBe("unknown");
    // Once a2 heartbeats and is read, it is live.
    await a.rejoin("a2");
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a2" })).toBe("live");
  });

  it("a claim of an older incarnation, replaced by a live one, is dead", async () => {
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    const b = member(nodes, "n2", "b1", scheduler);
    await member(nodes, "n1", "a2", scheduler).join();
    await b.join();
    await b.tick();
    expect(b.ownerState({ node: "n1", incarnation: "a1" })).toBe("dead");
  });
});
