import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";

/**
 * Player identity tokens: compact JWTs signed with HMAC-SHA256 (`alg: HS256`) and a key id (`kid`), so a
 * studio's backend can mint them with any JWT library, and keys can be rotated by accepting several.
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

const headerSchema = z.object({ alg: z.literal("HS256"), kid: z.string() });
const claimsSchema = z.object({
  sub: z.string().min(1).max(128),
  name: z.string().min(1).max(32),
  exp: z.number().int(),
});

/** Why a token was refused. */
export type TokenRefusal = "malformed" | "unknown key" | "bad signature" | "expired";

const b64 = (value: string | Buffer): string => Buffer.from(value).toString("base64url");

function signature(input: string, secret: string): Buffer {
  return createHmac("sha256", secret).update(input).digest();
}

/** Signs claims with a key. */
export function signPlayerToken(claims: PlayerClaims, key: TokenKey): string {
  const head = b64(JSON.stringify({ alg: "HS256", typ: "JWT", kid: key.id }));
  const body = b64(JSON.stringify(claims));
  return `${head}.${body}.${signature(`${head}.${body}`, key.secret).toString("base64url")}`;
}

/** Verifies a token against the accepted keys at `nowMs`. Never throws. */
export function verifyPlayerToken(
  token: string,
  keys: readonly TokenKey[],
  nowMs: number,
): { ok: true; claims: PlayerClaims } | { ok: false; why: TokenRefusal } {
  const parts = token.split(".");
  if (parts.length !== 3) return { ok: false, why: "malformed" };
  const [head, body, sig] = parts as [string, string, string];
  const header = parseJson(head, headerSchema);
  if (!header) return { ok: false, why: "malformed" };
  const key = keys.find((k) => k.id === header.kid);
  if (!key) return { ok: false, why: "unknown key" };
  const expected = signature(`${head}.${body}`, key.secret);
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, why: "bad signature" };
  const claims = parseJson(body, claimsSchema);
  if (!claims) return { ok: false, why: "malformed" };
  if (claims.exp * 1000 <= nowMs) return { ok: false, why: "expired" };
  return { ok: true, claims };
}

function parseJson<T>(part: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(part, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}
