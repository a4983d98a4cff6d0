import { z } from "zod";
import { lobbyListingSchema } from "../../actors/common/index.ts";
import type { ListedLobby } from "./query-order.ts";

/**
 * A public lobby's entry in the `listings` bucket, under its code: its listing and the node that wrote
 * it. JSON: small, and readable with `nats kv get listings <CODE>`.
 */

const recordSchema = z.strictObject({
  line: lobbyListingSchema.omit({ type: true }),
  /** The node whose lobby wrote the entry last (docs/lobbies-query.md, "Recovery"). */
  node: z.string().max(64),
});

/** One entry of the listings bucket. */
export type ListingRecord = z.output<typeof recordSchema>;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export function encodeListingRecord(record: ListingRecord): Uint8Array {
  return encoder.encode(JSON.stringify(record));
}

/** The record in `bytes`; null when they are not one (an entry this release cannot read is skipped). */
export function decodeListingRecord(bytes: Uint8Array): ListingRecord | null {
  try {
    const parsed = recordSchema.safeParse(JSON.parse(decoder.decode(bytes)));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** A listing message as a lobby tells it, read into a line; null for anything else. */
export function lineOfListing(message: unknown): ListedLobby | null {
  const parsed = lobbyListingSchema.safeParse(message);
  if (!parsed.success) return null;
  const { type: _type, ...line } = parsed.data;
  return line;
}
