import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { ConfigError, loadConfig } from "../../ops/config.ts";
import { isDevMode, tokenKeysOf } from "../../ops/node/dev-mode.ts";

function refusal(flags: Record<string, string>, env: Record<string, string> = {}): ConfigError {
  try {
    loadConfig(flags, env);
  } catch (error) {
    if (error instanceof ConfigError) return error;
    throw error;
  }
  throw new Error("the configuration was accepted");
}

const secret = "0123456789abcdefXYZ";
const production = { production: "true", sessionSecret: "s".repeat(32) };
const jwksUrl = "https://auth.example.com/.well-known/jwks.json";

describe("settings for a provider's player tokens", () => {
  it("reads the JWKS, issuer, audience, claim names and clock skew from flags and FOYER_* variables", () => {
    const config = loadConfig(
      { jwksUrl, tokenAudience: "game-a, game-b" },
      {
        FOYER_TOKEN_ISSUER: "https://auth.example.com/",
        FOYER_TOKEN_PLAYER_CLAIM: "user_id",
        FOYER_TOKEN_NAME_CLAIM: "nickname",
        FOYER_TOKEN_CLOCK_SKEW_S: "60",
        FOYER_JWKS_COOLDOWN_S: "10",
      },
    );
    expect(config).toMatchObject({
      jwksUrl,
      tokenIssuer: ["https://auth.example.com/"],
      tokenAudience: ["game-a", "game-b"],
      tokenPlayerClaim: "user_id",
      tokenNameClaim: "nickname",
      tokenClockSkewS: 60,
      jwksCooldownS: 10,
    });
    expect(loadConfig({}, {})).toMatchObject({
      tokenPlayerClaim: "sub",
      tokenNameClaim: "name",
      tokenClockSkewS: 0,
    });
    expect(refusal({ jwksUrl: "ftp://auth.example.com/jwks" }).setting).toBe("jwksUrl");
    expect(refusal({ tokenClockSkewS: "-1" }).setting).toBe("tokenClockSkewS");
    expect(refusal({ jwksUrl, jwksFile: "/etc/jwks.json" }).setting).toBe("jwksFile");
  });

  it("a production node starts with a JWKS instead of HS256 keys, but never with no way to check tokens", () => {
    expect(refusal(production).message).toContain("--jwks-url");
    expect(refusal(production).setting).toBe("tokenKeys");
    const issuer = { tokenIssuer: "https://auth.example.com/" };
    expect(loadConfig({ ...production, ...issuer, jwksUrl }, {}).tokenKeys).toEqual([]);
    expect(loadConfig({ ...production, ...issuer, jwksFile: "/etc/jwks.json" }, {}).jwksFile).toBe(
      "/etc/jwks.json",
    );
    expect(loadConfig({ ...production, tokenKeys: `k1:${secret}` }, {}).tokenIssuer).toEqual([]);
  });

  it("production with a JWKS needs an issuer to check, and the keys over TLS", () => {
    expect(refusal({ ...production, jwksUrl }).setting).toBe("tokenIssuer");
    const issuer = { tokenIssuer: "https://auth.example.com/" };
    expect(refusal({ ...production, ...issuer, jwksUrl: "http://auth.example.com/jwks.json" }).setting).toBe(
      "jwksUrl",
    );
    expect(
      loadConfig({ ...production, ...issuer, jwksUrl: "http://127.0.0.1:8080/jwks.json" }, {}).production,
    ).toBe(true);
  });

  it("a node checking its provider's tokens is not in dev mode and makes up no key", () => {
    const config = loadConfig({ jwksUrl }, {});
    expect(isDevMode(config)).toBe(false);
    expect(tokenKeysOf(config, pino({ level: "silent" }))).toEqual([]);
    expect(isDevMode(loadConfig({}, {}))).toBe(true);
  });
});
