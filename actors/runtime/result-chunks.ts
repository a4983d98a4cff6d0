import type { SnapshotResult } from "./ports.ts";

/** A session's results as the chunks see it: which chunk holds it, and its results in their order. */
export interface ChunkedSession {
  readonly byId: ReadonlyMap<number, SnapshotResult>;
  chunk: ResultChunk | undefined;
}

/** A run of sessions, consecutive in the table's order, and its results once listed (then unchanged). */
interface ResultChunk {
  readonly sessions: Set<ChunkedSession>;
  listed: readonly SnapshotResult[] | undefined;
  /** The id of the record its answers are stored in apart from the snapshot, once settled. */
  apart: string | undefined;
}

/** At most this many sessions share a chunk: what one answer makes the snapshot's codec pack again. */
export const sessionsPerChunk = 8;

/**
 * The newest chunks stay in the snapshot; older ones are stored apart (`ResultChunks.settle`). Two chunks
 * hold a full lobby (8 members and its host) answering in turn, so an ordinary lobby never stores apart.
 */
export const hotChunks = 2;

/** The answers of one chunk stored apart from the snapshot, under an id of their own. */
export interface ApartResults {
  readonly id: string;
  readonly results: readonly SnapshotResult[];
}

const noIds: readonly string[] = Object.freeze([]);

/** Each list `ResultChunks.list` made, and the chunks it is the concatenation of. */
const chunksOfList = new WeakMap<readonly SnapshotResult[], readonly (readonly SnapshotResult[])[]>();

/**
 * The chunks a snapshot's `results` list is made of, when the runtime's result table listed it: each chunk
 * is a frozen array that stays the same object in every snapshot until one of its sessions changes, so
 * the codec packs it once and appends its bytes to each later write (fleet/protocol/snapshot-codec.ts).
 */
export function resultChunksOf(
  results: readonly SnapshotResult[],
): readonly (readonly SnapshotResult[])[] | undefined {
  return chunksOfList.get(results);
}

/**
 * A result table's sessions cut into chunks of consecutive sessions, in the table's order (least recently
 * answered first). A session answered again moves to the last chunk, so an answer changes two chunks at
 * most (the one it left and the last): the sessions a lobby answered long ago, the bulk of its table,
 * stay in chunks whose packed bytes are reused by every write until they are trimmed.
 *
 * Chunks older than the `hotChunks` newest are settled: their answers are written once under a record
 * of their own (`settle`), and the snapshot names the record instead of carrying them. A settled record
 * may keep answers the table has since moved on from, and a restore reads it the same way:
 * - a session answered again moves to the last chunk with all its answers, so the snapshot's copy wins;
 * - a session dropped whole (retention, the per-actor bound) is the least recently answered, and the
 *   restore's trim drops it again.
 * Only an answer dropped otherwise (an `ack`) would come back, so that settles the chunk again (`changed`).
 */
export class ResultChunks {
  private readonly chunks = new Set<ResultChunk>();
  private last: ResultChunk | undefined;
  /** Records no chunk names any more: deleted once a snapshot without them is written. */
  private released: string[] = [];

  /** `session` was answered: it becomes the last session of the last chunk. */
  moveToEnd(session: ChunkedSession): void {
    let target = this.last;
    if (session.chunk !== undefined && session.chunk === target && target.apart === undefined) {
      target.sessions.delete(session);
    } else {
      this.remove(session);
      target = this.last;
      // A restored table may end in a settled chunk: answers go to a new one.
      if (target === undefined || target.sessions.size >= sessionsPerChunk || target.apart !== undefined) {
        target = { sessions: new Set(), listed: undefined, apart: undefined };
        this.chunks.add(target);
        this.last = target;
      }
    }
    target.sessions.add(session);
    target.listed = undefined;
    session.chunk = target;
  }

  /** Some of `session`'s results went: its chunk is listed again, and kept in the snapshot again. */
  changed(session: ChunkedSession): void {
    const chunk = session.chunk;
    if (chunk === undefined) return;
    chunk.listed = undefined;
    this.release(chunk);
  }

  /** `session` has no results any more (or moved to the last chunk). */
  remove(session: ChunkedSession): void {
    const chunk = session.chunk;
    if (chunk === undefined) return;
    session.chunk = undefined;
    chunk.sessions.delete(session);
    chunk.listed = undefined;
    if (chunk.sessions.size > 0) return;
    this.release(chunk);
    this.chunks.delete(chunk);
    if (chunk === this.last) this.last = undefined;
  }

  /** Every result kept in the snapshot, in the chunks' order; `resultChunksOf` gives the chunks of the list. */
  list(): SnapshotResult[] {
    const parts: (readonly SnapshotResult[])[] = [];
    for (const chunk of this.chunks) if (chunk.apart === undefined) parts.push(listed(chunk));
    // One native concat: pushing each result costs more than packing the chunks that changed.
    const results = ([] as SnapshotResult[]).concat(...parts);
    chunksOfList.set(results, parts);
    return results;
  }

  /** Every result, settled or not, in the chunks' order. */
  listAll(): SnapshotResult[] {
    const parts: (readonly SnapshotResult[])[] = [];
    for (const chunk of this.chunks) parts.push(listed(chunk));
    return ([] as SnapshotResult[]).concat(...parts);
  }

  /** The ids of the settled records the snapshot names, in the chunks' order. */
  apartIds(): string[] {
    const ids: string[] = [];
    for (const chunk of this.chunks) if (chunk.apart !== undefined) ids.push(chunk.apart);
    return ids;
  }

  /**
   * Settles every chunk older than the `hotChunks` newest that is not settled yet, each under an id from
   * `newId`, and returns their answers: the caller writes each record before a snapshot that leaves them
   * out, or calls `unsettle` when it could not.
   */
  settle(newId: () => string): ApartResults[] {
    const settling: ApartResults[] = [];
    let older = this.chunks.size - hotChunks;
    for (const chunk of this.chunks) {
      if (older-- <= 0) break;
      if (chunk.apart !== undefined) continue;
      chunk.apart = newId();
      settling.push({ id: chunk.apart, results: listed(chunk) });
    }
    return settling;
  }

  /** The records `ids` could not be written: their chunks stay in the snapshot. */
  unsettle(ids: readonly string[]): void {
    const gone = new Set(ids);
    for (const chunk of this.chunks)
      if (chunk.apart !== undefined && gone.has(chunk.apart)) this.release(chunk);
  }

  /** A restored record: its sessions make a settled chunk of their own, after those already restored. */
  restoreApart(record: ApartResults, add: (result: SnapshotResult) => void): void {
    this.last = undefined;
    for (const result of record.results) add(result);
    const chunk = this.last as ResultChunk | undefined;
    if (chunk !== undefined) chunk.apart = record.id;
    else this.released.push(record.id);
  }

  /** The records no chunk names any more, handed over to be deleted (see `returnReleased`). */
  takeReleased(): readonly string[] {
    if (this.released.length === 0) return noIds;
    const released = this.released;
    this.released = [];
    return released;
  }

  /** Records handed over by `takeReleased` whose deletion must wait (the snapshot without them failed). */
  returnReleased(ids: readonly string[]): void {
    this.released.push(...ids);
  }

  /** `chunk` is no longer settled: its record is released. */
  private release(chunk: ResultChunk): void {
    if (chunk.apart === undefined) return;
    this.released.push(chunk.apart);
    chunk.apart = undefined;
  }
}

function listed(chunk: ResultChunk): readonly SnapshotResult[] {
  chunk.listed ??= Object.freeze(listOf(chunk));
  return chunk.listed;
}

function listOf(chunk: ResultChunk): SnapshotResult[] {
  const results: SnapshotResult[] = [];
  for (const session of chunk.sessions) for (const result of session.byId.values()) results.push(result);
  return results;
}
