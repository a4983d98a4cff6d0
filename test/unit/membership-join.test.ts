import { describe, expect, it } from "vitest";
import { ManualScheduler } from "../../actors/runtime/index.ts";
import {
  MemoryKvServer,
  NodeIdConflictError,
  decodeNodeRecord,
  encodeNodeRecord,
} from "../../fleet/index.ts";
import { member } from "./support/membership.ts";

describe("Membership.join", () => {
  it("a restart whose dead predecessor is tombstoned during the wait joins — it is no second process", async () => {
    // Found by the fleet simulation: a process restarted within the failure timeout finds its predecessor's
    // record still, and waits a failure timeout to see whether it moves. A peer that declares the silent
    // predecessor dead in that window moves it — with a tombstone, not a heartbeat. That is no second live
    // process, yet the restart refused to start with NodeIdConflictError.
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    await member(nodes, "n1", "a1", scheduler).join(); // then a1 dies (kill -9): its record stays
    const restarted = member(nodes, "n1", "a2", scheduler);
    const joined = restarted.join().then(
      () => "joined",
      (error: unknown) => error,
    );
    await scheduler.advance(1_000);
    const record = await nodes.get("n1");
    await nodes.update("n1", encodeNodeRecord({ dead: true, incarnation: "a1", by: "n2" }), record!.revision);
    await scheduler.advance(3_000);
    expect(await joined).toBe("joined");
    const now = decodeNodeRecord((await nodes.get("n1"))!.value);
    expect(now).toMatchObject({ incarnation: "a2" });
    expect(restarted.mayAct()).toBe(true);
  });

  it("a predecessor whose heartbeat moves during the wait is a second live process: refused", async () => {
    const scheduler = new ManualScheduler();
    const nodes = await new MemoryKvServer().connect().bucket("nodes");
    const first = member(nodes, "n1", "a1", scheduler);
    await first.join();
    const second = member(nodes, "n1", "a2", scheduler);
    const joined = second.join().then(
      () => "joined",
      (error: unknown) => error,
    );
    await scheduler.advance(1_000);
    await first.tick();
    await scheduler.advance(3_000);
    expect(await joined).toBeInstanceOf(NodeIdConflictError);
  });
});
