import type { ErrorCode } from "./error-codes.ts";
import type { SnapshotResult } from "./ports.ts";
import { ResultChunks, type ApartResults, type ChunkedSession } from "./result-chunks.ts";
import type { AskResult, Effect, RequestId } from "./types.ts";

/**
 * The answers an actor keeps for requests, so a retry (same session, same request id) is answered with
 * the first result and applied once. Kept by time (the SDK's retry deadline plus the failure timeout),
 * bounded per session, so a busy client cannot make every snapshot write larger, and bounded per actor
 * to its most recently answered sessions, so a lobby that many short sessions passed through (each cold
 * join is a new session) does not carry all of them in every snapshot it writes (docs/protocol.md,
 * "Exactly once").
 */

/** At most this many results are kept per session and actor; the oldest go first. */
export const maxResultsPerSession = 32;

/** How long a result is kept by default: the SDK's call deadline (10 s) with a wide margin. */
export const defaultResultRetentionMs = 120_000;

/**
 * At most this many sessions' results are kept per actor by default, the most recently answered ones.
 * A retry loses its stored answer only when this many other sessions were answered by the same actor
 * between its first answer and the retry: a default lobby has 8 members, and the SDK retries for 10 s.
 */
export const defaultResultSessions = 256;

/** What a ResultTable keeps. */
export interface ResultBounds {
  /** Results older than this (ms) are dropped. */
  readonly retentionMs: number;
  /** At most this many sessions' results are kept: those answered most recently. */
  readonly maxSessions: number;
  /** At most this many results of one session are kept: its latest. */
  readonly perSession: number;
}

/** How long the runtime waits before a refused batch is tried again, and the hint it gives callers. */
export const retryLaterMs = 500;

/** The results-table key of a request. */
export function requestKey(request: RequestId): string {
  return `${request.session}#${request.id}`;
}

/** The answer a stored result gives to a retry. */
export function resultToAnswer(result: SnapshotResult): AskResult {
  if (result.ok) return result.value === undefined ? { ok: true } : { ok: true, value: result.value };
  return { ok: false, code: result.code ?? "INTERNAL", message: result.message ?? "" };
}

/** The stored form of an answer. */
export function toResult(request: RequestId, at: number, answer: AskResult): SnapshotResult {
  const base = { session: request.session, id: request.id, at };
  if (answer.ok)
    return answer.value === undefined ? { ...base, ok: true } : { ...base, ok: true, value: answer.value };
  return { ...base, ok: false, code: answer.code, message: answer.message };
}

/** The answer carried by a handler's first reply or reject effect. */
export function answerOf(effects: readonly Effect[]): AskResult | undefined {
  for (const effect of effects) {
    if (effect.type === "reply")
      return effect.value === undefined ? { ok: true } : { ok: true, value: effect.value };
    if (effect.type === "reject") return rejection(effect);
  }
  return undefined;
}

/** The answer of a reject effect. */
export function rejection(effect: Extract<Effect, { type: "reject" }>): AskResult {
  return effect.retryAfterMs === undefined
    ? { ok: false, code: effect.code, message: effect.message }
    : { ok: false, code: effect.code, message: effect.message, retryAfterMs: effect.retryAfterMs };
}

/** A reject effect. */
export function rejectEffect(code: ErrorCode, message: string): Effect {
  return { type: "reject", code, message };
}

/** A retryable refusal with the runtime's retry hint. */
export function unavailable(message: string, retryAfterMs = retryLaterMs): AskResult {
  return { ok: false, code: "UNAVAILABLE", message, retryAfterMs };
}

/** One session's results, oldest first, and when it was last answered. */
interface SessionResults extends ChunkedSession {
  readonly byId: Map<number, SnapshotResult>;
  last: number;
  /** Answered since the last trim (listed in `ResultTable.touched`). */
  touched: boolean;
}

/**
 * An actor's stored answers, indexed by session and kept in the order sessions were last answered
 * (least recent first, each session's results oldest first). A lookup is two map reads; `trim` costs
 * what it drops plus the sessions answered since the last trim, never a scan of the whole table.
 *
 * The order is the order of the answers' times, so it needs no field of its own in the snapshot: `list`
 * writes it and adding the results again in that order rebuilds it. A snapshot of the old code lists
 * results in the order they were answered, which rebuilds it too.
 *
 * The sessions are also kept in chunks (`ResultChunks`), so that a snapshot write packs again only the
 * chunks an answer changed, not the whole table.
 */
export class ResultTable {
  /** Made on the first answer: most actors (a player's entry, a directory) never keep one. */
  private sessions: Map<string, SessionResults> | undefined;
  /** Sessions answered since the last trim: only their own bounds may be exceeded. */
  private touched: string[] = [];
  private count = 0;
  /** Made with `sessions`: a table that never keeps an answer holds no chunks (a seated player's entry). */
  private chunks: ResultChunks | undefined;

  constructor(private readonly bounds: ResultBounds) {}

  /** Number of results kept. */
  get size(): number {
    return this.count;
  }

  /** Number of sessions with results kept. */
  get sessionCount(): number {
    return this.sessions?.size ?? 0;
  }

  /** The stored answer of a request, if any. */
  get(request: RequestId): SnapshotResult | undefined {
    return this.sessions?.get(request.session)?.byId.get(request.id);
  }

  /** Keeps an answer; its session becomes the most recently answered one. Bounds are applied by `trim`. */
  add(result: SnapshotResult): void {
    this.sessions ??= new Map();
    this.chunks ??= new ResultChunks();
    let entry = this.sessions.get(result.session);
    if (entry === undefined) entry = { byId: new Map(), last: result.at, touched: false, chunk: undefined };
    else this.sessions.delete(result.session);
    this.chunks.moveToEnd(entry);
    this.sessions.set(result.session, entry);
    if (entry.byId.delete(result.id)) this.count--;
    entry.byId.set(result.id, result);
    this.count++;
    entry.last = Math.max(entry.last, result.at);
    if (!entry.touched) {
      entry.touched = true;
      this.touched.push(result.session);
    }
  }

  /**
   * Drops what the bounds no longer keep: the oldest results of a session answered since the last trim
   * past `perSession` or `retentionMs`, then whole sessions from the least recently answered while there
   * are more than `maxSessions` or while its latest answer is older than `retentionMs`. A session
   * answered again drops its expired results then; until then they may outlive `retentionMs` (harmless:
   * ids are unique within a session). Returns what went, for `undo`.
   */
  trim(now: number): SnapshotResult[] {
    const dropped: SnapshotResult[] = [];
    const sessions = this.sessions;
    if (sessions === undefined) return dropped;
    const oldest = now - this.bounds.retentionMs;
    for (const session of this.touched) {
      const entry = sessions.get(session);
      if (entry === undefined) continue;
      entry.touched = false;
      const before = dropped.length;
      for (const [id, result] of entry.byId) {
        if (entry.byId.size <= this.bounds.perSession && result.at >= oldest) break;
        entry.byId.delete(id);
        this.count--;
        dropped.push(result);
      }
      if (dropped.length > before) this.changedOrGone(session, entry);
    }
    if (this.touched.length > 0) this.touched = [];
    for (const [session, entry] of sessions) {
      if (sessions.size <= this.bounds.maxSessions && entry.last >= oldest) break;
      sessions.delete(session);
      this.chunks?.remove(entry);
      this.count -= entry.byId.size;
      for (const result of entry.byId.values()) dropped.push(result);
    }
    return dropped;
  }

  /**
   * Drops the results of `session` with ids up to `through`: its client said it will never send them
   * again. Returns what went, for `undo`.
   */
  acknowledge(session: string, through: number): SnapshotResult[] {
    const dropped: SnapshotResult[] = [];
    const entry = this.sessions?.get(session);
    if (entry === undefined) return dropped;
    for (const [id, result] of entry.byId) {
      if (id > through) continue;
      entry.byId.delete(id);
      this.count--;
      dropped.push(result);
    }
    if (dropped.length > 0) this.changedOrGone(session, entry);
    return dropped;
  }

  /** Some of `entry`'s results went: it goes too when none is left (its settled record is released). */
  private changedOrGone(session: string, entry: SessionResults): void {
    this.chunks?.changed(entry);
    if (entry.byId.size > 0) return;
    this.sessions?.delete(session);
    this.chunks?.remove(entry);
  }

  /**
   * Takes back a batch whose write failed: the results it added go, the ones its trim dropped come back,
   * each session again in its place (by its latest answer). Rare, so it rebuilds the table, which then
   * keeps every answer in the snapshot until the next write settles them again.
   */
  undo(added: readonly RequestId[], dropped: readonly SnapshotResult[]): void {
    if (added.length === 0 && dropped.length === 0) return;
    const gone = new Set(added.map(requestKey));
    const kept = [...dropped, ...(this.chunks?.listAll() ?? [])]
      .filter((result) => !gone.has(requestKey(result)))
      .sort((a, b) => a.at - b.at);
    const released = [...(this.chunks?.apartIds() ?? []), ...(this.chunks?.takeReleased() ?? [])];
    this.sessions = undefined;
    this.chunks = undefined;
    this.touched = [];
    this.count = 0;
    for (const result of kept) this.add(result);
    if (released.length > 0) this.chunks ??= new ResultChunks();
    this.chunks?.returnReleased(released);
  }

  /**
   * Adds the answers of a record stored apart, as a restore reads it: they form a settled chunk of their
   * own (named by the snapshot already, so not written again). Bounds are applied by `trim`.
   */
  restoreApart(record: ApartResults): void {
    this.chunks ??= new ResultChunks();
    this.chunks.restoreApart(record, (result) => {
      this.add(result);
    });
  }

  /**
   * Settles the chunks older than the newest few: returns their answers, each under an id from `newId`,
   * for the caller to write apart before the snapshot that leaves them out (see ResultChunks).
   */
  settle(newId: () => string): ApartResults[] {
    return this.chunks?.settle(newId) ?? [];
  }

  /** The settled records `ids` could not be written: their answers stay in the snapshot. */
  unsettle(ids: readonly string[]): void {
    this.chunks?.unsettle(ids);
  }

  /** The ids of the records of answers stored apart, which the snapshot names. */
  apartIds(): string[] {
    return this.chunks?.apartIds() ?? [];
  }

  /** Records no longer named, to delete once a snapshot without them is written (see `returnReleased`). */
  takeReleased(): readonly string[] {
    return this.chunks?.takeReleased() ?? [];
  }

  /** Records from `takeReleased` that must stay: the snapshot that no longer names them was not written. */
  returnReleased(ids: readonly string[]): void {
    if (ids.length === 0) return;
    this.chunks ??= new ResultChunks();
    this.chunks.returnReleased(ids);
  }

  /**
   * Every result kept in the snapshot (not stored apart), least recently answered session first, each
   * session's results oldest first; the snapshot's list, whose unchanged chunks the codec does not pack
   * again (`resultChunksOf`).
   */
  list(): SnapshotResult[] {
    return this.chunks === undefined ? [] : this.chunks.list();
  }
}
