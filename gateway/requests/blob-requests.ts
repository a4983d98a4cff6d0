import {
  BlobError,
  type ActorSystem,
  type AskResult,
  type BlobRef,
  type BlobStore,
  type RequestId,
} from "../../actors/runtime/index.ts";
import { blobRefSchema } from "../../actors/common/index.ts";
import type { BlobRequestFrame } from "../protocol/blob-frames.ts";
import type { Session } from "../sessions/index.ts";
import { refused } from "./refused.ts";

/** What the gateway's blob requests need. */
export interface BlobRequestsDeps {
  readonly system: ActorSystem;
  readonly store: BlobStore;
  /** An upload not finished this long after its begin, or finished and not given to a room by then, is deleted. */
  readonly uploadTimeoutMs: number;
  /** Bytes per `blobData` frame the node sends. */
  readonly downloadChunkBytes: number;
  /** A download waits while the socket holds more unsent bytes than this. */
  readonly maxBufferedBytes: number;
}

/** At most this many uploads of one player are open (begun and not yet in a room) at a time. */
export const maxOpenUploads = 2;

interface Upload {
  readonly player: string;
  /** The next chunk index the store expects. */
  next: number;
  finished: BlobRef | null;
  /** Handed to a room: a repeated claim (a retried create or start) gets it again; it no longer expires. */
  claimed: boolean;
  timer: NodeJS.Timeout;
}

/** A store's refusal as an answer: too large → TOO_LARGE; out of order, wrong digest → INVALID; gone → NOT_FOUND. */
function refusal(error: unknown): AskResult {
  if (!(error instanceof BlobError)) throw error;
  switch (error.failure) {
    case "TOO_LARGE":
      return refused("TOO_LARGE", error.message);
    case "NOT_FOUND":
      return refused("NOT_FOUND", error.message);
    case "ORDER":
    case "DIGEST":
      return refused("INVALID", error.message);
  }
}

function bytesOf(data: Uint8Array | string): Uint8Array {
  return typeof data === "string" ? Buffer.from(data, "base64") : data;
}

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * A node's uploads and downloads of room documents (docs/rooms.md "Large blobs"). An upload belongs to
 * the player that began it, on this node, until a create or start hands it to a room (`claim`); one left
 * unfinished or unclaimed for `uploadTimeoutMs` is deleted. The room then owns it and releases it when it
 * ends.
 */
export class BlobRequests {
  private readonly uploads = new Map<string, Upload>();

  constructor(private readonly deps: BlobRequestsDeps) {}

  /** Answers one blob request. Never throws for bad input. */
  async handle(session: Session, frame: BlobRequestFrame, request: RequestId): Promise<AskResult> {
    try {
      switch (frame.type) {
        case "beginBlob":
          return await this.begin(session.player, frame.size, frame.digest);
        case "blobChunk":
          return await this.chunk(session.player, frame.blob, frame.index, bytesOf(frame.data));
        case "finishBlob":
          return await this.finish(session.player, frame.blob);
        case "getRoomBlob":
          return await this.download(session, frame.from ?? 0, request);
      }
    } catch (error) {
      return refusal(error);
    }
  }

  /**
   * Hands a finished upload of `player` to a room being made: its reference, or a refusal (unknown,
   * someone else's, unfinished). The upload stops expiring; call `unclaim` if the room was not made.
   */
  claim(player: string, id: string): BlobRef | AskResult {
    const upload = this.uploads.get(id);
    if (upload?.player !== player) return refused("NOT_FOUND", `no upload ${id} of yours`);
    if (upload.finished === null) return refused("INVALID", `upload ${id} is not finished`);
    if (!upload.claimed) {
      upload.claimed = true;
      // Remembered a while for retries, then forgotten; the room deletes the blob when it ends.
      clearTimeout(upload.timer);
      upload.timer = this.expire(id, false);
    }
    return upload.finished;
  }

  /**
   * A claimed blob was given to the room `key`: the store records it as the blob's holder, so a sweep
   * (`sweepOrphans`) keeps it while the room exists. Best effort: an unheld blob is only swept after the
   * sweep's age, like any orphan.
   */
  held(ref: BlobRef, key: string): void {
    this.deps.store.hold(ref.id, key).catch(() => undefined);
  }

  /** A claimed blob whose room was not made goes back to its player, expiring again. */
  unclaim(player: string, ref: BlobRef): void {
    this.forget(ref.id);
    this.track(ref.id, player, ref);
  }

  /** Discards every open upload (the node stops). */
  close(): void {
    for (const upload of this.uploads.values()) clearTimeout(upload.timer);
    this.uploads.clear();
  }

  /** Open uploads (tests, metrics). */
  get open(): number {
    return this.uploads.size;
  }

  private async begin(player: string, size: number, digest: string): Promise<AskResult> {
    if (size > this.deps.store.maxBytes) {
      return refused("TOO_LARGE", `a document is at most ${String(this.deps.store.maxBytes)} bytes`);
    }
    let open = 0;
    for (const upload of this.uploads.values()) if (upload.player === player && !upload.claimed) open++;
    if (open >= maxOpenUploads) {
      return refused(
        "INVALID",
        `at most ${String(maxOpenUploads)} uploads at a time: finish or use one first`,
      );
    }
    const id = await this.deps.store.begin(size, digest);
    this.track(id, player, null);
    return { ok: true, value: { blob: id } };
  }

  private async chunk(player: string, id: string, index: number, bytes: Uint8Array): Promise<AskResult> {
    const upload = this.mine(player, id);
    if (!upload) return refused("NOT_FOUND", `no upload ${id} of yours`);
    if (upload.finished !== null)
      return index < upload.next ? { ok: true } : refused("INVALID", `upload ${id} is finished`);
    // A retried chunk whose answer was lost: it was taken, answer it again.
    if (index < upload.next) return { ok: true };
    if (index > upload.next) {
      return refused("INVALID", `chunk ${String(index)} arrived where chunk ${String(upload.next)} was due`);
    }
    await this.deps.store.put(id, index, bytes);
    upload.next++;
    return { ok: true };
  }

  private async finish(player: string, id: string): Promise<AskResult> {
    const upload = this.mine(player, id);
    if (!upload) return refused("NOT_FOUND", `no upload ${id} of yours`);
    if (upload.finished !== null) return { ok: true, value: upload.finished };
    try {
      upload.finished = await this.deps.store.complete(id);
    } catch (error) {
      // A wrong digest discarded the upload in the store: forget it here too.
      if (error instanceof BlobError && error.failure === "DIGEST") this.forget(id);
      throw error;
    }
    return { ok: true, value: upload.finished };
  }

  /**
   * Streams the document of the player's room as `blobData` frames from chunk `from`, waiting while the
   * socket is backed up, then answers `{ blob, size, digest, count }`.
   */
  private async download(session: Session, from: number, request: RequestId): Promise<AskResult> {
    const key = session.room ?? session.lastRoom;
    if (key === null) return { ok: false, code: "NOT_IN_LOBBY", message: "you are not seated in a room" };
    const asked = await this.deps.system.ask(key, { type: "blob", player: session.player }, { request });
    if (!asked.ok) return asked;
    // A request id the room already answered gets that first answer back (docs/protocol.md, "Exactly
    // once"): reused for a download, it is some other request's result, not the room's document.
    const parsed = blobRefSchema.safeParse(asked.value);
    if (!parsed.success) {
      return refused(
        "INVALID",
        `request id ${String(request.id)} already answered another request: use a new id`,
      );
    }
    const ref: BlobRef = parsed.data;
    const size = this.deps.downloadChunkBytes;
    const count = Math.ceil(ref.size / size);
    if (from >= count) return refused("INVALID", `the document has ${String(count)} chunks`);
    let index = 0;
    for await (const data of this.deps.store.read(ref.id, size)) {
      if (index >= from) {
        while ((session.socket?.bufferedBytes?.() ?? 0) > this.deps.maxBufferedBytes / 2) await sleep(5);
        const bytes = session.socket?.encoding === "json" ? Buffer.from(data).toString("base64") : data;
        session.send({
          type: "blobData",
          blob: ref.id,
          index,
          count,
          size: ref.size,
          digest: ref.digest,
          data: bytes,
        });
      }
      index++;
    }
    return { ok: true, value: { blob: ref.id, size: ref.size, digest: ref.digest, count } };
  }

  private mine(player: string, id: string): Upload | undefined {
    const upload = this.uploads.get(id);
    return upload?.player === player ? upload : undefined;
  }

  private track(id: string, player: string, finished: BlobRef | null): void {
    this.uploads.set(id, { player, next: 0, finished, claimed: false, timer: this.expire(id, true) });
  }

  /** After `uploadTimeoutMs` the upload is forgotten, and (unless a room has it) deleted from the store. */
  private expire(id: string, remove: boolean): NodeJS.Timeout {
    const timer = setTimeout(() => {
      this.forget(id);
      if (remove) void this.deps.store.delete(id).catch(() => undefined);
    }, this.deps.uploadTimeoutMs);
    timer.unref();
    return timer;
  }

  private forget(id: string): void {
    const upload = this.uploads.get(id);
    if (upload) clearTimeout(upload.timer);
    this.uploads.delete(id);
  }
}
