import { flushMessage, type ActorCell, type BatchBookkeeping, type Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import type { Outcome } from "./batch-outcome.ts";
import { answerOf, rejectEffect, resultToAnswer, toResult } from "./request-results.ts";
import type { ActorContext, AskResult, Effect, Transition } from "./types.ts";

/** A batch folded through its actor's handler: the new state, one outcome per envelope handled. */
export interface FoldedBatch {
  readonly state: unknown;
  readonly outcomes: Outcome[];
  readonly bookkeeping: BatchBookkeeping;
}

/** Folds a batch of envelopes through the handler, one at a time, before anything is written. */
export class BatchFolder {
  constructor(
    private readonly options: ActorSystemOptions,
    private readonly context: (key: string, now: number) => ActorContext,
  ) {}

  /** Handles the batch in order; envelopes after a stop go back to the mailbox (and out of `batch`). */
  fold(cell: ActorCell, batch: Envelope[], now: number): FoldedBatch {
    const bookkeeping: BatchBookkeeping = {
      fired: new Map(),
      touched: new Set(),
      added: [],
      dropped: [],
      acknowledged: [],
    };
    const outcomes: Outcome[] = [];
    let state = cell.state;
    for (const [i, envelope] of batch.entries()) {
      const handled = this.handleOne(cell, state, envelope, now, bookkeeping);
      outcomes.push(handled.outcome);
      state = handled.state;
      // The actor ends here (its last member left): what came after in the batch is not for it. It goes
      // back to the mailbox, which `forget` re-routes once the stop is written — to no actor (NOT_FOUND)
      // or one created afresh. Found by `foyer chaos` (seed 2030): a join batched behind the last leave
      // was acknowledged into a lobby that was then deleted, and heard with no host.
      if (i + 1 < batch.length && handled.outcome.effects.some((e) => e.type === "stop")) {
        cell.mailbox.unshift(...batch.splice(i + 1));
        break;
      }
    }
    return { state, outcomes, bookkeeping };
  }

  private handleOne(
    cell: ActorCell,
    state: unknown,
    envelope: Envelope,
    now: number,
    bookkeeping: BatchBookkeeping,
  ): { state: unknown; outcome: Outcome } {
    const unchanged = (
      effects: readonly Effect[],
      cached?: AskResult,
    ): { state: unknown; outcome: Outcome } => ({
      state,
      outcome: cached ? { envelope, effects, cached, volatile: true } : { envelope, effects, volatile: true },
    });
    if (envelope.message === flushMessage)
      return { state, outcome: { envelope, effects: [], volatile: false, flush: true } };
    if (envelope.request) {
      const through = envelope.request.answeredThrough;
      if (through !== undefined && through < envelope.request.id)
        bookkeeping.acknowledged.push(...cell.results.acknowledge(envelope.request.session, through));
      const earlier = cell.results.get(envelope.request);
      if (earlier) return unchanged([], resultToAnswer(earlier));
    }
    const message = cell.kind.parse(envelope.message);
    if (message === undefined) return unchanged([rejectEffect("INVALID", "not a message this actor takes")]);
    if (isTimerMessage(message)) {
      // Only the runtime fires timers, and only the one still armed under that name counts. It is
      // forgotten once the batch is written, so a failed write leaves it armed for the retry. One that
      // an earlier message of this batch cancelled or re-armed is no longer the armed one either: a
      // member back in the same batch as its grace's firing keeps its seat.
      if (
        !envelope.timer ||
        cell.timers.get(message.name) !== envelope.timer ||
        bookkeeping.touched.has(message.name)
      )
        return unchanged([]);
      bookkeeping.fired.set(message.name, envelope.timer);
    }
    let transition: Transition<unknown>;
    try {
      transition = cell.kind.handle(state, message, this.context(cell.key, now));
    } catch (error) {
      this.options.events?.handlerFailed?.(cell.key, error);
      return unchanged([rejectEffect("INTERNAL", "the handler failed")]);
    }
    for (const effect of transition.effects)
      if (effect.type === "timer" || effect.type === "cancelTimer") bookkeeping.touched.add(effect.name);
    const answer = answerOf(transition.effects);
    if (envelope.request && answer && transition.state !== state) {
      cell.results.add(toResult(envelope.request, now, answer));
      bookkeeping.added.push(envelope.request);
    }
    return {
      state: transition.state,
      outcome: { envelope, effects: transition.effects, volatile: transition.volatile === true },
    };
  }
}

function isTimerMessage(message: unknown): message is { type: "timer"; name: string } {
  return (message as { type?: unknown }).type === "timer";
}
