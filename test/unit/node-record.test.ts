import { pack } from "msgpackr";
import { describe, expect, it } from "vitest";
import { decodeNodeRecord, encodeNodeRecord, type Heartbeat } from "../../fleet/index.ts";
import { heartbeatLimitsOf, heartbeatSchema } from "../../fleet/protocol/index.ts";

/** The heartbeat record across releases: its limits are read when there, and older or newer records still read. */

const beat: Heartbeat = {
  incarnation: "a.1",
  url: "ws://a/ws",
  region: "eu",
  load: 3,
  draining: false,
  version: "test",
  protocol: 1,
  beat: 7,
};

describe("the heartbeat record", () => {
  it("carries the node's limits", () => {
    const withLimits = { ...beat, limits: { maxLobbies: 10, maxRooms: null } };
    expect(decodeNodeRecord(encodeNodeRecord(withLimits))).toEqual(withLimits);
  });

  it("a record of an older release (no limits) reads without them", () => {
    expect(decodeNodeRecord(pack(beat))).toEqual(beat);
  });

  it("a record of a later release (a field this one does not know) still reads as live", () => {
    expect(decodeNodeRecord(pack({ ...beat, later: { x: 1 } }))).toEqual(beat);
  });

  it("bad limits are refused, as any corrupt record", () => {
    expect(() => decodeNodeRecord(pack({ ...beat, limits: { maxLobbies: -1, maxRooms: 0 } }))).toThrow();
  });

  it("names the limits only when told to, so a node of an earlier release (strict record) still reads it", () => {
    const earlierRelease = heartbeatSchema.omit({ limits: true }).strict();
    const off = { ...beat, ...heartbeatLimitsOf({ maxLobbies: 10, maxRooms: 5 }) };
    expect(earlierRelease.safeParse(off).success).toBe(true);
    const on = { ...beat, ...heartbeatLimitsOf({ heartbeatLimits: true, maxLobbies: 10, maxRooms: 5 }) };
    expect(on.limits).toEqual({ maxLobbies: 10, maxRooms: 5 });
    expect(earlierRelease.safeParse(on).success).toBe(false);
  });
});
