import { describe, expect, it } from "vitest";
import { liveTargets, placeNewLobby, regionsOf, roomHostAmong, type PeerView } from "../../fleet/index.ts";

// The placement rules of a fleet node as pure functions of its peers' heartbeats.

function peer(
  node: string,
  beat: { load?: number; draining?: boolean; url?: string; region?: string } | null,
  state: PeerView["state"] = "live",
): PeerView {
  return {
    node,
    incarnation: `${node}.1`,
    state,
    heartbeat:
      beat === null
        ? null
        : {
            incarnation: `${node}.1`,
            url: beat.url ?? `ws://${node}/ws`,
            region: beat.region ?? "",
            load: beat.load ?? 0,
            draining: beat.draining ?? false,
            version: "test",
            protocol: 1,
            beat: 1,
          },
  };
}

describe("the peers a key may move to", () => {
  it("are the live, non-draining peers with a URL, with their heartbeat's load", () => {
    const peers = [
      peer("a", { load: 4 }),
      peer("b", { draining: true }),
      peer("c", { url: "" }),
      peer("d", { load: 1 }, "suspected"),
      peer("e", null),
      peer("f", { load: 9 }),
    ];
    expect(liveTargets(peers)).toEqual([
      { node: "a", url: "ws://a/ws", load: 4 },
      { node: "f", url: "ws://f/ws", load: 9 },
    ]);
  });
});

describe("where a new lobby goes", () => {
  const targets = [
    { node: "a", url: "ws://a/ws", load: 5 },
    { node: "b", url: "ws://b/ws", load: 2 },
    { node: "c", url: "ws://c/ws", load: 2 },
  ];

  it("is here while the node does not drain", () => {
    expect(placeNewLobby(false, targets)).toEqual({ kind: "here" });
  });

  it("is the least-loaded target while it drains, the first of equals", () => {
    expect(placeNewLobby(true, targets)).toEqual({ kind: "elsewhere", url: "ws://b/ws" });
  });

  it("is here when a draining node has no target", () => {
    expect(placeNewLobby(true, [])).toEqual({ kind: "here" });
  });
});

describe("a match room's host among this node and its peers", () => {
  const targets = [{ node: "b", url: "ws://b/ws", load: 3 }];

  it("is this node when it is the least loaded, a peer otherwise", () => {
    expect(roomHostAmong({ node: "a", url: "ws://a/ws", load: 1 }, targets, () => false)?.node).toBe("a");
    expect(roomHostAmong({ node: "a", url: "ws://a/ws", load: 7 }, targets, () => false)?.node).toBe("b");
  });

  it("is a peer when this node cannot open a room, none when that peer refused one", () => {
    expect(roomHostAmong(undefined, targets, () => false)).toEqual({ node: "b", url: "ws://b/ws" });
    expect(roomHostAmong(undefined, targets, (node) => node === "b")).toBeUndefined();
  });
});

describe("the regions list", () => {
  it("has this node's URL for its own region, then one live peer per other region, sorted", () => {
    const peers = [
      peer("b", { region: "us", url: "ws://b/ws" }),
      peer("c", { region: "us", url: "ws://c/ws" }),
      peer("d", { region: "eu", url: "ws://d/ws" }),
      peer("e", { region: "ap", draining: true }),
      peer("f", { region: "" }),
      peer("g", { region: "sa" }, "dead"),
    ];
    expect(regionsOf({ region: "eu", url: "ws://a/ws" }, peers)).toEqual([
      { region: "eu", url: "ws://a/ws" },
      { region: "us", url: "ws://b/ws" },
    ]);
  });

  it("leaves out this node's region until it has a URL, and a node without a region", () => {
    const peers = [peer("b", { region: "eu", url: "ws://b/ws" })];
    expect(regionsOf({ region: "eu", url: "" }, peers)).toEqual([{ region: "eu", url: "ws://b/ws" }]);
    expect(regionsOf({ region: "", url: "ws://a/ws" }, [])).toEqual([]);
  });
});
