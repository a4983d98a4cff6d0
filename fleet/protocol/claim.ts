import { pack } from "msgpackr";
import { z } from "zod";
import { decodeValue } from "./decode-value.ts";

/** What a claim in the KV bucket `claims` holds: the owning node and its incarnation. */
export const claimSchema = z.object({
  node: z.string().min(1),
  /** Fresh at every start, so two processes with one node id are told apart. */
  incarnation: z.string().min(1),
});

/** A node as it names itself in a claim. */
export type NodeIdentity = z.infer<typeof claimSchema>;

/** Packs a claim value. */
export function encodeClaim(identity: NodeIdentity): Uint8Array {
  return pack({ node: identity.node, incarnation: identity.incarnation });
}

/** Unpacks and validates a claim value; throws CorruptValueError. */
export function decodeClaim(bytes: Uint8Array): NodeIdentity {
  return decodeValue("claim", claimSchema, bytes);
}

/** True when both name the same process (node id and incarnation). */
export function sameIdentity(a: NodeIdentity, b: NodeIdentity): boolean {
  return a.node === b.node && a.incarnation === b.incarnation;
}
