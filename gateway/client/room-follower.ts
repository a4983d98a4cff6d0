import type { RoomView, ServerFrame, TurnsWantedFrame } from "../protocol/server-frames.ts";
import type { ClientPartDeps } from "./client-events.ts";
import { encodedTurnBytes, TurnLog, type TurnView } from "./turn-log.ts";

/** The frames of a relay room's stream besides the room frame itself. */
export type RoomStreamFrame = Extract<
  ServerFrame,
  { type: "turn" | "turnsGone" | "turnsWanted" | "resumed" | "paused" | "checksum" | "desync" | "chat" }
>;

/**
 * Follows the player's relay room: its turns handed on in order (the missing ones fetched first) and
 * kept, bounded, for the room's `turnsWanted` after a failover; and a room created directly joined again
 * after each reconnect.
 */
export class RoomFollower {
  /** The room's turns, handed on in order and kept (bounded) for the room's `turnsWanted`. */
  private readonly turnLog = new TurnLog();
  /** A `roomTurns` catch-up is on its way. */
  private catchingUp = false;
  private rejoining = false;

  constructor(
    private readonly deps: ClientPartDeps,
    /** The node's frame limit: held turns go back in batches that fit half of it. */
    private readonly maxFrameBytes: number,
  ) {}

  /** A room frame (the client keeps it as its `room`): a playing room's missing turns are fetched. */
  onRoom(frame: RoomView): void {
    this.turnLog.enter(frame.key);
    this.deps.emit("room", frame);
    if (frame.phase === "playing" && frame.turn > this.turnLog.delivered) this.catchUp();
  }

  /** Any other frame of the room's stream (admitted by its stamp). */
  onFrame(frame: RoomStreamFrame): void {
    switch (frame.type) {
      case "turn":
        this.onTurn(frame);
        return;
      case "turnsGone":
        this.turnLog.enter(frame.key);
        this.deps.emit("roomEvent", frame);
        for (const ready of this.turnLog.skipTo(frame.to)) this.deps.emit("roomEvent", ready);
        return;
      case "turnsWanted":
        void this.sendHeldTurns(frame);
        return;
      case "resumed":
        this.deps.emit("roomEvent", frame);
        if (frame.turn - 1 > this.turnLog.delivered && this.turnLog.room === frame.key) this.catchUp();
        return;
      case "paused":
      case "checksum":
      case "desync":
      case "chat":
        this.deps.emit("roomEvent", frame);
        return;
    }
  }

  /**
   * After every (re)connect, a room created directly that has not ended is joined again: a node that did
   * not know this session (the old one died, or the reconnect went to another bootstrap URL) learns the
   * player's room, and redirects the socket to the room's node when it lives elsewhere — a room's frames
   * reach only sockets on its own node. A lobby's room is found through the lobby instead. Once at a time:
   * an unanswered rejoin is re-sent with the other calls.
   */
  rejoin(room: RoomView | null): void {
    if (room === null || room.ended || !room.direct || this.rejoining) return;
    this.rejoining = true;
    this.deps.call({ type: "joinRoom", code: room.code }).then(
      () => {
        this.rejoining = false;
      },
      () => {
        // Gone meanwhile (ended, or the seat went to AI): its last frame says so, or nothing is left.
        this.rejoining = false;
      },
    );
  }

  /** A turn: handed on in order; one that comes early waits while the missing ones are fetched. */
  private onTurn(frame: TurnView): void {
    this.turnLog.enter(frame.key);
    const { ready, gap } = this.turnLog.accept(frame);
    for (const turn of ready) this.deps.emit("roomEvent", turn);
    if (gap) this.catchUp();
  }

  /**
   * Asks the room for the turns after the last one handed on; they come as turn frames before the
   * answer. Asks again while that made progress and turns are still missing.
   */
  private catchUp(): void {
    if (this.catchingUp) return;
    this.catchingUp = true;
    const from = this.turnLog.delivered;
    this.deps.call({ type: "roomTurns", after: from }).then(
      (value) => {
        this.catchingUp = false;
        const last = (value as { turn?: number } | null)?.turn ?? 0;
        if (this.turnLog.delivered > from && this.turnLog.delivered < last) this.catchUp();
      },
      () => {
        this.catchingUp = false;
      },
    );
  }

  /**
   * After a failover the room asks for the turns this player holds after `after`: they go back in
   * batches that fit the node's frame limit, the last one `done`.
   */
  private async sendHeldTurns(frame: TurnsWantedFrame): Promise<void> {
    const budget = this.maxFrameBytes / 2;
    const held = this.turnLog.room === frame.key ? this.turnLog.after(frame.after) : [];
    let after = frame.after;
    let index = 0;
    try {
      do {
        const batch: { turn: number; commands: TurnView["commands"]; ai: number[] }[] = [];
        let bytes = 64;
        for (let t = held[index]; t !== undefined; t = held[index]) {
          const size = encodedTurnBytes(t);
          if (batch.length > 0 && bytes + size > budget) break;
          batch.push({ turn: t.turn, commands: t.commands, ai: t.ai ?? [] });
          bytes += size;
          index++;
        }
        const done = index >= held.length;
        await this.deps.call({ type: "heldTurns", after, turns: batch, done });
        after += batch.length;
      } while (index < held.length);
    } catch {
      // The room stopped waiting (it resumed without us, or ended): nothing left to answer.
    }
  }
}
