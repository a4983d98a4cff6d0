import { describe, expect, it } from "vitest";
import {
  liveTargets,
  peerLoads,
  placeNewLobby,
  regionsOf,
  roomHostAmong,
  withRoomFor,
  type PeerLoad,
  type PeerView,
} from "../../fleet/index.ts";

// The placement rules of a fleet node as pure functions of its peers' heartbeats.

function peer(
  node: string,
  beat: {
    load?: number;
    draining?: boolean;
    url?: string;
    region?: string;
    limits?: { maxLobbies: number | null; maxRooms: number | null };
  } | null,
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
            ...(beat.limits === undefined ? {} : { limits: beat.limits }),
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
  /** A live peer with `lobbies` lobby claims counted (undefined: not counted) and a heartbeat load. */
  const at = (node: string, lobbies: number | undefined, load = 0): PeerLoad => ({
    node,
    url: `ws://${node}/ws`,
    load,
    claims: lobbies === undefined ? undefined : new Map([["lobby", lobbies]]),
  });
  const peers = [at("a", 5), at("b", 2, 9), at("c", 2, 1)];
  const calm = { draining: false, lobbies: 3 };

  it("is here while the node neither drains nor holds its limit", () => {
    expect(placeNewLobby(calm, peers, undefined)).toEqual({ kind: "here" });
    expect(placeNewLobby(calm, peers, 4)).toEqual({ kind: "here" });
  });

  it("is the peer with the fewest lobbies by its claims while it drains, the lower load of equals", () => {
    expect(placeNewLobby({ ...calm, draining: true }, peers, undefined)).toEqual({
      kind: "elsewhere",
      url: "ws://c/ws",
      reason: "drain",
    });
  });

  it("is here when a draining node has no peer to send it to", () => {
    expect(placeNewLobby({ ...calm, draining: true }, [], undefined)).toEqual({ kind: "here" });
  });

  it("at its limit: the least-loaded peer with room, reason full; a peer at the limit or uncounted is never taken", () => {
    const full = { draining: false, lobbies: 3 };
    expect(placeNewLobby(full, peers, 3)).toEqual({ kind: "elsewhere", url: "ws://c/ws", reason: "full" });
    expect(placeNewLobby(full, [at("a", 3), at("b", undefined), at("d", 2, 50)], 3)).toEqual({
      kind: "elsewhere",
      url: "ws://d/ws",
      reason: "full",
    });
  });

  it("every node at its limit (or uncounted): refused, draining or not", () => {
    const full = { draining: false, lobbies: 3 };
    const all = [at("a", 3), at("b", 4), at("c", undefined)];
    expect(placeNewLobby(full, all, 3)).toMatchObject({ kind: "full" });
    expect(placeNewLobby({ ...full, draining: true }, all, 3)).toMatchObject({ kind: "full" });
    expect(placeNewLobby(full, [], 3)).toMatchObject({
      kind: "full",
      message: expect.stringContaining("--max-lobbies") as string,
    });
  });

  it("counts each live peer's own claims: from its incarnation's, live and not draining only", () => {
    const counted = new Map([["x.1", new Map([["lobby", 7]])]]);
    const loads = peerLoads([peer("x", {}), peer("y", { draining: true }), peer("z", {}, "suspected")], (p) =>
      counted.get(p.incarnation),
    );
    expect(placeNewLobby({ draining: false, lobbies: 9 }, loads, 9)).toEqual({
      kind: "elsewhere",
      url: "ws://x/ws",
      reason: "full",
    });
    expect(placeNewLobby({ draining: false, lobbies: 9 }, loads, 7)).toMatchObject({ kind: "full" });
  });
});

describe("a match room's host among this node and its peers", () => {
  const b = (rooms: number | undefined, load = 3): PeerLoad => ({
    node: "b",
    url: "ws://b/ws",
    load,
    claims: rooms === undefined ? undefined : new Map([["room", rooms]]),
  });
  const here = (load: number) => ({ node: "a", url: "ws://a/ws", load });

  it("is this node when it is the least loaded, a peer otherwise", () => {
    expect(roomHostAmong(here(1), [b(0)], 10, () => false)?.node).toBe("a");
    expect(roomHostAmong(here(7), [b(0)], 10, () => false)?.node).toBe("b");
  });

  it("is a peer when this node cannot open a room, none when that peer refused one", () => {
    expect(roomHostAmong(undefined, [b(0)], 10, () => false)).toEqual({ node: "b", url: "ws://b/ws" });
    expect(roomHostAmong(undefined, [b(0)], 10, (node) => node === "b")).toBeUndefined();
  });

  it("is never a peer at the room limit by its claims, nor one whose rooms are not counted", () => {
    expect(roomHostAmong(undefined, [b(9)], 10, () => false)?.node).toBe("b");
    expect(roomHostAmong(undefined, [b(10)], 10, () => false)).toBeUndefined();
    expect(roomHostAmong(undefined, [b(undefined)], 10, () => false)).toBeUndefined();
    // Every node at its limit, this one included: no host at all (a queue's match then waits).
    expect(roomHostAmong(undefined, [b(10, 0)], 10, () => false)).toBeUndefined();
  });

  it("weighs a peer's claims as counted for its incarnation, live and not draining only", () => {
    const counted = new Map([["x.1", new Map([["room", 2]])]]);
    const loads = peerLoads(
      [peer("x", { load: 5 }), peer("y", { load: 1 }), peer("z", { draining: true })],
      (p) => counted.get(p.incarnation),
    );
    expect(loads).toEqual([
      { node: "x", url: "ws://x/ws", load: 5, claims: new Map([["room", 2]]) },
      { node: "y", url: "ws://y/ws", load: 1, claims: undefined },
    ]);
    expect(withRoomFor(loads, "room", 3).map((p) => p.node)).toEqual(["x"]);
    expect(withRoomFor(loads, "room", 2)).toEqual([]);
  });
});

describe("each peer weighed against its own limits, from its heartbeat", () => {
  const counted = new Map([
    [
      "big.1",
      new Map([
        ["lobby", 5],
        ["room", 5],
      ]),
    ],
    [
      "small.1",
      new Map([
        ["lobby", 1],
        ["room", 1],
      ]),
    ],
    [
      "old.1",
      new Map([
        ["lobby", 1],
        ["room", 1],
      ]),
    ],
  ]);
  const loads = peerLoads(
    [
      peer("big", { load: 9, limits: { maxLobbies: 50, maxRooms: 50 } }),
      peer("small", { load: 0, limits: { maxLobbies: 1, maxRooms: 1 } }),
      // A node of an older release: no limits in its heartbeat, so this node's own are assumed.
      peer("old", { load: 5 }),
    ],
    (p) => counted.get(p.incarnation),
  );

  it("a new lobby skips a peer at its own lower limit and takes one above this node's", () => {
    // This node holds its 3 lobbies; `big` holds 5, more than 3, but below its own 50.
    const full = { draining: false, lobbies: 3 };
    expect(placeNewLobby(full, loads, 3)).toEqual({ kind: "elsewhere", url: "ws://old/ws", reason: "full" });
    expect(
      placeNewLobby(
        full,
        loads.filter((l) => l.node !== "old"),
        3,
      ),
    ).toEqual({
      kind: "elsewhere",
      url: "ws://big/ws",
      reason: "full",
    });
    // `small` (1 of its 1) is never taken, though it has the fewest lobbies and the least load.
    expect(
      placeNewLobby(
        full,
        loads.filter((l) => l.node === "small"),
        3,
      ),
    ).toMatchObject({ kind: "full" });
  });

  it("a match room goes to a peer below its own room limit, none null means no limit", () => {
    expect(withRoomFor(loads, "room", 3).map((p) => p.node)).toEqual(["big", "old"]);
    expect(
      roomHostAmong(
        undefined,
        loads.filter((l) => l.node !== "old"),
        3,
        () => false,
      )?.node,
    ).toBe("big");
    const unlimited = peerLoads(
      [peer("u", { limits: { maxLobbies: null, maxRooms: null } })],
      () => new Map([["room", 1_000]]),
    );
    expect(withRoomFor(unlimited, "room", 3).map((p) => p.node)).toEqual(["u"]);
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
