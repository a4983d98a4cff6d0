import { describe, expect, it } from "vitest";
import { clusterViewOf, fleetViewOf, type FleetView, type NodeStatus } from "../../ops/admin/index.ts";

const status = (nodeId: string): NodeStatus => ({
  nodeId,
  version: "0.1.0",
  mode: "fleet",
  url: `ws://${nodeId}/ws`,
  uptimeSeconds: 1,
  lobbies: 1,
  members: 2,
  sessions: 2,
  draining: false,
  drain: null,
});

const beat = (url: string, admin?: string) => ({
  incarnation: "i",
  url,
  region: "r",
  load: 3,
  draining: false,
  version: "0.1.0",
  protocol: 1,
  beat: 1,
  ...(admin === undefined ? {} : { admin }),
});

const view = (node: string, failovers: FleetView["failovers"]): FleetView => ({
  node,
  load: 1,
  peers: [],
  lobbyCount: 0,
  lobbies: [],
  failovers,
});

describe("fleetViewOf", () => {
  it("lists lobby keys only, with members from the live state and none for a passivated lobby", () => {
    const fleet = fleetViewOf({
      node: "a",
      load: () => 7,
      peerViews: () => [
        { node: "b", incarnation: "i", heartbeat: beat("ws://b/ws", "http://b"), state: "live" },
        { node: "c", incarnation: "i", heartbeat: null, state: "dead" },
      ],
      ownedKeys: () => [
        { key: "lobby/AAAA", epoch: 4 },
        { key: "lobby/BBBB", epoch: 5 },
        { key: "player/p1", epoch: 6 },
      ],
      peek: (key) =>
        key === "lobby/AAAA"
          ? {
              host: "p1",
              members: [{ player: "p1", name: "Ann", ready: true, connected: true, memberId: 1 }],
              room: null,
            }
          : undefined,
      failovers: () => ({ count: 0, recent: [] }),
    });
    expect(fleet.load).toBe(7);
    expect(fleet.lobbyCount).toBe(2);
    expect(fleet.peers).toEqual([
      {
        node: "b",
        state: "live",
        url: "ws://b/ws",
        admin: "http://b",
        load: 3,
        draining: false,
        version: "0.1.0",
      },
      { node: "c", state: "dead", url: null, admin: null, load: 0, draining: false, version: null },
    ]);
    expect(fleet.lobbies).toEqual([
      {
        key: "lobby/AAAA",
        epoch: 4,
        live: true,
        host: "p1",
        members: [{ player: "p1", name: "Ann", ready: true, connected: true }],
        room: null,
      },
      { key: "lobby/BBBB", epoch: 5, live: false, host: null, members: [], room: null },
    ]);
  });
});

describe("clusterViewOf", () => {
  it("asks live peers only, keeps a peer that does not answer as a row, and merges the takeovers", async () => {
    const asked: string[] = [];
    const self: FleetView = {
      ...view("a", { count: 1, recent: [{ key: "lobby/A", from: "c", epoch: 2, at: 10 }] }),
      peers: [
        {
          node: "b",
          state: "live",
          url: "ws://b",
          admin: "http://b",
          load: 3,
          draining: false,
          version: "x",
        },
        { node: "c", state: "dead", url: null, admin: null, load: 0, draining: false, version: null },
        {
          node: "d",
          state: "live",
          url: "ws://d",
          admin: "http://d",
          load: 1,
          draining: false,
          version: "x",
        },
      ],
    };
    const cluster = await clusterViewOf({
      status: () => status("a"),
      fleet: () => self,
      now: () => 99,
      fetchPeer: (admin, path) => {
        asked.push(`${admin}${path}`);
        if (admin === "http://d") return Promise.reject(new Error("connection refused"));
        if (path === "/status") return Promise.resolve(status("b"));
        return Promise.resolve(
          view("b", { count: 2, recent: [{ key: "lobby/B", from: "c", epoch: 3, at: 20 }] }),
        );
      },
    });
    expect(asked.sort()).toEqual(["http://b/fleet", "http://b/status", "http://d/fleet", "http://d/status"]);
    expect(cluster.nodes.map((n) => [n.node, n.state, n.status?.nodeId ?? null, n.error])).toEqual([
      ["a", "live", "a", null],
      ["b", "live", "b", null],
      ["c", "dead", null, null],
      ["d", "live", null, "Error: connection refused"],
    ]);
    expect(cluster.failovers).toEqual({
      count: 3,
      recent: [
        { key: "lobby/B", from: "c", epoch: 3, at: 20, by: "b" },
        { key: "lobby/A", from: "c", epoch: 2, at: 10, by: "a" },
      ],
    });
  });
});
