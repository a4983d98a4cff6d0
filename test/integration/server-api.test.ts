import { describe, expect, it } from "vitest";
import type { BusMessage } from "../../fleet/index.ts";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, lobbyOf, useTestNode } from "../support/node.ts";

/** The studio's server API on an embedded node (docs/server-api.md), driven over HTTP with SDK players. */

const { setup, player } = useTestNode();

const adminToken = "admin-token-0123456789";
const auth = { authorization: `Bearer ${adminToken}` };

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function api(
  node: RunningNode,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = auth,
): Promise<Answer> {
  const response = await fetch(new URL(path, node.adminUrl), {
    method,
    headers: { "content-type": "application/json", ...headers },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function errorCode(answer: Answer): unknown {
  return (answer.body.error as { code?: unknown } | undefined)?.code;
}

/** Lobbies this node holds, as its status says. */
async function lobbyCount(node: RunningNode): Promise<number> {
  const response = await fetch(new URL("/status", node.adminUrl), { headers: auth });
  const status = (await response.json()) as { lobbies: number };
  return status.lobbies;
}

/** Every event the node publishes from now on, as parsed JSON. */
function recordEvents(node: RunningNode): Record<string, unknown>[] {
  const seen: Record<string, unknown>[] = [];
  node.eventBus.subscribe("foyer.events.>", (msg: BusMessage) => {
    seen.push({ subject: msg.subject, ...(JSON.parse(new TextDecoder().decode(msg.data)) as object) });
  });
  return seen;
}

describe("server API: authentication", () => {
  it("needs the admin token; a node without one refuses the API (not dev mode)", async () => {
    const withToken = await setup({ adminToken });
    const none = await api(withToken, "GET", "/api/v1/lobbies/ABCDEF", undefined, {});
    expect(none.status).toBe(401);
    expect(errorCode(none)).toBe("UNAUTHORIZED");
    const wrong = await api(withToken, "GET", "/api/v1/lobbies/ABCDEF", undefined, {
      authorization: "Bearer nope",
    });
    expect(wrong.status).toBe(401);
    const created = await api(withToken, "POST", "/api/v1/lobbies", { host: { id: "alice" } }, {});
    expect(created.status).toBe(401);
    expect(await lobbyCount(withToken)).toBe(0);
    expect((await api(withToken, "GET", "/api/v1/lobbies/ABCDEF")).status).toBe(404);
  });

  it("a node with player token keys and no admin token answers 401 even on loopback", async () => {
    const node = await setup();
    const answer = await api(node, "POST", "/api/v1/lobbies", { host: { id: "alice" } }, {});
    expect(answer.status).toBe(401);
    expect(errorCode(answer)).toBe("UNAUTHORIZED");
    expect(await lobbyCount(node)).toBe(0);
  });

  it("a dev-mode node on loopback serves it without a token", async () => {
    const node = await setup({ tokenKeys: "" });
    const answer = await api(node, "GET", "/api/v1/lobbies/ABCDEF", undefined, {});
    expect(answer.status).toBe(404);
    expect(errorCode(answer)).toBe("NOT_FOUND");
  });
});

describe("server API: bad input changes nothing", () => {
  it("answers 400 with a typed error for every malformed body", async () => {
    const node = await setup({ adminToken, maxMembers: "3" });
    for (const body of [
      "{not json",
      {},
      { host: {} },
      { host: { id: "" } },
      { host: { id: "alice" }, members: [{ id: "alice" }] },
      { host: { id: "alice" }, public: "yes" },
      { host: { id: "alice" }, reserveSeconds: 0 },
      { host: { id: "alice" }, extra: 1 },
      { host: { id: "alice" }, members: [{ id: "b" }, { id: "c" }, { id: "d" }] },
    ]) {
      const answer = await api(node, "POST", "/api/v1/lobbies", body);
      expect(answer.status, JSON.stringify(body)).toBe(400);
      expect(["INVALID", "FULL"]).toContain(errorCode(answer));
      expect(typeof (answer.body.error as { message: unknown }).message).toBe("string");
    }
    expect(await lobbyCount(node)).toBe(0);
    expect((await api(node, "DELETE", "/api/v1/lobbies")).status).toBe(405);
    expect((await api(node, "GET", "/api/v1/nothing")).status).toBe(404);

    const created = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "alice" },
      members: [{ id: "bob" }],
    });
    const code = (created.body.lobby as { code: string }).code;
    expect(await lobbyCount(node)).toBe(1); // the count above can see a lobby
    for (const body of [{}, { player: 7 }, { player: "bob", also: true }]) {
      const kick = await api(node, "POST", `/api/v1/lobbies/${code}/kick`, body);
      expect(kick.status).toBe(400);
      expect(errorCode(kick)).toBe("INVALID");
    }
    const absent = await api(node, "POST", `/api/v1/lobbies/${code}/kick`, { player: "zed" });
    expect(absent.status).toBe(404);
    expect(errorCode(absent)).toBe("NOT_IN_LOBBY");
    const read = await api(node, "GET", `/api/v1/lobbies/${code}`);
    expect((read.body.lobby as { members: { player: string }[] }).members.map((m) => m.player)).toEqual([
      "alice",
      "bob",
    ]);
    const badResult = await api(node, "POST", "/api/v1/rooms/QWERTY/end", { result: [1, 2] });
    expect(badResult.status).toBe(400);
    const noRoom = await api(node, "POST", "/api/v1/rooms/QWERTY/end", {});
    expect(noRoom.status).toBe(404);
  });
});

describe("server API: lobbies and rooms", () => {
  it("a lobby made for players: each finds itself in it on connecting; kick; read", async () => {
    const node = await setup({ adminToken });
    const events = recordEvents(node);
    const created = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "alice", name: "Alice" },
      members: [{ id: "bob" }, { id: "carol" }],
      metadata: { mode: "duo" },
    });
    expect(created.status).toBe(201);
    const lobby = created.body.lobby as { code: string; host: string; members: { connected: boolean }[] };
    expect(lobby.host).toBe("alice");
    expect(lobby.members.map((m) => m.connected)).toEqual([false, false, false]);
    const code = lobby.code;

    const alice = await player("alice");
    const bob = await player("bob");
    await eventually(() => {
      expect(lobbyOf(alice).code).toBe(code);
      expect(lobbyOf(bob).code).toBe(code);
      const seen = lobbyOf(alice).members.map((m) => [m.player, m.connected]);
      expect(seen).toEqual([
        ["alice", true],
        ["bob", true],
        ["carol", false],
      ]);
    });

    const bobLeft = new Promise<unknown>((resolve) => bob.on("left", resolve));
    const kicked = await api(node, "POST", `/api/v1/lobbies/${code.toLowerCase()}/kick`, { player: "bob" });
    expect(kicked).toEqual({ status: 200, body: { kicked: "bob", code } });
    await bobLeft;
    expect(bob.lobby).toBeNull();
    await eventually(() => {
      expect(lobbyOf(alice).members.map((m) => m.player)).toEqual(["alice", "carol"]);
    });
    const read = await api(node, "GET", `/api/v1/lobbies/${code}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ key: `lobby/${code}`, lobby: { code, host: "alice", playing: false } });

    await eventually(() => {
      const names = events.map((e) => [e.subject, e.player ?? null]);
      expect(names).toEqual([
        ["foyer.events.lobby.created", null],
        ["foyer.events.player.left", "bob"],
      ]);
    });
    expect(events[0]).toMatchObject({
      type: "lobby.created",
      key: `lobby/${code}`,
      code,
      players: ["alice", "bob", "carol"],
      node: expect.any(String),
      epoch: expect.any(Number),
      seq: expect.any(Number),
      at: expect.any(Number),
    });
    expect(events[1]).toMatchObject({ reason: "kicked", players: ["alice", "carol"] });
  });

  it("ends a running room with a result: the lobby comes back, the event carries the result", async () => {
    const node = await setup({ adminToken, returnAfterEndSeconds: "0" });
    const events = recordEvents(node);
    const created = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "alice" },
      members: [{ id: "bob" }],
    });
    const code = (created.body.lobby as { code: string }).code;
    const alice = await player("alice");
    const bob = await player("bob");
    await eventually(() => {
      expect(lobbyOf(alice).members.every((m) => m.connected)).toBe(true);
      expect(lobbyOf(bob).code).toBe(code);
    });
    const { room } = await alice.start("duel");
    const ended = await api(node, "POST", `/api/v1/rooms/${room}/end`, {
      result: { winner: "bob", score: [1, 3] },
    });
    expect(ended).toEqual({ status: 200, body: { ended: room } });
    await eventually(() => {
      expect(bob.room).toMatchObject({ code: room, ended: true });
      expect(lobbyOf(alice).playing).toBe(false);
    });
    const again = await api(node, "POST", `/api/v1/rooms/${room}/end`, {});
    expect(again.status).toBe(404);
    await eventually(() => {
      expect(events.find((e) => e.type === "room.ended")).toMatchObject({
        key: `room/${room}`,
        code: room,
        lobby: `lobby/${code}`,
        players: ["alice", "bob"],
        reason: "server",
        result: { winner: "bob", score: [1, 3] },
      });
      expect(events.map((e) => e.type)).toContain("lobby.started");
    });
  });

  it("a player already connected when its lobby is made joins by code and is seated as its member", async () => {
    const node = await setup({ adminToken });
    const carol = await player("carol");
    const created = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "dave" },
      members: [{ id: "carol" }],
    });
    const code = (created.body.lobby as { code: string }).code;
    await carol.join(code);
    await eventually(() => {
      expect(lobbyOf(carol).members.map((m) => [m.player, m.connected])).toEqual([
        ["dave", false],
        ["carol", true],
      ]);
    });
    await carol.ready(true);
    const read = await api(node, "GET", `/api/v1/lobbies/${code}`);
    expect((read.body.lobby as { members: { ready: boolean }[] }).members.map((m) => m.ready)).toEqual([
      false,
      true,
    ]);
  });

  it("drain on an embedded node is refused with its reason", async () => {
    const node = await setup({ adminToken });
    const answer = await api(node, "POST", "/api/v1/drain");
    expect(answer.status).toBe(409);
    expect(answer.body).toMatchObject({ accepted: false });
  });
});
