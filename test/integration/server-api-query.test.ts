import { describe, expect, it } from "vitest";
import type { RunningNode } from "../../ops/node/start-node.ts";
import { eventually, useTestNode } from "../support/node.ts";

/** `POST /api/v1/lobbies/query` of the server API on an embedded node, over HTTP (docs/server-api.md). */

const { setup, player } = useTestNode();

const adminToken = "admin-token-0123456789";
const auth = { authorization: `Bearer ${adminToken}` };

interface Answer {
  readonly status: number;
  readonly body: Record<string, unknown>;
}

async function api(node: RunningNode, method: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(new URL(path, node.adminUrl), {
    method,
    headers: { "content-type": "application/json", ...auth },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

function codesOf(answer: Answer): string[] {
  return (answer.body.lobbies as { code: string }[]).map((l) => l.code);
}

function errorOf(answer: Answer): { code?: string; message?: string } {
  return answer.body.error ?? {};
}

async function makeLobby(
  node: RunningNode,
  host: string,
  metadata: Record<string, unknown>,
): Promise<string> {
  const made = await api(node, "POST", "/api/v1/lobbies", { host: { id: host }, public: true, metadata });
  expect(made.status).toBe(201);
  return (made.body.lobby as { code: string }).code;
}

describe("server API: lobby queries", () => {
  it("filters, orders and pages the public lobbies as a player's queryLobbies does, and refuses bad queries typed", async () => {
    const node = await setup({ adminToken, lobbyIndex: "region:string,level:number", maxMembers: "4" });
    const eu5 = await makeLobby(node, "alice", { mode: "duo", region: "eu", level: 5 });
    const us9 = await makeLobby(node, "bob", { mode: "ffa", region: "us", level: 9 });
    const eu2 = await makeLobby(node, "carol", { mode: "duo", region: "eu", level: 2 });
    const eu7 = await makeLobby(node, "dave", { mode: "duo", region: "eu", level: 7 });
    const hidden = await api(node, "POST", "/api/v1/lobbies", {
      host: { id: "erin" },
      metadata: { region: "eu", level: 8 },
    });
    expect(hidden.status).toBe(201);

    const query = {
      filters: [
        { field: "data.region", op: "eq", value: "eu" },
        { field: "freeSeats", op: "gt", value: 0 },
      ],
      order: { field: "data.level", dir: "desc" },
      limit: 2,
    };
    // The index follows a create by a moment.
    const first = await eventually(async () => {
      const answer = await api(node, "POST", "/api/v1/lobbies/query", query);
      expect(answer.status).toBe(200);
      expect(codesOf(answer)).toEqual([eu7, eu5]);
      return answer;
    });
    expect(first.body.lobbies).toEqual([
      expect.objectContaining({
        code: eu7,
        mode: "duo",
        members: 1,
        freeSeats: 3,
        data: expect.objectContaining({ level: 7 }),
      }),
      expect.objectContaining({ code: eu5 }),
    ]);
    expect(typeof first.body.cursor).toBe("string");
    const next = await api(node, "POST", "/api/v1/lobbies/query", { ...query, cursor: first.body.cursor });
    expect(next.status).toBe(200);
    expect(codesOf(next)).toEqual([eu2]);
    expect(next.body.cursor).toBeNull();

    // A player's queryLobbies with the same query answers the same lobbies.
    const frank = await player("frank");
    const asPlayer = await frank.queryLobbies({ ...query, limit: 3 } as Parameters<
      typeof frank.queryLobbies
    >[0]);
    expect(asPlayer.lobbies.map((l) => l.code)).toEqual([eu7, eu5, eu2]);

    // No body: every public lobby by code, at most 20.
    const all = await api(node, "POST", "/api/v1/lobbies/query", {});
    expect(codesOf(all)).toEqual([eu5, us9, eu2, eu7].sort());

    const refusals: [unknown, string][] = [
      [{ filters: [{ field: "members", op: "like", value: 1 }] }, "unknown operator like"],
      [{ filters: [{ field: "data.colour", op: "eq", value: "red" }] }, "not indexed"],
      [{ filters: [{ field: "members", op: "eq", value: "1" }] }, "needs a number"],
      [{ order: { field: "members" }, cursor: first.body.cursor }, "another order"],
      [{ limit: 500 }, "limit"],
      [{ filters: [], colour: "red" }, "colour"],
      ["{not json", ""],
    ];
    for (const [body, says] of refusals) {
      const refused = await api(node, "POST", "/api/v1/lobbies/query", body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(refused).code).toBe("INVALID");
      expect(errorOf(refused).message).toContain(says);
    }
    // A query changes nothing: the same page as before.
    const again = await api(node, "POST", "/api/v1/lobbies/query", query);
    expect(codesOf(again)).toEqual([eu7, eu5]);
  });
});
