import { createHash, type Hash } from "node:crypto";
import { BlobError, type BlobRef } from "../actors/runtime/index.ts";

/** A SHA-256 digest as blobs carry it: 64 lowercase hex characters. */
export const blobDigestPattern = /^[0-9a-f]{64}$/;

/** The SHA-256 of `bytes`, lowercase hex. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Checks a declared upload before anything is stored: size within 1..maxBytes, a well-formed digest. */
export function checkDeclared(size: number, digest: string, maxBytes: number): void {
  if (!Number.isSafeInteger(size) || size < 1) throw new BlobError("ORDER", "a blob has at least one byte");
  if (size > maxBytes) throw new BlobError("TOO_LARGE", `a blob is at most ${String(maxBytes)} bytes`);
  if (!blobDigestPattern.test(digest))
    throw new BlobError("DIGEST", "a digest is 64 lowercase hex characters");
}

/**
 * One upload's bookkeeping, the same for every store: chunks in order (0, 1, 2, …), never more bytes
 * than declared, and at the end the declared size and SHA-256. It holds no bytes: the store does.
 */
export class BlobAssembly {
  private nextIndex = 0;
  private received = 0;
  private readonly hash: Hash = createHash("sha256");

  constructor(
    readonly id: string,
    readonly size: number,
    readonly digest: string,
  ) {}

  /** Bytes received so far. */
  get bytes(): number {
    return this.received;
  }

  /** Checks and counts chunk `index`; throws `ORDER` (out of order or empty) or `TOO_LARGE` (past the declared size). */
  accept(index: number, chunk: Uint8Array): void {
    if (index !== this.nextIndex) {
      throw new BlobError(
        "ORDER",
        `chunk ${String(index)} arrived where chunk ${String(this.nextIndex)} was due`,
      );
    }
    if (chunk.byteLength === 0) throw new BlobError("ORDER", "a chunk has at least one byte");
    if (this.received + chunk.byteLength > this.size) {
      throw new BlobError("TOO_LARGE", `the chunks exceed the declared ${String(this.size)} bytes`);
    }
    this.hash.update(chunk);
    this.received += chunk.byteLength;
    this.nextIndex++;
  }

  /** Checks the whole upload: every declared byte arrived and the SHA-256 matches. Call once. */
  finish(): BlobRef {
    if (this.received !== this.size) {
      throw new BlobError("ORDER", `${String(this.received)} of ${String(this.size)} bytes arrived`);
    }
    const actual = this.hash.digest("hex");
    if (actual !== this.digest)
      throw new BlobError("DIGEST", "the blob's SHA-256 is not the declared digest");
    return { id: this.id, size: this.size, digest: this.digest };
  }
}

/** Splits `bytes` into chunks of at most `chunkBytes` (views, not copies). */
export function* chunksOf(bytes: Uint8Array, chunkBytes: number): Generator<Uint8Array> {
  if (chunkBytes < 1) throw new RangeError("chunkBytes must be positive");
  for (let at = 0; at < bytes.byteLength; at += chunkBytes) {
    yield bytes.subarray(at, Math.min(at + chunkBytes, bytes.byteLength));
  }
}

/**
 * Runs a store operation's synchronous checks so a refusal rejects the returned promise (never throws
 * at the call): callers of a BlobStore only handle rejections.
 */
export function settled<T>(operation: () => T): Promise<T> {
  try {
    return Promise.resolve(operation());
  } catch (error) {
    return Promise.reject(error instanceof Error ? error : new Error(String(error)));
  }
}
