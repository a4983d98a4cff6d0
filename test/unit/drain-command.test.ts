import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { runDrain, type DrainSummary } from "../../ops/admin/index.ts";

/** A fake admin API: `POST /drain` accepts; each `GET /status` answers the next scripted reply. */
async function fakeAdmin(replies: { status: number; drain?: Record<string, unknown> }[]): Promise<Server> {
  let next = 0;
  const server = createServer((req, res) => {
    if (req.method === "POST") {
      res.writeHead(202, { "content-type": "application/json" });
      res.end(JSON.stringify({ accepted: true, message: "draining" }));
      return;
    }
    const reply = replies[Math.min(next++, replies.length - 1)]!;
    res.writeHead(reply.status, { "content-type": "application/json" });
    const body = {
      nodeId: "n1",
      version: "0",
      mode: "fleet",
      url: "ws://x",
      uptimeSeconds: 1,
      lobbies: 0,
      members: 0,
      sessions: 0,
      draining: true,
      drain: reply.drain ?? null,
    };
    res.end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  servers.push(server);
  return server;
}

const servers: Server[] = [];
afterEach(() => {
  for (const s of servers.splice(0)) {
    s.closeAllConnections();
    s.close();
  }
});

const progress = (state: string, left: number, moved: number) => ({
  state,
  total: 10,
  moved,
  left,
  waitingForRoom: 0,
  failed: 0,
  startedAt: 0,
  finishedAt: null,
});

describe("foyer drain's progress loop", () => {
  it("reads past a status the busy node missed instead of calling the drain over", async () => {
    const server = await fakeAdmin([
      { status: 200, drain: progress("running", 8, 2) },
      { status: 503 },
      { status: 503 },
      { status: 200, drain: progress("done", 0, 10) },
    ]);
    const lines: string[] = [];
    const admin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await runDrain("n1", { admin, json: true, pollMs: 1 }, (t) => lines.push(t))).toBe(0);
    expect(JSON.parse(lines.at(-1)!) as DrainSummary).toMatchObject({ state: "done", left: 0, moved: 10 });
  });

  it("calls the node exited once it stays silent", async () => {
    const server = await fakeAdmin([{ status: 200, drain: progress("running", 8, 2) }, { status: 503 }]);
    const lines: string[] = [];
    const admin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    expect(await runDrain("n1", { admin, json: true, pollMs: 1 }, (t) => lines.push(t))).toBe(0);
    expect(JSON.parse(lines.at(-1)!) as DrainSummary).toMatchObject({ state: "exited", left: 8 });
  });
});
