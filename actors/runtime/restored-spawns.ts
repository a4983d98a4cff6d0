import type { Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { SpawnOutcome } from "./actor-creator.ts";
import type { ActorTable } from "./actor-table.ts";
import type { SnapshotSpawn, StoredActor } from "./ports.ts";

/**
 * How long a restore waits for a spawn written in its snapshot to exist (see `settleSpawn`): past a
 * failover's detection and the freeing of the dead creator's orphaned claim, with room to spare.
 */
const settleSpawnForMs = 60_000;
/** How often it looks again meanwhile. */
const settleSpawnRetryMs = 500;

/** What settling a restored snapshot's spawns needs from the system. */
export interface RestoredSpawnsHost {
  /** See ActorCreator.spawnChild. */
  spawnChild(key: string, init: unknown, node?: string): Promise<SpawnOutcome>;
  deliver(key: string, envelope: Envelope): void;
  newWriteId(now: number): string;
}

/** Makes sure the spawns a restored snapshot names exist before its actor runs again. */
export class RestoredSpawns {
  constructor(
    private readonly table: ActorTable,
    private readonly options: ActorSystemOptions,
    private readonly host: RestoredSpawnsHost,
  ) {}

  /**
   * Settles the spawns a restored snapshot names (see `settleSpawn`), then writes it again without them,
   * before the actor runs: once that write has landed, no restore will spawn them again, so a child that
   * has ended since is never brought back. Null when the store did not take that write.
   */
  async settleSpawns(key: string, stored: StoredActor): Promise<StoredActor | null> {
    const { spawning, ...snapshot } = stored.snapshot;
    const settled = await Promise.all((spawning ?? []).map((spawn) => this.settleSpawn(key, spawn)));
    // Behind the messages that made the creator load: a confirmed spawn's creator hears it exists.
    (spawning ?? []).forEach((spawn, i) => {
      if (spawn.confirm === true && settled[i] === true)
        this.host.deliver(key, { message: { type: "spawned", key: spawn.key } });
    });
    const now = this.options.scheduler.now();
    const written = { ...snapshot, epoch: stored.epoch, writeId: this.host.newWriteId(now) };
    try {
      const revision = await this.options.store.write(key, written, stored.revision);
      // The wait may have been long: another node may have sealed the key since (a takeover or a
      // migration that found it not live here), writing our snapshot over under its own epoch.
      const again = await this.options.store.read(key);
      if (again?.owner.mine !== true || again.revision !== revision) return null;
      return again;
    } catch (error) {
      this.options.events?.persistFailed?.(key, error);
      return null;
    }
  }

  /**
   * Makes sure the actor of a spawn written in a restored snapshot exists (see MailboxRunner, "Spawns
   * before what they cause"): its creator wrote the change that caused it and then stopped before the
   * spawn was known to be stored. A key with a snapshot is taken to be that spawn's; a free key is
   * spawned again (here, when the node it was placed on does not take it, past this node's room
   * limits). A claim without a snapshot (the dead creator's orphan) reads as free, but the spawn finds it
   * taken, and so it is tried again until failover has freed it. True once it exists; false at the
   * deadline, when the creator is told `spawnFailed` as a live spawn's creator would be.
   */
  private async settleSpawn(from: string, spawn: SnapshotSpawn): Promise<boolean> {
    const { scheduler } = this.options;
    const deadline = scheduler.now() + settleSpawnForMs;
    for (;;) {
      let existing: StoredActor | null | undefined;
      try {
        existing = await this.options.store.read(spawn.key);
      } catch {
        existing = undefined; // an orphaned claim being freed, or the store not answering: wait
      }
      if (existing) return true;
      if (existing === null) {
        if ((await this.host.spawnChild(spawn.key, spawn.init, spawn.node)).stored) return true;
        if (spawn.node !== undefined && (await this.host.spawnChild(spawn.key, spawn.init)).stored)
          return true;
      }
      if (scheduler.now() + settleSpawnRetryMs > deadline || this.table.closed) break;
      await new Promise<void>((resolve) => scheduler.at(scheduler.now() + settleSpawnRetryMs, resolve));
    }
    this.options.events?.persistFailed?.(spawn.key, new Error(`spawn from ${from} not settled`));
    this.host.deliver(from, { message: { type: "spawnFailed", key: spawn.key } });
    return false;
  }
}
