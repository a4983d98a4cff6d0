import type { StampedFrame } from "../../actors/runtime/index.ts";

/** Players' keys whose last relayed frame a gateway remembers by default. */
export const defaultRelayedFramesSize = 10_000;

/**
 * The last relayed frame of each key a gateway handed to each of its players, so the same frame is not
 * handed over twice. A frame sent to one gateway whose answer is late (the gateway was paused, its answer
 * timed out although the frame was delivered) is broadcast as well, and the gateway then delivers both
 * copies. The rule is the SDK's own (an older epoch, or a sequence number seen, is not news); a raw
 * client, or a test reading the sockets, should not see a frame twice either. Bounded: the player and
 * key used least recently goes first, and after that a duplicate could pass again, as before.
 */
export class RelayedFrames {
  private readonly last = new Map<string, { readonly epoch: number; readonly seq: number }>();

  constructor(private readonly size = defaultRelayedFramesSize) {}

  /** True when `frame` is news to `player` (and notes it); false when it repeats or is older. */
  admit(player: string, frame: StampedFrame): boolean {
    const id = `${player}\u0000${frame.key}`;
    const last = this.last.get(id);
    if (
      last !== undefined &&
      (frame.epoch < last.epoch || (frame.epoch === last.epoch && frame.seq <= last.seq))
    )
      return false;
    this.last.delete(id);
    this.last.set(id, { epoch: frame.epoch, seq: frame.seq });
    if (this.last.size > this.size) {
      const oldest = this.last.keys().next();
      if (oldest.done !== true) this.last.delete(oldest.value);
    }
    return true;
  }
}
