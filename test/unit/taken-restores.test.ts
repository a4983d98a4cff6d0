import { describe, expect, it } from "vitest";
import { ManualScheduler } from "../../actors/runtime/index.ts";
import { TakenRestores, takenRestoreRetryMs, takenRestoreTries } from "../../fleet/taken-restores.ts";

/** A node's view of one key taken over at epoch 6: the test says whether it is ours, live or arriving. */
function world() {
  const scheduler = new ManualScheduler();
  const state = { ours: true, live: false, arriving: false, sealing: false };
  const told: unknown[] = [];
  const restores = new TakenRestores({
    scheduler,
    log: { info: () => undefined, warn: () => undefined, error: () => undefined },
    system: () => ({
      tell: (key, message) => {
        told.push({ key, message });
      },
      isLive: () => state.live,
      isArriving: () => state.arriving,
    }),
    playersHere: () => ["ann"],
    ours: (key, epoch) => state.ours && key === "player/P1" && epoch === 6,
    sealing: () => state.sealing,
  });
  return { scheduler, state, told, restores };
}

const restored = { key: "player/P1", message: { type: "restored", reason: "failover", connected: ["ann"] } };

// Found by the fleet simulation: a node took over a player whose move was under way, but the store
// refused the load its `restored` tell made, and nobody asked for the player again: its move timer never
// ran until the final probe loaded it, long after the faults.
describe("the restore of a key taken over here", () => {
  it("tells the actor again while a refused load left it out of memory, and stops once it is in", async () => {
    const { scheduler, state, told, restores } = world();
    restores.taken("player/P1", 6);
    expect(told).toEqual([restored]);
    await scheduler.advance(takenRestoreRetryMs);
    expect(told).toHaveLength(2);
    await scheduler.advance(takenRestoreRetryMs);
    expect(told).toEqual([restored, restored, restored]);
    state.live = true;
    await scheduler.advance(takenRestoreRetryMs * 5);
    expect(told).toHaveLength(3);
    expect(scheduler.size).toBe(0);
  });

  it("does not tell again while a load is still under way", async () => {
    const { scheduler, state, told, restores } = world();
    restores.taken("player/P1", 6);
    state.arriving = true;
    await scheduler.advance(takenRestoreRetryMs * 3);
    expect(told).toHaveLength(1);
    state.arriving = false;
    await scheduler.advance(takenRestoreRetryMs);
    expect(told).toHaveLength(2);
  });

  it("gives up once the key is no longer this incarnation's at that epoch, or the node stops", async () => {
    const lost = world();
    lost.restores.taken("player/P1", 6);
    lost.state.ours = false;
    await lost.scheduler.advance(takenRestoreRetryMs * 3);
    expect(lost.told).toHaveLength(1);
    expect(lost.scheduler.size).toBe(0);

    const stopped = world();
    stopped.restores.taken("player/P1", 6);
    stopped.restores.stop();
    await stopped.scheduler.advance(takenRestoreRetryMs * 3);
    expect(stopped.told).toHaveLength(1);
    expect(stopped.scheduler.size).toBe(0);
  });

  it("gives up after its tries: a key that never loads is left to the next request", async () => {
    const { scheduler, told, restores } = world();
    restores.taken("player/P1", 6);
    await scheduler.advance(takenRestoreRetryMs * (takenRestoreTries + 10));
    expect(told).toHaveLength(1 + takenRestoreTries);
    expect(scheduler.size).toBe(0);
  });
});

describe("a key sealed by the read that restores it", () => {
  it("is told restored once, unless a takeover or adoption still sealing it tells it itself", async () => {
    const { scheduler, state, told, restores } = world();
    state.sealing = true;
    restores.sealedByRead("player/P1");
    expect(told).toEqual([]);
    state.sealing = false;
    restores.sealedByRead("player/P1");
    expect(told).toEqual([restored]);
    await scheduler.advance(takenRestoreRetryMs * 3);
    expect(told).toHaveLength(1);
  });
});
