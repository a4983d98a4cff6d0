import { z } from "zod";
import { answeredThroughSchema, requestIdSchema } from "./request-id.ts";

/**
 * The schema of a request frame: its `type`, the request's `id` and `ack`, then the request's own
 * fields, strict (an unknown field is refused). Every request of the wire starts the same way.
 */
export function requestFrame<T extends string, S extends z.ZodRawShape>(type: T, fields: S) {
  return z.strictObject({
    type: z.literal(type),
    id: requestIdSchema,
    ack: answeredThroughSchema,
    ...fields,
  });
}
