import { describe, expect, it } from "vitest";
import { clientFrameSchema } from "../../gateway/protocol/client-frames.ts";
import { encodeFrame } from "../../gateway/protocol/codec.ts";
import { AnswerLedger, clientFrameTypes, exampleFrames, owedFor, viewMatches } from "../../ops/fuzz/index.ts";
import type { LobbyView } from "../../gateway/client/index.ts";

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
});
