import { z } from "zod";

/** A request id: unique within a session, chosen by the client (the SDK counts up from 1). */
export const requestIdSchema = z
  .number()
  .int()
  .min(0)
  .max(2 ** 53 - 1);

/**
 * A request's `ack`: the client will never send any id of its session up to this one again (each was
 * answered or given up), so the node may forget their results (docs/protocol.md, "Exactly once").
 * Optional: a client that never sends it only makes the node keep results longer.
 */
export const answeredThroughSchema = requestIdSchema.exactOptional();
