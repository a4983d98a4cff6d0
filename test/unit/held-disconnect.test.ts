import { describe, expect, it } from "vitest";
import { seededRandom, type ActorSystem, type AskResult } from "../../actors/runtime/index.ts";
import { RequestRouter } from "../../gateway/requests/index.ts";
import { Session, heldOnClose, inKeyHere, type SessionSocket } from "../../gateway/sessions/index.ts";

/**
 * A disconnect another node tells a key about a player whose session here is joining that key is dropped
 * as stale (fleet/node-endpoint.ts). If the join then fails, the session is in no such key, and nothing
 * here would ever tell the key the player is gone: the dropped disconnect is told after all.
 */

const quietSocket: SessionSocket = { encoding: "json", send: () => undefined, close: () => undefined };

function session(): Session {
  const s = new Session("s1", "p1", "P");
  s.socket = quietSocket;
  return s;
}

/** A gateway whose join of `key` waits for `answer`, with the other node's disconnect arriving meanwhile. */
function joiningGateway(key: string, answer: AskResult) {
  const told: { key: string; message: unknown }[] = [];
  const dropped: boolean[] = [];
  const s = session();
  const system = {
    ask: (asked: string, message: { type: string }) => {
      // The registry's rule allows the entry.
      if (message.type === "enter") return Promise.resolve({ ok: true, value: { leave: [] } });
      // The endpoint's check, made while the join is in flight.
      if (asked === key && message.type === "join") dropped.push(inKeyHere(s, key));
      return Promise.resolve(answer);
    },
    spawn: () => Promise.resolve({ created: false }),
    // What the registry is told of the entry's outcome is the rule's (test/unit/player-places.test.ts).
    tell: (to: string, message: unknown) => {
      if (!to.startsWith("player/")) told.push({ key: to, message });
    },
  } as unknown as ActorSystem;
  const requests = new RequestRouter({
    system,
    lobby: { codeLength: 4, codeAlphabet: "AB" },
    random: seededRandom(1),
    locateOwner: () => Promise.resolve({ kind: "here" }),
  });
  return { requests, told, dropped, session: s };
}

describe("a disconnect dropped while the player joined its key", () => {
  it("is told to the key after all when the join fails", async () => {
    const gw = joiningGateway("lobby/ABAB", { ok: false, code: "FULL", message: "the lobby is full" });
    const result = await gw.requests.handle(gw.session, { type: "join", id: 1, code: "ABAB" });
    expect(result).toMatchObject({ ok: false, code: "FULL" });
    expect(gw.dropped).toEqual([true]);
    expect(gw.told).toEqual([
      { key: "lobby/ABAB", message: { type: "connection", player: "p1", connected: false } },
    ]);
    expect(gw.session.heldDisconnects.size).toBe(0);
  });

  it("stays dropped when the join succeeds: the session here now reports the player", async () => {
    const gw = joiningGateway("lobby/ABAB", { ok: true, value: { code: "ABAB" } });
    const result = await gw.requests.handle(gw.session, { type: "join", id: 1, code: "ABAB" });
    expect(result.ok).toBe(true);
    expect(gw.dropped).toEqual([true]);
    expect(gw.told).toEqual([]);
    expect(gw.session.lobby).toBe("lobby/ABAB");
    expect(gw.session.heldDisconnects.size).toBe(0);
  });

  it("stays held through a join that may yet succeed (retryable, or a timeout), and is told when the socket closes outside the key", async () => {
    for (const answer of [
      { ok: false as const, code: "UNAVAILABLE" as const, message: "being taken over", retryAfterMs: 100 },
      { ok: false as const, code: "TIMEOUT" as const, message: "no answer" },
    ]) {
      const gw = joiningGateway("lobby/ABAB", answer);
      await gw.requests.handle(gw.session, { type: "join", id: 1, code: "ABAB" });
      expect(gw.dropped).toEqual([true]);
      expect(gw.told).toEqual([]);
      expect([...gw.session.heldDisconnects]).toEqual(["lobby/ABAB"]);
      heldOnClose(gw.session, { tell: (key, message) => gw.told.push({ key, message }) });
      expect(gw.told).toEqual([
        { key: "lobby/ABAB", message: { type: "connection", player: "p1", connected: false } },
      ]);
      expect(gw.session.heldDisconnects.size).toBe(0);
    }
  });

  it("is let go on close for a key the session entered after all: the close reports that one", () => {
    const s = session();
    s.holdDisconnect("lobby/ABAB");
    s.lobby = "lobby/ABAB";
    const told: string[] = [];
    heldOnClose(s, { tell: (key) => told.push(key) });
    expect(told).toEqual([]);
    expect(s.heldDisconnects.size).toBe(0);
  });

  it("is not held for a session that is neither in the key nor entering it, nor for one with no socket", () => {
    const s = session();
    expect(inKeyHere(s, "lobby/ABAB")).toBe(false);
    s.entering = "lobby/ABAB";
    s.socket = null;
    expect(inKeyHere(s, "lobby/ABAB")).toBe(false);
    expect(s.heldDisconnects.size).toBe(0);
    s.socket = quietSocket;
    s.entering = null;
    s.lobby = "lobby/ABAB";
    expect(inKeyHere(s, "lobby/ABAB")).toBe(true);
    expect(s.heldDisconnects.size).toBe(0);
  });
});
