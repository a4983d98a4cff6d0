import { describe, expect, it } from "vitest";
import { entryIntentMs } from "../../actors/player/index.ts";
import type { AskResult } from "../../actors/runtime/index.ts";
import { gatewayOverActors, type Faults } from "./support/gateway-faults.ts";

/**
 * A lobby create retried under faults: the retry of a create that already made its lobby answers with
 * that lobby and leaves the player in it, whatever became of the registry's intent; a retry whose
 * recorded code has no lobby draws a fresh one.
 */

function codeOf(result: AskResult): string {
  if (!result.ok) throw new Error(`refused ${result.code}: ${result.message}`);
  return (result.value as { code: string }).code;
}

describe("a retried lobby create", () => {
  it("keeps the player in the lobby its first attempt made when the report of the retry's entry is lost", async () => {
    const faults: Faults = {};
    const { h, create, members, registry } = gatewayOverActors(faults);
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

  it("tells the registry where the player is when the first attempt's joined was lost, so its next lobby leaves this one", async () => {
    const faults: Faults = {};
    const { h, create, members, registry } = gatewayOverActors(faults);
    // The first attempt makes the lobby, and its node dies right after the write: the lobby's `joined`
    // never reaches the registry and the answer never reaches the client, which sends the create again
    // (to the node that took the lobby over).
    faults.dropActorTell = (to, message) => to === "player/alice" && message.type === "joined";
    const code = codeOf(await create(1));
    const key = `lobby/${code}`;
    delete faults.dropActorTell;
    expect(codeOf(await create(1))).toBe(code);
    expect(members(key)).toEqual(["alice"]);
    expect(await registry()).toBe(key);
    // The player's next lobby takes it out of this one: it is in one lobby, never two.
    const next = `lobby/${codeOf(await create(2))}`;
    await h.clock.advance(entryIntentMs + 5_000);
    await h.settle();
    expect(members(next)).toEqual(["alice"]);
    expect(members(key)).toBeNull();
    expect(await registry()).toBe(next);
  });

  it("keeps the player in its lobby when the retry's entry was recorded but its answer lost, and nothing reports it", async () => {
    const faults: Faults = {};
    const { h, create, members, registry, requests, session, sessionOf } = gatewayOverActors(faults);
    const code = codeOf(await create(1));
    const key = `lobby/${code}`;
    // The registry records the retry's entry, but its answer times out: the retry is refused (retryable)
    // and the client is gone before it asks again, so the intent is left to expire.
    faults.loseAnswer = (to, message) => to === "player/alice" && message.type === "enter";
    const refused = await create(1);
    expect(refused).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    delete faults.loseAnswer;
    // A guest joins meanwhile; the host's next request must still find it in its lobby.
    const bob = sessionOf("bob", "s2");
    expect(codeOf(await requests.handle(bob, { type: "join", id: 1, code }))).toBe(code);
    await h.clock.advance(entryIntentMs + 5_000);
    await h.settle();
    expect(members(key)).toEqual(["alice", "bob"]);
    expect(await registry()).toBe(key);
    expect(await requests.handle(session, { type: "ready", id: 2, ready: true })).toMatchObject({ ok: true });
  });

  it("draws a fresh code when the recorded code's claim landed but no lobby was stored under it", async () => {
    const faults: Faults = {};
    const { h, create, members, registry } = gatewayOverActors(faults);
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
