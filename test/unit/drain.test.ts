import { describe, expect, it } from "vitest";
import { Drain, realScheduler, type ClaimView } from "../../fleet/index.ts";

const me = { node: "n1", incarnation: "a" };
const peer = { node: "n2", incarnation: "b" };

describe("Drain", () => {
  it("says done only with its finish time, once the last move in flight has returned", async () => {
    const claims = new Map<string, ClaimView>([
      ["lobby/A", { key: "lobby/A", owner: me, revision: 1 }],
      ["lobby/B", { key: "lobby/B", owner: me, revision: 1 }],
    ]);
    let releaseB = (): void => undefined;
    const bReturned = new Promise<void>((resolve) => (releaseB = resolve));
    const seen: ReturnType<Drain["progress"]>[] = [];
    const drain: Drain = new Drain({
      identity: me,
      claims: () => claims.values(),
      targets: () => [{ node: "n2", url: "ws://n2", load: 0 }],
      move: async (key) => {
        // The claim changes hands at once (the target adopted); B's move then takes a while to return.
        claims.set(key, { key, owner: peer, revision: 2 });
        if (key === "lobby/B") {
          await Promise.resolve();
          await Promise.resolve();
          seen.push(drain.progress());
          await bReturned;
        }
        return "moved";
      },
      pinned: () => false,
      scheduler: realScheduler(),
      deadlineMs: 60_000,
    });
    const run = drain.run();
    // Let A's move finish and the loop find nothing left while B's is still in flight.
    for (let i = 0; i < 20; i++) await Promise.resolve();
    seen.push(drain.progress());
    releaseB();
    const final = await run;
    for (const progress of seen) {
      expect(progress.state === "running" || progress.finishedAt !== null, JSON.stringify(progress)).toBe(
        true,
      );
    }
    expect(final).toMatchObject({ state: "done", moved: 2, left: 0 });
    expect(final.finishedAt).not.toBeNull();
  });

  it("scans the claims once per pass, not once per move: a drain of many keys stays linear", async () => {
    const count = 2_000;
    const claims = new Map<string, ClaimView>();
    for (let i = 0; i < count; i++)
      claims.set(`player/p${i}`, { key: `player/p${i}`, owner: me, revision: 1 });
    let scans = 0;
    const drain = new Drain({
      identity: me,
      claims: () => {
        scans++;
        return claims.values();
      },
      targets: () => [{ node: "n2", url: "ws://n2", load: 0 }],
      move: async (key) => {
        await Promise.resolve();
        claims.set(key, { key, owner: peer, revision: 2 });
        return "moved";
      },
      pinned: () => false,
      scheduler: realScheduler(),
      deadlineMs: 60_000,
      concurrency: 8,
    });
    expect(await drain.run()).toMatchObject({ state: "done", moved: count, left: 0 });
    // A scan per finished move would be ~2,000 scans of 2,000 claims.
    expect(scans).toBeLessThan(10);
  });
});
