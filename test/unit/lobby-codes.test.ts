import { describe, expect, it } from "vitest";
import { defaultLobbyOptions, lobbyOptionsSchema, teamSizeOf } from "../../actors/lobby/index.ts";
import { drawCode, normalizeCode } from "../../actors/common/index.ts";
import { seededRandom } from "../../actors/runtime/seeded-random.ts";

describe("codes and options (SPEC §1 Codes)", () => {
  it("normalizeCode trims and upper-cases", () => {
    expect(normalizeCode("  abc12x \n")).toBe("ABC12X");
    expect(normalizeCode("ABC123")).toBe("ABC123");
    expect(normalizeCode("   ")).toBe("");
  });

  it("drawCode draws codeLength characters from the alphabet, repeatably for a seed", () => {
    const { codeLength, codeAlphabet } = defaultLobbyOptions;
    const a = drawCode(seededRandom(42), codeLength, codeAlphabet);
    expect(a).toHaveLength(6);
    expect(a).toMatch(/^[ABCDEFGHJKLMNPQRSTUVWXYZ2-9]{6}$/);
    expect(drawCode(seededRandom(42), codeLength, codeAlphabet)).toBe(a);
    expect(drawCode(seededRandom(43), codeLength, codeAlphabet)).not.toBe(a);
    expect(drawCode({ int: () => 0 }, 4, "XY")).toBe("XXXX");
    expect(drawCode({ int: (n) => n - 1 }, 3, "XYZ")).toBe("ZZZ");
  });

  it("the defaults are the seed's", () => {
    expect(defaultLobbyOptions).toEqual({
      codeLength: 6,
      codeAlphabet: "ABCDEFGHJKLMNPQRSTUVWXYZ23456789",
      maxMembers: 8,
      teamSizes: { duel: 1, duo: 2, trio: 3, squad: 4, ffa: 0 },
      botSeatIdBase: 50,
      returnAfterEndSeconds: 5,
      reconnectGraceSeconds: 30,
      lobbyGraceSeconds: 10,
      failoverGraceSeconds: 60,
      roomCodeLength: 6,
      roomCodeAlphabet: "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
      lobbyData: { maxKeys: 32, maxKeyLength: 64, maxValueBytes: 1024, maxTotalBytes: 8192 },
      memberData: { maxKeys: 32, maxKeyLength: 64, maxValueBytes: 1024, maxTotalBytes: 8192 },
      maxBans: 256,
      chatMaxLength: 500,
      chatBurst: 5,
      chatWindowSeconds: 5,
    });
  });

  it("options are validated: partial input is filled in, nonsense is refused", () => {
    expect(lobbyOptionsSchema.parse({ maxMembers: 4 }).maxMembers).toBe(4);
    expect(lobbyOptionsSchema.safeParse({ maxMembers: 0 }).success).toBe(false);
    expect(lobbyOptionsSchema.safeParse({ lobbyGraceSeconds: -1 }).success).toBe(false);
    expect(lobbyOptionsSchema.safeParse({ colour: "red" }).success).toBe(false);
  });

  it("teamSizeOf knows the configured modes only", () => {
    expect(teamSizeOf(defaultLobbyOptions, "duo")).toBe(2);
    expect(teamSizeOf(defaultLobbyOptions, "ffa")).toBe(0);
    expect(teamSizeOf(defaultLobbyOptions, "polo")).toBeUndefined();
    expect(teamSizeOf(defaultLobbyOptions, "toString")).toBeUndefined();
  });
});
