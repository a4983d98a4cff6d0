import { z } from "zod";

/**
 * What `GET /status` answers: one node's picture. Not strict, so a `foyer status` of one release reads the
 * status of the next one during a rolling deploy (new fields are ignored).
 */
export const nodeStatusSchema = z.object({
  nodeId: z.string(),
  version: z.string(),
  mode: z.enum(["embedded", "fleet"]),
  /** The WebSocket URL players reach this node at. */
  url: z.string(),
  uptimeSeconds: z.number().nonnegative(),
  lobbies: z.number().int().nonnegative(),
  members: z.number().int().nonnegative(),
  sessions: z.number().int().nonnegative(),
  draining: z.boolean(),
  /** The drain of this node, once one started (`foyer drain` follows it). */
  drain: z
    .object({
      state: z.enum(["running", "done", "deadline"]),
      total: z.number().int().nonnegative(),
      moved: z.number().int().nonnegative(),
      left: z.number().int().nonnegative(),
      waitingForRoom: z.number().int().nonnegative(),
      failed: z.number().int().nonnegative(),
      startedAt: z.number(),
      finishedAt: z.number().nullable(),
    })
    .nullable()
    .optional(),
});

/** One node's status, as `GET /status` answers it. */
export type NodeStatus = z.infer<typeof nodeStatusSchema>;
