import type { ActorSystem, Scheduler } from "../actors/runtime/index.ts";
import type { FleetLog } from "./fleet-node-ports.ts";

/** How long a takeover's restore has to bring its key into memory before it is told again. */
export const takenRestoreRetryMs = 1_000;
/** How many times a takeover's restore is told again at most: past a minute the next request loads it. */
export const takenRestoreTries = 60;

/** What telling restored actors needs from the node. */
export interface TakenRestoresDeps {
  readonly scheduler: Scheduler;
  readonly log: FleetLog;
  /** The node's actors (read at each use: the system is built after this). */
  system(): Pick<ActorSystem, "tell" | "isLive" | "isArriving">;
  /** The players of `key` whose sessions are on this node. */
  playersHere(key: string): readonly string[];
  /** True while this incarnation still holds `key` at `epoch`. */
  ours(key: string, epoch: number): boolean;
  /** True while a takeover or an adoption of `key` is still sealing it here. */
  sealing(key: string): boolean;
}

/**
 * Tells each actor restored here after a failover that it was, and whose sessions are here: its absent
 * members get a grace. A key taken over is restored until its actor is in memory. The `restored` tell
 * loads the actor, and only a loaded actor runs its timers again; a load the store refuses (still
 * unreachable right after a partition) drops the tell, and with nobody asking for the key its timers — a
 * player's move to another lobby, a lobby's grace — would wait for the next request, however long that
 * is. So the tell is repeated while the key is still this incarnation's at the takeover's epoch and not in
 * memory (a minute at most: a key that never loads, e.g. its actor stopped, is not asked forever).
 */
export class TakenRestores {
  private readonly checks = new Map<string, () => void>();

  constructor(private readonly deps: TakenRestoresDeps) {}

  /** Restores `key`, taken over here at `epoch`, and keeps at it until it is in memory. */
  taken(key: string, epoch: number): void {
    this.checks.get(key)?.();
    this.tell(key);
    this.checkLater(key, epoch, takenRestoreTries);
  }

  /**
   * A takeover that failed after its claim CAS leaves the key to the next read, which seals it: that
   * actor is told `restored` too (behind the messages that made it load), or its absent members would
   * count as connected and never get a grace.
   */
  sealedByRead(key: string): void {
    // A takeover or adoption still sealing tells the actor itself once it finds this seal.
    if (this.deps.sealing(key)) return;
    this.deps.log.info({ key }, "sealed by the read that restores it");
    this.tell(key);
  }

  /** Stops every restore still waiting (the node closes). */
  stop(): void {
    for (const cancel of this.checks.values()) cancel();
    this.checks.clear();
  }

  private tell(key: string): void {
    const connected = [...this.deps.playersHere(key)];
    this.deps.system().tell(key, { type: "restored", reason: "failover", connected });
  }

  private checkLater(key: string, epoch: number, tries: number): void {
    if (tries === 0) return;
    const { scheduler } = this.deps;
    const cancel = scheduler.at(scheduler.now() + takenRestoreRetryMs, () => {
      this.checks.delete(key);
      const system = this.deps.system();
      if (!this.deps.ours(key, epoch) || system.isLive(key)) return;
      if (!system.isArriving(key)) this.tell(key);
      this.checkLater(key, epoch, tries - 1);
    });
    this.checks.set(key, cancel);
  }
}
