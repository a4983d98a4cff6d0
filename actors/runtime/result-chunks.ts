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
}

/** At most this many sessions share a chunk: what one answer makes the snapshot's codec pack again. */
export const sessionsPerChunk = 8;

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
 */
export class ResultChunks {
  private readonly chunks = new Set<ResultChunk>();
  private last: ResultChunk | undefined;

  /** `session` was answered: it becomes the last session of the last chunk. */
  moveToEnd(session: ChunkedSession): void {
    if (session.chunk !== undefined && session.chunk === this.last) {
      this.last.sessions.delete(session);
    } else {
      this.remove(session);
      if (this.last === undefined || this.last.sessions.size >= sessionsPerChunk) {
        this.last = { sessions: new Set(), listed: undefined };
        this.chunks.add(this.last);
      }
    }
    this.last.sessions.add(session);
    this.last.listed = undefined;
    session.chunk = this.last;
  }

  /** Some of `session`'s results went: its chunk is listed again. */
  changed(session: ChunkedSession): void {
    if (session.chunk !== undefined) session.chunk.listed = undefined;
  }

  /** `session` has no results any more. */
  remove(session: ChunkedSession): void {
    const chunk = session.chunk;
    if (chunk === undefined) return;
    session.chunk = undefined;
    chunk.sessions.delete(session);
    chunk.listed = undefined;
    if (chunk.sessions.size > 0) return;
    this.chunks.delete(chunk);
    if (chunk === this.last) this.last = undefined;
  }

  /** Every result, in the chunks' order; `resultChunksOf` gives the chunks of the list. */
  list(): SnapshotResult[] {
    const parts: (readonly SnapshotResult[])[] = [];
    for (const chunk of this.chunks) {
      chunk.listed ??= Object.freeze(listOf(chunk));
      parts.push(chunk.listed);
    }
    // One native concat: pushing each result costs more than packing the chunks that changed.
    const results = ([] as SnapshotResult[]).concat(...parts);
    chunksOfList.set(results, parts);
    return results;
  }
}

function listOf(chunk: ResultChunk): SnapshotResult[] {
  const results: SnapshotResult[] = [];
  for (const session of chunk.sessions) for (const result of session.byId.values()) results.push(result);
  return results;
}
