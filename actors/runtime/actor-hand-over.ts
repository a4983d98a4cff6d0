import type { ActorCell, Envelope } from "./actor-cell.ts";
import type { ActorTable } from "./actor-table.ts";

/** What a hand-over needs from the system: starting a mailbox, and delivering a message again. */
export interface HandOverHost {
  kick(cell: ActorCell): void;
  deliver(key: string, envelope: Envelope): void;
}

/**
 * Moves live actors off this node: a freeze for a migration, its thaw or hand-over, and the forgetting
 * of an actor that stopped or was fenced (its mailbox re-routed).
 */
export class ActorHandOver {
  constructor(
    private readonly table: ActorTable,
    private readonly host: HandOverHost,
  ) {}

  /** Freezes a live actor for a migration; see ActorSystem.freeze. */
  async freeze(key: string, maxBuffered = 256): Promise<{ epoch: number; revision: number } | null> {
    const cell = this.table.cells.get(key);
    if (!cell || cell.frozen || this.table.loading.has(key)) return null;
    if (cell.dirty || cell.kind.pinned?.(cell.state) === true) return null;
    cell.frozen = true;
    cell.maxBuffered = maxBuffered;
    if (cell.running) await new Promise<void>((resolve) => cell.idleWaiters.push(resolve));
    // The last batch may have pinned it (a start) or failed to write: it stays, running again.
    if (!this.movable(cell)) {
      this.thaw(key);
      return null;
    }
    return { epoch: cell.epoch, revision: cell.revision };
  }

  /** Read afresh after the batch in flight: still live, all written, not pinned. */
  private movable(cell: ActorCell): boolean {
    return !cell.stopped && !cell.dirty && cell.kind.pinned?.(cell.state) !== true;
  }

  /** Ends a freeze: the actor runs its buffered messages here (a migration that did not happen). */
  thaw(key: string): void {
    const cell = this.table.cells.get(key);
    if (!cell?.frozen) return;
    cell.frozen = false;
    this.host.kick(cell);
  }

  /**
   * Lets go of a frozen actor whose key another node has adopted (the router already names it): the cell
   * is dropped without a write, and its buffered messages are delivered again, in order — to the new
   * owner through the router, or here after a reload if this node took the key back.
   */
  handOver(key: string): void {
    const cell = this.table.cells.get(key);
    if (!cell) return;
    cell.frozen = false;
    this.forget(cell);
  }

  /** True when the live actor `key` must stay on this node for now (see ActorKind.pinned). */
  pinned(key: string): boolean {
    const cell = this.table.cells.get(key);
    return cell !== undefined && cell.kind.pinned?.(cell.state) === true;
  }

  /** The actor is gone from this node (stopped, fenced or handed over): drop it, re-route its mailbox. */
  forget(cell: ActorCell): void {
    cell.stopped = true;
    cell.cancelTimers();
    this.table.cells.delete(cell.key);
    for (const envelope of cell.mailbox.splice(0)) this.host.deliver(cell.key, envelope);
  }
}
