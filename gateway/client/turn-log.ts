import type { ServerFrame } from "../protocol/server-frames.ts";

/** A relay room's `turn` frame as the SDK receives it. */
export type TurnView = Extract<ServerFrame, { type: "turn" }>;

/** The bytes a turn takes in the log: its command data and a little for each command. */
export function turnViewBytes(turn: Pick<TurnView, "commands">): number {
  let bytes = 16;
  for (const c of turn.commands)
    bytes += 16 + (typeof c.data === "string" ? c.data.length : c.data.byteLength);
  return bytes;
}

/**
 * A bound on a turn's size on the wire in either encoding: field names and numbers, and up to three
 * UTF-8 bytes per character of string data.
 */
export function encodedTurnBytes(turn: Pick<TurnView, "commands">): number {
  let bytes = 64;
  for (const c of turn.commands)
    bytes += 40 + (typeof c.data === "string" ? 3 * c.data.length : 2 * c.data.byteLength);
  return bytes;
}

/**
 * The turns of the player's room, as the SDK hands them on: in order, each once, never one skipped
 * silently. A turn that arrives ahead of the next one waits (and says a catch-up is needed); the turns
 * handed on are kept, bounded by count and bytes, so the SDK can answer the room's `turnsWanted` after a
 * failover. Pure bookkeeping: the client does the asking.
 */
export class TurnLog {
  /** The key of the room these turns belong to (`room/<CODE>`); a new room starts a new log. */
  room: string | null = null;
  /** The last turn handed on, in order; 0 before the first. */
  delivered = 0;
  private kept: TurnView[] = [];
  private keptBytes = 0;
  private readonly ahead = new Map<number, TurnView>();

  constructor(
    private readonly maxTurns = 600,
    private readonly maxBytes = 1 << 20,
  ) {}

  /** Frames of room `key` follow: a different room than before starts from turn 0 again. */
  enter(key: string): void {
    if (key === this.room) return;
    this.room = key;
    this.delivered = 0;
    this.kept = [];
    this.keptBytes = 0;
    this.ahead.clear();
  }

  /**
   * A turn arrived: the turns now ready in order (none when it is early or a repeat), and whether turns
   * before it are missing.
   */
  accept(turn: TurnView): { ready: TurnView[]; gap: boolean } {
    if (turn.turn <= this.delivered) return { ready: [], gap: this.ahead.size > 0 };
    if (turn.turn > this.delivered + 1) {
      // Bounded like the log: past the bound, early turns are fetched again by the catch-up.
      if (this.ahead.size < this.maxTurns) this.ahead.set(turn.turn, turn);
      return { ready: [], gap: true };
    }
    const ready = [turn];
    this.keep(turn);
    ready.push(...this.flush());
    return { ready, gap: this.ahead.size > 0 };
  }

  /** The room no longer holds the turns up to `to`: carry on after them; returns the turns now ready. */
  skipTo(to: number): TurnView[] {
    if (to <= this.delivered) return [];
    this.delivered = to;
    for (const turn of this.ahead.keys()) if (turn <= to) this.ahead.delete(turn);
    return this.flush();
  }

  /** The kept turns after `after`, in order, as long as they follow on from it; none when it is not kept. */
  after(after: number): TurnView[] {
    const start = this.kept.findIndex((t) => t.turn === after + 1);
    return start < 0 ? [] : this.kept.slice(start);
  }

  private flush(): TurnView[] {
    const ready: TurnView[] = [];
    for (let next = this.ahead.get(this.delivered + 1); next; next = this.ahead.get(this.delivered + 1)) {
      this.ahead.delete(next.turn);
      this.keep(next);
      ready.push(next);
    }
    return ready;
  }

  private keep(turn: TurnView): void {
    this.delivered = turn.turn;
    this.kept.push(turn);
    this.keptBytes += turnViewBytes(turn);
    while (this.kept.length > 1 && (this.kept.length > this.maxTurns || this.keptBytes > this.maxBytes)) {
      const dropped = this.kept.shift();
      if (dropped) this.keptBytes -= turnViewBytes(dropped);
    }
  }
}
