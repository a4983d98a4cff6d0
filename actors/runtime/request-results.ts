import type { ErrorCode } from "./error-codes.ts";
import type { SnapshotResult } from "./ports.ts";
import type { AskResult, Effect, RequestId } from "./types.ts";

/**
 * The answers an actor keeps for requests, so a retry (same session, same request id) is answered with
 * the first result and applied once. Kept by time (the SDK's retry deadline plus the failure timeout)
 * and bounded per session, so a busy client cannot make every snapshot write larger.
 */

/** At most this many results are kept per session and actor; the oldest go first. */
export const maxResultsPerSession = 32;

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

/** Drops results older than `retentionMs`; true when any went. */
export function pruneResults(
  results: Map<string, SnapshotResult>,
  now: number,
  retentionMs: number,
): boolean {
  let pruned = false;
  for (const [id, result] of results) {
    if (now - result.at > retentionMs) {
      results.delete(id);
      pruned = true;
    }
  }
  return pruned;
}

/** Keeps at most maxResultsPerSession results of `session` (Map order is insertion order: oldest first). */
export function capSessionResults(results: Map<string, SnapshotResult>, session: string): void {
  if (results.size <= maxResultsPerSession) return;
  const mine: string[] = [];
  for (const [id, result] of results) if (result.session === session) mine.push(id);
  for (const id of mine.slice(0, Math.max(0, mine.length - maxResultsPerSession))) results.delete(id);
}
