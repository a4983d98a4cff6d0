import type { JetStreamClient, NatsConnection, ObjectStore } from "nats";
import { randomUUID } from "node:crypto";
import { BlobError, type BlobRef, type BlobStore, type BlobSweep } from "../../actors/runtime/index.ts";
import { BlobAssembly, checkDeclared, settled } from "../blob-upload.ts";

/** The fleet's blob bucket (a JetStream object store, `OBJ_foyer_blobs`). */
export const blobBucketName = "foyer_blobs";

/** How a NatsBlobStore makes its bucket. */
export interface NatsBlobStoreOptions {
  readonly maxBytes: number;
  /** Replicas of the bucket, as the KV buckets have (3 on a 3-server cluster). Default 1. */
  readonly replicas?: number;
  readonly bucket?: string;
  /** JetStream request timeout (default 5 s: an object's chunks are written one request each). */
  readonly timeoutMs?: number;
}

interface Upload {
  readonly assembly: BlobAssembly;
  readonly controller: ReadableStreamDefaultController<Uint8Array>;
  /** The object store's put, running while chunks are fed to its stream; settles after close/error. */
  readonly stored: Promise<unknown>;
  readonly begunAt: number;
}

/**
 * The fleet's BlobStore: a JetStream object store, so every node reads a blob any node took. An upload
 * streams its chunks into one `put` as they arrive (no node holds the whole blob); the object, with its
 * size and digest in its metadata, becomes visible only when the put completes, after the checks.
 */
export class NatsBlobStore implements BlobStore {
  readonly maxBytes: number;
  private readonly uploads = new Map<string, Upload>();

  private constructor(
    private readonly os: ObjectStore,
    options: NatsBlobStoreOptions,
  ) {
    this.maxBytes = options.maxBytes;
  }

  /** Opens (or makes) the bucket. */
  static async open(nc: NatsConnection, options: NatsBlobStoreOptions): Promise<NatsBlobStore> {
    const js: JetStreamClient = nc.jetstream({ timeout: options.timeoutMs ?? 5_000 });
    const os = await js.views.os(options.bucket ?? blobBucketName, { replicas: options.replicas ?? 1 });
    return new NatsBlobStore(os, options);
  }

  begin(size: number, digest: string): Promise<string> {
    return settled(() => this.beginNow(size, digest));
  }

  private beginNow(size: number, digest: string): string {
    checkDeclared(size, digest, this.maxBytes);
    const id = randomUUID();
    let controller: ReadableStreamDefaultController<Uint8Array> | undefined;
    const stream = new ReadableStream<Uint8Array>({
      start: (c) => {
        controller = c;
      },
    });
    if (!controller) throw new Error("ReadableStream did not start");
    const stored = this.os.put({ name: id, metadata: { size: String(size), digest } }, stream);
    // A discarded upload rejects its put; nobody waits for it then.
    stored.catch(() => undefined);
    this.uploads.set(id, {
      assembly: new BlobAssembly(id, size, digest),
      controller,
      stored,
      begunAt: Date.now(),
    });
    return id;
  }

  put(id: string, index: number, bytes: Uint8Array): Promise<void> {
    return settled(() => {
      const upload = this.upload(id);
      // A refused chunk (out of order, past the declared size) changes nothing: the upload waits on.
      upload.assembly.accept(index, bytes);
      upload.controller.enqueue(bytes.slice());
    });
  }

  async complete(id: string): Promise<BlobRef> {
    const upload = this.upload(id);
    let ref: BlobRef;
    try {
      ref = upload.assembly.finish();
    } catch (error) {
      // Bytes missing: the upload waits on. A wrong digest cannot be mended: it is discarded.
      if (error instanceof BlobError && error.failure === "DIGEST") this.discard(id, upload);
      throw error;
    }
    this.uploads.delete(id);
    upload.controller.close();
    await upload.stored;
    return ref;
  }

  async stat(id: string): Promise<BlobRef | null> {
    const info = await this.os.info(id);
    if (!info || info.deleted) return null;
    const digest = info.metadata?.digest;
    if (digest === undefined) return null;
    return { id, size: info.size, digest };
  }

  async *read(id: string, chunkBytes: number): AsyncIterable<Uint8Array> {
    const result = await this.os.get(id);
    if (!result || result.info.deleted) throw new BlobError("NOT_FOUND", "no such blob");
    let pending: Uint8Array = new Uint8Array(0);
    const reader = result.data.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      pending = pending.byteLength === 0 ? value : Buffer.concat([pending, value]);
      while (pending.byteLength >= chunkBytes) {
        yield pending.subarray(0, chunkBytes);
        pending = pending.subarray(chunkBytes);
      }
    }
    const error = await result.error;
    if (error) throw error;
    if (pending.byteLength > 0) yield pending;
  }

  async delete(id: string): Promise<void> {
    const upload = this.uploads.get(id);
    if (upload) {
      this.discard(id, upload);
      return;
    }
    try {
      await this.os.delete(id);
    } catch {
      // Not there (never completed, or deleted already): nothing to delete.
    }
  }

  async hold(id: string, holder: string): Promise<void> {
    const info = await this.os.info(id);
    if (!info || info.deleted) return;
    // Rewriting the meta also dates the hold: the sweep counts the blob's age from it.
    await this.os.update(id, { metadata: { ...info.metadata, holder } });
  }

  /**
   * Every node may sweep the one bucket (a blob deleted twice is deleted). Ages come from the objects'
   * meta times, written by the servers. Uploads a killed node left unfinished never became objects; their
   * chunks stay in the stream until the bucket is purged (not done here).
   */
  async sweep(opts: BlobSweep): Promise<string[]> {
    const before = Date.now() - opts.olderThanMs;
    const swept: string[] = [];
    for (const [id, upload] of [...this.uploads]) {
      if (upload.begunAt > before) continue;
      this.discard(id, upload);
      swept.push(id);
    }
    for (const info of await this.os.list()) {
      if (info.deleted || this.uploads.has(info.name)) continue;
      if (Date.parse(info.mtime) > before) continue;
      const holder = info.metadata?.holder;
      if (holder !== undefined && (await opts.inUse(holder))) continue;
      await this.delete(info.name);
      swept.push(info.name);
    }
    return swept;
  }

  release(id: string): void {
    void this.delete(id);
  }

  close(): Promise<void> {
    for (const [id, upload] of this.uploads) this.discard(id, upload);
    return Promise.resolve();
  }

  private discard(id: string, upload: Upload): void {
    this.uploads.delete(id);
    upload.controller.error(new BlobError("ORDER", "upload discarded"));
  }

  private upload(id: string): Upload {
    const upload = this.uploads.get(id);
    if (!upload) throw new BlobError("NOT_FOUND", "no such upload (finished, discarded or never begun)");
    return upload;
  }
}
