import { describe, expect, it } from "vitest";
import { seededRandom, type ActorSystem, type AskResult } from "../../actors/runtime/index.ts";
import { RequestRouter } from "../../gateway/requests/index.ts";
import { Session } from "../../gateway/sessions/index.ts";

/** The player registry's rule allows every entry and takes the player out of nothing. */
const allowed: AskResult = { ok: true, value: { leave: [] } };

/** An actor system that answers every ask with `answer` and records what was asked of whom. */
function stubSystem(answer: (key: string, message: { type: string; code?: string }) => AskResult) {
  const asked: string[] = [];
  const system = {
    ask: (key: string, message: { type: string; code?: string }) => {
      // The rule's asks: `enter`, and the report of an entry that failed for good.
      if (message.type === "enter" || message.type === "enterFailed") return Promise.resolve(allowed);
      asked.push(`${key} ${message.type}`);
      return Promise.resolve(answer(key, message));
    },
    // Every code is taken: the lobby already exists.
    spawn: () => Promise.resolve({ created: false }),
    tell: () => undefined,
  } as unknown as ActorSystem;
  const requests = new RequestRouter({
    system,
    lobby: { codeLength: 4, codeAlphabet: "AB" },
    random: seededRandom(1),
  });
  return { requests, asked };
}

function inLobby(): Session {
  const session = new Session("s1", "p1", "P");
  session.lobby = "lobby/ABAB";
  return session;
}

describe("LobbyRequests", () => {
  it("turns an ask the node gave up on (TIMEOUT) into retryable UNAVAILABLE with a wait", async () => {
    const { requests } = stubSystem(() => ({ ok: false, code: "TIMEOUT", message: "no answer" }));
    const result = await requests.handle(inLobby(), { type: "ready", id: 1, ready: true });
    expect(result).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(!result.ok && result.retryAfterMs).toBeGreaterThan(0);
  });

  it("answers UNAVAILABLE with a wait when no free lobby code was drawn", async () => {
    const { requests, asked } = stubSystem((_key, message) => ({ ok: true, value: { code: message.code } }));
    const result = await requests.handle(new Session("s1", "p1", "P"), { type: "create", id: 1 });
    expect(result).toMatchObject({ ok: false, code: "UNAVAILABLE" });
    expect(!result.ok && result.retryAfterMs).toBeGreaterThan(0);
    expect(asked).toHaveLength(8);
  });

  it("treats a leave outside any lobby, or of a lobby that is gone, as done", async () => {
    const gone = stubSystem(() => ({ ok: false, code: "NOT_FOUND", message: "no such lobby" }));
    const session = inLobby();
    session.room = "room/QQQQ";
    session.lastRoom = "room/PPPP";
    expect(await gone.requests.handle(session, { type: "leave", id: 1 })).toEqual({ ok: true });
    expect([session.lobby, session.room, session.lastRoom]).toEqual([null, null, null]);
    const nowhere = stubSystem(() => ({ ok: true }));
    expect(await nowhere.requests.handle(new Session("s2", "p2", "Q"), { type: "leave", id: 1 })).toEqual({
      ok: true,
    });
    expect(nowhere.asked).toEqual([]);
  });

  it("sends no finish after the player left: its last room is forgotten", async () => {
    const { requests, asked } = stubSystem(() => ({ ok: true }));
    const session = inLobby();
    session.room = "room/QQQQ";
    await requests.handle(session, { type: "leave", id: 1 });
    const result = await requests.handle(session, { type: "finish", id: 2 });
    expect(result).toMatchObject({ ok: false, code: "NOT_PLAYING" });
    expect(asked).toEqual(["lobby/ABAB leave"]);
  });

  it("holds a request until the session knows which lobby the player is in", async () => {
    const { requests, asked } = stubSystem(() => ({ ok: true }));
    const session = new Session("s1", "p1", "P");
    let located = (): void => undefined;
    session.located = new Promise((resolve) => (located = resolve));
    const leaving = requests.handle(session, { type: "leave", id: 1 });
    await Promise.resolve();
    expect(asked).toEqual([]);
    session.lobby = "lobby/BBBB";
    located();
    expect(await leaving).toEqual({ ok: true });
    expect(asked).toEqual(["lobby/BBBB leave"]);
  });

  it("refuses a joinActivity of an activity no configuration names, without asking (or creating) an actor", async () => {
    const asked: string[] = [];
    const system = {
      ask: (key: string, message: { type: string }) => {
        if (message.type === "enter") return Promise.resolve(allowed);
        asked.push(`${key} ${message.type}`);
        return Promise.resolve({ ok: false, code: "NOT_FOUND", message: "no such key" } as AskResult);
      },
      tell: () => undefined,
    } as unknown as ActorSystem;
    const requests = new RequestRouter({
      system,
      lobby: { codeLength: 4, codeAlphabet: "AB" },
      random: seededRandom(1),
      activities: ["race"],
    });
    const session = new Session("s1", "p1", "P");
    const unknown = await requests.handle(session, { type: "joinActivity", id: 1, activity: "raid" });
    expect(unknown).toMatchObject({ ok: false, code: "NOT_FOUND" });
    expect(asked).toEqual([]);
    // A configured one is asked of its directory as before.
    await requests.handle(session, { type: "joinActivity", id: 2, activity: "race" });
    expect(asked).toContain("activity/race join");
  });
});

describe("LobbyRequests and a request's ack", () => {
  it("hands the actor the ids its client will never send again, only when they are below the request's", async () => {
    const requests: unknown[] = [];
    const system = {
      ask: (_key: string, _message: unknown, options?: { request?: unknown }) => {
        requests.push(options?.request);
        return Promise.resolve({ ok: true });
      },
    } as unknown as ActorSystem;
    const lobby = new RequestRouter({
      system,
      lobby: { codeLength: 4, codeAlphabet: "AB" },
      random: seededRandom(1),
    });
    await lobby.handle(inLobby(), { type: "ready", id: 5, ack: 3, ready: true });
    await lobby.handle(inLobby(), { type: "ready", id: 6, ack: 6, ready: true });
    await lobby.handle(inLobby(), { type: "ready", id: 7, ack: 0, ready: true });
    await lobby.handle(inLobby(), { type: "ready", id: 8, ready: true });
    expect(requests).toEqual([
      { session: "s1", id: 5, answeredThrough: 3 },
      { session: "s1", id: 6 },
      { session: "s1", id: 7 },
      { session: "s1", id: 8 },
    ]);
  });
});
