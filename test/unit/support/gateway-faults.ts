import { defaultLobbyOptions, lobbyKind, type LobbyState } from "../../../actors/lobby/index.ts";
import { playerKind } from "../../../actors/player/index.ts";
import {
  createHarness,
  seededRandom,
  type ActorSystem,
  type AskResult,
} from "../../../actors/runtime/index.ts";
import { RequestRouter } from "../../../gateway/requests/index.ts";
import { Session } from "../../../gateway/sessions/index.ts";

/**
 * The gateway's lobby requests over the runtime (fake clock, in-memory store, the real lobby and player
 * registry), with faults between the gateway and the actors: lost tells, answers lost after the ask was
 * carried out, asks refused before they were delivered, a spawn's own answer.
 */

/** What a fault does to the gateway's calls: the system's own answer, or another. */
export interface Faults {
  /** A tell that never arrives (a dead letter while its key's owner is being found, say). */
  dropTell?: (key: string, message: { type: string }) => boolean;
  /** An ask that is delivered and carried out, but whose answer the gateway never gets. */
  loseAnswer?: (key: string, message: { type: string }) => boolean;
  /** An ask refused UNAVAILABLE before it reaches its actor (its owner is being taken over, say). */
  refuseAsk?: (key: string, message: { type: string }) => boolean;
  /** A spawn's answer instead of the system's (the store's claim landed, its answer did not). */
  spawn?: (key: string) => { created: false } | { created: true; result: AskResult } | undefined;
  /** A tell between actors that never arrives (its sender's node died right after writing the change). */
  dropActorTell?: (key: string, message: { type: string }) => boolean;
}

/** The runtime's own delivery, through which every message to an actor passes (tells between actors too). */
interface Delivery {
  deliver(key: string, envelope: { message: unknown; resolve?: unknown }, here?: boolean): void;
}

/** Routes the actors' tells through `faults.dropActorTell`; asks and the gateway's tells pass as they are. */
function dropActorTells(system: ActorSystem, faults: Faults): void {
  const delivery = (system as unknown as { delivery: Delivery }).delivery;
  const deliver = delivery.deliver.bind(delivery);
  delivery.deliver = (key, envelope, here) => {
    const message = envelope.message as { type: string };
    if (envelope.resolve === undefined && faults.dropActorTell?.(key, message) === true) return;
    deliver(key, envelope, here);
  };
}

/** Alice's session on a gateway whose calls go through `faults` (changed by the test as it goes). */
export function gatewayOverActors(faults: Faults = {}) {
  const h = createHarness({
    kinds: [
      { kind: lobbyKind(defaultLobbyOptions) as never },
      { kind: playerKind() as never, createOnDemand: true },
    ],
  });
  const real = h.system;
  dropActorTells(real, faults);
  const system = {
    ask: async (key: string, message: { type: string }, opts?: object) => {
      if (faults.refuseAsk?.(key, message) === true) {
        return {
          ok: false,
          code: "UNAVAILABLE",
          message: `${key} awaits its owner`,
          retryAfterMs: 50,
        } as AskResult;
      }
      const result = await real.ask(key, message, opts);
      if (faults.loseAnswer?.(key, message) === true) {
        return { ok: false, code: "TIMEOUT", message: `${key} did not answer in time` } as AskResult;
      }
      return result;
    },
    tell: (key: string, message: { type: string }) => {
      if (faults.dropTell?.(key, message) !== true) real.tell(key, message);
    },
    spawn: (key: string, init: unknown, opts?: object) => {
      const instead = faults.spawn?.(key);
      return instead === undefined ? real.spawn(key, init, opts) : Promise.resolve(instead);
    },
  } as unknown as ActorSystem;
  const requests = new RequestRouter({
    system,
    lobby: { codeLength: 6, codeAlphabet: "ABCDEFGHJKLMNPQRSTUVWXYZ23456789" },
    random: seededRandom(7),
  });
  const sessionOf = (player: string, id: string): Session => {
    const made = new Session(id, player, player);
    made.socket = { encoding: "json", send: () => undefined, close: () => undefined };
    return made;
  };
  const session = sessionOf("alice", "s1");
  const create = async (id: number): Promise<AskResult> => {
    const result = await requests.handle(session, { type: "create", id });
    await h.settle();
    return result;
  };
  const members = (key: string): string[] | null => {
    const state = h.system.peek(key) as LobbyState | undefined;
    return state === undefined ? null : state.members.map((m) => m.player);
  };
  const registry = async (): Promise<unknown> => {
    const got = await h.system.ask("player/alice", { type: "get" });
    return got.ok ? (got.value as { lobby: unknown }).lobby : got;
  };
  return { h, create, members, registry, requests, session, sessionOf };
}
