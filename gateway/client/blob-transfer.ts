/**
 * The SDK's side of room documents (docs/rooms.md "Large blobs"): chunking an upload to fit the frame
 * limit, and assembling a download's `blobData` frames, in order, into the bytes the digest names.
 * Browser-safe: SHA-256 through WebCrypto.
 */

/** Bytes a blobChunk frame spends besides its data (type, ids, index, msgpack or JSON framing), rounded up. */
export const blobChunkOverheadBytes = 256;

/** The most data bytes one `blobChunk` frame carries under `maxFrameBytes` (base64 on JSON costs 4/3). */
export function uploadChunkBytes(maxFrameBytes: number, json: boolean): number {
  const room = maxFrameBytes - blobChunkOverheadBytes;
  const bytes = json ? Math.floor(room / 4) * 3 : room;
  if (bytes < 1) throw new RangeError(`maxFrameBytes ${String(maxFrameBytes)} leaves no room for data`);
  return bytes;
}

/** The SHA-256 of `bytes`, lowercase hex. */
export async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const digest = await globalThis.crypto.subtle.digest("SHA-256", bytes as Uint8Array<ArrayBuffer>);
  return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, "0")).join("");
}

/** One `blobData` frame, as far as assembly cares. */
export interface BlobChunkView {
  readonly blob: string;
  readonly index: number;
  readonly count: number;
  readonly size: number;
  readonly digest: string;
  readonly data: Uint8Array | string;
}

/** What adding a chunk did: waiting for more, complete (the bytes, to be verified), or refused. */
export type AssemblyStep =
  | { readonly status: "more" }
  | { readonly status: "complete"; readonly bytes: Uint8Array }
  | { readonly status: "refused"; readonly reason: string };

/**
 * Assembles one document's chunks: in order from 0, each once (a repeat is ignored), never past the
 * declared size; complete when `count` chunks holding exactly `size` bytes arrived.
 */
export class BlobAssembler {
  private readonly bytes: Uint8Array;
  private received = 0;
  private next = 0;

  constructor(
    readonly blob: string,
    readonly size: number,
    readonly count: number,
    readonly digest: string,
  ) {
    this.bytes = new Uint8Array(size);
  }

  /** The next chunk index expected (a resumed download asks `getRoomBlob { from }` with it). */
  get nextIndex(): number {
    return this.next;
  }

  add(chunk: BlobChunkView): AssemblyStep {
    if (chunk.blob !== this.blob || chunk.size !== this.size || chunk.digest !== this.digest) {
      return { status: "refused", reason: "a chunk of another document" };
    }
    if (chunk.index < this.next) return { status: "more" };
    if (chunk.index > this.next) {
      return { status: "refused", reason: `chunk ${String(chunk.index)} before ${String(this.next)}` };
    }
    const data =
      typeof chunk.data === "string" ? Uint8Array.from(atob(chunk.data), (c) => c.charCodeAt(0)) : chunk.data;
    if (this.received + data.byteLength > this.size)
      return { status: "refused", reason: "more bytes than declared" };
    this.bytes.set(data, this.received);
    this.received += data.byteLength;
    this.next++;
    if (this.next < this.count) return { status: "more" };
    if (this.received !== this.size) return { status: "refused", reason: "fewer bytes than declared" };
    return { status: "complete", bytes: this.bytes };
  }
}
