import { pack } from "msgpackr";
import { z } from "zod";
import { errorCodeList, type Snapshot } from "../actors/runtime/index.ts";
import { decodeValue } from "./decode-value.ts";

// exactOptional, not optional: under exactOptionalPropertyTypes the runtime's Snapshot never holds an
// explicit undefined, and the schema's type must be exactly Snapshot (checked below).
const timerSchema = z.object({
  name: z.string(),
  kind: z.enum(["game", "grace"]),
  at: z.number().exactOptional(),
  remainingMs: z.number().exactOptional(),
});

const resultSchema = z.object({
  session: z.string(),
  id: z.number(),
  at: z.number(),
  ok: z.boolean(),
  value: z.unknown().exactOptional(),
  code: z.enum(errorCodeList).exactOptional(),
  message: z.string().exactOptional(),
});

/** The schema of a stored snapshot: exactly the runtime's `Snapshot` (actors/runtime/ports.ts). */
export const snapshotSchema = z.object({
  format: z.literal(1),
  kind: z.string().min(1),
  schemaVersion: z.number().int().nonnegative(),
  key: z.string().min(1),
  epoch: z.number().int().nonnegative(),
  seq: z.number().int().nonnegative(),
  writeId: z.string().min(1),
  state: z.unknown(),
  timers: z.array(timerSchema).readonly(),
  results: z.array(resultSchema).readonly(),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
// Fails to compile when ports.ts and the schema drift apart, in either direction.
type _SchemaIsSnapshot = Assert<Same<z.infer<typeof snapshotSchema>, Snapshot>>;

/** Packs a snapshot for the KV store. */
export function encodeSnapshot(snapshot: Snapshot): Uint8Array {
  return pack(snapshot);
}

/** Unpacks and validates a stored snapshot; throws CorruptValueError. */
export function decodeSnapshot(bytes: Uint8Array): Snapshot {
  return decodeValue("snapshot", snapshotSchema, bytes);
}
