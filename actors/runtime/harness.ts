import { ActorSystem, type RuntimeEvents } from "./actor-system.ts";
import { ManualScheduler, settle } from "./manual-scheduler.ts";
import { MemoryActorStore } from "./memory-actor-store.ts";
import type { NodeState, Outbox, StampedFrame, StudioEvent } from "./ports.ts";
import { seededRandom } from "./seeded-random.ts";
import type { ActorKind } from "./types.ts";

/** A frame a player received, as the harness recorded it. */
export interface Delivered {
  readonly player: string;
  readonly frame: StampedFrame;
}

/** A node view the test can change (room capacity, draining, lease). */
export interface MutableNode extends NodeState {
  roomsAvailable: boolean;
  isDraining: boolean;
  leaseFresh: boolean;
}

/** Everything a test needs to drive actors on a fake clock. */
export interface Harness {
  readonly system: ActorSystem;
  readonly clock: ManualScheduler;
  readonly store: MemoryActorStore;
  readonly node: MutableNode;
  /** Every frame pushed so far, in order. */
  readonly delivered: Delivered[];
  /** Every event published so far (docs/server-api.md), in order. */
  readonly published: StudioEvent[];
  /** Frames a player received, in order. */
  framesOf(player: string): StampedFrame[];
  /** The last frame of a type a player received. */
  lastOf(player: string, type: string): StampedFrame | undefined;
  /** Errors the runtime reported (handler failures, persist failures, dead letters). */
  readonly reported: { readonly what: keyof RuntimeEvents; readonly key: string }[];
  /** Lets every mailbox run until nothing is left to do. */
  settle(): Promise<void>;
}

/** A node view a test can change: rooms available, draining, lease fresh. */
export function mutableNode(): MutableNode {
  return {
    roomsAvailable: true,
    isDraining: false,
    leaseFresh: true,
    canOpenRoom() {
      return this.roomsAvailable;
    },
    draining() {
      return this.isDraining;
    },
    mayAct() {
      return this.leaseFresh;
    },
  };
}

/** Builds an ActorSystem on a manual clock, a seeded random source and an in-memory store. */
export function createHarness(options: {
  kinds: readonly { kind: ActorKind<never, never>; createOnDemand?: boolean }[];
  seed?: number;
  start?: number;
  passivateAfterMs?: number;
  /** ActorSystemOptions.resultSessions (default the runtime's). */
  resultSessions?: number;
}): Harness {
  const clock = new ManualScheduler(options.start);
  const store = new MemoryActorStore();
  const delivered: Delivered[] = [];
  const published: StudioEvent[] = [];
  const reported: { what: keyof RuntimeEvents; key: string }[] = [];
  const outbox: Outbox = {
    push(players, frame) {
      for (const player of players) delivered.push({ player, frame });
    },
  };
  const node = mutableNode();
  const system = new ActorSystem({
    store,
    outbox,
    scheduler: clock,
    random: seededRandom(options.seed ?? 1),
    node,
    passivateAfterMs: options.passivateAfterMs ?? 60_000,
    ...(options.resultSessions === undefined ? {} : { resultSessions: options.resultSessions }),
    publisher: { publish: (event) => published.push(event) },
    events: {
      handlerFailed: (key) => reported.push({ what: "handlerFailed", key }),
      persistFailed: (key) => reported.push({ what: "persistFailed", key }),
      deadLetter: (key) => reported.push({ what: "deadLetter", key }),
    },
  });
  for (const { kind, createOnDemand } of options.kinds) {
    system.register(kind, { createOnDemand: createOnDemand ?? false });
  }
  const framesOf = (player: string): StampedFrame[] =>
    delivered.filter((d) => d.player === player).map((d) => d.frame);
  return {
    system,
    clock,
    store,
    node,
    delivered,
    published,
    reported,
    framesOf,
    lastOf: (player, type) =>
      framesOf(player)
        .filter((f) => f.type === type)
        .at(-1),
    settle: () => settle(10),
  };
}
