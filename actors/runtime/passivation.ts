import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { ActorTable } from "./actor-table.ts";
import { unavailable } from "./request-results.ts";

/**
 * Drops actors from memory: idle ones on a periodic sweep (their snapshots stay), and every one at once
 * when the node is declared dead or stops.
 */
export class Passivation {
  private sweepCancel: (() => void) | undefined;

  constructor(
    private readonly table: ActorTable,
    private readonly options: ActorSystemOptions,
  ) {}

  /** Drops every idle actor now (their snapshots stay), optionally only keys under `prefix`; returns how many. */
  passivateIdle(olderThanMs = 0, prefix = ""): number {
    const now = this.options.scheduler.now();
    let dropped = 0;
    for (const cell of this.table.cells.values()) {
      if (!cell.key.startsWith(prefix)) continue;
      if (cell.running || cell.frozen || cell.dirty || cell.mailbox.length > 0 || cell.timers.size > 0)
        continue;
      if (now - cell.lastActive < olderThanMs || !cell.kind.idle(cell.state)) continue;
      this.table.cells.delete(cell.key);
      dropped++;
    }
    return dropped;
  }

  /**
   * Drops every actor at once, writing nothing: this node was declared dead and other nodes own its keys
   * now. Pending asks are answered UNAVAILABLE (clients retry them elsewhere); the system keeps running
   * for the node's next incarnation. Returns how many actors were dropped.
   */
  dropAll(): number {
    this.table.generation++;
    const dropped = this.table.cells.size;
    for (const cell of this.table.cells.values()) {
      cell.stopped = true;
      cell.cancelTimers();
      for (const envelope of cell.mailbox.splice(0)) {
        envelope.resolve?.(unavailable("this node was declared dead; retry"));
      }
    }
    this.table.cells.clear();
    return dropped;
  }

  /** Stops timers and the sweep; pending asks are answered UNAVAILABLE. */
  close(): void {
    this.table.closed = true;
    this.sweepCancel?.();
    for (const cell of this.table.cells.values()) {
      cell.cancelTimers();
      for (const envelope of cell.mailbox.splice(0)) envelope.resolve?.(unavailable("the node is stopping"));
    }
    this.table.cells.clear();
  }

  /** Arms the next sweep of idle actors: every half passivation period, at least a second apart. */
  scheduleSweep(): void {
    const passivateAfterMs = this.options.passivateAfterMs ?? 60_000;
    const every = Math.max(1_000, passivateAfterMs / 2);
    this.sweepCancel = this.options.scheduler.at(this.options.scheduler.now() + every, () => {
      if (this.table.closed) return;
      this.passivateIdle(passivateAfterMs);
      this.scheduleSweep();
    });
  }
}
