import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyKind, type LobbyState } from "../../actors/lobby/index.ts";
import { entryIntentMs, playerKind } from "../../actors/player/index.ts";
import { createHarness, seededRandom, type ActorSystem, type AskResult } from "../../actors/runtime/index.ts";
import { RequestRouter } from "../../gateway/requests/index.ts";
import { Session } from "../../gateway/sessions/index.ts";

/**
 * A lobby create retried under faults (fake clock, in-memory store, the real lobby and player registry):
 * the retry of a create that already made its lobby answers with that lobby and leaves the player in it,
 * whatever became of the registry's intent; a retry whose recorded code has no lobby draws a fresh one.
 */

/** What a fault does to the gateway's calls: the system's own answer, or another. */
interface Faults {
  /** A tell that never arrives (a dead letter while its key's owner is being found, say). */
  dropTell?: (key: string, message: { type: string }) => boolean;
  /** An ask that is delivered and carried out, but whose answer the gateway never gets. */
  loseAnswer?: (key: string, message: { type: string }) => boolean;
  /** A spawn's answer instead of the system's (the store's claim landed, its answer did not). */
  spawn?: (key: string) => { created: false } | { created: true; result: AskResult } | undefined;
}

function setup(faults: Faults = {}) {
  const h = createHarness({
    kinds: [
      { kind: lobbyKind(defaultLobbyOptions) as never },
      { kind: playerKind() as never, createOnDemand: true },
    ],
  });
  const real = h.system;
  const system = {
    ask: async (key: string, message: { type: string }, opts?: object) => {
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
  const session = new Session("s1", "alice", "Alice");
  session.socket = { encoding: "json", send: () => undefined, close: () => undefined };
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
  return { h, create, members, registry, requests, session };
}

function codeOf(result: AskResult): string {
  if (!result.ok) throw new Error(`refused ${result.code}: ${result.message}`);
  return (result.value as { code: string }).code;
}

describe("a retried lobby create", () => {
  it("keeps the player in the lobby its first attempt made when the report of the retry's entry is lost", async () => {
    const faults: Faults = {};
    const { h, create, members, registry } = setup(faults);
    const code = codeOf(await create(1));
    const key = `lobby/${code}`;
    expect(await registry()).toBe(key);
    // The first answer was lost on its way to the client, which sends the create again; the report that
    // the retry's spawn found its code taken never reaches the registry.
    faults.dropTell = (to, message) => to === "player/alice" && message.type === "enterFailed";
    expect(codeOf(await create(1))).toBe(code);
    await h.clock.advance(entryIntentMs + 5_000);
    await h.settle();
    expect(members(key)).toEqual(["alice"]);
    expect(await registry()).toBe(key);
  });

  it("keeps the player in its lobby when the retry's entry was recorded but its answer lost, and nothing reports it", async () => {
    const faults: Faults = {};
    const { h, create, members, registry, requests, session } = setup(faults);
    const code = codeOf(await create(1));
    const key = `lobby/${code}`;
    // The registry records the retry's entry, but its answer times out: the retry is refused (retryable)
    // and the client is gone before it asks again, so the intent is left to expire.
    faults.loseAnswer = (to, message) => to === "player/alice" && message.type === "enter";
    const refused = await create(1);
    expect(refused).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    delete faults.loseAnswer;
    // A guest joins meanwhile; the host's next request must still find it in its lobby.
    const bob = new Session("s2", "bob", "Bob");
    bob.socket = { encoding: "json", send: () => undefined, close: () => undefined };
    expect(codeOf(await requests.handle(bob, { type: "join", id: 1, code }))).toBe(code);
    await h.clock.advance(entryIntentMs + 5_000);
    await h.settle();
    expect(members(key)).toEqual(["alice", "bob"]);
    expect(await registry()).toBe(key);
    expect(await requests.handle(session, { type: "ready", id: 2, ready: true })).toMatchObject({ ok: true });
  });

  it("draws a fresh code when the recorded code's claim landed but no lobby was stored under it", async () => {
    const faults: Faults = {};
    const { h, create, members, registry } = setup(faults);
    let recorded: string | null = null;
    // The first attempt's store write failed after its claim: no lobby, and the code is taken.
    faults.spawn = (key) => {
      if (recorded === null) {
        recorded = key;
        return { created: true, result: { ok: false, code: "UNAVAILABLE", message: "no store" } };
      }
      return key === recorded ? { created: false } : undefined;
    };
    expect(await create(1)).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(recorded).not.toBeNull();
    const code = codeOf(await create(1));
    const key = `lobby/${code}`;
    expect(key).not.toBe(recorded);
    expect(members(key)).toEqual(["alice"]);
    expect(await registry()).toBe(key);
    // The request now stands for the new code: asked once more, it answers with the same lobby.
    expect(codeOf(await create(1))).toBe(code);
    await h.clock.advance(entryIntentMs + 5_000);
    await h.settle();
    expect(members(key)).toEqual(["alice"]);
  });
});
