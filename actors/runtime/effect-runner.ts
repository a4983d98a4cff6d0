import type { Envelope } from "./actor-cell.ts";
import type { ActorSystemOptions } from "./actor-system-options.ts";
import { spawnOf, type Outcome } from "./batch-outcome.ts";
import type { SnapshotSpawn } from "./ports.ts";
import { rejection, unavailable } from "./request-results.ts";
import type { AskResult, EventStamp, StudioEventName } from "./types.ts";

/** What the effect runner hands back to the system: messages to deliver and spawns to make. */
export interface EffectHost {
  deliver(key: string, envelope: Envelope): void;
  /**
   * Creates the actor of a spawn effect (on its `node` when it names another node). Resolves true once
   * it is stored (after telling `from` `spawned` when the spawn asks for it); false when it could not be
   * created, after telling `from` `spawnFailed`.
   */
  spawnFromEffect(spawn: SnapshotSpawn, from: string): Promise<boolean>;
}

/** What a node that may no longer speak for a key does not do for a batch it wrote (see runSilenced). */
const silencedEffects: ReadonlySet<string> = new Set(["push", "reply", "reject"]);

/** Carries out the effects of written changes, in order, and answers their askers. */
export class EffectRunner {
  constructor(
    private readonly options: ActorSystemOptions,
    private readonly host: EffectHost,
  ) {}

  /**
   * A batch written by a node that may no longer speak for its key: nothing goes to players (no push,
   * and every ask is answered UNAVAILABLE — retried, it is answered from the stored result by the key's
   * owner), but what the written change causes elsewhere (tells, spawns, studio events) still happens,
   * once: the new owner restores the written state and will not cause it again.
   */
  runSilenced(from: string, outcomes: readonly Outcome[], why: string): void {
    for (const outcome of outcomes) {
      outcome.envelope.resolve?.(unavailable(why));
      const { resolve: _answered, ...envelope } = outcome.envelope;
      const effects = outcome.effects.filter((e) => !silencedEffects.has(e.type));
      this.runEffects(from, { envelope, effects, volatile: outcome.volatile });
    }
  }

  /** Carries out one outcome's effects in order and answers its asker (once). */
  runEffects(from: string, outcome: Outcome): void {
    let answered = false;
    const answer = (result: AskResult): void => {
      if (answered) return;
      answered = true;
      outcome.envelope.resolve?.(result);
    };
    if (outcome.cached) answer(outcome.cached);
    for (const effect of outcome.effects) {
      switch (effect.type) {
        case "push":
          this.options.outbox.push(effect.to, effect.frame as never);
          break;
        case "reply":
          answer(effect.value === undefined ? { ok: true } : { ok: true, value: effect.value });
          break;
        case "reject":
          answer(rejection(effect));
          break;
        case "tell":
          this.host.deliver(effect.to, { message: effect.message });
          break;
        case "spawn":
          void this.host.spawnFromEffect(spawnOf(effect), from);
          break;
        case "releaseBlob":
          this.options.blobs?.release(effect.id);
          break;
        case "event":
          if (effect.stamp) this.publish(effect.name, effect.data, effect.stamp);
          break;
        case "timer":
        case "cancelTimer":
        case "stop":
          break;
      }
    }
    answer({ ok: true });
  }

  /** Hands an event to the publisher; a publisher that throws loses that event, nothing else. */
  private publish(name: StudioEventName, data: Readonly<Record<string, unknown>>, stamp: EventStamp): void {
    try {
      this.options.publisher?.publish({ ...stamp, name, data });
    } catch (error) {
      this.options.events?.publishFailed?.(stamp.key, error);
    }
  }
}
