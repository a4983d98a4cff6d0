import { readFileSync } from "node:fs";
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from "jose";
import type { Logger } from "pino";
import type { TokenKey } from "./player-token.ts";
import { PlayerTokenVerifier } from "./player-token-verifier.ts";
import { RemoteKeySet } from "./remote-key-set.ts";

/** The node's settings that say how player tokens are checked (`--jwks-url`, `--token-issuer`, …). */
export interface PlayerTokenSettings {
  readonly jwksUrl?: string | undefined;
  readonly jwksFile?: string | undefined;
  readonly jwksCooldownS: number;
  readonly tokenIssuer: readonly string[];
  readonly tokenAudience: readonly string[];
  readonly tokenPlayerClaim: string;
  readonly tokenNameClaim: string;
  readonly tokenClockSkewS: number;
}

/** Keys fetched from a provider are fetched again after this long, even when every `kid` is known. */
const jwksMaxAgeMs = 10 * 60_000;
/** A provider that does not answer in this long has failed this fetch. */
const jwksTimeoutMs = 5_000;

/**
 * The node's token verifier: its HS256 keys, plus the provider's key set when `--jwks-url` or
 * `--jwks-file` is given (a file is read once, here: an unreadable one stops the node from starting).
 */
export function playerTokenVerifierOf(
  settings: PlayerTokenSettings,
  keys: readonly TokenKey[],
  log: Pick<Logger, "warn">,
): PlayerTokenVerifier {
  return new PlayerTokenVerifier({
    keys,
    ...keySetOf(settings, log),
    issuer: settings.tokenIssuer,
    audience: settings.tokenAudience,
    playerClaim: settings.tokenPlayerClaim,
    nameClaim: settings.tokenNameClaim,
    clockSkewS: settings.tokenClockSkewS,
  });
}

function keySetOf(settings: PlayerTokenSettings, log: Pick<Logger, "warn">): { keySet?: JWTVerifyGetKey } {
  if (settings.jwksUrl !== undefined) {
    const url = settings.jwksUrl;
    const remote = new RemoteKeySet({
      url: new URL(url),
      cooldownMs: settings.jwksCooldownS * 1000,
      maxAgeMs: jwksMaxAgeMs,
      timeoutMs: jwksTimeoutMs,
      onFetchFailed: (error) => {
        log.warn({ url, err: error }, "could not fetch the player token keys (JWKS)");
      },
    });
    return { keySet: remote.getKey };
  }
  if (settings.jwksFile !== undefined) {
    const file = settings.jwksFile;
    try {
      return { keySet: createLocalJWKSet(JSON.parse(readFileSync(file, "utf8")) as JSONWebKeySet) };
    } catch (error) {
      throw new Error(
        `the JWKS file ${file} is not a readable JSON Web Key Set: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
  }
  return {};
}
