import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../ops/config.ts";

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
});
