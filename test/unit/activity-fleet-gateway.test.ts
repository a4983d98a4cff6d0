import { describe, expect, it } from "vitest";
import { seededRandom, type ActorSystem, type AskResult } from "../../actors/runtime/index.ts";
import type { OwnerLocation } from "../../actors/runtime/index.ts";
import { RequestRouter } from "../../gateway/requests/index.ts";
import { locateLobby } from "../../gateway/session-binding.ts";
import { Session, type SessionSocket } from "../../gateway/sessions/index.ts";

/**
 * The gateway's side of activity lobbies in a fleet (docs/activity.md, "In a fleet"): the directory is
 * asked wherever it lives, a lobby owned by another node redirects the player there (reason `activity`),
 * and a session whose registered lobby is an activity lobby finds it on resume.
 */

const LOBBY = "activityLobby/race/1";

/** A socket that keeps the frames it was sent, decoded. */
function recordingSocket(): SessionSocket & { frames: unknown[] } {
  const frames: unknown[] = [];
  return {
    encoding: "json",
    frames,
    send: (data: Uint8Array | string) => frames.push(JSON.parse(String(data))),
    close: () => undefined,
  } as unknown as SessionSocket & { frames: unknown[] };
}

function stubSystem(answer: (key: string, message: { type: string }) => AskResult) {
  const asked: string[] = [];
  const told: string[] = [];
  const system = {
    ask: (key: string, message: { type: string }) => {
      // The registry's rule allows every entry (its own tests are test/unit/whereabouts.test.ts).
      if (message.type === "enter") return Promise.resolve({ ok: true, value: { leave: [] } } as AskResult);
      asked.push(`${key} ${message.type}`);
      return Promise.resolve(answer(key, message));
    },
    spawn: () => Promise.resolve({ created: false }),
    tell: (key: string, message: { type: string }) => {
      if (message.type !== "entered" && message.type !== "enterFailed") told.push(`${key} ${message.type}`);
    },
  } as unknown as ActorSystem;
  return { system, asked, told };
}

const directoryAnswers = (key: string, message: { type: string }): AskResult => {
  if (key === "player/p1") return { ok: true, value: { lobby: null } };
  if (key === "activity/race") return { ok: true, value: { lobby: LOBBY } };
  if (key === LOBBY && message.type === "join") return { ok: true, value: { lobby: LOBBY } };
  return { ok: false, code: "NOT_FOUND", message: "nothing here" };
};

function requestsWith(owner: OwnerLocation, answer = directoryAnswers) {
  const stub = stubSystem(answer);
  const redirects: string[] = [];
  const requests = new RequestRouter({
    system: stub.system,
    lobby: { codeLength: 4, codeAlphabet: "AB" },
    random: seededRandom(1),
    locateOwner: () => Promise.resolve(owner),
    onRedirect: (reason) => redirects.push(reason),
  });
  return { ...stub, requests, redirects };
}

function session(): Session & { socket: ReturnType<typeof recordingSocket> } {
  const s = new Session("s1", "p1", "P");
  s.socket = recordingSocket();
  return s as Session & { socket: ReturnType<typeof recordingSocket> };
}

describe("joinActivity in a fleet", () => {
  it("a lobby owned elsewhere: redirect {reason: activity} and retryable MOVED; the lobby is not asked", async () => {
    const { requests, asked, redirects } = requestsWith({ kind: "elsewhere", url: "ws://n2/ws" });
    const s = session();
    const result = await requests.handle(s, { type: "joinActivity", id: 1, activity: "race" });
    expect(result).toMatchObject({ ok: false, code: "MOVED" });
    expect(!result.ok && result.retryAfterMs).toBeGreaterThan(0);
    expect(s.socket.frames).toEqual([{ type: "redirect", url: "ws://n2/ws", reason: "activity" }]);
    expect(redirects).toEqual(["activity"]);
    expect(asked).toEqual(["player/p1 get", "activity/race join"]);
    expect(s.activity).toBeNull();
  });

  it("a lobby whose owner is being taken over: UNAVAILABLE with its wait, no redirect", async () => {
    const { requests } = requestsWith({ kind: "waiting", retryAfterMs: 400 });
    const s = session();
    const result = await requests.handle(s, { type: "joinActivity", id: 1, activity: "race" });
    expect(result).toEqual({
      ok: false,
      code: "UNAVAILABLE",
      message: expect.any(String),
      retryAfterMs: 400,
    });
    expect(s.socket.frames).toEqual([]);
  });

  it("a lobby here is joined, and the session remembers it", async () => {
    const { requests, asked } = requestsWith({ kind: "here" });
    const s = session();
    const result = await requests.handle(s, { type: "joinActivity", id: 1, activity: "race" });
    expect(result).toEqual({ ok: true, value: { lobby: LOBBY } });
    expect(asked).toEqual(["player/p1 get", "activity/race join", `${LOBBY} join`]);
    expect(s.activity).toBe(LOBBY);
    expect(s.socket.frames).toEqual([]);
  });

  it("the registry's activity lobby is the `previous` the directory is given (a login on another gateway)", async () => {
    const previous = "activityLobby/survival/3";
    const seen: unknown[] = [];
    const stub = stubSystem((key, message) => {
      if (key === "player/p1") return { ok: true, value: { lobby: previous } };
      if (key === "activity/race") seen.push(message);
      return directoryAnswers(key, message);
    });
    const requests = new RequestRouter({
      system: stub.system,
      lobby: { codeLength: 4, codeAlphabet: "AB" },
      random: seededRandom(1),
    });
    await requests.handle(session(), { type: "joinActivity", id: 1, activity: "race" });
    expect(seen).toEqual([expect.objectContaining({ type: "join", previous })]);
  });

  it("a private lobby in the registry is not an activity's previous", async () => {
    const seen: unknown[] = [];
    const stub = stubSystem((key, message) => {
      if (key === "player/p1") return { ok: true, value: { lobby: "lobby/ABAB" } };
      if (key === "activity/race") seen.push(message);
      return directoryAnswers(key, message);
    });
    const requests = new RequestRouter({
      system: stub.system,
      lobby: { codeLength: 4, codeAlphabet: "AB" },
      random: seededRandom(1),
    });
    await requests.handle(session(), { type: "joinActivity", id: 1, activity: "race" });
    expect(seen).toEqual([{ type: "join", player: { id: "p1", name: "P" } }]);
  });
});

describe("joinRoom in a fleet (a transfer whose node no longer owns the room)", () => {
  const ROOM = "room/QWERTZ";
  const roomAnswers = (key: string): AskResult =>
    key === ROOM
      ? { ok: true, value: { room: "QWERTZ", side: 1 } }
      : { ok: false, code: "NOT_FOUND", message: "none" };
  const join = { type: "joinRoom", id: 1, code: "qwertz", token: "t0k3n" } as const;

  it("a room owned elsewhere: redirect {reason: room} and retryable MOVED; the room is not asked", async () => {
    const { requests, asked, redirects } = requestsWith(
      { kind: "elsewhere", url: "ws://n2/ws" },
      roomAnswers,
    );
    const s = session();
    s.activity = LOBBY;
    const result = await requests.handle(s, join);
    expect(result).toMatchObject({ ok: false, code: "MOVED" });
    expect(!result.ok && result.retryAfterMs).toBeGreaterThan(0);
    expect(s.socket.frames).toEqual([{ type: "redirect", url: "ws://n2/ws", reason: "room" }]);
    expect(redirects).toEqual(["room"]);
    expect(asked).toEqual([]);
    // Nothing changed here: the session is still in its activity lobby and seated nowhere.
    expect(s.activity).toBe(LOBBY);
    expect(s.room).toBeNull();
  });

  it("a room whose owner is being taken over: UNAVAILABLE with its wait, no redirect", async () => {
    const { requests, asked } = requestsWith({ kind: "waiting", retryAfterMs: 300 }, roomAnswers);
    const s = session();
    const result = await requests.handle(s, join);
    expect(result).toEqual({
      ok: false,
      code: "UNAVAILABLE",
      message: expect.any(String),
      retryAfterMs: 300,
    });
    expect(s.socket.frames).toEqual([]);
    expect(asked).toEqual([]);
  });

  it("a room here is joined with the token, and the session is seated in it", async () => {
    const { requests, asked } = requestsWith({ kind: "here" }, roomAnswers);
    const s = session();
    s.activity = LOBBY;
    expect(await requests.handle(s, join)).toEqual({ ok: true, value: { room: "QWERTZ", side: 1 } });
    expect(asked).toEqual([`${ROOM} join`]);
    expect(s.room).toBe(ROOM);
    expect(s.activity).toBeNull();
    expect(s.socket.frames).toEqual([]);
  });
});

describe("locateLobby finds activity lobbies", () => {
  const registered = (key: string, message: { type: string }): AskResult =>
    key === "player/p1" && message.type === "get" ? { ok: true, value: { lobby: LOBBY } } : { ok: true };

  it("here: the session's activity is set (not its private lobby) and the lobby hears it is back", async () => {
    const { system, asked } = stubSystem(registered);
    const s = session();
    await locateLobby(system, s, s.socket, { ownerOf: () => Promise.resolve({ kind: "here" }) });
    expect(s.activity).toBe(LOBBY);
    expect(s.lobby).toBeNull();
    expect(asked).toEqual(["player/p1 get", `${LOBBY} connection`]);
  });

  it("elsewhere: redirect {reason: activity}, and this gateway forgets the lobby", async () => {
    const { system, asked } = stubSystem(registered);
    const s = session();
    s.activity = LOBBY; // a resumed session whose lobby moved away
    await locateLobby(system, s, s.socket, {
      ownerOf: () => Promise.resolve({ kind: "elsewhere", url: "ws://n3/ws" }),
    });
    expect(s.socket.frames).toEqual([{ type: "redirect", url: "ws://n3/ws", reason: "activity" }]);
    expect(s.activity).toBeNull();
    // The lobby is asked whether it started, nothing more: it hears the player is back on its own node.
    expect(asked).toEqual(["player/p1 get", `${LOBBY} status`]);
  });

  it("elsewhere but started: no redirect (the player goes on to its room with its transfer)", async () => {
    const { system, asked, told } = stubSystem((key, message) =>
      key === LOBBY && message.type === "status"
        ? { ok: true, value: { started: true } }
        : registered(key, message),
    );
    const s = session();
    s.activity = LOBBY;
    await locateLobby(system, s, s.socket, {
      ownerOf: () => Promise.resolve({ kind: "elsewhere", url: "ws://n3/ws" }),
    });
    expect(s.socket.frames).toEqual([]);
    expect(s.activity).toBeNull();
    expect(asked).toEqual(["player/p1 get", `${LOBBY} status`]);
    expect(told).toEqual([`${LOBBY} connection`]);
  });

  it("elsewhere, and the lobby cannot say whether it started: redirected as before", async () => {
    const { system } = stubSystem((key, message) =>
      key === LOBBY
        ? { ok: false, code: "UNAVAILABLE", message: "taken over", retryAfterMs: 100 }
        : registered(key, message),
    );
    const s = session();
    await locateLobby(system, s, s.socket, {
      ownerOf: () => Promise.resolve({ kind: "elsewhere", url: "ws://n3/ws" }),
    });
    expect(s.socket.frames).toEqual([{ type: "redirect", url: "ws://n3/ws", reason: "activity" }]);
  });

  it("a private lobby elsewhere is still redirected with reason lobby", async () => {
    const { system } = stubSystem(() => ({ ok: true, value: { lobby: "lobby/ABAB" } }));
    const s = session();
    await locateLobby(system, s, s.socket, {
      ownerOf: () => Promise.resolve({ kind: "elsewhere", url: "ws://n3/ws" }),
    });
    expect(s.socket.frames).toEqual([{ type: "redirect", url: "ws://n3/ws", reason: "lobby" }]);
  });
});
