import { describe, expect, it } from "vitest";
import { fuzzFailed, type FuzzSummary } from "../../ops/fuzz/run-fuzz.ts";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import { seededRandom } from "../../actors/runtime/index.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { fuzzFields, nextFuzzMessage, setPath, type FuzzIntel } from "../../ops/fuzz/fuzz-frames.ts";
import {
  AnswerLedger,
  HonestPair,
  clientFrameTypes,
  exampleFrames,
  owedFor,
  viewMatches,
} from "../../ops/fuzz/index.ts";
import type { FoyerClient, LobbyView } from "../../gateway/client/index.ts";

/** A stand-in SDK client: `create` answers a code, other ops succeed; lobby frames are delivered by hand. */
function fakeBot(): FoyerClient & { deliver(view: LobbyView): void } {
  const listeners: ((view: LobbyView) => void)[] = [];
  return {
    on: (event: string, listener: (view: LobbyView) => void) => {
      if (event === "lobby") listeners.push(listener);
    },
    create: () => Promise.resolve({ code: "AB12CD" }),
    join: () => Promise.resolve(),
    ready: () => Promise.resolve(),
    leave: () => Promise.resolve(),
    lobby: null,
    deliver: (view: LobbyView) => {
      for (const listener of listeners) listener(view);
    },
  } as unknown as FoyerClient & { deliver(view: LobbyView): void };
}

describe("the fuzz checker", () => {
  it("has a valid example of every client frame type", () => {
    for (const type of clientFrameTypes()) {
      expect(clientFrameSchema.safeParse(exampleFrames[type]).success, type).toBe(true);
    }
  });

  it("counts a planted unanswered frame, and not an answered one", () => {
    const ledger = new AnswerLedger();
    ledger.sent(owedFor(encodeFrame({ type: "ready", id: 7, ready: "x" }, "msgpack"), 65_536));
    ledger.sent(owedFor(encodeFrame({ type: "ready", id: 8, ready: "x" }, "msgpack"), 65_536));
    ledger.sent(owedFor("{garbage", 65_536));
    ledger.received({ type: "error", id: 7, code: "INVALID", message: "" });
    ledger.received({ type: "error", code: "INVALID", message: "" });
    expect(ledger.finish()).toEqual({ sent: 3, unanswered: 1, stray: 0 });
  });

  it("does not count an error with an unknown code as an answer", () => {
    const ledger = new AnswerLedger();
    ledger.sent({ kind: "id", id: 1 });
    ledger.received({ type: "error", id: 1, code: "OOPS", message: "" });
    expect(ledger.finish()).toEqual({ sent: 1, unanswered: 1, stray: 1 });
  });

  it("takes a known close code as the answer to what is owed, and not a 1006", () => {
    const known = new AnswerLedger();
    known.sent({ kind: "close" });
    known.closed(4009);
    expect(known.finish().unanswered).toBe(0);
    const dropped = new AnswerLedger();
    dropped.sent({ kind: "id", id: 3 });
    dropped.closed(1006);
    expect(dropped.finish().unanswered).toBe(1);
  });

  it("catches a planted lobby change: a member nobody honest added, a ready flag nobody set", () => {
    const view = (members: [string, boolean][]): LobbyView =>
      ({
        code: "AB12CD",
        host: "h",
        members: members.map(([player, ready]) => ({ player, ready })),
      }) as unknown as LobbyView;
    const model = { host: "h", members: { h: true, g: false } };
    expect(
      viewMatches(
        view([
          ["h", true],
          ["g", false],
        ]),
        model,
      ),
    ).toBe(true);
    expect(
      viewMatches(
        view([
          ["h", true],
          ["g", false],
          ["fuzz-1-0", false],
        ]),
        model,
      ),
    ).toBe(false);
    expect(
      viewMatches(
        view([
          ["h", true],
          ["g", true],
        ]),
        model,
      ),
    ).toBe(false);
    expect(viewMatches(null, model)).toBe(false);
  });

  it("a pair counts a lobby frame no honest op explains: a stranger in its lobby, a flag nobody set", async () => {
    const host = fakeBot();
    const guest = fakeBot();
    const pair = new HonestPair(host, guest, "h", "g", () => undefined);
    let checks = 0;
    // Stopped from the second check on: the pair ends once both are in its lobby (create, join; acked).
    await pair.run(() => ++checks > 1, 0);
    expect(pair.acked).toBe(2);
    const lobby = (members: [string, boolean][]): LobbyView =>
      ({
        code: "AB12CD",
        host: "h",
        members: members.map(([player, ready]) => ({ player, ready })),
      }) as unknown as LobbyView;
    host.deliver(
      lobby([
        ["h", false],
        ["g", false],
      ]),
    );
    expect(pair.changed).toBe(0);
    host.deliver(
      lobby([
        ["h", false],
        ["g", false],
        ["fuzz-3-1", false],
      ]),
    );
    expect(pair.changed).toBe(1);
    guest.deliver(
      lobby([
        ["h", false],
        ["g", true],
      ]),
    );
    expect(pair.changed).toBe(2);
    expect(pair.samples[0]).toContain("fuzz-3-1");
  });

  it("makes messages of many seeds without throwing, walking every field", () => {
    const intel: FuzzIntel = {
      honestCodes: new Set(["AB12CD"]),
      honestPlayers: ["honest-0-host"],
      resumeTokens: [],
      fieldsHit: new Set(),
    };
    const hello = { type: "hello", protocol: 1, token: "a.b.c" };
    for (let seed = 1; seed <= 20; seed++) {
      const random = seededRandom(seed);
      const cursor = { nextId: 1, field: seed * 7 };
      for (let i = 0; i < 1_000; i++) nextFuzzMessage(random, intel, cursor, 1_024, hello);
    }
    expect(intel.fieldsHit.size).toBe(fuzzFields.length);
  });

  it("makes every field wrong on the walk's first pass, whatever the rolls", () => {
    const intel: FuzzIntel = {
      honestCodes: new Set(),
      honestPlayers: [],
      resumeTokens: [],
      fieldsHit: new Set(),
    };
    // Rolls that ask for a wrong-type frame each time, and then for an unknown field beside the walked one
    // (not the walked field itself), with no second field.
    const rolls: Record<number, number> = { 5: 1, 1000: 0, 10: 9, 4: 1 };
    const random = { int: (max: number) => rolls[max] ?? 0 };
    const cursor = { nextId: 1, field: 0 };
    const hello = { type: "hello", protocol: 1, token: "a.b.c" };
    for (const _ of fuzzFields) nextFuzzMessage(random, intel, cursor, 1_024, hello);
    expect(intel.fieldsHit.size).toBe(fuzzFields.length);
  });

  it("does not go into a field an earlier mutation made a byte array (a map there threw, and stopped a run)", () => {
    const frame: Record<string, unknown> = { type: "heldTurns", id: 1, turns: new Uint8Array(3) };
    const polluting = JSON.parse('{"__proto__":{"a":1},"toString":1}') as unknown;
    expect(() => {
      setPath(frame, ["turns", "0"], polluting);
    }).not.toThrow();
    setPath(frame, ["__proto__"], new Uint8Array(2));
    expect(Object.getPrototypeOf(frame)).toBe(Object.prototype);
    expect(Object.keys(frame)).toContain("__proto__");
  });
});

describe("a fuzz run's verdict", () => {
  const clean: FuzzSummary = {
    seed: 1,
    frames: 10,
    connections: 1,
    crashes: 0,
    changedLobbies: 0,
    unanswered: 0,
    hijacked: 0,
    categories: {},
    fieldsCovered: 0,
    fieldsTotal: 0,
    closes: {},
    errorsByCode: { INVALID: 9 },
    stray: 0,
    nodeErrors: 0,
    honestAckedOps: 1,
    honestFailedOps: 0,
    seconds: 1,
    rate: 10,
    samples: [],
  };

  it("fails on an INTERNAL answer or an error the node logged, as on a crash", () => {
    expect(fuzzFailed(clean)).toBe(false);
    expect(fuzzFailed({ ...clean, errorsByCode: { INVALID: 8, INTERNAL: 1 } })).toBe(true);
    expect(fuzzFailed({ ...clean, nodeErrors: 1 })).toBe(true);
    expect(fuzzFailed({ ...clean, crashes: 1 })).toBe(true);
    expect(fuzzFailed({ ...clean, stray: 3 })).toBe(false); // reported, not a failure
  });
});
