import { randomUUID } from "node:crypto";
import { BlobError, type BlobRef, type BlobStore, type BlobSweep } from "../../actors/runtime/index.ts";
import { BlobAssembly, checkDeclared, chunksOf, settled } from "../blob-upload.ts";

interface Upload {
  readonly assembly: BlobAssembly;
  readonly chunks: Uint8Array[];
  readonly begunAt: number;
}

interface Blob {
  readonly ref: BlobRef;
  readonly bytes: Uint8Array;
  /** When it was completed, or last given a holder. */
  at: number;
  holder: string | null;
}

/** The embedded node's BlobStore: blobs in this process's memory, gone when it stops. */
export class MemoryBlobStore implements BlobStore {
  private readonly uploads = new Map<string, Upload>();
  private readonly blobs = new Map<string, Blob>();

  /** `now` (wall-clock ms) dates completions and holds, for `sweep`. */
  constructor(
    readonly maxBytes: number,
    private readonly now: () => number = Date.now,
  ) {}

  begin(size: number, digest: string): Promise<string> {
    return settled(() => {
      checkDeclared(size, digest, this.maxBytes);
      const id = randomUUID();
      this.uploads.set(id, { assembly: new BlobAssembly(id, size, digest), chunks: [], begunAt: this.now() });
      return id;
    });
  }

  put(id: string, index: number, bytes: Uint8Array): Promise<void> {
    return settled(() => {
      const upload = this.upload(id);
      // A refused chunk (out of order, past the declared size) changes nothing: the upload waits on.
      upload.assembly.accept(index, bytes);
      upload.chunks.push(bytes.slice());
    });
  }

  complete(id: string): Promise<BlobRef> {
    return settled(() => this.completeNow(id));
  }

  private completeNow(id: string): BlobRef {
    const upload = this.upload(id);
    let ref: BlobRef;
    try {
      ref = upload.assembly.finish();
    } catch (error) {
      // Bytes missing: the upload waits on. A wrong digest cannot be mended: it is discarded.
      if (error instanceof BlobError && error.failure === "DIGEST") this.uploads.delete(id);
      throw error;
    }
    this.uploads.delete(id);
    this.blobs.set(id, { ref, bytes: Buffer.concat(upload.chunks), at: this.now(), holder: null });
    return ref;
  }

  stat(id: string): Promise<BlobRef | null> {
    return Promise.resolve(this.blobs.get(id)?.ref ?? null);
  }

  async *read(id: string, chunkBytes: number): AsyncIterable<Uint8Array> {
    const blob = this.blobs.get(id);
    if (!blob) throw new BlobError("NOT_FOUND", "no such blob");
    await Promise.resolve();
    yield* chunksOf(blob.bytes, chunkBytes);
  }

  delete(id: string): Promise<void> {
    this.uploads.delete(id);
    this.blobs.delete(id);
    return Promise.resolve();
  }

  hold(id: string, holder: string): Promise<void> {
    const blob = this.blobs.get(id);
    if (blob) {
      blob.holder = holder;
      blob.at = this.now();
    }
    return Promise.resolve();
  }

  async sweep(opts: BlobSweep): Promise<string[]> {
    const before = this.now() - opts.olderThanMs;
    const swept: string[] = [];
    for (const [id, upload] of [...this.uploads]) {
      if (upload.begunAt > before) continue;
      this.uploads.delete(id);
      swept.push(id);
    }
    for (const [id, blob] of [...this.blobs]) {
      if (blob.at > before) continue;
      if (blob.holder !== null && (await opts.inUse(blob.holder))) continue;
      // Held meanwhile (a hold during the await) or deleted already: leave it.
      if (this.blobs.get(id) !== blob || blob.at > before) continue;
      this.blobs.delete(id);
      swept.push(id);
    }
    return swept;
  }

  release(id: string): void {
    void this.delete(id);
  }

  /** How many blobs and unfinished uploads it holds (tests). */
  get count(): number {
    return this.blobs.size + this.uploads.size;
  }

  close(): Promise<void> {
    this.uploads.clear();
    this.blobs.clear();
    return Promise.resolve();
  }

  private upload(id: string): Upload {
    const upload = this.uploads.get(id);
    if (!upload) throw new BlobError("NOT_FOUND", "no such upload (finished, discarded or never begun)");
    return upload;
  }
}
