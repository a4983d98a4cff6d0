import type { ErrorCode } from "./error-codes.ts";

/**
 * The vocabulary shared by every actor kind and the runtime that drives them.
 * A handler is pure: `(state, message, ctx) → { state, effects }`. It never touches a socket, a timer or
 * the wall clock; the runtime carries the effects out after the handler returns (and after the new state
 * is persisted, so nothing a client hears is ever lost).
 */

/** Deterministic or cryptographic randomness, injected so tests are repeatable. */
export interface Random {
  /** An integer in [0, maxExclusive). */
  int(maxExclusive: number): number;
}

/** A node that can take a new room, with the URL its players connect to. */
export interface RoomHost {
  readonly node: string;
  readonly url: string;
}

/** What the node tells an actor about itself when it handles a message. */
export interface NodeView {
  /** The node can open another room (`maxRooms` not reached). */
  readonly canOpenRoom: boolean;
  /** The node is draining: it opens no new rooms and lobbies move away. */
  readonly draining: boolean;
  /**
   * The least-loaded node that can open a room now, as the node's load view says; undefined when none
   * can. Worked out when read (it weighs every peer's load), not for every message.
   */
  readonly roomHost?: RoomHost | undefined;
}

/** Everything a handler may read besides its state and its message. */
export interface ActorContext {
  /** The actor's key, e.g. `lobby/ABC123`. */
  readonly key: string;
  /** Wall-clock milliseconds, from the injected clock. Game deadlines are absolute in this clock. */
  readonly now: number;
  readonly random: Random;
  readonly node: NodeView;
}

/** A frame for players; the runtime stamps it with the key, its epoch and the next sequence number. */
export interface PushFrame {
  readonly type: string;
  readonly [field: string]: unknown;
}

/**
 * Timers are absolute deadlines. A `game` timer (countdowns, start rules, room end) keeps its deadline
 * across a failover; a `grace` timer (a disconnected member's seat) is stored as remaining time and does
 * not run while the actor is frozen or being restored.
 */
export type TimerKind = "game" | "grace";

/** What a handler asks the runtime to do. Carried out in order, after the state is persisted. */
export type Effect =
  /** Send a frame to players (by player id) wherever their sessions are. */
  | { readonly type: "push"; readonly to: readonly string[]; readonly frame: PushFrame }
  /** Answer the message being handled with success and an optional small value. */
  | { readonly type: "reply"; readonly value?: unknown }
  /** Refuse the message being handled; the state must not have changed. */
  | {
      readonly type: "reject";
      readonly code: ErrorCode;
      readonly message: string;
      readonly retryAfterMs?: number;
    }
  /** Arm (or re-arm) the timer `name`; when it fires the actor receives `{ type: "timer", name }`. */
  | { readonly type: "timer"; readonly name: string; readonly at: number; readonly kind: TimerKind }
  | { readonly type: "cancelTimer"; readonly name: string }
  /** Send a message to another actor, fire and forget. */
  | { readonly type: "tell"; readonly to: string; readonly message: unknown }
  /**
   * Create a new actor of the kind its key names, with an initial argument for the kind's `create`. With
   * `node` (a RoomHost's node) the actor is created there and claimed by that node; without, here. The
   * batch's other effects wait until it is stored (MailboxRunner, "Spawns before what they cause"). With
   * `quietIfFailed`, the frames of the same step are about this actor (a start's transfers): if it could
   * not be created, they are not sent, and the `spawnFailed` that follows says what changed instead.
   * With `confirm`, the creator is told `spawned { key }` once the actor is stored (also when a restore
   * settled it), so a step can ask for a child and say nothing of it until it exists. With `reask` (a
   * confirmed spawn asked again, its first outcome lost in a crash), a key that already has a snapshot
   * counts as this spawn's, as a restore takes it.
   */
  | {
      readonly type: "spawn";
      readonly key: string;
      readonly init: unknown;
      readonly node?: string;
      readonly quietIfFailed?: true;
      readonly confirm?: true;
      readonly reask?: true;
    }
  /** The actor is finished (a lobby whose last member left): its snapshot is deleted. */
  | { readonly type: "stop" }
  /** A blob the actor held (a room's document) is no longer needed: the node's BlobStore deletes it. */
  | { readonly type: "releaseBlob"; readonly id: string }
  /**
   * A fact for the studio's backend (docs/server-api.md "Events"): published by the node's EventPublisher
   * once the change is written. The runtime stamps it; a handler leaves `stamp` out.
   */
  | {
      readonly type: "event";
      readonly name: StudioEventName;
      readonly data: Readonly<Record<string, unknown>>;
      readonly stamp?: EventStamp;
    };

/** The events a studio's services can subscribe to (`foyer.events.<name>`). */
export type StudioEventName =
  "lobby.created" | "lobby.started" | "lobby.ended" | "room.ended" | "player.left";

/** What the runtime adds to an event: whose it is and where it stands in that actor's history. */
export interface EventStamp {
  readonly key: string;
  /** The owner's epoch, as on frames. */
  readonly epoch: number;
  /** The sequence number of the last frame of the change (see ActorCell.eventSeq). */
  readonly seq: number;
  /** The event's place among the events of its change: (key, epoch, seq, index) names one event. */
  readonly index: number;
  /** Wall-clock ms of the change (the runtime's clock). */
  readonly at: number;
}

/** The result of handling one message. */
export interface Transition<S> {
  readonly state: S;
  readonly effects: readonly Effect[];
  /**
   * True when this change need not be written before its effects run: a relay room's turns are
   * acknowledged by being received, not by being persisted. The runtime writes volatile changes within
   * `volatileFlushMs`, or with the next change that is not volatile.
   */
  readonly volatile?: boolean;
}

/** The message the runtime delivers when a timer fires. */
export interface TimerFired {
  readonly type: "timer";
  readonly name: string;
}

/**
 * Delivered to an actor whose `spawn` effect did not create its actor (the key was taken, or the store
 * refused it), so it can undo what it assumed — a lobby goes back to not playing.
 */
export interface SpawnFailed {
  readonly type: "spawnFailed";
  readonly key: string;
}

/** Delivered to an actor whose `spawn` effect with `confirm` created its actor: it is stored. */
export interface Spawned {
  readonly type: "spawned";
  readonly key: string;
}

/**
 * Delivered after an actor is restored on a node that did not run it a moment ago (failover, migration),
 * listing the players whose sessions are on this node. Passivation restores do not send it.
 */
export interface Restored {
  readonly type: "restored";
  readonly reason: "failover" | "migration";
  readonly connected: readonly string[];
}

/**
 * An actor kind: how to create, handle, snapshot and restore one. State must be plain data (objects,
 * arrays, strings, numbers, booleans, null) so it can be written as a snapshot and read by another node.
 */
export interface ActorKind<S, M> {
  /** The key prefix this kind serves, without the slash: `lobby`, `room`, `player`. */
  readonly kind: string;
  /** Bumped whenever the state's shape changes; `upgrade` reads older versions. */
  readonly schemaVersion: number;
  /** The state of a new actor; may return effects (the creator's welcome, first timers). */
  create(init: unknown, ctx: ActorContext): Transition<S>;
  /** Validates a message coming from outside the actor; returns undefined when it is not one of ours. */
  parse(message: unknown): M | TimerFired | Restored | undefined;
  handle(state: S, message: M | TimerFired | Restored, ctx: ActorContext): Transition<S>;
  /** Reads a snapshot's state written by this or an earlier schema version. */
  upgrade(state: unknown, version: number): S;
  /**
   * What of the state a snapshot carries, when not all of it (a room's window of recent turns lives in
   * memory only). The result must still be a state `upgrade` reads. Default: the whole state.
   */
  stored?(state: S): unknown;
  /** True when the actor has nothing to do and may be passivated (dropped from memory, kept in the store). */
  idle(state: S): boolean;
  /**
   * True while the actor must stay on its node for now (a lobby with a running room, a room in play): a
   * drain moves it only once this turns false. Without it an actor may always move.
   */
  pinned?(state: S): boolean;
}

/** Outcome of an ask, as the gateway and other actors see it. */
export type AskResult =
  | { readonly ok: true; readonly value?: unknown }
  | {
      readonly ok: false;
      readonly code: ErrorCode;
      readonly message: string;
      readonly retryAfterMs?: number;
    };

/** A request's identity: its session and the request id the client chose. Used to apply a retry once. */
export interface RequestId {
  readonly session: string;
  readonly id: number;
  /**
   * The client's word that it will never send any id of this session up to this one again (each was
   * answered or given up): the actor drops their stored results (docs/protocol.md, "Exactly once").
   * Lower than `id`; absent when the client says nothing.
   */
  readonly answeredThrough?: number;
}
