import { createHmac } from "node:crypto";

/**
 * Player identity tokens: compact JWTs. A studio's backend signs them with HMAC-SHA256 (`alg: HS256`) and
 * a key id (`kid`), so any JWT library can mint them and keys can be rotated by accepting several; or the
 * studio's identity provider signs them with a public key it publishes as a JWKS (`PlayerTokenVerifier`).
 */

/** A signing key: its id (the token's `kid`) and its secret. */
export interface TokenKey {
  readonly id: string;
  readonly secret: string;
}

/** What a token says about its player. */
export interface PlayerClaims {
  /** The player id. */
  readonly sub: string;
  /** The display name. */
  readonly name: string;
  /** Expiry, seconds since the epoch. */
  readonly exp: number;
}

const b64 = (value: string | Buffer): string => Buffer.from(value).toString("base64url");

/** Signs claims with a key (HS256): the dev token route, the tools and the tests mint tokens with it. */
export function signPlayerToken(claims: PlayerClaims, key: TokenKey): string {
  const head = b64(JSON.stringify({ alg: "HS256", typ: "JWT", kid: key.id }));
  const body = b64(JSON.stringify(claims));
  const sig = createHmac("sha256", key.secret).update(`${head}.${body}`).digest("base64url");
  return `${head}.${body}.${sig}`;
}
