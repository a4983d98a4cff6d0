import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../ops/config.ts";
import { lobbyOptionsOf } from "../../ops/node/node-kinds.ts";

function refusal(flags: Record<string, string>, env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(flags, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

describe("node configuration", () => {
  it("takes flags over environment over defaults", () => {
    expect(loadConfig({}, {}).port).toBe(7350);
    expect(loadConfig({}, { FOYER_PORT: "9000" }).port).toBe(9000);
    expect(loadConfig({ port: "9100" }, { FOYER_PORT: "9000" }).port).toBe(9100);
    expect(loadConfig({}, { FOYER_TEAM_SIZES: "duel:1,big:5" }).teamSizes).toEqual({ duel: 1, big: 5 });
  });

  it("names the bad setting, its flag and its variable", () => {
    const error = refusal({ port: "seventy" });
    expect(error.setting).toBe("port");
    expect(error.message).toContain("--port");
    expect(error.message).toContain("FOYER_PORT");
    expect(refusal({}, { FOYER_MAX_FRAME_BYTES: "-1" }).setting).toBe("maxFrameBytes");
    expect(refusal({ teamSizes: "duel=1" }).setting).toBe("teamSizes");
    expect(refusal({ production: "maybe" }).setting).toBe("production");
  });

  it("takes the drain's concurrency, 48 moves at once by default, from 1 to 1,024", () => {
    expect(loadConfig({}, {}).drainConcurrency).toBe(48);
    expect(loadConfig({}, { FOYER_DRAIN_CONCURRENCY: "8" }).drainConcurrency).toBe(8);
    expect(refusal({ drainConcurrency: "0" }).setting).toBe("drainConcurrency");
    expect(refusal({ drainConcurrency: "5000" }).message).toContain("--drain-concurrency");
  });

  it("checks lobby limits with the lobby's own schema", () => {
    expect(refusal({ maxMembers: "500" }).message).toContain("--max-members");
    expect(refusal({ lobbyGraceSeconds: "90000" }).setting).toBe("lobbyGraceSeconds");
  });

  it("reads false as false", () => {
    expect(loadConfig({ production: "false" }, {}).production).toBe(false);
  });

  it("refuses production without a token key or a session secret", () => {
    expect(refusal({ production: "true" }).setting).toBe("tokenKeys");
    expect(refusal({ production: "true", tokenKeys: "k1:0123456789abcdefXYZ" }).setting).toBe(
      "sessionSecret",
    );
    const ok = loadConfig(
      {
        production: "true",
        tokenKeys: "k1:0123456789abcdefXYZ,k2:abcdefghijklmnopqrs",
        sessionSecret: "s".repeat(32),
      },
      {},
    );
    expect(ok.tokenKeys).toHaveLength(2);
  });

  it("refuses short token secrets", () => {
    expect(refusal({ tokenKeys: "k1:short" }).setting).toBe("tokenKeys");
  });

  it("takes a heartbeat interval of 100 ms or more", () => {
    expect(loadConfig({}, {}).heartbeatMs).toBe(15_000);
    expect(loadConfig({}, { FOYER_HEARTBEAT_MS: "250" }).heartbeatMs).toBe(250);
    const error = refusal({}, { FOYER_HEARTBEAT_MS: "99" });
    expect(error.setting).toBe("heartbeatMs");
    expect(error.message).toContain("--heartbeat-ms");
  });

  it("takes a code alphabet, checks it, and hands it to the lobbies", () => {
    expect(loadConfig({}, {}).codeAlphabet).toBe("ABCDEFGHJKLMNPQRSTUVWXYZ23456789");
    const config = loadConfig({}, { FOYER_CODE_ALPHABET: "XYZ2" });
    expect(lobbyOptionsOf(config).codeAlphabet).toBe("XYZ2");
    // Codes are upper-cased when typed, so lower case could never be typed back; repeats skew draws.
    expect(refusal({ codeAlphabet: "abcd" }).setting).toBe("codeAlphabet");
    expect(refusal({ codeAlphabet: "AAB" }).setting).toBe("codeAlphabet");
    // The lobby's own schema: at least two characters.
    const short = refusal({}, { FOYER_CODE_ALPHABET: "A" });
    expect(short.setting).toBe("codeAlphabet");
    expect(short.message).toContain("--code-alphabet");
    expect(short.message).toContain("FOYER_CODE_ALPHABET");
  });
});
