import type { ServerFrame } from "../protocol/server-frames.ts";
import { BlobAssembler, sha256Hex } from "./blob-transfer.ts";
import type { ClientPartDeps } from "./client-events.ts";

/** A `blobData` frame: one chunk of the room's document. */
type BlobDataFrame = Extract<ServerFrame, { type: "blobData" }>;

/**
 * The room's document, fetched once per id (`getRoomBlob`): its `blobData` chunks are assembled in order
 * and, once the SHA-256 matches, handed on as a `blob` event. A download cut by a reconnect goes on from
 * the next chunk with the next room frame.
 */
export class BlobDownload {
  /** The document being received, and the ids already handed on (each is fetched once). */
  private current: BlobAssembler | null = null;
  private readonly done = new Set<string>();
  private fetching = false;

  constructor(private readonly deps: ClientPartDeps) {}

  /** At the start of a room with a document: fetches it, unless it was or is being fetched. */
  fetch(ref: { id: string; size: number; digest: string }): void {
    if (this.done.has(ref.id) || this.fetching) return;
    const current = this.current;
    const from = current?.blob === ref.id ? current.nextIndex : 0;
    this.fetching = true;
    this.deps.call({ type: "getRoomBlob", ...(from > 0 ? { from } : {}) }, 120_000).then(
      () => {
        this.fetching = false;
      },
      (error: unknown) => {
        this.fetching = false;
        this.deps.emit("blobFailed", {
          id: ref.id,
          reason: error instanceof Error ? error.message : String(error),
        });
      },
    );
  }

  /** One chunk of the document; the last one hands the document on (or says why not). */
  onData(frame: BlobDataFrame): void {
    if (this.done.has(frame.blob)) return;
    if (this.current?.blob !== frame.blob) {
      this.current = new BlobAssembler(frame.blob, frame.size, frame.count, frame.digest);
    }
    const step = this.current.add(frame);
    if (step.status === "more") return;
    this.current = null;
    if (step.status === "refused") {
      this.deps.emit("blobFailed", { id: frame.blob, reason: step.reason });
      return;
    }
    this.done.add(frame.blob);
    void sha256Hex(step.bytes).then((digest) => {
      if (digest === frame.digest) this.deps.emit("blob", { id: frame.blob, bytes: step.bytes, digest });
      else this.deps.emit("blobFailed", { id: frame.blob, reason: "the document's SHA-256 does not match" });
    });
  }
}
