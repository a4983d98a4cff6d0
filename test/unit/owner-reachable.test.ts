import { describe, expect, it } from "vitest";
import { ownerReachable, type PeerView } from "../../fleet/index.ts";

// A gateway redirects a player to a key's owner only while that owner's heartbeat is fresh.

const failureTimeoutMs = 3_000;

function peer(heardAt: number | undefined, state: PeerView["state"] = "live", tombstoned = false): PeerView {
  return {
    node: "b",
    incarnation: "b.1",
    state,
    ...(heardAt === undefined ? {} : { heardAt }),
    heartbeat: tombstoned
      ? null
      : {
          incarnation: "b.1",
          url: "ws://b/ws",
          region: "",
          load: 0,
          draining: false,
          version: "test",
          protocol: 1,
          beat: 1,
        },
  };
}

describe("ownerReachable", () => {
  it("is reachable while its heartbeat is younger than half the failure timeout", () => {
    expect(ownerReachable(peer(10_000), 10_000, failureTimeoutMs)).toBe(true);
    expect(ownerReachable(peer(10_000), 11_000, failureTimeoutMs)).toBe(true);
    expect(ownerReachable(peer(10_000), 11_500, failureTimeoutMs)).toBe(true);
  });

  it("is not once the heartbeat is older than half the failure timeout, long before it is suspected", () => {
    expect(ownerReachable(peer(10_000), 11_501, failureTimeoutMs)).toBe(false);
    expect(ownerReachable(peer(10_000), 12_900, failureTimeoutMs)).toBe(false);
  });

  it("scales with the failure timeout", () => {
    expect(ownerReachable(peer(0), 700, 1_500)).toBe(true);
    expect(ownerReachable(peer(0), 800, 1_500)).toBe(false);
  });

  it("is not when it is tombstoned or dead", () => {
    expect(ownerReachable(peer(10_000, "dead"), 10_000, failureTimeoutMs)).toBe(false);
    expect(ownerReachable(peer(10_000, "dead", true), 10_000, failureTimeoutMs)).toBe(false);
  });

  it("is when nothing says when it was heard", () => {
    expect(ownerReachable(peer(undefined), 1e9, failureTimeoutMs)).toBe(true);
  });
});
