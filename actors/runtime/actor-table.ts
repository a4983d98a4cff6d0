import type { ActorCell, Envelope } from "./actor-cell.ts";
import type { ActorKind } from "./types.ts";

/** A kind made addressable under `<kind.kind>/…`. */
export interface Registration {
  readonly kind: ActorKind<unknown, unknown>;
  /** Keys of this kind that have no snapshot are created on their first message (player, directory). */
  readonly createOnDemand: boolean;
}

/**
 * Where the messages of a key prefix go when they are served outside the actors (the matchmaking filter
 * pool): told, never asked, and never stored.
 */
export interface Endpoint {
  tell(key: string, message: unknown): void;
}

/** The key's claim names another node (or an older incarnation of this one). */
export interface Elsewhere {
  readonly elsewhere: string;
}

/** Why a key could not be brought into memory. */
export type LoadFailure = "missing" | "unavailable" | "corrupt" | Elsewhere;

/** A message waiting while its key is located or loaded; `here` ones are never sent to another node. */
export interface Waiter {
  readonly envelope: Envelope;
  readonly here: boolean;
}

/**
 * What the actor system knows about its keys, shared by its collaborators: the kinds and endpoints it
 * serves, the live cells, the loads in flight and the messages waiting for them.
 */
export class ActorTable {
  readonly kinds = new Map<string, Registration>();
  readonly endpoints = new Map<string, Endpoint>();
  /** Tells to exactly this key are offered here first (ActorSystem.tapTells). */
  readonly taps = new Map<string, (message: unknown) => boolean>();
  readonly cells = new Map<string, ActorCell>();
  readonly loading = new Map<string, Promise<ActorCell | LoadFailure>>();
  readonly waiting = new Map<string, Waiter[]>();
  closed = false;
  /** Bumped by dropAll: a restore that started before it must not bring its actor back. */
  generation = 0;

  /** The kind that serves `key`, by its prefix. */
  registration(key: string): Registration | undefined {
    const slash = key.indexOf("/");
    return slash > 0 ? this.kinds.get(key.slice(0, slash)) : undefined;
  }
}
