/** A stored value that does not decode (bad msgpack, or it fails its schema): data, never a crash. */
export class CorruptValueError extends Error {
  constructor(
    /** What was being decoded, e.g. `snapshot` or `claim`. */
    readonly what: string,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "CorruptValueError";
  }
}
