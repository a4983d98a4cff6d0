import { createHmac, timingSafeEqual } from "node:crypto";
import { z } from "zod";
import type { PlayerClaims, TokenKey } from "../../gateway/index.ts";

/*
 * The hand-written HS256 check the gateway used before its tokens were checked with jose, kept only as
 * the token bench's yardstick: what one check can cost when nothing but the HMAC and two JSON parses run.
 */

const headerSchema = z.object({ alg: z.literal("HS256"), kid: z.string() });
const claimsSchema = z.object({
  sub: z.string().min(1).max(128),
  name: z.string().min(1).max(32),
  exp: z.number().int(),
});

function parseJson<T>(part: string, schema: z.ZodType<T>): T | undefined {
  try {
    const parsed = schema.safeParse(JSON.parse(Buffer.from(part, "base64url").toString("utf8")));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** The old check of an HS256 player token against `keys` at `nowMs`: its claims, or undefined. */
export function handWrittenVerify(
  token: string,
  keys: readonly TokenKey[],
  nowMs: number,
): PlayerClaims | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [head, body, sig] = parts as [string, string, string];
  const header = parseJson(head, headerSchema);
  if (!header) return undefined;
  const key = keys.find((k) => k.id === header.kid);
  if (!key) return undefined;
  const expected = createHmac("sha256", key.secret).update(`${head}.${body}`).digest();
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  const claims = parseJson(body, claimsSchema);
  if (!claims || claims.exp * 1000 <= nowMs) return undefined;
  return claims;
}
