import { describe, expect, it } from "vitest";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, lobbyOf, refusal, useTestNode } from "../support/node.ts";

/** The studio's server API can do what a lobby's host can: data, the door, kicks and bans. */

const { setup, player } = useTestNode();

const adminToken = "admin-token-0123456789";

async function api(node: RunningNode, method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, node.adminUrl), {
    method,
    headers: { "content-type": "application/json", authorization: `Bearer ${adminToken}` },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const errorOf = (answer: { body: Record<string, unknown> }) => (answer.body.error as { code?: string }).code;

describe("server API: lobby data, door and bans", () => {
  it("makes a lobby with data and a door, changes both, and kicks with a ban", async () => {
    const node = await setup({ adminToken });
    const created = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "alice" },
      data: { mode: { value: "duo" }, seed: { value: 9, visibility: "member" } },
      maxMembers: 3,
      password: "pw",
    });
    expect(created.status).toBe(201);
    const lobby = created.body.lobby as { code: string; version: number; hasPassword: boolean };
    expect(lobby).toMatchObject({ maxMembers: 3, hasPassword: true, locked: false });
    expect(JSON.stringify(created.body)).not.toContain('"pw"');
    const code = lobby.code;

    const alice = await player("alice");
    const bob = await player("bob");
    await eventually(() => expect(lobbyOf(alice).code).toBe(code));
    expect(await refusal(bob.join(code, { password: "nope" }))).toBe("WRONG_PASSWORD");
    await bob.join(code, { password: "pw" });

    const set = await api(node, "POST", `/api/v1/lobbies/${code}/data`, { set: { map: { value: "dunes" } } });
    expect(set.status).toBe(200);
    const version = set.body.version as number;
    await eventually(() => expect(lobbyOf(bob).data.map).toEqual({ value: "dunes", visibility: "public" }));
    const stale = await api(node, "POST", `/api/v1/lobbies/${code}/data`, {
      delete: ["map"],
      ifVersion: version - 1,
    });
    expect([stale.status, errorOf(stale)]).toEqual([409, "VERSION_CONFLICT"]);
    const big = await api(node, "POST", `/api/v1/lobbies/${code}/data`, {
      set: { x: { value: "y".repeat(5000) } },
    });
    expect([big.status, errorOf(big)]).toEqual([400, "DATA_LIMIT"]);

    const door = await api(node, "POST", `/api/v1/lobbies/${code}/door`, { locked: true, password: null });
    expect(door.status).toBe(200);
    await eventually(() => expect(lobbyOf(alice)).toMatchObject({ locked: true, hasPassword: false }));
    const tooFew = await api(node, "POST", `/api/v1/lobbies/${code}/door`, { maxMembers: 1 });
    expect([tooFew.status, errorOf(tooFew)]).toEqual([400, "INVALID"]);

    const kicked = await api(node, "POST", `/api/v1/lobbies/${code}/kick`, {
      player: "bob",
      ban: true,
      reason: "x",
    });
    expect(kicked.status).toBe(200);
    await api(node, "POST", `/api/v1/lobbies/${code}/door`, { locked: false });
    expect(await refusal(bob.join(code))).toBe("BANNED");
  });

  it("a create over the data limits or the node's seats is refused and makes nothing", async () => {
    const node = await setup({ adminToken });
    const tooMuch = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "alice" },
      data: Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, { value: i }])),
    });
    expect([tooMuch.status, errorOf(tooMuch)]).toEqual([400, "DATA_LIMIT"]);
    const seats = await api(node, "POST", "/api/v1/lobbies", { host: { id: "alice" }, maxMembers: 50 });
    expect([seats.status, errorOf(seats)]).toEqual([400, "INVALID"]);
  });
});
