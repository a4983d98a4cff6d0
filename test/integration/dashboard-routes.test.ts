import { describe, expect, it } from "vitest";
import { useTestNode } from "../support/node.ts";

const { setup, player } = useTestNode();

const adminToken = "admin-token-0123456789";
const bearer = { authorization: `Bearer ${adminToken}` };

async function get(adminUrl: string, path: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(new URL(path, adminUrl), { headers });
}

describe("dashboard routes of the admin API", () => {
  it("serves the pages without the token, and /cluster only with it", async () => {
    const node = await setup({ adminHost: "0.0.0.0", adminToken });
    const adminUrl = node.adminUrl.replace("0.0.0.0", "127.0.0.1");
    const page = await get(adminUrl, "/dashboard");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await page.text()).toContain('src="/dashboard.js"');
    const script = await get(adminUrl, "/dashboard.js");
    expect(script.status).toBe(200);
    expect(await script.text()).toContain("/cluster");
    expect((await get(adminUrl, "/cluster")).status).toBe(401);
    // An embedded node is not in a fleet: no /fleet, and the cluster is itself.
    expect((await get(adminUrl, "/fleet", bearer)).status).toBe(404);
    const alice = await player("alice");
    await alice.create();
    const cluster = await get(adminUrl, "/cluster", bearer);
    expect(cluster.status).toBe(200);
    expect(await cluster.json()).toMatchObject({
      nodes: [{ state: "live", draining: false, status: { lobbies: 1 } }],
      failovers: { count: 0, recent: [] },
    });
  });

  it("serves the demo page with the node's URL and its SDK bundle; no dev tokens without dev mode", async () => {
    const node = await setup({ production: "true", sessionSecret: "dashboard-secret-0123456789" });
    const page = await get(node.adminUrl, "/demo");
    expect(page.status).toBe(200);
    expect(await page.text()).toContain(JSON.stringify({ urls: [node.url] }));
    const script = await get(node.adminUrl, "/demo.js");
    expect(script.status).toBe(200);
    expect(script.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(await script.text()).toContain("WebSocket");
    expect((await get(node.adminUrl, "/demo/token?name=Ann")).status).toBe(404);
  });

  it("hands the demo a dev token in dev mode", async () => {
    const node = await setup({ tokenKeys: "" });
    const answer = await get(node.adminUrl, "/demo/token?name=Ann");
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ player: "dev-ann", name: "Ann", token: expect.any(String) });
  });
});
