import { pack } from "msgpackr";
import { z } from "zod";
import {
  errorCodeList,
  resultChunksOf,
  type Snapshot,
  type SnapshotResult,
} from "../../actors/runtime/index.ts";
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

const spawnSchema = z.object({
  key: z.string().min(1),
  init: z.unknown(),
  node: z.string().min(1).exactOptional(),
  confirm: z.literal(true).exactOptional(),
  reask: z.literal(true).exactOptional(),
});

/** A record id of answers stored apart: it ends a KV key (see `apartKvKey`). */
const apartIdPattern = /^[-\w]{1,64}$/;

/** The schema of a stored snapshot: exactly the runtime's `Snapshot` (actors/runtime/ports.ts). */
export const snapshotSchema = z.object({
  // 2 names answers stored apart (`apart`): the previous release reads only 1, and refuses a 2 (a
  // corrupt value) instead of restoring the lobby without them.
  format: z.union([z.literal(1), z.literal(2)]),
  kind: z.string().min(1),
  schemaVersion: z.number().int().nonnegative(),
  key: z.string().min(1),
  epoch: z.number().int().nonnegative(),
  seq: z.number().int().nonnegative(),
  writeId: z.string().min(1),
  state: z.unknown(),
  timers: z.array(timerSchema).readonly(),
  results: z.array(resultSchema).readonly(),
  apart: z.array(z.string().regex(apartIdPattern)).readonly().exactOptional(),
  spawning: z.array(spawnSchema).readonly().exactOptional(),
});

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Assert<T extends true> = T;
// Fails to compile when ports.ts and the schema drift apart, in either direction.
type _SchemaIsSnapshot = Assert<Same<z.infer<typeof snapshotSchema>, Snapshot>>;

/**
 * The packed bytes of each result of a large table, by the result object: the runtime never changes a
 * result once stored, and keeps the same object in every snapshot it writes until the result goes
 * (actors/runtime/request-results.ts), so each is packed once instead of on every write.
 */
const packedResults = new WeakMap<SnapshotResult, Uint8Array>();

/**
 * The packed bytes of each chunk of a table's results (`resultChunksOf`), by the chunk: a chunk is a frozen
 * list that stays the same object until one of its sessions is answered or trimmed, so a write packs only
 * the chunks that changed since the last and copies the others' bytes.
 */
const packedChunks = new WeakMap<readonly SnapshotResult[], Uint8Array>();

/**
 * From this many results on, a list the runtime's table did not make (a restore's, a test's) reuses their
 * packed bytes too (below it, packing is cheap).
 */
export const reusePackedResultsFrom = 64;

/** `results`, packed as a map key. */
const resultsKey = Uint8Array.from(pack("results"));

/**
 * Packs a snapshot for the KV store. A snapshot whose results the runtime's table listed (or that has
 * many) is packed without them, and their bytes, packed once each (and once per chunk of the runtime's table,
 * so an op copies the bytes of the chunks it did not change), are appended as its `results` field: the
 * same msgpack map any release decodes, at a fraction of the cost of packing every answer again on every
 * write (docs/design.md, "Request results live in the snapshot").
 */
export function encodeSnapshot(snapshot: Snapshot): Uint8Array {
  const chunks = resultChunksOf(snapshot.results);
  // A list the runtime's table made reuses its chunks' bytes at any length: its results stay the same
  // objects from write to write, so packing them again costs more than copying their bytes.
  if (
    snapshot.results.length === 0 ||
    (chunks === undefined && snapshot.results.length < reusePackedResultsFrom)
  )
    return pack(snapshot);
  const results = chunks === undefined ? snapshot.results.map(packedResult) : chunks.map(packedChunk);
  const { results: _results, ...rest } = snapshot;
  const head = pack(rest);
  // msgpackr writes a plain object as a map16 (0xde, then its entry count): one more entry follows.
  if (head[0] !== 0xde) return pack(snapshot);
  const count = ((head[1] ?? 0) << 8) + (head[2] ?? 0) + 1;
  const header = arrayHeader(snapshot.results.length);
  let size = head.length + resultsKey.length + header.length;
  for (const bytes of results) size += bytes.length;
  const out = new Uint8Array(size);
  out.set(head, 0);
  out[1] = count >> 8;
  out[2] = count & 0xff;
  let at = head.length;
  for (const part of [resultsKey, header, ...results]) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A result's packed bytes: a copy, so it does not hold on to msgpackr's shared buffer. */
function packedResult(result: SnapshotResult): Uint8Array {
  let bytes = packedResults.get(result);
  if (bytes === undefined) {
    bytes = Uint8Array.from(pack(result));
    packedResults.set(result, bytes);
  }
  return bytes;
}

/** A chunk's packed results, one after the other (no array header: the snapshot's list has one). */
function packedChunk(chunk: readonly SnapshotResult[]): Uint8Array {
  let bytes = packedChunks.get(chunk);
  if (bytes === undefined) {
    bytes = concat(chunk.map(packedResult));
    packedChunks.set(chunk, bytes);
  }
  return bytes;
}

/** The parts, one after the other, in a new array. */
function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const part of parts) size += part.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    out.set(part, at);
    at += part.length;
  }
  return out;
}

/** A msgpack array header. */
function arrayHeader(length: number): Uint8Array {
  if (length < 0x10) return Uint8Array.of(0x90 | length);
  if (length < 0x10000) return Uint8Array.of(0xdc, length >> 8, length & 0xff);
  return Uint8Array.of(0xdd, length >>> 24, (length >> 16) & 0xff, (length >> 8) & 0xff, length & 0xff);
}

/** Unpacks and validates a stored snapshot; throws CorruptValueError. */
export function decodeSnapshot(bytes: Uint8Array): Snapshot {
  return decodeValue("snapshot", snapshotSchema, bytes);
}

/** A record of answers stored apart from a snapshot: the actor's key, the record's id, the answers. */
const apartSchema = z.object({
  key: z.string().min(1),
  id: z.string().regex(apartIdPattern),
  results: z.array(resultSchema).readonly(),
});

/**
 * The KV key of a record of answers stored apart, beside its actor's snapshot: the escaped actor key
 * (which never holds a `.`), then `.answers.` and the id, so no actor key can take it.
 */
export function apartKvKey(escapedKey: string, id: string): string {
  if (!apartIdPattern.test(id)) throw new TypeError(`not a record id: ${JSON.stringify(id)}`);
  return `${escapedKey}.answers.${id}`;
}

/** True for the KV key of a record of answers stored apart (not a snapshot: `decodeApart` reads it). */
export function isApartKvKey(kvKey: string): boolean {
  return kvKey.includes(".answers.");
}

/** Packs a record of answers stored apart. */
export function encodeApart(key: string, id: string, results: readonly SnapshotResult[]): Uint8Array {
  return pack({ key, id, results });
}

/** Unpacks and validates a record of answers stored apart; throws CorruptValueError. */
export function decodeApart(bytes: Uint8Array): z.infer<typeof apartSchema> {
  return decodeValue("answers record", apartSchema, bytes);
}
