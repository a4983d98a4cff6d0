import { createHmac, timingSafeEqual } from "node:crypto";

/**
 * Resume tokens name a session and its player, signed with the cluster's session secret, so any node of
 * the cluster can check one without a lookup: `<session>.<player b64url>.<hmac>`.
 */
export function signResumeToken(session: string, player: string, secret: string): string {
  const body = `${session}.${Buffer.from(player).toString("base64url")}`;
  return `${body}.${createHmac("sha256", secret).update(body).digest("base64url")}`;
}

/** Reads a resume token; undefined when malformed or forged. */
export function verifyResumeToken(
  token: string,
  secret: string,
): { session: string; player: string } | undefined {
  const parts = token.split(".");
  if (parts.length !== 3) return undefined;
  const [session, player, sig] = parts as [string, string, string];
  const expected = createHmac("sha256", secret).update(`${session}.${player}`).digest();
  const given = Buffer.from(sig, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  return { session, player: Buffer.from(player, "base64url").toString("utf8") };
}
