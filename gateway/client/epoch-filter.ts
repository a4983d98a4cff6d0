/**
 * Drops frames from an older owner of a key: once a frame of epoch E was seen, frames of an epoch below E
 * are ignored, and within one epoch a sequence number seen before is a duplicate.
 */
export class EpochFilter {
  private readonly seen = new Map<string, { epoch: number; seq: number }>();

  /** True when the frame is news; false when it comes from an older owner or repeats one seen. */
  admit(frame: { readonly key: string; readonly epoch: number; readonly seq: number }): boolean {
    const last = this.seen.get(frame.key);
    if (last && (frame.epoch < last.epoch || (frame.epoch === last.epoch && frame.seq <= last.seq)))
      return false;
    this.seen.set(frame.key, { epoch: frame.epoch, seq: frame.seq });
    return true;
  }
}
