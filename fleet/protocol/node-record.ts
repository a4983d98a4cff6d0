import { pack } from "msgpackr";
import { z } from "zod";
import { decodeValue } from "./decode-value.ts";

/**
 * A node's own limits, as its heartbeat carries them: its `--max-lobbies` and `--max-rooms` (null: none),
 * so placement weighs each peer against its own limit rather than the placing node's.
 */
export const nodeLimitsSchema = z.strictObject({
  maxLobbies: z.number().int().positive().nullable(),
  maxRooms: z.number().int().nonnegative().nullable(),
});

/** A node's limits. */
export type NodeLimits = z.infer<typeof nodeLimitsSchema>;

/**
 * The `limits` field of a node's heartbeat: present only when the node is told to write it (a node of an
 * earlier release refuses a heartbeat with it, so a rolling deploy turns it on after every node is new).
 */
export function heartbeatLimitsOf(settings: {
  readonly heartbeatLimits?: boolean;
  readonly maxLobbies?: number;
  readonly maxRooms?: number;
}): { limits?: NodeLimits } {
  if (settings.heartbeatLimits !== true) return {};
  return { limits: { maxLobbies: settings.maxLobbies ?? null, maxRooms: settings.maxRooms ?? null } };
}

/**
 * A live node's heartbeat in the `nodes` bucket (key = node id), rewritten every heartbeat by CAS. Fields
 * a later release adds are read past (not refused), so a node of this release keeps seeing a newer peer
 * as live during a rolling deploy.
 */
export const heartbeatSchema = z.object({
  incarnation: z.string().min(1),
  /** The public WebSocket URL players are redirected to. */
  url: z.string(),
  region: z.string(),
  /** Live actors on the node: how new lobbies and migrations are spread. */
  load: z.number().int().nonnegative(),
  draining: z.boolean(),
  version: z.string(),
  protocol: z.number().int().positive(),
  /** Its admin API's URL (`foyer drain <node>` finds it here); absent before it listens. */
  admin: z.string().optional(),
  /** Counts this incarnation's heartbeats: tells our own landed write from a peer's tombstone. */
  beat: z.number().int().nonnegative(),
  /** The node's limits; absent in a record of an older release (its peers then assume their own). */
  limits: nodeLimitsSchema.optional(),
  /**
   * The keys its claims hold, by kind (`lobby`, `room`, …): how peers that do not watch the whole claims
   * bucket weigh it for placement. Absent from a record of an older release.
   */
  claims: z.record(z.string(), z.number().int().nonnegative()).optional(),
});

/** Written over a silent node's heartbeat by the peer that declared it dead. */
export const tombstoneSchema = z.strictObject({
  dead: z.literal(true),
  /** The incarnation that was declared dead. */
  incarnation: z.string().min(1),
  /** The node that wrote the tombstone. */
  by: z.string().min(1),
});

export type Heartbeat = z.infer<typeof heartbeatSchema>;
export type Tombstone = z.infer<typeof tombstoneSchema>;
export type NodeRecord = Heartbeat | Tombstone;

const recordSchema = z.union([heartbeatSchema, tombstoneSchema]);

/** Packs a heartbeat or tombstone. */
export function encodeNodeRecord(record: NodeRecord): Uint8Array {
  return pack(record);
}

/** Unpacks and validates a `nodes` value; throws CorruptValueError. */
export function decodeNodeRecord(bytes: Uint8Array): NodeRecord {
  return decodeValue("node record", recordSchema, bytes);
}

/** True for a tombstone. */
export function isTombstone(record: NodeRecord): record is Tombstone {
  return "dead" in record;
}

/** The record in `bytes`, or null when it does not decode: membership reads a corrupt record as none. */
export function decodeNodeRecordOrNull(bytes: Uint8Array): NodeRecord | null {
  try {
    return decodeNodeRecord(bytes);
  } catch {
    return null;
  }
}
