import { describe, expect, it } from "vitest";
import { nodeStatusSchema, runStatus, type ClusterStatus, type NodeStatus } from "../../ops/admin/index.ts";
import { ConfigError } from "../../ops/config.ts";
import { eventually, refusal, startTestNode, useTestNode } from "../support/node.ts";

const { setup, player } = useTestNode();

const adminToken = "admin-token-0123456789";

/** The admin API's answer to `GET path`, with the headers given. */
async function get(adminUrl: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL(path, adminUrl), { headers });
}

async function statusOf(adminUrl: string): Promise<NodeStatus> {
  const response = await get(adminUrl, "/status");
  expect(response.status).toBe(200);
  return nodeStatusSchema.parse(await response.json());
}

async function metricsOf(adminUrl: string): Promise<string> {
  const response = await get(adminUrl, "/metrics");
  expect(response.status).toBe(200);
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/);
  return response.text();
}

/** The value of one sample line (`name{labels} value`) of a Prometheus exposition, or undefined. */
function sample(text: string, series: string): number | undefined {
  const line = text.split("\n").find((l) => l.startsWith(`${series} `));
  return line === undefined ? undefined : Number(line.slice(series.length + 1));
}

describe("admin API", () => {
  it("samples the event-loop delay every 50 ms, not prom-client's 10 ms (each wake-up costs an idle node CPU)", async () => {
    const node = await setup();
    // Each scrape empties the histogram (its minimum then reads about 9.2e9 s): scrape again after a few
    // samples' time until one has samples.
    const min = await eventually(async () => {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const value = sample(await metricsOf(node.adminUrl), "nodejs_eventloop_lag_min_seconds");
      expect(value).toBeLessThan(1);
      return value ?? 0;
    }, 10_000);
    // Each sample is the time from the previous one: the interval (a timer may fire a fraction of a
    // millisecond early), plus any lag. With prom-client's default it would read about 0.01.
    expect(min).toBeGreaterThanOrEqual(0.04);
  });

  it("serves every metric and counts a lobby an SDK client created", async () => {
    const node = await setup();
    const before = await metricsOf(node.adminUrl);
    for (const name of [
      "foyer_lobbies",
      "foyer_members",
      "foyer_sessions",
      "foyer_ops_total",
      "foyer_op_duration_seconds",
      "foyer_redirects_total",
      "foyer_persist_duration_seconds",
      "foyer_rejected_frames_total",
      "foyer_closed_sockets_total",
      "foyer_migrations_total",
      "foyer_migration_pause_seconds",
      "foyer_failovers_total",
      "foyer_failover_recovery_seconds",
      "foyer_queue_depth",
    ]) {
      expect(before).toContain(`# TYPE ${name} `);
    }
    expect(sample(before, 'foyer_lobbies{kind="lobby"}')).toBe(0);
    expect(sample(before, 'foyer_ops_total{op="create",outcome="ok"}')).toBeUndefined();

    const alice = await player("alice");
    await alice.create();
    const bob = await player("bob");
    expect(await refusal(bob.join("ZZZZZZ"))).toBe("NOT_FOUND");

    const after = await metricsOf(node.adminUrl);
    expect(sample(after, 'foyer_lobbies{kind="lobby"}')).toBe(1);
    expect(sample(after, "foyer_members")).toBe(1);
    expect(sample(after, "foyer_sessions")).toBe(2);
    expect(sample(after, 'foyer_ops_total{op="create",outcome="ok"}')).toBe(1);
    expect(sample(after, 'foyer_op_duration_seconds_count{op="create"}')).toBe(1);
    expect(sample(after, 'foyer_ops_total{op="join",outcome="NOT_FOUND"}')).toBe(1);
    expect(sample(after, 'foyer_rejected_frames_total{code="NOT_FOUND"}')).toBe(1);
    // The lobby's first snapshot and the player registry's writes at least.
    expect(sample(after, "foyer_persist_duration_seconds_count")).toBeGreaterThanOrEqual(2);
  });

  it("reports the node's status, and its numbers follow a create and a leave", async () => {
    const node = await setup({ nodeId: "admin-1" });
    const before = await statusOf(node.adminUrl);
    expect(before).toMatchObject({
      nodeId: "admin-1",
      mode: "embedded",
      url: node.url,
      lobbies: 0,
      members: 0,
      sessions: 0,
      draining: false,
    });
    expect(before.version).toMatch(/^\d+\.\d+\.\d+/);

    const alice = await player("alice");
    const { code } = await alice.create();
    const bob = await player("bob");
    await bob.join(code);
    expect(await statusOf(node.adminUrl)).toMatchObject({ lobbies: 1, members: 2, sessions: 2 });

    await alice.leave();
    await bob.leave();
    // The lobby ends with its last member: its actor stops once the leave is written.
    await eventually(async () =>
      expect(await statusOf(node.adminUrl)).toMatchObject({ lobbies: 0, members: 0, sessions: 2 }),
    );
  });

  it("answers 404 to an unknown route, 405 to a wrong method and 409 to a drain of an embedded node", async () => {
    const node = await setup();
    expect((await get(node.adminUrl, "/nope")).status).toBe(404);
    const wrongMethod = await fetch(new URL("/status", node.adminUrl), { method: "POST" });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get("allow")).toBe("GET");
    const drain = await fetch(new URL("/drain", node.adminUrl), { method: "POST" });
    expect(drain.status).toBe(409);
    expect(await drain.json()).toMatchObject({ accepted: false, message: expect.stringMatching(/embedded/) });
  });

  it("refuses to start on a non-loopback admin address without a token", async () => {
    const started = startTestNode({ adminHost: "0.0.0.0" });
    await expect(started).rejects.toBeInstanceOf(ConfigError);
    await expect(started).rejects.toMatchObject({ setting: "adminToken" });
  });

  it("with a token, answers 401 without the right bearer and 200 with it, on every route", async () => {
    const node = await setup({ adminHost: "0.0.0.0", adminToken });
    const adminUrl = node.adminUrl.replace("0.0.0.0", "127.0.0.1");
    for (const path of ["/status", "/metrics", "/nope"]) {
      const missing = await get(adminUrl, path);
      expect(missing.status).toBe(401);
      expect(missing.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect((await get(adminUrl, path, { authorization: "Bearer wrong-token-0123456789" })).status).toBe(
        401,
      );
      expect((await get(adminUrl, path, { authorization: adminToken })).status).toBe(401);
    }
    const drain = await fetch(new URL("/drain", adminUrl), { method: "POST" });
    expect(drain.status).toBe(401);
    const bearer = { authorization: `Bearer ${adminToken}` };
    expect((await get(adminUrl, "/status", bearer)).status).toBe(200);
    expect((await get(adminUrl, "/metrics", bearer)).status).toBe(200);
  });

  it("foyer status --json prints the running node and the totals; a node that refuses is a row and exit code 1", async () => {
    const node = await setup({ nodeId: "status-1", adminToken });
    const alice = await player("alice");
    await alice.create();
    let printed = "";
    const write = (text: string): void => {
      printed += text;
    };
    expect(await runStatus([node.adminUrl], { json: true, token: adminToken }, write)).toBe(0);
    const status = JSON.parse(printed) as ClusterStatus;
    expect(status.nodes).toHaveLength(1);
    expect(status.nodes[0]).toMatchObject({
      admin: node.adminUrl,
      nodeId: "status-1",
      mode: "embedded",
      lobbies: 1,
      members: 1,
      sessions: 1,
    });
    expect(status.totals).toEqual({ lobbies: 1, members: 1, sessions: 1 });

    printed = "";
    expect(await runStatus([node.adminUrl], { json: true }, write)).toBe(1);
    expect((JSON.parse(printed) as ClusterStatus).nodes[0]).toEqual({
      admin: node.adminUrl,
      error: "HTTP 401",
    });

    printed = "";
    expect(await runStatus([node.adminUrl], { json: false, token: adminToken }, write)).toBe(0);
    const [header, row] = printed.trim().split("\n");
    expect(header?.split(/\s+/)).toEqual([
      "node",
      "mode",
      "lobbies",
      "members",
      "sessions",
      "state",
      "version",
      "uptime",
    ]);
    expect(row?.split(/\s+/).slice(0, 6)).toEqual(["status-1", "embedded", "1", "1", "1", "live"]);
  });
});
