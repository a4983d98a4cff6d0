import { z } from "zod";
import { requestFrame } from "./request-frame.ts";

/**
 * Large blobs (docs/rooms.md "Large blobs"): a document of up to `maxBlobBytes` for a room's create or a
 * lobby's start, uploaded in chunks that each fit the frame limit and streamed back to every seat.
 */

/** A blob id as the node hands it out. */
export const blobIdSchema = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/);

/** A SHA-256 digest: 64 lowercase hex characters. */
export const blobDigestSchema = z.string().regex(/^[0-9a-f]{64}$/);

/** Bytes on a msgpack connection, base64 text on a JSON one. */
export const blobBytesSchema = z.union([z.instanceof(Uint8Array), z.string().max(64 << 20)]);

/** Starts an upload of `size` bytes whose SHA-256 is `digest`; answers `{ blob }`, the id to send chunks to. */
export const beginBlobFrame = requestFrame("beginBlob", {
  size: z.number().int().min(1),
  digest: blobDigestSchema,
});

/** Chunk `index` (0, 1, 2, … in order) of an upload; a repeat of a chunk already taken is answered again. */
export const blobChunkFrame = requestFrame("blobChunk", {
  blob: blobIdSchema,
  index: z.number().int().min(0),
  data: blobBytesSchema,
});

/** Completes an upload: size and digest are checked; answers `{ blob, size, digest }`. */
export const finishBlobFrame = requestFrame("finishBlob", {
  blob: blobIdSchema,
});

/** Asks for the document of the player's room: `blobData` frames from chunk `from` (default 0), then the answer. */
export const getRoomBlobFrame = requestFrame("getRoomBlob", {
  from: z.number().int().min(0).optional(),
});

/** The client's blob requests. */
export const blobClientFrames = [beginBlobFrame, blobChunkFrame, finishBlobFrame, getRoomBlobFrame] as const;

/** A blob request. */
export type BlobRequestFrame = z.infer<(typeof blobClientFrames)[number]>;

/** One chunk of a room's document, pushed in order; `digest` lets the SDK check the assembled bytes. */
export const blobDataFrame = z.strictObject({
  type: z.literal("blobData"),
  blob: blobIdSchema,
  index: z.number().int().min(0),
  count: z.number().int().min(1),
  size: z.number().int().min(1),
  digest: blobDigestSchema,
  data: z.union([z.instanceof(Uint8Array), z.string()]),
});
